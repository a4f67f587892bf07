//! `repdiff triage minimize <finding>`: shrink a finding while its
//! signature holds, then write a ready corpus case and a draft ledger entry.
//!
//! "Holds" means, by default, that every cell key of the finding's new part
//! is still among the replay's cell keys (the new departure is still there;
//! unrelated, already-explained departures may come and go, which is what
//! isolates the new one). `--exact` demands the whole signature instead.
//!
//! Order: lines (delta debugging over whole lines, line ends kept), then
//! bytes, then the URL (host first, then the path's characters), then the
//! agent's characters, then lines once more.

use super::fuzzed::{Finding, Probe, Replay};
use cause::{ddmin as shrink, lines, Input};
use engine::case::{BodyPart, BodySpec, RawCase, RawFile, RawQuery};
use engine::ledger::{Classification, Entry, Pin};
use fuzzcore::record::{self, Minimized, PairCause};
use fuzzcore::triage::{self, Known};
use std::path::Path;

/// At most this many replays per finding (about 100 us each).
const BUDGET: usize = 40_000;

enum Want {
    NewPart(Vec<triage::Novel>),
    Exact(triage::FuzzSignature),
}

struct Shrinker {
    probe: Probe,
    want: Want,
    tests: usize,
}

impl Shrinker {
    fn holds(&mut self, body: &[u8], agent: &str, url: &str) -> bool {
        if self.tests >= BUDGET {
            return false;
        }
        self.tests += 1;
        let r = self.probe.replay(body, agent, url);
        let Some(t) = r.triaged else { return false };
        match &self.want {
            Want::NewPart(new) => new.iter().all(|n| match n {
                triage::Novel::Cell(key) => t.cells.contains(key),
                triage::Novel::Signature(sig) => t.signature == *sig,
            }),
            Want::Exact(sig) => t.signature == *sig,
        }
    }
}

fn split_url(url: &str) -> (String, String) {
    // "scheme://host[:port]" and the rest.
    if let Some(i) = url.find("://") {
        let after = &url[i + 3..];
        let host_end = after.find('/').map_or(url.len(), |j| i + 3 + j);
        (url[..host_end].to_string(), url[host_end..].to_string())
    } else {
        (String::new(), url.to_string())
    }
}

