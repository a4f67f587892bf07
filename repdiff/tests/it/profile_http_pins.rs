//! The profiles' status rules against the status-matrix pins: each pinned
//! HTTP case is served by the product's own status server and fetched by
//! the profile's real client, as `check --case` would. The body pins are
//! `oracles/tests/it/profile_pins.rs`.

use engine::case::{load_dir, Verdict};
use engine::oracle::Outcome;
use std::path::Path;

#[test]
fn every_profile_answers_its_status_matrix_pins() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let corpus = load_dir(&root.join("cases/corpus")).unwrap_or_else(|e| panic!("{e}"));
    let pinned: Vec<_> = corpus
        .cases
        .iter()
        .filter(|c| c.http.is_some() && c.queries.iter().any(|q| !q.profiles.is_empty()))
        .collect();
    assert!(pinned.len() >= 8, "only {} pinned HTTP cases", pinned.len());
    let server = repdiff::http::Server::start(&pinned).expect("the status server starts");
    let mut checked = 0;
    let mut failures = Vec::new();
    for case in &pinned {
        let url = server.url_for(case).expect("served");
        for (i, q) in case.queries.iter().enumerate() {
            for (name, pin) in &q.profiles {
                let entry = oracles::profiles()
                    .into_iter()
                    .find(|e| e.name == name.as_str())
                    .unwrap_or_else(|| panic!("`{name}` is no profile"));
                let mut oracle = (entry.make)().unwrap_or_else(|u| panic!("{u}"));
                let got = oracle
                    .run_fetch(&url, std::slice::from_ref(&q.query))
                    .remove(0);
                let want = match pin.expect {
                    Verdict::Allowed => Outcome::Allowed,
                    _ => Outcome::Disallowed,
                };
                checked += 1;
                if got.outcome != want {
                    failures.push(format!(
                        "{}#{} {name}: pinned {want:?} ({}), answered {:?}: {}",
                        case.id,
                        i + 1,
                        pin.cite,
                        got.outcome,
                        got.explain
                    ));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(checked >= 20, "only {checked} status pins checked");
}
