//! Every loader error names the file and the line, and bodies round-trip
//! byte-exactly.

use engine::case::{load_dir, parse_file, Corpus, Expect, Verdict};
use engine::oracle::Value;
use std::path::Path;

fn parse(text: &str) -> Result<Vec<engine::case::Case>, engine::case::LoadError> {
    parse_file(Path::new("t.yaml"), text)
}

const OK: &str = r#"
cases:
  - id: one
    title: "a case"
    tags: [grouping]
    source: "test"
    robots: "User-agent: *\nDisallow: /\n"
    queries:
      - agent: Bot
        url: http://example.test/x
        expect: disallowed
        rfc: "§2.2.2 MUST"
"#;

#[test]
fn a_valid_file_loads() {
    let cases = parse(OK).expect("valid");
    assert_eq!(cases.len(), 1);
    assert_eq!(cases[0].line, 3);
    assert_eq!(
        cases[0].queries[0].expect,
        Expect::Verdict(Verdict::Disallowed)
    );
    assert_eq!(cases[0].queries[0].basis, "RFC 9309 §2.2.2 MUST");
}

fn err(text: &str) -> String {
    parse(text).expect_err("must fail").to_string()
}

#[test]
fn malformed_yaml_names_file_and_line() {
    let e = err("cases:\n  - id: [unclosed\n");
    assert!(e.starts_with("t.yaml:"), "{e}");
    assert!(e.split(':').nth(1).unwrap().parse::<usize>().is_ok(), "{e}");
}

#[test]
fn unknown_field_names_file_and_line() {
    let e = err(&OK.replace("    source:", "    sauce: x\n    source:"));
    assert!(e.starts_with("t.yaml:6:"), "{e}");
    assert!(e.contains("unknown field `sauce`"), "{e}");
    let e = err(&OK.replace("        rfc:", "        rcf: x\n        rfc:"));
    assert!(e.contains("unknown field `rcf`"), "{e}");
}

#[test]
fn duplicate_id_in_one_file() {
    let twice = format!("{OK}{}", OK.replace("cases:\n", ""));
    let e = err(&twice);
    assert!(e.contains("duplicate id"), "{e}");
    assert!(e.starts_with("t.yaml:14:"), "{e}");
}

