//! The transformations and the ledger-cause check on their own; the
//! catalogue on the real oracles is `repdiff/tests/causes_catalogue.rs`.

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