// String error: xtask's fuzz loop shares it and prints the message as is.
pub fn minimize(dir: &Path, known: &Known, exact: bool) -> Result<String, String> {
    let f = Finding::load(dir)?.ok_or_else(|| format!("{}: no finding.json", dir.display()))?;
    let mut s = Shrinker {
        probe: Probe::new()?,
        want: if exact {
            Want::Exact(f.record.signature.clone())
        } else {
            Want::NewPart(f.new_part().to_vec())
        },
        tests: 0,
    };
    let mut body = f.body.clone();
    let mut agent = f.record.agent.clone();
    let mut url = f.record.url.clone();
    if !s.holds(&body, &agent, &url) {
        return Err(format!(
            "finding {} does not reproduce in process (its signature does not hold on replay)",
            f.hash
        ));
    }
    let original = (body.len(), agent.len(), url.len());
    // 1. lines
    let ls = shrink(lines(&body), |c| s.holds(&c.concat(), &agent, &url));
    body = ls.concat();
    // 2. bytes
    body = shrink(body, |c| s.holds(c, &agent, &url));
    // 3. URL: a plain host, then the path
    let (host, path) = split_url(&url);
    if host != "http://example.test" && !host.is_empty() {
        let plain = format!("http://example.test{path}");
        if s.holds(&body, &agent, &plain) {
            url = plain;
        }
    }
    let (host, path) = split_url(&url);
    let chars: Vec<char> = path.chars().collect();
    let path: String = shrink(chars, |c| {
        let p: String = c.iter().collect();
        (host.is_empty() || p.is_empty() || p.starts_with('/'))
            && s.holds(&body, &agent, &format!("{host}{p}"))
    })
    .into_iter()
    .collect();
    url = format!("{host}{path}");
    // 4. agent
    let chars: Vec<char> = agent.chars().collect();
    agent = shrink(chars, |c| {
        !c.is_empty() && s.holds(&body, &c.iter().collect::<String>(), &url)
    })
    .into_iter()
    .collect();
    // 5. lines again (the URL and agent may have freed some)
    let ls = shrink(lines(&body), |c| s.holds(&c.concat(), &agent, &url));
    body = ls.concat();

    let replay = s.probe.replay(&body, &agent, &url);
    let t = replay
        .triaged
        .clone()
        .ok_or("the minimised input no longer disagrees (bug)")?;
    let case_id = format!("fuzz-{}", f.hash);
    let case = case_yaml(&case_id, &f, &body, &agent, &url, &replay, &t);
    let draft = ledger_draft(&case_id, &f, &replay, &t, known);
    std::fs::write(dir.join("min.robots.txt"), &body).map_err(|e| e.to_string())?;
    std::fs::write(dir.join("case.yaml"), &case).map_err(|e| e.to_string())?;
    std::fs::write(dir.join("ledger-draft.yaml"), &draft).map_err(|e| e.to_string())?;
    let min = Minimized {
        agent: agent.clone(),
        url: url.clone(),
        body_len: body.len(),
        signature: t.signature.clone(),
        cells: t.cells.clone(),
        replays: s.tests as u64,
        case_id,
        causes: name_causes(&mut s.probe, &f, &t),
    };
    std::fs::write(dir.join("minimized.json"), record::to_pretty(&min))
        .map_err(|e| e.to_string())?;
    Ok(format!(
        "finding {}: body {} -> {} bytes, agent {} -> {} chars, URL {} -> {} chars in {} replays\n  \
         signature: {}\n  causes: {}\n  wrote {}/case.yaml and ledger-draft.yaml",
        f.hash,
        original.0,
        body.len(),
        original.1,
        agent.len(),
        original.2,
        url.len(),
        s.tests,
        t.signature,
        min.causes
            .iter()
            .map(|c| format!("{}: {}", c.oracle, c.cause))
            .collect::<Vec<_>>()
            .join(", "),
        dir.display()
    ))
}

/// Each departing oracle's cause: its pair with the reference minimised
/// alone from the finding's original input, then classified
/// (the `cause` crate). One entry per oracle, the cell key kept as a fact.
fn name_causes(probe: &mut Probe, f: &Finding, t: &triage::Triaged) -> Vec<PairCause> {
    let input = Input {
        body: f.body.clone(),
        agent: f.record.agent.clone(),
        url: f.record.url.clone(),
    };
    let mut out = Vec::new();
    for key in &t.cells {
        let oracle = key.oracle();
        let Some(mut pair) = probe.pair(oracle) else {
            continue;
        };
        let Some(named) = cause::name_cause(&mut pair, &input) else {
            continue;
        };
        out.push(PairCause {
            oracle: oracle.to_string(),
            cause: named.cause,
            answers: format!("{}->{}", named.answers.0, named.answers.1),
            cell_key: key.clone(),
            signature: t.signature.clone(),
            agent: named.minimised.agent,
            url: named.minimised.url,
            body: named.minimised.body.escape_ascii().to_string(),
        });
    }
    out
}

/// A YAML double-quoted string (JSON's escapes are YAML's).
fn plain_text(b: &[u8]) -> bool {
    b.iter()
        .all(|&c| (0x20..0x7F).contains(&c) || c == b'\n' || c == b'\r' || c == b'\t')
}

/// The body as the case format holds it: one string when it is plain
/// printable ASCII, else text and hex parts.
fn body_spec(body: &[u8]) -> BodySpec {
    if plain_text(body) {
        return BodySpec::Text(String::from_utf8_lossy(body).into_owned());
    }
    let printable = |c: u8| (0x20..0x7F).contains(&c) || c == b'\n' || c == b'\r' || c == b'\t';
    let mut parts = Vec::new();
    let mut i = 0;
    while i < body.len() {
        let start = i;
        let kind = printable(body[i]);
        while i < body.len() && printable(body[i]) == kind {
            i += 1;
        }
        let run = &body[start..i];
        parts.push(match kind {
            true => BodyPart {
                text: Some(String::from_utf8_lossy(run).into_owned()),
                ..BodyPart::default()
            },
            false => BodyPart {
                hex: Some(
                    run.iter()
                        .map(|b| format!("{b:02x}"))
                        .collect::<Vec<_>>()
                        .join(" "),
                ),
                ..BodyPart::default()
            },
        });
    }
    BodySpec::Parts(parts)
}

