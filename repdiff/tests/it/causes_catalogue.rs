//! Each catalogue transformation neutralises a known ledger case, on the
//! real oracle: the pair (rfc9309, oracle) disagrees on the case's query as
//! the ledger entry pins it, and agrees once the transformation is applied.
//! A transformation that stopped neutralising (or a ledger entry that no
//! longer lists the case) fails its test. (Here, beside the product, because
//! the oracles embed CPython and this crate's build script puts the
//! interpreter PyO3 was built for on the test binary's rpath; the
//! transformations' own unit tests are in `cause/src/tests.rs`.)

use cause::*;
use engine::case::Corpus;
use engine::ledger::Ledger;
use engine::oracle::Oracle;
use std::path::PathBuf;
use std::sync::OnceLock;

fn root() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
}

fn corpus_and_ledger() -> &'static (Corpus, Ledger) {
    static LOADED: OnceLock<(Corpus, Ledger)> = OnceLock::new();
    LOADED.get_or_init(|| {
        let corpus = engine::case::load_dir(&root().join("cases/corpus"))
            .unwrap_or_else(|e| panic!("corpus: {e}"));
        let names = oracles::oracle_names(&root()).unwrap_or_else(|e| panic!("{e}"));
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        let files = oracles::ledger_files(&root()).unwrap_or_else(|e| panic!("ledger files: {e}"));
        let ledger = engine::ledger::load_files(&files, &corpus, &names)
            .unwrap_or_else(|e| panic!("ledger: {e}"));
        (corpus, ledger)
    })
}

fn make(name: &str) -> Box<dyn Oracle> {
    let entry = oracles::registry()
        .into_iter()
        .find(|e| e.name == name)
        .unwrap_or_else(|| panic!("oracle {name} is not registered"));
    (entry.make)().unwrap_or_else(|u| panic!("{u}\n=> run `repdiff setup` first"))
}

/// The transformation `name` neutralises `oracle`'s departure on `cell`
/// (`case#N`), which ledger entry `entry` explains.
fn neutralises(name: &str, entry: &str, cell: &str, oracle: &str) {
    let (corpus, ledger) = corpus_and_ledger();
    let e = ledger
        .get(entry)
        .unwrap_or_else(|| panic!("no ledger entry {entry}"));
    assert!(
        e.cases.iter().any(|c| c.to_string() == cell),
        "{entry} does not list {cell}"
    );
    assert!(
        e.oracles.iter().any(|o| o == oracle),
        "{entry} does not name {oracle}"
    );
    let r: engine::ledger::QueryRef = cell.parse().expect("case#N");
    let case = corpus.get(&r.case).expect("case in the corpus");
    let q = &case.queries[r.query.expect("case#N")].query;
    let input = Input {
        body: case.body.clone(),
        agent: q.agent.clone(),
        url: q.url.clone(),
    };
    let t = CATALOGUE
        .iter()
        .find(|t| t.name == name)
        .unwrap_or_else(|| panic!("no transformation {name}"));
    let mut reference = make(REFERENCE);
    let mut other = make(oracle);
    let mut pair = OraclePair::new(reference.as_mut(), other.as_mut());
    let before = pair.ask(&input);
    assert!(
        !agree(&before),
        "{cell}: {oracle} agrees with the reference: {before:?}"
    );
    let changed = (t.apply)(&input).unwrap_or_else(|| panic!("{name} does not apply to {cell}"));
    let after = pair.ask(&changed);
    assert!(
        agree(&after),
        "{name} does not neutralise {oracle} on {cell}: {before:?} -> {after:?}"
    );
}

/// Transformations whose ledger cases are only shown by external oracles
/// (Perl, Python subprocesses, the JVM): tested through their workers in
/// repdiff/tests/it/causes_external.rs.
const THROUGH_WORKERS: &[&str] = &[
    "remove-inner-bom",
    "decode-utf16",
    "normalise-line-ends",
    "drop-allow-rules",
    "separate-groups-with-blank-lines",
    "lowercase-agent",
    "token-agent",
    "drop-space-before-colon",
    "add-leading-slash",
];

