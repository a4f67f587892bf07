//! The cause catalogue's transformations whose only ledger cases are shown
//! by external oracles (fuzzcore's own tests cover the in-process ones):
//! each neutralises its case on the real parser, run through its worker.
//! Fails (never skips) when an oracle is missing: run `repdiff setup`.

use crate::common;

use cause::{agree, Input, OraclePair, PairAsk, CATALOGUE};
use engine::oracle::Oracle;
use std::path::Path;
use std::time::Duration;

fn input(case_ref: &str) -> Input {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let corpus = engine::case::load_dir(&root.join("cases/corpus")).expect("corpus loads");
    let r: engine::ledger::QueryRef = case_ref.parse().expect("case#N");
    let case = corpus.get(&r.case).expect("case in the corpus");
    let q = &case.queries[r.query.expect("case#N")].query;
    Input {
        body: case.body.clone(),
        agent: q.agent.clone(),
        url: q.url.clone(),
    }
}

/// `name` neutralises `oracle` (external, through its worker) on `case_ref`,
/// which ledger entry `entry` lists for it.
fn neutralises(name: &str, entry: &str, case_ref: &str, oracle: &str) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let corpus = engine::case::load_dir(&root.join("cases/corpus")).expect("corpus loads");
    let files = oracles::ledger_files(&root).expect("ledger files");
    let names: Vec<String> = common::registered::all()
        .into_iter()
        .map(|o| o.name)
        .collect();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let ledger = engine::ledger::load_files(&files, &corpus, &names).expect("ledger loads");
    let listed = ledger
        .get(entry)
        .unwrap_or_else(|| panic!("no ledger entry {entry}"));
    assert!(
        listed.cases.iter().any(|c| c.to_string() == case_ref),
        "{entry} does not list {case_ref}"
    );
    let registered = common::registered::all();
    let o = registered
        .iter()
        .find(|o| o.name == oracle)
        .unwrap_or_else(|| panic!("{oracle} is not registered"));
    let mut worker = common::registered::start(o, Duration::from_secs(30));
    let mut reference = oracles::registry()
        .into_iter()
        .find(|e| e.name == "rfc9309")
        .map(|e| (e.make)().expect("rfc9309 is always built"))
        .expect("rfc9309 registered");
    let mut pair = OraclePair::new(reference.as_mut(), &mut worker as &mut dyn Oracle);
    let before = input(case_ref);
    let answers = pair.ask(&before);
    assert!(
        !agree(&answers),
        "{oracle} agrees on {case_ref}: {answers:?}"
    );
    let t = CATALOGUE
        .iter()
        .find(|t| t.name == name)
        .expect("in the catalogue");
    let after = (t.apply)(&before).unwrap_or_else(|| panic!("{name} does not apply"));
    let now = pair.ask(&after);
    assert!(
        agree(&now),
        "{name} does not neutralise {oracle}: {answers:?} -> {now:?}"
    );
}

#[test]
fn decode_utf16_neutralises_www_robotrules_on_a_utf16_file() {
    neutralises(
        "decode-utf16",
        "utf16-file-decoded-or-read-as-bytes",
        "enc-utf16le-file#1",
        "www-robotrules",
    );
}

#[test]
fn normalise_line_ends_neutralises_robotspy_on_a_lone_cr() {
    neutralises(
        "normalise-line-ends",
        "cr-is-not-a-line-end-robotspy",
        "rfc-line-ends-cr-lf-crlf#1",
        "robotspy",
    );
}

#[test]
fn remove_inner_bom_neutralises_robots_parser_on_a_bom_mid_file() {
    neutralises(
        "remove-inner-bom",
        "string-trim-strips-bom-robots-parser",
        "google-bom-in-the-middle#2",
        "robots-parser",
    );
}

#[test]
fn drop_allow_rules_neutralises_www_robotrules_on_an_allow_it_skips() {
    neutralises(
        "drop-allow-rules",
        "allow-lines-ignored-www-robotrules",
        "kd-14-longer-allow-after-disallow-root#1",
        "www-robotrules",
    );
}

#[test]
fn separate_groups_neutralises_webrobots_on_a_user_agent_after_a_rule() {
    neutralises(
        "separate-groups-with-blank-lines",
        "webrobots-user-agent-after-rule-needs-blank-line",
        "rfc-group-ends-at-next-user-agent#1",
        "webrobots",
    );
}

#[test]
fn lowercase_agent_neutralises_heritrix_on_a_capitalised_crawler_name() {
    neutralises(
        "lowercase-agent",
        "ua-names-lowercased-ua-not-heritrix",
        "seed-16#1",
        "heritrix",
    );
}

#[test]
fn token_agent_neutralises_stormcrawlers_check_on_an_agent_without_a_token() {
    neutralises(
        "token-agent",
        "agent-without-product-token-refused-by-crawler",
        "sweep-agent-without-product-token#1",
        "crawler-commons-1.4",
    );
}

#[test]
fn drop_space_before_colon_neutralises_rerp_on_disallow_space_colon() {
    neutralises(
        "drop-space-before-colon",
        "colon-must-follow-key-rerp",
        "sweep-space-before-colon#1",
        "robotexclusionrulesparser",
    );
}

#[test]
fn add_leading_slash_neutralises_www_robotrules_on_a_bare_rule() {
    neutralises(
        "add-leading-slash",
        "relative-rule-resolved-against-robots-url-www-robotrules",
        "rob-pattern-without-slash#1",
        "www-robotrules",
    );
}
