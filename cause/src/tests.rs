//! The transformations and the ledger-cause check on their own; the
//! catalogue on the real oracles is `repdiff/tests/it/causes_catalogue.rs`.

use super::*;

#[test]
fn ledger_causes_are_catalogue_names_or_uncatalogued_with_a_reason() {
    let valid = |s: &str| valid_ledger_cause(&s.parse().unwrap());
    assert!(valid("strip-bom"));
    assert!(valid("uncatalogued: an HTTP status case"));
    assert!(!valid("no-such-cause"));
    let names: std::collections::BTreeSet<&str> = CATALOGUE.iter().map(|t| t.name).collect();
    assert_eq!(names.len(), CATALOGUE.len(), "duplicate catalogue names");
}

#[test]
fn transformations_leave_inputs_without_their_feature_alone() {
    let plain = Input {
        body: b"User-agent: foo\nDisallow: /a\n".to_vec(),
        agent: "foo".into(),
        url: "http://example.test/a".into(),
    };
    for name in [
        "strip-bom",
        "remove-nul",
        "drop-fragment",
        "uppercase-escape-hex",
        "remove-star",
    ] {
        let t = CATALOGUE.iter().find(|t| t.name == name).expect("listed");
        assert_eq!((t.apply)(&plain), None, "{name}");
    }
    let dots = Input {
        url: "http://example.test/b/../a/./x".into(),
        ..plain.clone()
    };
    let t = CATALOGUE
        .iter()
        .find(|t| t.name == "remove-dot-segments")
        .expect("listed");
    assert_eq!(
        (t.apply)(&dots).map(|i| i.url),
        Some("http://example.test/a/x".into())
    );
}

#[test]
fn a_relative_url_is_made_absolute_and_an_agent_without_a_token_replaced() {
    let at = |url: &str, agent: &str| Input {
        body: b"User-agent: *\nDisallow: /a\n# unnamedbot\n".to_vec(),
        agent: agent.into(),
        url: url.into(),
    };
    let apply = |name: &str, i: &Input| {
        let t = CATALOGUE.iter().find(|t| t.name == name).expect("listed");
        (t.apply)(i)
    };
    let url_of = |u: &str| apply("absolute-url", &at(u, "t")).map(|i| i.url);
    assert_eq!(
        url_of("/private"),
        Some("http://example.test/private".into())
    );
    assert_eq!(url_of("//["), Some("http://example.test/".into()));
    assert_eq!(url_of("//h/p?q"), Some("http://example.test/p?q".into()));
    assert_eq!(url_of("?q"), Some("http://example.test/?q".into()));
    assert_eq!(url_of("http://example.test/a"), None);
    let agent_of = |a: &str| apply("token-agent", &at("http://example.test/", a)).map(|i| i.agent);
    assert_eq!(
        agent_of("0"),
        Some("unnamedbotz".into()),
        "a name the file holds is skipped"
    );
    assert_eq!(agent_of("\t"), Some("unnamedbotz".into()));
    assert_eq!(agent_of(""), Some("unnamedbotz".into()));
    assert_eq!(
        agent_of("MJ12bot"),
        None,
        "a token prefix is agent-product-token's"
    );
}

#[test]
fn space_before_a_colon_is_dropped_and_nothing_else_changes() {
    let t = CATALOGUE
        .iter()
        .find(|t| t.name == "drop-space-before-colon")
        .expect("listed");
    let input = |body: &[u8]| Input {
        body: body.to_vec(),
        agent: "t".into(),
        url: "http://example.test/".into(),
    };
    assert_eq!(
        (t.apply)(&input(b"User-agent: *\nDisallow \t: /a b\n")).map(|i| i.body),
        Some(b"User-agent: *\nDisallow: /a b\n".to_vec())
    );
    assert_eq!(
        (t.apply)(&input(b"User-agent: *\nDisallow: /\n  : x\n")),
        None
    );
}

#[test]
fn stray_percent_and_disallowed_url_octets_are_escaped() {
    let t = CATALOGUE
        .iter()
        .find(|t| t.name == "escape-url-octets")
        .expect("listed");
    let at = |url: &str| Input {
        body: b"User-agent: *\nDisallow: /\n".to_vec(),
        agent: "t".into(),
        url: url.into(),
    };
    let url_of = |u: &str| (t.apply)(&at(u)).map(|i| i.url);
    assert_eq!(
        url_of("http://example.test/%"),
        Some("http://example.test/%25".into())
    );
    assert_eq!(
        url_of("http://example.test/%%41"),
        Some("http://example.test/%25%41".into())
    );
    assert_eq!(
        url_of("http://example.test/a\"{ }"),
        Some("http://example.test/a%22%7B%20%7D".into())
    );
    assert_eq!(
        url_of("http://example.test/%C3%A4?q=1#%"),
        None,
        "escapes, query and fragment kept"
    );
    let abs = CATALOGUE
        .iter()
        .find(|t| t.name == "absolute-url")
        .expect("listed");
    assert_eq!(
        (abs.apply)(&at("/://")).map(|i| i.url),
        Some("http://example.test/://".into()),
        "`/` is no scheme"
    );
}