macro_rules! neutralises {
    ($($test:ident: $name:literal, $entry:literal, $cell:literal, $oracle:literal;)*) => {
        $(#[test]
        fn $test() {
            neutralises($name, $entry, $cell, $oracle);
        })*

        /// Every catalogue transformation has a test above.
        #[test]
        fn every_transformation_is_tested() {
            let mut tested = vec![$($name),*];
            tested.extend(THROUGH_WORKERS);
            for t in CATALOGUE {
                assert!(tested.contains(&t.name), "{} has no neutralisation test", t.name);
            }
        }
    };
}

neutralises! {
    strip_bom: "strip-bom", "leading-bom-stripped-or-kept", "kd-34-bom-before-user-agent#1", "cpython-3.11";
    strip_partial_bom: "strip-partial-bom", "partial-bom-stripped", "google-bom-partial-two-bytes#1", "google";
    remove_nul: "remove-nul", "nul-cuts-pattern", "enc-nul-inside-pattern#1", "google";
    drop_invalid_utf8: "drop-invalid-utf8", "non-utf8-body-raises-cpython-3-11", "enc-latin1-byte-in-pattern#1", "cpython-3.11";
    remove_extra_line_breaks: "remove-extra-line-breaks", "python-splitlines-line-breaks", "kd-35-line-separator-u2028#1", "cpython-3.15";
    trim_unicode_spaces: "trim-unicode-spaces", "fuzz-unicode-space-trimmed-from-rule", "fuzz-unicode-space-trimmed-from-rule#1", "texting-robots";
    trim_unicode_spaces_python: "trim-unicode-spaces", "fuzz-unicode-space-trimmed-from-rule", "fuzz-unicode-space-trimmed-from-rule#1", "cpython-3.15";
    drop_indentation: "drop-indentation", "line-length-cap-google", "google-line-too-long-leading-space#1", "google";
    add_missing_colon: "add-missing-colon", "missing-colon-lenient-or-strict", "kd-24-no-colons#1", "google";
    fix_misspelt_key: "fix-misspelt-key", "misspelt-keys-strict-or-lenient", "kd-23-dissallow-typo#1", "google";
    fix_key_prefix: "fix-key-prefix", "key-matched-by-prefix", "kd-22-disallowed-key#1", "google";
    escape_url_octets: "escape-url-octets", "url-parser-removes-tab-and-end-controls", "fuzz-url-parser-removes-characters#1", "texting-robots";
    escape_rule_octets: "escape-rule-octets", "url-path-encoded-with-another-set-texting-robots", "fuzz-url-special-chars-encoded-differently#1", "texting-robots";
    cut_star_group_value: "cut-star-group-value", "fuzz-star-then-token-user-agent", "fuzz-star-then-token-user-agent#1", "google";
    absolute_url: "absolute-url", "fuzz-network-path-url-raises-python", "fuzz-network-path-url-raises-python#1", "cpython-3.11";
    agent_product_token: "agent-product-token", "ua-agent-compared-verbatim", "seed-17#1", "texting-robots";
    rename_substring_groups: "rename-substring-groups", "ua-substring-match-cpython", "seed-18#1", "cpython-3.11";
    cut_group_token: "cut-group-token", "ua-group-token-cut-at-non-token-character", "kd-05-digit-in-group-value#1", "google";
    avoid_robots_txt_url: "avoid-robots-txt-url", "robots-txt-uri-not-special-google", "kd-21-robots-txt-itself#1", "google";
    drop_fragment: "drop-fragment", "fragment-kept-in-matched-path", "google-get-path-params-query#2", "texting-robots";
    slash_empty_path: "slash-empty-path", "empty-path-not-slash", "google-get-path-params-query#4", "cpython-3.15";
    remove_dot_segments: "remove-dot-segments", "dot-segments-removed", "kd-37-dot-segments#1", "texting-robots";
    uppercase_escape_hex: "uppercase-escape-hex", "escape-hex-case-in-pattern-texting-robots", "kd-41-lowercase-percent-escape#1", "texting-robots";
    decode_unreserved_escapes: "decode-unreserved-escapes", "unreserved-escapes-not-decoded", "kd-26-encoded-unreserved-in-rule#1", "google";
    decode_slash_escape: "decode-slash-escape", "encoded-slash-decoded-cpython", "kd-25-encoded-slash-in-rule#1", "cpython-3.15";
    decode_query_escapes: "decode-query-escapes", "reserved-query-escapes-decoded", "kd-29-encoded-equals-in-query#1", "protego";
    encode_special_url_chars: "encode-special-url-chars", "encoded-special-characters-not-literal", "kd-28-encoded-star-literal#1", "google";
    encode_non_ascii_url: "encode-non-ascii-url", "raw-non-ascii-url-not-encoded", "kd-27-raw-non-ascii-both-sides#1", "google";
    encode_non_ascii_rules: "encode-non-ascii-rules", "latin1-byte-in-pattern-octets-or-decoded", "enc-latin1-byte-in-pattern#1", "texting-robots";
    drop_query_mark: "drop-query-mark", "query-mark-dropped-from-pattern-cpython-3-11", "kd-30-disallow-empty-query#1", "cpython-3.11";
    drop_space_in_pattern: "drop-space-in-pattern", "space-inside-pattern-kept", "rob-space-inside-pattern#1", "google";
    cut_index_html: "cut-index-html", "index-html-as-directory-google", "kd-31-index-html-as-directory#1", "google";
    remove_dollar: "remove-dollar", "dollar-inside-pattern", "kd-18-dollar-in-middle#1", "texting-robots";
    remove_star: "remove-star", "no-wildcards-cpython-3-11", "kd-17-star-in-pattern#1", "cpython-3.11";
    drop_empty_disallow: "drop-empty-disallow", "empty-disallow-becomes-allow-all", "kd-16-empty-disallow-before-root#1", "texting-robots";
    drop_orphan_rules: "drop-orphan-rules", "orphan-rules-apply-to-all-texting-robots", "kd-40-rules-without-user-agent#1", "texting-robots";
    drop_other_records: "drop-other-records", "other-record-ends-user-agent-list-robotstxt-rs", "kd-10-sitemap-between-user-agents#1", "robotstxt-rs";
    drop_repeated_groups: "drop-repeated-groups", "group-first-match-only-cpython-3-11", "kd-33-two-groups-same-agent#1", "cpython-3.11";
    drop_blank_lines: "drop-blank-lines", "group-ends-at-blank-line-cpython-3-11", "kd-13-blank-line-after-user-agent#1", "cpython-3.11";
    reverse_rule_order: "reverse-rule-order", "first-match-wins-cpython-3-11", "kd-14-longer-allow-after-disallow-root#1", "cpython-3.11";
}

