//! Every profile reference against the verdicts pinned by hand in the corpus
//! (`profiles:` on a query, each with the text it cites). A pin is read from
//! the profile's text, never from running its reference, so a failure here
//! is the reference misreading its text (or a pin misreading it: the cite
//! says where to look).
//!
//! Cases served over HTTP (the status matrix) need the status server and are
//! checked by the product's own test; this test counts them and checks that
//! every profile has at least 15 pins in all.

use engine::case::{load_dir, Verdict};
use engine::oracle::{Oracle, Outcome};
use std::collections::BTreeMap;
use std::path::Path;

fn profile(name: &str) -> Box<dyn Oracle> {
    let entry = oracles::profiles()
        .into_iter()
        .find(|e| e.name == name)
        .unwrap_or_else(|| panic!("a pin names `{name}`, which is no registered profile"));
    (entry.make)().unwrap_or_else(|u| {
        panic!("{u}\nprofile `{name}` is required here: run `repdiff setup`, then rerun")
    })
}

#[test]
fn every_profile_answers_its_pins() {
    let corpus = load_dir(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../cases/corpus"))
        .unwrap_or_else(|e| panic!("{e}"));
    let mut pins: BTreeMap<String, usize> = BTreeMap::new();
    let mut failures = Vec::new();
    for case in &corpus.cases {
        for (i, q) in case.queries.iter().enumerate() {
            for (name, pin) in &q.profiles {
                *pins.entry(name.clone()).or_default() += 1;
                if case.http.is_some() {
                    continue;
                }
                let got = profile(name)
                    .run(&case.body, std::slice::from_ref(&q.query))
                    .remove(0);
                let want = match pin.expect {
                    Verdict::Allowed => Outcome::Allowed,
                    _ => Outcome::Disallowed,
                };
                if got.outcome != want {
                    failures.push(format!(
                        "{}#{} {name}: pinned {:?} ({}), answered {:?}: {}",
                        case.id,
                        i + 1,
                        pin.expect,
                        pin.cite,
                        got.outcome,
                        got.explain
                    ));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    for p in oracles::profiles() {
        let n = pins.get(p.name).copied().unwrap_or(0);
        assert!(
            n >= 15,
            "profile `{}` has {n} pins; at least 15 are wanted",
            p.name
        );
    }
}