#[test]
fn duplicate_id_across_files() {
    let dir = std::env::temp_dir().join(format!("repdiff-loader-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("a.yaml"), OK).unwrap();
    std::fs::write(dir.join("b.yaml"), OK).unwrap();
    let e = load_dir(&dir).expect_err("duplicate").to_string();
    std::fs::remove_dir_all(&dir).unwrap();
    assert!(e.contains("b.yaml:3:") && e.contains("a.yaml:3"), "{e}");
}

#[test]
fn semantic_errors_point_at_the_case() {
    for (bad, needle) in [
        (OK.replace("id: one", "id: One_Case"), "kebab-case"),
        (OK.replace("[grouping]", "[nonsense]"), "unknown tag"),
        (
            OK.replace("expect: disallowed", "expect: maybe"),
            "allowed, disallowed or either",
        ),
        (
            OK.replace("expect: disallowed", "expect: either"),
            "requires `why`",
        ),
        (OK.replace("        rfc: \"§2.2.2 MUST\"\n", ""), "`rfc`"),
        (
            OK.replace(
                "        rfc: \"§2.2.2 MUST\"",
                "        rfc: x\n        convention: y",
            ),
            "exactly one",
        ),
        (
            OK.replace(
                "robots: \"User-agent: *\\nDisallow: /\\n\"",
                "robots:\n      - hex: \"zz\"",
            ),
            "bad hex",
        ),
    ] {
        let e = err(&bad);
        assert!(e.starts_with("t.yaml:3: case `"), "{e}");
        assert!(e.contains(needle), "{needle}: {e}");
    }
}

#[test]
fn bodies_round_trip_byte_exact() {
    let text = r#"
cases:
  - id: bytes
    title: "every byte form"
    tags: [encoding]
    source: "test"
    robots:
      - hex: "ef bb bf"
      - text: "User-agent: *\rDisallow: /a\r\n"
      - hex: "00 ff fe 80"
      - text: "a"
        times: 17000
      - text: "\n"
    queries:
      - agent: Bot
        url: http://example.test/x
        expect: either
        why: "test"
        rfc: "§2.2"
"#;
    let cases = parse(text).expect("valid");
    let mut want = vec![0xef, 0xbb, 0xbf];
    want.extend_from_slice(b"User-agent: *\rDisallow: /a\r\n");
    want.extend_from_slice(&[0x00, 0xff, 0xfe, 0x80]);
    want.extend(std::iter::repeat_n(b'a', 17000));
    want.push(b'\n');
    assert_eq!(cases[0].body, want);
}

#[test]
fn typed_extension_expectations() {
    let text = OK.replace(
        "      - agent: Bot\n        url: http://example.test/x\n        expect: disallowed\n        rfc: \"§2.2.2 MUST\"",
        "      - {ask: crawl_delay, agent: Bot, expect: 7, convention: c}\n      - {ask: crawl_delay, agent: Bot, expect: 1.5, convention: c}\n      - {ask: crawl_delay, agent: Bot, expect: null, convention: c}\n      - {ask: request_rate, agent: Bot, expect: {requests: 2, seconds: 10}, convention: c}\n      - {ask: sitemaps, expect: [\"http://a/s.xml\"], rfc: \"§2.2.4\"}",
    );
    let cases = parse(&text).expect("valid");
    let got: Vec<Expect> = cases[0].queries.iter().map(|q| q.expect.clone()).collect();
    assert_eq!(
        got,
        vec![
            Expect::Value(Value::Int(7)),
            Expect::Value(Value::Float(1.5)),
            Expect::Value(Value::None),
            Expect::Value(Value::Rate {
                requests: 2,
                seconds: 10
            }),
            Expect::Value(Value::List(vec!["http://a/s.xml".into()])),
        ]
    );
    let bad = text.replace("expect: 7,", "expect: seven,");
    assert!(err(&bad).contains("crawl_delay expects"));
}

/// One ledger entry about oracle `a` and case `one` of [`OK`].
const ENTRY: &str = r#"entries:
  - id: e1
    title: t
    oracles: [a]
    outcomes: {a: allowed}
    classification: bug
    rfc: "§2.2.1"
    upstream: none known
    cases: [one]
    explanation: x
"#;

#[test]
fn ledger_errors_name_file_and_line() {
    let corpus = Corpus {
        cases: parse(OK).unwrap(),
        hash: String::new(),
    };
    let entry = ENTRY;
    let load = |t: &str| engine::ledger::parse(Path::new("l.yaml"), t, &corpus, &["a", "b"]);
    assert!(load(entry).is_ok());
    for cause in ["strip-bom", "uncatalogued: an HTTP status case"] {
        let with = entry.replace(
            "    explanation: x\n",
            &format!("    explanation: x\n    cause: \"{cause}\"\n"),
        );
        let l = load(&with).expect(cause);
        assert_eq!(
            l.entries[0]
                .cause
                .as_ref()
                .map(ToString::to_string)
                .as_deref(),
            Some(cause)
        );
    }
    for (bad, needle) in [
        (
            entry.replace(
                "    explanation: x\n",
                "    explanation: x\n    cause: \"uncatalogued\"\n",
            ),
            "cause `uncatalogued`",
        ),
        (
            entry.replace(
                "    explanation: x\n",
                "    explanation: x\n    cause: \"Strip BOM\"\n",
            ),
            "cause `Strip BOM`",
        ),
        (entry.replace("[a]", "[zzz]"), "unknown oracle `zzz`"),
        (entry.replace("[one]", "[two]"), "unknown case `two`"),
        (entry.replace("[one]", "[one#2]"), "queries 1..=1"),
        (entry.replace("bug", "oops"), "unknown variant"),
        (
            entry.replace("    explanation: x\n", "    explanation: x\n    extra: 1\n"),
            "unknown field",
        ),
        (
            format!("{entry}{}", entry.replace("entries:\n", "")),
            "duplicate id",
        ),
    ] {
        let e = load(&bad).expect_err(needle).to_string();
        assert!(e.starts_with("l.yaml:"), "{e}");
        assert!(e.contains(needle), "{needle}: {e}");
    }
}

/// A pin on a cell that needed no explanation is checked too: the entry
/// pins `a` allowed on every query of `one`; `a` answering disallowed
/// there drifts, whatever else the run needed, and `b` (not named) never
/// does.
#[test]
fn a_pin_that_differs_from_the_answer_drifts() {
    use engine::oracle::Outcome;
    let corpus = Corpus {
        cases: parse(OK).unwrap(),
        hash: String::new(),
    };
    let entry = ENTRY;
    let ledger = engine::ledger::parse(Path::new("l.yaml"), entry, &corpus, &["a", "b"]).unwrap();
    let (yes, no) = (Outcome::Allowed, Outcome::Disallowed);
    assert!(ledger
        .drifted([("a", "one", 0, &yes), ("b", "one", 0, &no)])
        .is_empty());
    let drifted = ledger.drifted([("a", "one", 0, &no), ("b", "one", 0, &no)]);
    assert_eq!(drifted.len(), 1);
    assert_eq!(
        drifted[0].to_string(),
        "e1: a on one#1 is pinned allowed but answered disallowed"
    );
}

#[test]
fn profile_pins_load_and_are_checked() {
    let pinned = OK.replace(
        "rfc: \"§2.2.2 MUST\"",
        "rfc: \"§2.2.2 MUST\"\n        profiles:\n          robots-1996: {expect: allowed, cite: \"1996 §3.2.1\"}",
    );
    let cases = parse(&pinned).expect("valid");
    let pin = &cases[0].queries[0].profiles["robots-1996"];
    assert_eq!(pin.expect, Verdict::Allowed);
    assert_eq!(pin.cite, "1996 §3.2.1");

    let no_cite = pinned.replace("cite: \"1996 §3.2.1\"", "cite: \" \"");
    let e = err(&no_cite);
    assert!(
        e.starts_with("t.yaml:3:") && e.contains("`cite` must name"),
        "{e}"
    );

    let either = pinned.replace("expect: allowed, cite", "expect: either, cite");
    assert!(err(&either).contains("a pin is allowed or disallowed"));

    let rfc = pinned.replace("robots-1996:", "rfc9309:");
    assert!(err(&rfc).contains("the query's own `expect` is RFC 9309's"));

    let unknown = pinned.replace("cite: \"1996 §3.2.1\"", "cite: \"x\", why: \"y\"");
    assert!(err(&unknown).contains("unknown field"), "{}", err(&unknown));
}