/// The minimiser keeps the pair's outcomes and names the cause the ledger
/// entry describes (seed-18: CPython's substring match of `bot` in MyBot).
#[test]
fn minimised_seed_18_is_named_by_its_cause() {
    let (corpus, _) = corpus_and_ledger();
    let case = corpus.get("seed-18").expect("seed-18");
    let q = &case.queries[0].query;
    let input = Input {
        body: case.body.clone(),
        agent: q.agent.clone(),
        url: q.url.clone(),
    };
    let mut reference = make(REFERENCE);
    let mut other = make("cpython-3.11");
    let mut pair = OraclePair::new(reference.as_mut(), other.as_mut());
    let named = name_cause(&mut pair, &input).expect("seed-18 diverges");
    assert_eq!(
        named.cause,
        Diagnosis::Catalogued("rename-substring-groups")
    );
    assert_eq!(pair.ask(&named.minimised), named.answers);
    assert!(named.minimised.body.len() <= input.body.len());
    assert_eq!(
        minimise(&mut pair, &named.minimised),
        named.minimised,
        "minimising a minimised input gives it back (a corpus case copied from it classifies alike)"
    );
}

/// A ledger cell where two known features come stacked names the stacked
/// pair, as the sweep does: cpython-3.15 on `User-Agent: foob# note 1`
/// asked by `foobt` (the group name cut at `#` *and* matched as a
/// substring) is `rename-substring-groups+cut-group-token`, which no single
/// transformation neutralises.
#[test]
fn a_ledger_cell_with_two_stacked_features_names_both() {
    let (corpus, ledger) = corpus_and_ledger();
    let entry = ledger
        .get("ua-substring-match-cpython")
        .expect("entry in the ledger")
        .clone();
    assert!(
        entry
            .cases
            .iter()
            .any(|c| c.to_string() == "sweep-comment-cut-group-name#1"),
        "the entry explains the stacked cell"
    );
    let one = Ledger {
        entries: vec![entry],
    };
    let mut all = vec![make(REFERENCE), make("cpython-3.15")];
    let known = repdiff::triage::causes::ledger_cell_causes(&one, corpus, &mut all);
    let stacked = (
        "cpython-3.15".to_string(),
        Diagnosis::Stacked("rename-substring-groups", "cut-group-token"),
    );
    assert!(known.contains_key(&stacked), "{known:?}");
    assert!(!known.contains_key(&("cpython-3.15".to_string(), Diagnosis::New)));
}