/// The RFC 9309 section behind the reference verdict, from the feature.
pub fn basis(feature: &str) -> String {
    if feature == "/robots.txt" {
        return "§2.2.2 (\"The /robots.txt URI is implicitly allowed\")".into();
    }
    if feature == "no-group" {
        return "§2.2.1 (no group matches the product token and there is no `*` group: no rules apply)".into();
    }
    if feature.starts_with("no-match") {
        return "§2.2.2 (no rule of the group matches: the URI is allowed)".into();
    }
    let flags = feature
        .split_once('[')
        .and_then(|(_, r)| r.split_once(']'))
        .map_or("", |(f, _)| f);
    let mut b = String::from("§2.2.2 MUST (the most specific match decides)");
    if flags.contains('*') || flags.contains('$') {
        b.push_str(", §2.2.3 (special characters `*` and `$`)");
    }
    if flags.contains('%') || flags.contains('8') {
        b.push_str(", §2.2.2 (percent-encoding before comparison)");
    }
    if feature.ends_with("/exact") || feature.ends_with("/star") {
        b.push_str(", §2.2.1 (group selection)");
    }
    b
}

fn tags(feature: &str, body: &[u8]) -> Vec<&'static str> {
    let flags = feature
        .split_once('[')
        .and_then(|(_, r)| r.split_once(']'))
        .map_or("", |(f, _)| f);
    let mut t = Vec::new();
    if flags.contains('*') || flags.contains('$') {
        t.push("wildcard");
    }
    if flags.contains('%') {
        t.push("percent-encoding");
    }
    if flags.contains('8') || !body.is_ascii() {
        t.push("encoding");
    }
    if feature == "/robots.txt" {
        t.push("special-path");
    }
    if t.is_empty() {
        t.push("line-syntax");
    }
    t
}

fn verdict(r: &Replay) -> (String, String) {
    r.answers
        .iter()
        .find(|(n, _)| n == triage::REFERENCE)
        .map(|(_, a)| (a.outcome.label(), a.explain.clone()))
        .unwrap_or_else(|| ("?".into(), String::new()))
}

/// Who one piece of the new part is about: the departing oracle, or the
/// whole signature when the reference gave no answer to key cells by.
fn novel_who(n: &triage::Novel) -> String {
    match n {
        triage::Novel::Cell(key) => key.oracle().to_string(),
        triage::Novel::Signature(sig) => sig.to_string(),
    }
}

/// `case.yaml`: a corpus file holding the one case, written by the loader's
/// own type, ready to move into `cases/corpus/`.
fn case_yaml(
    id: &str,
    f: &Finding,
    body: &[u8],
    agent: &str,
    url: &str,
    r: &Replay,
    t: &triage::Triaged,
) -> String {
    let (expect, explain) = verdict(r);
    let new: Vec<String> = f.new_part().iter().map(novel_who).collect();
    let case = RawCase {
        id: id.to_string(),
        title: format!(
            "fuzz finding {}: {} depart from RFC 9309 ({})",
            f.hash,
            new.join(", "),
            t.feature()
        ),
        tags: tags(t.feature(), body)
            .iter()
            .map(|t| t.to_string())
            .collect(),
        source: format!(
            "cargo xtask fuzz (target {}, finding fuzz/findings/{}), minimised",
            f.record.target, f.hash
        ),
        robots: body_spec(body),
        queries: vec![RawQuery {
            agent: Some(agent.to_string()),
            url: Some(url.to_string()),
            expect: serde_yaml::Value::from(expect),
            rfc: Some(basis(t.feature())),
            ..RawQuery::default()
        }],
        http: None,
        family: None,
        notes: Some(format!(
            "signature: {}. rfc9309's reading: {explain}",
            t.signature
        )),
    };
    serde_yaml::to_string(&RawFile { cases: vec![case] }).unwrap_or_default()
}

