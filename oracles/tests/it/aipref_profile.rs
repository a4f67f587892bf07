//! The `aipref` profile is RFC 9309 plus one change: on every corpus body
//! without a `Content-Usage` line it must answer exactly as the `rfc9309`
//! reference does, and on the corpus's Content-Usage files it must part
//! from it somewhere (else the reading would not be wired in).

use engine::case::load_dir;
use engine::oracle::Oracle;
use oracles::profiles::aipref::Aipref;
use oracles::rfc9309::{Readings, Rfc9309};
use std::path::Path;

fn mentions_content_usage(body: &[u8]) -> bool {
    body.to_ascii_lowercase()
        .windows(b"content-usage".len())
        .any(|w| w == b"content-usage")
}

#[test]
fn aipref_is_rfc9309_except_where_content_usage_is_written() {
    let corpus = load_dir(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../cases/corpus"))
        .unwrap_or_else(|e| panic!("{e}"));
    let (mut aipref, mut rfc) = (Aipref::new(), Rfc9309::new(Readings::default()));
    let (mut same_checked, mut parted) = (0, 0);
    for case in corpus.cases.iter().filter(|c| c.http.is_none()) {
        let queries: Vec<_> = case.queries.iter().map(|q| q.query.clone()).collect();
        let a = aipref.run(&case.body, &queries);
        let r = rfc.run(&case.body, &queries);
        for (i, (a, r)) in a.iter().zip(&r).enumerate() {
            if mentions_content_usage(&case.body) {
                parted += usize::from(a.outcome != r.outcome);
            } else {
                same_checked += 1;
                assert_eq!(a.outcome, r.outcome, "{}#{}: {}", case.id, i + 1, a.explain);
            }
        }
    }
    assert!(same_checked > 1000, "only {same_checked} queries compared");
    assert!(
        parted >= 3,
        "aipref parted from rfc9309 on {parted} Content-Usage queries"
    );
}
