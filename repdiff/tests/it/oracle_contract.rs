//! The smoke test every registered oracle runs, built-in or external,
//! through the same worker protocol (issue 12): seed-18, an empty body, a
//! 500 KiB body, invalid UTF-8, and one answer per query without a crash.
//! Fails (never skips) when an oracle is missing: run `repdiff setup`.

use crate::common;

use engine::oracle::{Ask, Oracle, Outcome, Query};
use std::time::Duration;

fn q(agent: &str, url: &str) -> Query {
    Query {
        ask: Ask::CanFetch,
        agent: agent.into(),
        url: url.into(),
    }
}

fn is_verdict(o: &Outcome) -> bool {
    matches!(o, Outcome::Allowed | Outcome::Disallowed)
}

#[test]
fn every_registered_oracle_passes_the_smoke_checks() {
    let all = common::registered::all();
    assert!(all.len() >= 12, "{} oracles registered", all.len());
    for o in &all {
        let mut w = common::registered::start(o, Duration::from_secs(30));
        let name = &o.name;
        let caps = w.capabilities();
        assert!(caps.can_fetch, "{name}: every oracle answers can_fetch");
        let about = w.about();
        assert!(
            !about.library.is_empty() && !about.version.is_empty(),
            "{name}: the greeting names the library and its version: {about:?}"
        );
        assert!(
            !about.provenance.registry.is_empty(),
            "{name}: provenance names a registry: {about:?}"
        );

        // seed-18: a verdict (which one is the corpus's business).
        let a = w.run(
            b"User-agent: bot\nDisallow: /\n",
            &[q("MyBot", "http://example.test/page")],
        );
        assert_eq!(a.len(), 1, "{name}");
        assert!(
            is_verdict(&a[0].outcome),
            "{name}: seed-18 gave {:?}",
            a[0].outcome
        );

        // An empty body allows everything (RFC 9309 §2.3.1.3 and every
        // older standard agree).
        let a = w.run(b"", &[q("MyBot", "http://example.test/x")]);
        assert_eq!(a[0].outcome, Outcome::Allowed, "{name}: empty body");

        // Invalid UTF-8 and a NUL: an answer per query, no crash.
        let body = b"User-agent: *\nDisallow: /\xff\xfe\x00x\nDisallow: /private\n";
        let qs = [
            q("MyBot", "http://example.test/private"),
            q("MyBot", "http://example.test/public"),
            q("Other", "http://example.test/private/x"),
        ];
        let a = w.run(body, &qs);
        assert_eq!(a.len(), 3, "{name}: invalid UTF-8");
        for x in &a {
            assert!(!matches!(x.outcome, Outcome::Crash { .. }), "{name}: {x:?}");
        }

        // 500 KiB (RFC 9309 §2.5's minimum limit): answered, not crashed.
        let mut big = b"User-agent: *\nDisallow: /private\n".to_vec();
        while big.len() < 500 * 1024 {
            big.extend_from_slice(b"# a comment line to fill the body up\n");
        }
        let a = w.run(&big, &[q("MyBot", "http://example.test/private")]);
        assert_eq!(a.len(), 1, "{name}: 500 KiB");
        assert!(
            is_verdict(&a[0].outcome),
            "{name}: 500 KiB gave {:?}",
            a[0].outcome
        );

        // A batch: exactly one answer per query, in order, of every kind.
        let batch: Vec<Query> = [
            Ask::CanFetch,
            Ask::CrawlDelay,
            Ask::RequestRate,
            Ask::Sitemaps,
            Ask::CanFetch,
        ]
        .iter()
        .map(|&ask| Query {
            ask,
            agent: "MyBot".into(),
            url: if ask == Ask::CanFetch {
                "http://example.test/a".into()
            } else {
                String::new()
            },
        })
        .collect();
        let a = w.run(
            b"User-agent: *\nDisallow: /a\nCrawl-delay: 2\nSitemap: http://example.test/s.xml\n",
            &batch,
        );
        assert_eq!(a.len(), batch.len(), "{name}: answer count");
        for (x, query) in a.iter().zip(&batch) {
            assert!(
                !x.outcome.is_failure() || matches!(x.outcome, Outcome::Error { .. }),
                "{name}: {x:?}"
            );
            if !caps.supports(query.ask) {
                continue;
            }
            if query.ask == Ask::CanFetch {
                assert_eq!(
                    x.outcome,
                    Outcome::Disallowed,
                    "{name}: Disallow: /a blocks /a"
                );
            }
        }
    }
}