/// Google reads `disalow /*` (a misspelt key *and* no colon) as a rule:
/// no single transformation neutralises that, the two stacked do, and a
/// single known feature is not reported as stacked.
#[test]
fn two_stacked_known_features_are_named_as_such() {
    let mut reference = make(REFERENCE);
    let mut google = make("google");
    let mut pair = OraclePair::new(reference.as_mut(), google.as_mut());
    let input = Input {
        body: b"User-agent: foobot\ndisalow /*\n".to_vec(),
        agent: "foobot".into(),
        url: "http://example.test/".into(),
    };
    assert_eq!(classify(&mut pair, &input), Some(Diagnosis::New));
    assert_eq!(
        stacked_causes(&mut pair, &input),
        Some(Diagnosis::Stacked("add-missing-colon", "fix-misspelt-key"))
    );
    let agreeing = Input {
        body: b"User-agent: foobot\nDisallow: /*\n".to_vec(),
        ..input
    };
    assert_eq!(stacked_causes(&mut pair, &agreeing), None);
}

/// Every `cause:` of the ledger is a catalogue name or `uncatalogued:
/// <reason>` (the engine checks only the form; it knows no catalogue).
#[test]
fn ledger_causes_name_the_catalogue() {
    let (_, ledger) = corpus_and_ledger();
    for e in &ledger.entries {
        if let Some(c) = &e.cause {
            assert!(
                valid_ledger_cause(c),
                "{}: cause `{c}` is not in the catalogue",
                e.id
            );
        }
        for c in &e.also_causes {
            assert!(
                CATALOGUE.iter().any(|t| *c == *t.name),
                "{}: also_causes `{c}` is not in the catalogue",
                e.id
            );
        }
    }
}

/// The sweep knows a reading an `either` query permits: cpython-3.11's
/// verdict on Foo2Bot/Foo2Bot (the group matched as written) is named, and
/// only verdicts count, so a corpus holding just that case names nothing
/// for an oracle that agrees with the reference there.
#[test]
fn a_verdict_on_an_either_query_is_known_to_the_sweep() {
    let (corpus, _) = corpus_and_ledger();
    let case = corpus
        .get("sweep-agent-and-group-with-digit")
        .expect("case in the corpus")
        .clone();
    let one = Corpus {
        cases: vec![case],
        hash: String::new(),
    };
    let mut all = vec![make(REFERENCE), make("cpython-3.11"), make("google")];
    let known = repdiff::triage::causes::either_query_causes(&one, &mut all);
    let names: Vec<_> = known.keys().cloned().collect();
    assert_eq!(
        names,
        vec![(
            "cpython-3.11".to_string(),
            Diagnosis::Catalogued("agent-product-token")
        )],
        "google agrees with the reference here"
    );
}
