//! The census and suites pages: rendered from the committed census snapshot
//! and from a scoreboard built here, with what each page must show.

use engine::signature::Signature;
use report::compat::Report;
use report::site::{render, Inputs, SlowFinding};
use report::suites::{Contradiction, Miss, SuiteRow, SuitesReport};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn page(files: &[(String, Vec<u8>)], name: &str) -> String {
    let (_, bytes) = files
        .iter()
        .find(|(p, _)| p == name)
        .unwrap_or_else(|| panic!("no {name} in the site"));
    String::from_utf8(bytes.clone()).unwrap()
}

fn scoreboard() -> SuitesReport {
    let row = SuiteRow {
        assertions: 4,
        skipped: 1,
        scores: BTreeMap::from([("own".to_string(), 3), ("other".to_string(), 1)]),
        own_oracle: "own".into(),
        own_misses: vec![Miss {
            id: "own:test_relative#2".into(),
            agent: "Bot".into(),
            url: "/x".into(),
            expected: "allowed".into(),
            got: "disallowed".into(),
            note: Some("the suite passes a relative URL".into()),
        }],
        skipped_by_kind: BTreeMap::from([("crawl_delay".to_string(), 1)]),
        tests_total: 5,
        tests_passed: 5,
        ..SuiteRow::default()
    };
    SuitesReport {
        suites: BTreeMap::from([("own".to_string(), row)]),
        oracles: BTreeMap::from([
            ("own".to_string(), "1.0".to_string()),
            ("other".to_string(), "2.0".to_string()),
        ]),
        contradictions: vec![Contradiction {
            body: "User-agent: <b>\nDisallow: /".into(),
            agent: "Bot".into(),
            url: "http://example.test/".into(),
            allowed: vec!["own:a#1".into()],
            disallowed: vec!["theirs:b#1".into()],
        }],
        ..SuitesReport::default()
    }
}

#[test]
fn the_census_and_suites_pages_show_their_snapshots() {
    let report = Report::load(&root().join("reports/latest/compat.json")).unwrap();
    let census = census::read_census(&root().join("reports/census/census.json"))
        .unwrap_or_else(|e| panic!("the committed census does not read: {e}"));
    let suites = scoreboard();
    let ledger = engine::ledger::Ledger::default();
    let adoption = census::adoption::read(&root().join("reports/census/adoption.json"))
        .unwrap_or_else(|e| panic!("the committed adoption census does not read: {e}"));
    let ai = census::ai_crawlers::read(&root().join("reports/census/ai-crawlers.json"))
        .unwrap_or_else(|e| panic!("the committed AI-crawler census does not read: {e}"));
    let files = render(&Inputs {
        report: &report,
        ledger: &ledger,
        history: &[],
        census: Some(&census),
        ai_era: report::site::AiEra {
            adoption: Some(&adoption),
            ai_crawlers: Some(&ai),
        },
        suites: Some(&suites),
        usage: &BTreeMap::new(),
        slow: &[],
    });

    let c = page(&files, "census.html");
    // The AI era leads: the adoption table, then the AI crawlers', then the headline.
    let at = |needle: &str| c.find(needle).unwrap_or_else(|| panic!("no {needle:?}"));
    assert!(at("Adoption: do the AI-era lines") < at("AI crawlers: kept out"));
    assert!(at("AI crawlers: kept out") < at("Headline: the pairs"));
    for e in &adoption.edits {
        assert!(
            c.contains(&format!("{} of {}", e.sites_any, adoption.files)),
            "{}",
            e.edit.id
        );
    }
    // Each mover's cause, as the published run named it.
    for r in adoption.rows.iter().filter(|r| r.sites > 0) {
        if let Some(cause) = r.examples.first().and_then(|f| f.cause.as_ref()) {
            assert!(c.contains(&cause.label()), "{} {}", r.edit, r.oracle);
        }
    }
    let most_split = ai.rows.iter().map(|r| r.split).max().unwrap_or(0);
    assert!(
        c.contains(&format!("<td>{most_split}</td></tr>")),
        "the most split crawler's row"
    );
    assert!(c.contains("<svg"), "the heatmap is inline");
    for o in &census.oracles {
        assert!(
            c.contains(&format!("<code>{}</code>", o.name)),
            "{}",
            o.name
        );
    }
    let top = &census.written.summary.top_signatures[0];
    assert!(c.contains(&format!("{} files, {} queries", top.files, top.queries)));
    assert!(c.contains(&format!("{} files asked", census.written.tally.files)));
    // The headline comes first, then the as-written section, then the probes.
    let at = |needle: &str| c.find(needle).unwrap_or_else(|| panic!("no {needle:?}"));
    assert!(at("Headline: the pairs") < at("<h2>As-written questions</h2>"));
    assert!(at("<h2>As-written questions</h2>") < at("<h2>Probes</h2>"));
    assert!(!census.written.summary.headline.is_empty());
    for p in &census.written.summary.headline {
        assert!(
            c.contains(&format!("{} of {}", p.files_disagree, p.files_compared)),
            "{} vs {}",
            p.a,
            p.b
        );
    }
    // Each top signature is joined to the corpus queries with the same
    // signature, and through their cells to the ledger entries explaining
    // them; the expectation is computed here from the two snapshots.
    let in_corpus = |sig: &Signature| {
        report
            .cases
            .iter()
            .flat_map(|c| &c.queries)
            .filter(|q| q.signature == *sig)
            .count()
    };
    let (seen, unseen): (Vec<_>, Vec<_>) = [&census.written, &census.near_misses, &census.probes]
        .into_iter()
        .flat_map(|s| &s.summary.top_signatures)
        .partition(|s| in_corpus(&s.signature) > 0);
    for s in &seen {
        let n = in_corpus(&s.signature);
        let noun = if n == 1 { "query" } else { "queries" };
        assert!(
            c.contains(&format!("In the corpus: {n} {noun} with this signature")),
            "{}",
            s.signature
        );
    }
    assert_eq!(
        c.matches("no corpus query has this signature").count(),
        unseen.len()
    );
    assert!(!seen.is_empty() && c.contains("href=\"ledger.html#"));

    let s = page(&files, "suites.html");
    assert!(s.contains("*3/4"), "the own parser's cell is starred");
    assert!(s.contains(">1/4<"), "another oracle's cell");
    assert!(s.contains("own:test_relative#2") && s.contains("relative URL"));
    assert!(s.contains("User-agent: &lt;b&gt;"), "bodies are escaped");
    assert!(!s.contains("<b>\n"), "no raw body HTML");
    for p in ["census.html", "suites.html", "index.html"] {
        let html = page(&files, p);
        assert!(html.contains("href=\"census.html\"") && html.contains("href=\"suites.html\""));
    }
}