#[test]
fn disallowed_rule_octets_are_escaped_and_spaces_and_comments_kept() {
    let t = CATALOGUE
        .iter()
        .find(|t| t.name == "escape-rule-octets")
        .expect("listed");
    let body_of = |b: &[u8]| {
        (t.apply)(&Input {
            body: b.to_vec(),
            agent: "t".into(),
            url: "http://example.test/".into(),
        })
        .map(|i| i.body)
    };
    assert_eq!(
        body_of(b"User-agent: *\nDisallow: /\x1b|{%\n"),
        Some(b"User-agent: *\nDisallow: /%1B%7C%7B%25\n".to_vec())
    );
    assert_eq!(
        body_of(b"User-agent: a|b\nDisallow: /a b # x|y\nAllow: /%41\n"),
        None,
        "agent lines, spaces, comments and escapes are left alone"
    );
}

#[test]
fn a_star_value_is_cut_at_its_space_and_a_bare_rule_gets_its_slash() {
    let apply = |name: &str, body: &[u8]| {
        let t = CATALOGUE.iter().find(|t| t.name == name).expect("listed");
        (t.apply)(&Input {
            body: body.to_vec(),
            agent: "t".into(),
            url: "http://example.test/".into(),
        })
        .map(|i| i.body)
    };
    assert_eq!(
        apply(
            "cut-star-group-value",
            b"User-agent: * ow: x # c\nDisallow: /\n"
        ),
        Some(b"User-agent: *# c\nDisallow: /\n".to_vec())
    );
    assert_eq!(
        apply("cut-star-group-value", b"User-agent: *\nUser-agent: *bot\n"),
        None,
        "a lone star and a star glued to a name stay"
    );
    assert_eq!(
        apply("add-leading-slash", b"User-agent: *\nDisallow: private\n"),
        Some(b"User-agent: *\nDisallow: /private\n".to_vec())
    );
    assert_eq!(
        apply(
            "add-leading-slash",
            b"User-agent: *\nDisallow: /a\nAllow: *.gif\nDisallow: # c\nDisallow:\n"
        ),
        None,
        "slash, star, comment-only and empty values stay"
    );
}

/// A clearly named fake pair: agrees once the body has no `Allow` line or
/// its agent is lower-case — two transformations reconcile it, and the
/// catalogue tries `drop-allow-rules` first.
struct FakePairAllowOrCase;

impl PairAsk for FakePairAllowOrCase {
    fn ask(&mut self, input: &Input) -> (Label, Label) {
        let text = String::from_utf8_lossy(&input.body).to_ascii_lowercase();
        let has_allow = text.lines().any(|l| l.trim() == "allow: /");
        let reconciled = !has_allow || input.agent == input.agent.to_lowercase();
        if reconciled {
            (Label::Allowed, Label::Allowed)
        } else {
            (Label::Allowed, Label::Disallowed)
        }
    }
}

#[test]
fn the_catalogue_s_first_reconciling_cause_and_any_other_that_reconciles() {
    let input = Input {
        body: b"User-agent: *\nAllow: /\n\nUser-agent: bot\nDisallow: /\n".to_vec(),
        agent: "Bot".into(),
        url: "http://example.test/".into(),
    };
    let at = |name: &str| CATALOGUE.iter().position(|t| t.name == name);
    assert!(at("drop-allow-rules") < at("lowercase-agent"));
    let mut pair = FakePairAllowOrCase;
    assert_eq!(
        classify(&mut pair, &input),
        Some(Diagnosis::Catalogued("drop-allow-rules"))
    );
    assert!(reconciles(&mut pair, &input, "lowercase-agent"));
    assert!(!reconciles(&mut pair, &input, "remove-star"));
    assert!(!reconciles(&mut pair, &input, "no-such-cause"));
}

/// A diagnosis reads back as it is written and sorts as its text, so
/// tables keyed by it keep the order they had as strings.
#[test]
fn a_diagnosis_reads_back_and_sorts_as_its_text() {
    let all = [
        Diagnosis::Catalogued("strip-bom"),
        Diagnosis::Stacked("drop-allow-rules", "strip-bom"),
        Diagnosis::New,
        Diagnosis::Catalogued("drop-allow-rules"),
    ];
    for d in all {
        assert_eq!(d.to_string().parse::<Diagnosis>(), Ok(d));
    }
    let mut sorted = all.to_vec();
    sorted.sort();
    let mut texts: Vec<String> = all.iter().map(ToString::to_string).collect();
    texts.sort();
    assert_eq!(
        sorted.iter().map(ToString::to_string).collect::<Vec<_>>(),
        texts
    );
    assert!("no-such-cause".parse::<Diagnosis>().is_err());
    assert!("strip-bom+no-such".parse::<Diagnosis>().is_err());
}
