//! The README's census headline is the published census's, not figures
//! typed by hand: `report --publish` writes it between its markers from
//! `reports/census/census.json`, and a census published without that step
//! fails here.

use repdiff::report_site::{CENSUS_BEGIN, CENSUS_END};
use std::path::Path;

#[test]
fn the_readme_census_headline_is_the_published_one() {
    let root = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."));
    let readme = std::fs::read_to_string(root.join("README.md")).expect("README.md");
    let census = census::read_census(&root.join("reports/census/census.json"))
        .unwrap_or_else(|e| panic!("the published census does not read: {e}"));
    let begin = readme.find(CENSUS_BEGIN).expect("census headline markers") + CENSUS_BEGIN.len();
    let end = begin + readme[begin..].find(CENSUS_END).expect("end marker");
    let want = census::render::headline_table(&census.written.summary.headline);
    assert!(!census.written.summary.headline.is_empty());
    assert_eq!(
        readme[begin..end].trim(),
        want.trim(),
        "README's census headline is stale: run `repdiff report --publish`"
    );
}