#[test]
fn without_snapshots_the_pages_say_how_to_make_them() {
    let report = Report::load(&root().join("reports/latest/compat.json")).unwrap();
    let ledger = engine::ledger::Ledger::default();
    let files = render(&Inputs {
        report: &report,
        ledger: &ledger,
        history: &[],
        census: None,
        ai_era: Default::default(),
        suites: None,
        usage: &BTreeMap::new(),
        slow: &[],
    });
    assert!(page(&files, "census.html").contains("repdiff census --publish"));
    assert!(page(&files, "suites.html").contains("repdiff suites --publish"));
    assert!(
        !page(&files, "findings.html").contains("Slow inputs"),
        "no slow table without slow write-ups"
    );
}

#[test]
fn the_findings_page_lists_the_slow_write_ups() {
    let report = Report::load(&root().join("reports/latest/compat.json")).unwrap();
    let ledger = engine::ledger::Ledger::default();
    let slow = [SlowFinding {
        id: "slow-x-robotspy".into(),
        title: "robotspy <takes> long".into(),
        oracle: "robotspy".into(),
    }];
    let files = render(&Inputs {
        report: &report,
        ledger: &ledger,
        history: &[],
        census: None,
        ai_era: Default::default(),
        suites: None,
        usage: &BTreeMap::new(),
        slow: &slow,
    });
    let f = page(&files, "findings.html");
    assert!(f.contains("<h2>Slow inputs</h2>"), "{f}");
    assert!(f.contains("href=\"../findings/slow-x-robotspy.md\""), "{f}");
    assert!(
        f.contains("robotspy &lt;takes&gt; long"),
        "titles are escaped"
    );
}

#[test]
fn a_case_page_shows_the_usage_preference_it_is_given() {
    let report = Report::load(&root().join("reports/latest/compat.json")).unwrap();
    let ledger = engine::ledger::Ledger::default();
    let case = report
        .cases
        .iter()
        .find(|c| c.queries.len() > 1)
        .expect("a case with two queries");
    let usage = BTreeMap::from([(
        case.id.clone(),
        report::site::CaseUsage {
            draft: "draft-x-00".into(),
            answers: vec![None, Some("train-ai <n>".into())],
        },
    )]);
    let files = render(&Inputs {
        report: &report,
        ledger: &ledger,
        history: &[],
        census: None,
        ai_era: Default::default(),
        suites: None,
        usage: &usage,
        slow: &[],
    });
    let html = page(&files, &format!("cases/{}.html", case.id));
    let second = html.find("<h3>#2").expect("a second query section");
    let shown = html
        .find("usage preference (draft-x-00): train-ai &lt;n&gt;")
        .unwrap_or_else(|| panic!("no usage line in {html}"));
    assert!(shown > second, "the usage belongs to the second query");
    assert_eq!(html.matches("usage preference (").count(), 1);
}
