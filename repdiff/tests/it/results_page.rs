//! reports/RESULTS.md, the page the README links to for the published
//! results, is what `report --publish` writes from the committed snapshots
//! (reports/latest/compat.json and reports/census/census.json), not figures
//! typed by hand: a run or a census published without that step, or a page
//! edited by hand, fails here.
//!
//! When only the page's rendering changed (the snapshots did not),
//! `REPDIFF_BLESS=1 cargo test --release -p repdiff --test it -- results_page::`
//! rewrites it from the snapshots, as publish would.

use repdiff::report_site::{results_page, RESULTS_PAGE};
use std::path::Path;

#[test]
fn the_results_page_is_the_published_one() {
    let root = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."));
    let report = report::compat::Report::load(&root.join("reports/latest/compat.json"))
        .unwrap_or_else(|e| panic!("the published run does not read: {e}"));
    let census = census::read_census(&root.join("reports/census/census.json"))
        .unwrap_or_else(|e| panic!("the published census does not read: {e}"));
    assert!(!census.written.summary.headline.is_empty());
    let want = results_page(&report, Some(&census));
    let path = root.join(RESULTS_PAGE);
    if std::env::var_os("REPDIFF_BLESS").is_some() {
        std::fs::write(&path, &want).expect("write the results page");
    }
    let page = std::fs::read_to_string(&path).expect("reports/RESULTS.md");
    assert!(
        page == want,
        "{RESULTS_PAGE} is stale: run `repdiff report --publish` (or, when only \
         the page's rendering changed, REPDIFF_BLESS=1 cargo test --release -p repdiff \
         --test it -- results_page::)"
    );
    // Its links lead somewhere from reports/ (doc-paths leaves reports/ out).
    let dir = path.parent().expect("reports/");
    for target in page.split("](").skip(1) {
        let target = &target[..target.find(')').expect("a link ends")];
        let file = target.split('#').next().unwrap_or(target);
        assert!(
            file.contains("://") || dir.join(file).exists(),
            "{RESULTS_PAGE} links to {target}, which does not exist"
        );
    }
}