fn ledger_draft(id: &str, f: &Finding, r: &Replay, t: &triage::Triaged, known: &Known) -> String {
    let entries = draft_entries(id, f, r, t, known);
    let doc = serde_yaml::to_string(&DraftLedger { entries }).unwrap_or_default();
    format!(
        "# DRAFT by `triage minimize`: check every field (title, rfc, upstream, explanation) before\n\
         # appending these entries to the ledger (an entry about one oracle to its\n\
         # oracles/harness/<name>/divergences.yaml, one about several to cases/divergences.yaml);\n\
         # they load as they are.\n{doc}"
    )
}

/// The ledger file's shape, for the draft: serialised with the loader's own
/// [`Entry`] type, so a draft loads without hand editing.
#[derive(serde::Serialize)]
struct DraftLedger {
    entries: Vec<Entry>,
}

/// The draft's entries: one for the new departure, then one per ledger entry
/// of the corpus whose departure the minimised input shows again.
fn draft_entries(
    id: &str,
    f: &Finding,
    r: &Replay,
    t: &triage::Triaged,
    known: &Known,
) -> Vec<Entry> {
    let (_, explain) = verdict(r);
    let new = f.new_part();
    let answer = |oracle: &str| r.answers.iter().find(|(n, _)| n == oracle).map(|(_, a)| a);
    let said = |oracles: &[&str]| -> String {
        oracles
            .iter()
            .map(|o| match answer(o) {
                Some(a) if !a.outcome.detail().is_empty() => {
                    format!("{o} says {} ({})", a.outcome.label(), a.outcome.detail())
                }
                Some(a) => format!("{o} says {}", a.outcome.label()),
                None => format!("{o} gave no answer"),
            })
            .collect::<Vec<_>>()
            .join("; ")
    };
    let entry = |entry_id: String, title: String, oracles: &[&str], explanation: String| Entry {
        id: entry_id,
        title,
        oracles: oracles.iter().map(|o| o.to_string()).collect(),
        classification: Classification::Bug,
        rfc: basis(t.feature()),
        upstream: "none known".into(),
        cases: vec![engine::ledger::QueryRef::one(id, 0)],
        outcomes: oracles
            .iter()
            .filter_map(|o| answer(o).map(|a| (o.to_string(), Pin::All(a.outcome.pin()))))
            .collect(),
        explanation,
        cause: None,
        also_causes: Vec::new(),
        line: 0,
    };
    let new_oracles: Vec<&str> = t
        .cells
        .iter()
        .filter(|c| {
            new.iter()
                .any(|n| matches!(n, triage::Novel::Cell(k) if k.same_but_feature(c)))
        })
        .map(|c| c.oracle())
        .collect();
    let mut entries = vec![entry(
        id.to_string(),
        format!(
            "DRAFT: {}",
            new.iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join(" + ")
        ),
        &new_oracles,
        format!("DRAFT. {}. rfc9309: {explain}", said(&new_oracles)),
    )];
    // Other departures on the same query, already explained in the corpus.
    let mut others: std::collections::BTreeMap<String, Vec<&str>> = Default::default();
    for c in &t.cells {
        let o = c.oracle();
        if new_oracles.contains(&o) {
            continue;
        }
        let by = known
            .explained_by
            .get(c)
            .map(|s| s.iter().cloned().collect::<Vec<_>>().join(", "))
            .unwrap_or_else(|| "(no corpus cell shows it)".into());
        others.entry(by).or_default().push(o);
    }
    for (by, oracles) in others {
        let first = by.split(", ").next().unwrap_or("");
        let suffix = if first.starts_with('(') {
            "unexplained"
        } else {
            first
        };
        entries.push(entry(
            format!("{id}-also-{suffix}"),
            format!("DRAFT: the cause of {by}, seen again in {id}"),
            &oracles,
            format!(
                "DRAFT. Same departure as ledger entry {by} in the corpus. {}.",
                said(&oracles)
            ),
        ));
    }
    entries
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::signature::Signature;
    use fuzzcore::record::FindingRecord;

    #[test]
    fn ddmin_finds_the_needed_units() {
        let units: Vec<u32> = (0..100).collect();
        let got = shrink(units, |c| c.contains(&17) && c.contains(&63));
        assert_eq!(got, vec![17, 63]);
    }

    #[test]
    fn lines_keep_their_ends() {
        assert_eq!(
            lines(b"a\r\nb\rc\nd"),
            vec![
                b"a\r\n".to_vec(),
                b"b\r".to_vec(),
                b"c\n".to_vec(),
                b"d".to_vec()
            ]
        );
        assert_eq!(
            split_url("http://x.test:80/a?b"),
            ("http://x.test:80".into(), "/a?b".into())
        );
    }

    /// The case and the ledger draft `minimize` writes load through the
    /// engine's own loaders as written, with the new oracle's outcome pinned.
    #[test]
    fn the_case_and_its_ledger_draft_load_as_written() {
        use engine::oracle::{Answer, Outcome};
        let feature = "no-group".to_string();
        let new_key = triage::cell_key("protego", "allowed", "disallowed", &feature);
        let other_key = triage::cell_key("spider", "allowed", "disallowed", &feature);
        let answer = Answer::from;
        let replay = Replay {
            answers: vec![
                (triage::REFERENCE.into(), answer(Outcome::Allowed)),
                ("protego".into(), answer(Outcome::Disallowed)),
                ("spider".into(), answer(Outcome::Disallowed)),
            ],
            triaged: None,
        };
        let t = triage::Triaged {
            signature: triage::FuzzSignature {
                agreement: Signature::of([(triage::REFERENCE, &Outcome::Allowed)]),
                feature: feature.clone(),
            },
            cells: vec![new_key.clone(), other_key],
        };
        let f = Finding {
            dir: "unused".into(),
            hash: "0123456789ab".into(),
            record: FindingRecord {
                new: vec![triage::Novel::Cell(new_key)],
                ..FindingRecord::default()
            },
            body: b"User-agent: bot\nDisallow: /\n".to_vec(),
        };
        let id = "fuzz-0123456789ab";
        let url = "http://example.test/x";
        let case = case_yaml(id, &f, &f.body, "MyBot", url, &replay, &t);
        let cases = engine::case::parse_file(Path::new("case.yaml"), &case)
            .unwrap_or_else(|e| panic!("{e}\n{case}"));
        let corpus = engine::case::Corpus {
            cases,
            hash: String::new(),
        };
        let draft = ledger_draft(id, &f, &replay, &t, &Known::default());
        let ledger = engine::ledger::parse(
            Path::new("ledger-draft.yaml"),
            &draft,
            &corpus,
            &["protego", "spider"],
        )
        .unwrap_or_else(|e| panic!("{e}\n{draft}"));
        assert_eq!(ledger.entries.len(), 2, "{draft}");
        let first = &ledger.entries[0];
        assert_eq!(first.oracles, vec!["protego".to_string()]);
        assert_eq!(
            first.outcomes.get("protego"),
            Some(&Pin::All(engine::ledger::Label::Disallowed))
        );
        assert_eq!(ledger.entries[1].oracles, vec!["spider".to_string()]);
    }

    #[test]
    fn bodies_round_trip_through_the_case_format() {
        let body = b"User-agent: *\r\nDisallow: /\xc3\xa4\xff\n";
        let case = RawCase {
            id: "x".into(),
            title: "t".into(),
            tags: vec!["encoding".into()],
            source: "s".into(),
            robots: body_spec(body),
            queries: vec![RawQuery {
                agent: Some("a".into()),
                url: Some("http://x.test/".into()),
                expect: serde_yaml::Value::from("allowed"),
                rfc: Some("§2.2.2".into()),
                ..RawQuery::default()
            }],
            http: None,
            family: None,
            notes: None,
        };
        let y = serde_yaml::to_string(&RawFile { cases: vec![case] }).unwrap();
        let cases = engine::case::parse_file(Path::new("t.yaml"), &y).unwrap();
        assert_eq!(cases[0].body, body.to_vec());
    }
}
