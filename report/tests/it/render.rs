//! compat.md and compat.json from a run of tiny in-test oracles: the
//! reproducer, the diff of an untriaged cell, every cell in the JSON.

use engine::case::{parse_file, Corpus};
use engine::oracle::{Answer, Capabilities, Oracle, Outcome, Query};
use engine::run::run;
use report::compat::Report;
use std::path::Path;

/// Answers a fixed outcome to every query.
struct Fixed(&'static str, Outcome);

impl Oracle for Fixed {
    fn name(&self) -> &str {
        self.0
    }
    fn about(&self) -> engine::oracle::About {
        engine::oracle::About {
            library: "fixed".into(),
            version: "1".into(),
            ..Default::default()
        }
    }
    fn capabilities(&self) -> Capabilities {
        Capabilities {
            can_fetch: true,
            ..Capabilities::default()
        }
    }
    fn run(&mut self, _body: &[u8], queries: &[Query]) -> Vec<Answer> {
        queries
            .iter()
            .map(|_| Answer::from(self.1.clone()))
            .collect()
    }
}

const CASES: &str = r#"
cases:
  - id: c1
    title: t
    tags: [grouping]
    source: s
    robots: "User-agent: *\nDisallow: /\n"
    queries:
      - {agent: A, url: "http://e/x", expect: disallowed, rfc: "§2.2.2"}
      - {agent: A, url: "http://e/x", expect: either, why: "open", rfc: "§2.2.2"}
      - {ask: crawl_delay, agent: A, expect: 1, convention: c}
"#;

#[test]
fn compat_md_and_json_from_a_run() {
    let corpus = Corpus {
        cases: parse_file(Path::new("c.yaml"), CASES).unwrap(),
        hash: "h".into(),
    };
    let cases: Vec<_> = corpus.cases.iter().collect();
    let l = engine::ledger::parse(
        Path::new("l.yaml"),
        "entries: []\n",
        &corpus,
        &["a", "b", "c"],
    )
    .unwrap();
    let oracles: Vec<Box<dyn Oracle>> = vec![
        Box::new(Fixed("a", Outcome::Disallowed)),
        Box::new(Fixed("b", Outcome::Allowed)),
        Box::new(Fixed("c", Outcome::Disallowed)),
    ];
    let r = run(&cases, oracles, vec![], &l, &|_| None, &mut |_| {});
    let compat = Report::from_run(&r, &cases, &l, "hash", Path::new("/"));
    let md = report::markdown::render(&compat, &l);
    assert!(md.contains("## Untriaged cells: 2"), "{md}");
    assert!(md.contains("repdiff check --case c1#1 --oracle b"));
    assert!(md.contains("-#1 can_fetch agent=\"A\" url=\"http://e/x\" -> disallowed"));
    // `either` matched is not scored: a and c match #1 and split nothing.
    assert!(
        md.contains("| `a` | fixed 1 | 1 | 0 | 0 | 0 | 1 | 100.0% | 0 | 0 |"),
        "{md}"
    );
    let json: serde_json::Value = serde_json::from_str(&compat.to_json().unwrap()).unwrap();
    assert_eq!(json["cells"].as_array().unwrap().len(), 9);
    assert_eq!(json["format"], report::compat::FORMAT);
}
