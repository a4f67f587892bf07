//! Reports: `compat.json` (every cell, machine-readable) and `compat.md`
//! (scorecards, divergences by ledger entry, untriaged cells with a diff and
//! a reproducer). Written atomically so a failed run never leaves a
//! half-written report behind.

use crate::case::{Case, Expect};
use crate::ledger::Ledger;
use crate::run::{Cell, RunResult, Status};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::Path;

/// The one-line command that replays a cell.
pub fn reproducer(case: &str, query: usize, oracle: &str) -> String {
    format!(
        "cargo xtask check --case {case}#{} --oracle {oracle}",
        query + 1
    )
}

/// Counts of one oracle's cells, the way the scorecards count them: an
/// `either` query that matched is not scored (any verdict would do). The
/// site reads them back from other runs' reports too (`site::model::Tally`).
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, PartialEq, Eq)]
pub struct Score {
    pub matched: usize,
    pub deviated: usize,
    pub failed: usize,
    pub split: usize,
    pub unsupported: usize,
    #[serde(default)]
    pub triaged: usize,
    #[serde(default)]
    pub untriaged: usize,
}

impl Score {
    fn add(&mut self, cell: &Cell, definite: bool) {
        self.count(cell.status, cell.triaged_by.is_some(), definite);
    }

    /// Count one cell of `status`; `triaged`: a ledger entry explains it;
    /// `definite`: its query's expectation is not `either`.
    pub fn count(&mut self, status: Status, triaged: bool, definite: bool) {
        match status {
            Status::Match if definite => self.matched += 1,
            Status::Match => {}
            Status::Deviate => self.deviated += 1,
            Status::Failed => self.failed += 1,
            Status::Split => self.split += 1,
            Status::Unsupported => self.unsupported += 1,
        }
        if status.needs_triage() {
            if triaged {
                self.triaged += 1;
            } else {
                self.untriaged += 1;
            }
        }
    }

    /// Cells with a definite expectation that the oracle answered.
    pub fn scored(&self) -> usize {
        self.matched + self.deviated + self.failed
    }

    /// Matched share of the scored cells; `None` when nothing was scored.
    pub fn share(&self) -> Option<f64> {
        (self.scored() > 0).then(|| 100.0 * self.matched as f64 / self.scored() as f64)
    }

    /// [`Score::share`], 0 when nothing was scored.
    pub fn percent(&self) -> f64 {
        self.share().unwrap_or(0.0)
    }
}

/// Per oracle: overall and per tag.
pub fn scorecards(
    result: &RunResult,
    cases: &[&Case],
) -> BTreeMap<String, (Score, BTreeMap<String, Score>)> {
    let by_id: BTreeMap<&str, &Case> = cases.iter().map(|c| (c.id.as_str(), *c)).collect();
    let mut out: BTreeMap<String, (Score, BTreeMap<String, Score>)> = BTreeMap::new();
    for o in &result.oracles {
        out.insert(o.name.clone(), Default::default());
    }
    for cell in &result.cells {
        let Some(case) = by_id.get(cell.case.as_str()) else {
            continue;
        };
        let definite = !matches!(
            case.queries[cell.query].expect,
            Expect::Verdict(crate::case::Verdict::Either)
        );
        let entry = out.entry(cell.oracle.clone()).or_default();
        entry.0.add(cell, definite);
        for tag in &case.tags {
            entry.1.entry(tag.clone()).or_default().add(cell, definite);
        }
    }
    out
}

#[derive(Serialize)]
struct JsonQuery<'a> {
    index: usize,
    ask: &'a str,
    agent: &'a str,
    url: &'a str,
    expect: String,
    basis: &'a str,
    why: Option<&'a str>,
    signature: &'a str,
}

#[derive(Serialize)]
struct JsonCase<'a> {
    id: &'a str,
    title: &'a str,
    tags: &'a [String],
    source: &'a str,
    file: String,
    line: usize,
    family: Option<&'a str>,
    http: Option<&'a crate::case::HttpSpec>,
    /// The body, as bytes in hex, so the report alone can replay a case.
    body_hex: String,
    queries: Vec<JsonQuery<'a>>,
}

#[derive(Serialize)]
struct JsonReport<'a> {
    format: &'static str,
    generated_unix: u64,
    corpus_hash: &'a str,
    millis: u128,
    oracles: &'a [crate::run::OracleInfo],
    unavailable: &'a [crate::oracle::Unavailable],
    scores: BTreeMap<String, Score>,
    cases: Vec<JsonCase<'a>>,
    cells: &'a [Cell],
    stale: &'a [String],
}

/// `compat.json`. Case files are named relative to `base` (the repository
/// root), so the same corpus run from two checkouts gives the same bytes.
pub fn to_json(result: &RunResult, cases: &[&Case], corpus_hash: &str, base: &Path) -> String {
    let sigs: BTreeMap<(&str, usize), &str> = result
        .signatures
        .iter()
        .map(|s| ((s.case.as_str(), s.query), s.signature.as_str()))
        .collect();
    let report = JsonReport {
        format: "repdiff-compat/1",
        generated_unix: std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_secs())
            .unwrap_or(0),
        corpus_hash,
        millis: result.millis,
        oracles: &result.oracles,
        unavailable: &result.unavailable,
        scores: scorecards(result, cases)
            .into_iter()
            .map(|(k, (s, _))| (k, s))
            .collect(),
        cases: cases
            .iter()
            .map(|c| JsonCase {
                id: &c.id,
                title: &c.title,
                tags: &c.tags,
                source: &c.source,
                file: c
                    .file
                    .strip_prefix(base)
                    .unwrap_or(&c.file)
                    .display()
                    .to_string(),
                line: c.line,
                family: c.family.as_deref(),
                http: c.http.as_ref(),
                body_hex: c.body.iter().map(|b| format!("{b:02x}")).collect(),
                queries: c
                    .queries
                    .iter()
                    .enumerate()
                    .map(|(i, q)| JsonQuery {
                        index: i + 1,
                        ask: q.query.ask.as_str(),
                        agent: &q.query.agent,
                        url: &q.query.url,
                        expect: q.expect.to_string(),
                        basis: &q.basis,
                        why: q.why.as_deref(),
                        signature: sigs.get(&(c.id.as_str(), i)).copied().unwrap_or(""),
                    })
                    .collect(),
            })
            .collect(),
        cells: &result.cells,
        stale: &result.stale,
    };
    serde_json::to_string_pretty(&report).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"))
}

/// One line per query of a case, as the oracle answered or as expected; the
/// two lists are diffed with `similar` for an untriaged cell.
fn verdict_lines(case: &Case, answers: Option<&[&Cell]>) -> String {
    let mut s = String::new();
    for (i, q) in case.queries.iter().enumerate() {
        let said = match answers {
            None => q.expect.to_string(),
            Some(cells) => cells
                .iter()
                .find(|c| c.query == i)
                .map(|c| c.answer.outcome.label())
                .unwrap_or_else(|| "-".into()),
        };
        let _ = writeln!(
            s,
            "#{} {} agent={:?} url={:?} -> {}",
            i + 1,
            q.query.ask.as_str(),
            q.query.agent,
            q.query.url,
            said
        );
    }
    s
}

pub fn untriaged_diff(case: &Case, result: &RunResult, oracle: &str) -> String {
    let cells: Vec<&Cell> = result
        .cells
        .iter()
        .filter(|c| c.case == case.id && c.oracle == oracle)
        .collect();
    let expected = verdict_lines(case, None);
    let actual = verdict_lines(case, Some(&cells));
    similar::TextDiff::from_lines(&expected, &actual)
        .unified_diff()
        .header("expected", oracle)
        .to_string()
}

pub fn to_markdown(
    result: &RunResult,
    cases: &[&Case],
    ledger: &Ledger,
    corpus_hash: &str,
) -> String {
    let mut md = String::new();
    let queries: usize = cases.iter().map(|c| c.queries.len()).sum();
    let _ = writeln!(md, "# repdiff compatibility report\n");
    let _ = writeln!(
        md,
        "{} cases, {} queries, {} oracles; corpus `{}`; {} ms.\n",
        cases.len(),
        queries,
        result.oracles.len(),
        &corpus_hash[..corpus_hash.len().min(16)],
        result.millis
    );
    if !result.unavailable.is_empty() {
        let _ = writeln!(md, "> **Oracles NOT run (unavailable):**");
        for u in &result.unavailable {
            let _ = writeln!(md, "> - `{}`: {} — fix: `{}`", u.oracle, u.reason, u.fix);
        }
        md.push('\n');
    }
    let cards = scorecards(result, cases);
    let _ = writeln!(md, "## Scorecard against RFC 9309 expectations\n");
    let _ = writeln!(
        md,
        "| oracle | version | match | deviate | failed | split | unsupported | score | triaged | untriaged |"
    );
    let _ = writeln!(md, "|---|---|---|---|---|---|---|---|---|---|");
    for o in &result.oracles {
        if let Some((s, _)) = cards.get(&o.name) {
            let _ = writeln!(
                md,
                "| `{}` | {} | {} | {} | {} | {} | {} | {:.1}% | {} | {} |",
                o.name,
                o.version.replace('|', "\\|"),
                s.matched,
                s.deviated,
                s.failed,
                s.split,
                s.unsupported,
                s.percent(),
                s.triaged,
                s.untriaged
            );
        }
    }
    let mut tags: Vec<&str> = cases
        .iter()
        .flat_map(|c| c.tags.iter().map(String::as_str))
        .collect();
    tags.sort();
    tags.dedup();
    let _ = writeln!(md, "\n### Per tag (matched / scored)\n");
    let _ = write!(md, "| tag |");
    for o in &result.oracles {
        let _ = write!(md, " `{}` |", o.name);
    }
    let _ = write!(md, "\n|---|");
    for _ in &result.oracles {
        let _ = write!(md, "---|");
    }
    md.push('\n');
    for tag in &tags {
        let _ = write!(md, "| {tag} |");
        for o in &result.oracles {
            let s = cards
                .get(&o.name)
                .and_then(|(_, t)| t.get(*tag))
                .cloned()
                .unwrap_or_default();
            if s.scored() == 0 {
                let _ = write!(md, " – |");
            } else {
                let _ = write!(md, " {}/{} |", s.matched, s.scored());
            }
        }
        md.push('\n');
    }

    status_matrix(&mut md, result, cases);
    metamorphic(&mut md, result, cases);

    let _ = writeln!(md, "\n## Divergences by ledger entry\n");
    let mut by_entry: BTreeMap<&str, Vec<&Cell>> = BTreeMap::new();
    for c in &result.cells {
        if let Some(e) = &c.triaged_by {
            by_entry.entry(e.as_str()).or_default().push(c);
        }
    }
    for entry in &ledger.entries {
        let Some(cells) = by_entry.get(entry.id.as_str()) else {
            continue;
        };
        let _ = writeln!(
            md,
            "### `{}` — {}\n\n{} · RFC 9309 {} · upstream: {}\n\n{}\n",
            entry.id,
            entry.title,
            entry.classification.as_str(),
            entry.rfc,
            entry.upstream,
            entry.explanation.trim()
        );
        for c in cells {
            let _ = writeln!(
                md,
                "- `{}` `{}`: {} ({:?})",
                c.query_ref(),
                c.oracle,
                c.answer.outcome.label(),
                c.status
            );
        }
        md.push('\n');
    }

    let untriaged: Vec<&Cell> = result.untriaged().collect();
    let _ = writeln!(md, "## Untriaged cells: {}\n", untriaged.len());
    let by_id: BTreeMap<&str, &Case> = cases.iter().map(|c| (c.id.as_str(), *c)).collect();
    let mut shown = std::collections::BTreeSet::new();
    for c in &untriaged {
        let _ = writeln!(
            md,
            "- `{}` `{}` said {} ({:?}); reproduce: `{}`",
            c.query_ref(),
            c.oracle,
            c.answer.outcome.label(),
            c.status,
            reproducer(&c.case, c.query, &c.oracle)
        );
        if shown.insert((c.case.as_str(), c.oracle.as_str())) {
            if let Some(case) = by_id.get(c.case.as_str()) {
                let _ = writeln!(
                    md,
                    "\n```diff\n{}```\n",
                    untriaged_diff(case, result, &c.oracle)
                );
            }
        }
    }
    if !result.stale.is_empty() {
        let _ = writeln!(
            md,
            "\n## Stale ledger entries (explain nothing in this run)\n"
        );
        for s in &result.stale {
            let _ = writeln!(md, "- `{s}`");
        }
    }
    md
}

/// Write `bytes` to `path` via a temporary file in the same directory and a
/// rename, so readers see the old file or the new one, never a torn one.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)?;
    let tmp = dir.join(format!(
        ".{}.{}.tmp",
        path.file_name()
            .and_then(|n| n.to_str())
            .unwrap_or("report"),
        std::process::id()
    ));
    let result = (|| {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// The HTTP status matrix: what each fetching oracle did with each response,
/// beside the RFC 9309 §2.3.1 expectation and Googlebot's documented policy.
fn status_matrix(md: &mut String, result: &RunResult, cases: &[&Case]) {
    let http: Vec<&&Case> = cases.iter().filter(|c| c.http.is_some()).collect();
    if http.is_empty() {
        return;
    }
    let answering: Vec<&str> = result
        .oracles
        .iter()
        .map(|o| o.name.as_str())
        .filter(|name| {
            result.cells.iter().any(|c| {
                c.oracle == *name
                    && c.status != Status::Unsupported
                    && http.iter().any(|h| h.id == c.case)
            })
        })
        .collect();
    let silent: Vec<&str> = result
        .oracles
        .iter()
        .map(|o| o.name.as_str())
        .filter(|n| !answering.contains(n))
        .collect();
    let _ = writeln!(md, "\n## HTTP status matrix\n");
    let _ = writeln!(
        md,
        "Served by repdiff's local HTTP server; fetched with each library's own fetcher. \
         No fetcher (not run, never guessed): {}.\n",
        if silent.is_empty() {
            "none".to_string()
        } else {
            silent
                .iter()
                .map(|s| format!("`{s}`"))
                .collect::<Vec<_>>()
                .join(", ")
        }
    );
    let _ = write!(
        md,
        "| case | response | query | RFC 9309 | Googlebot (documented) |"
    );
    for o in &answering {
        let _ = write!(md, " `{o}` |");
    }
    let _ = write!(md, "\n|---|---|---|---|---|");
    for _ in &answering {
        let _ = write!(md, "---|");
    }
    md.push('\n');
    for case in http {
        let Some(h) = &case.http else { continue };
        let mut response = h.status.to_string();
        if !h.redirects.is_empty() {
            response = format!(
                "{} -> {}",
                h.redirects
                    .iter()
                    .map(u16::to_string)
                    .collect::<Vec<_>>()
                    .join(" -> "),
                response
            );
        }
        if let Some(f) = h.fault {
            response = format!("{f:?}");
        }
        if h.gzip {
            response.push_str(" gzip");
        }
        for (i, q) in case.queries.iter().enumerate() {
            let path = q
                .query
                .url
                .splitn(4, '/')
                .nth(3)
                .map(|p| format!("/{p}"))
                .unwrap_or_default();
            let _ = write!(
                md,
                "| `{}` | {} | {} | {} | {} |",
                case.id,
                response,
                path,
                q.expect,
                h.googlebot.as_deref().unwrap_or("")
            );
            for o in &answering {
                let label = result
                    .cells
                    .iter()
                    .find(|c| c.case == case.id && c.query == i && c.oracle == *o)
                    .map(|c| c.answer.outcome.label())
                    .unwrap_or_default();
                let _ = write!(md, " {label} |");
            }
            md.push('\n');
        }
    }
}

/// Metamorphic families: variants RFC 9309 treats as equivalent must get the
/// same verdicts; list each oracle whose verdict changes across a family.
fn metamorphic(md: &mut String, result: &RunResult, cases: &[&Case]) {
    let mut families: BTreeMap<&str, Vec<&Case>> = BTreeMap::new();
    for c in cases {
        if let Some(f) = &c.family {
            families.entry(f.as_str()).or_default().push(c);
        }
    }
    if families.is_empty() {
        return;
    }
    let _ = writeln!(md, "\n## Metamorphic families\n");
    let _ = writeln!(
        md,
        "{} families of equivalent variants. Oracles whose verdict changes across a family:\n",
        families.len()
    );
    let mut any = false;
    for (family, members) in &families {
        for o in &result.oracles {
            // verdict vectors per variant, query by query
            let vectors: Vec<(String, Vec<String>)> = members
                .iter()
                .map(|c| {
                    let v = (0..c.queries.len())
                        .map(|i| {
                            result
                                .cells
                                .iter()
                                .find(|x| x.case == c.id && x.query == i && x.oracle == o.name)
                                .map(|x| x.answer.outcome.label())
                                .unwrap_or_default()
                        })
                        .collect();
                    (c.id.clone(), v)
                })
                .collect();
            let first = &vectors[0].1;
            let changed: Vec<&str> = vectors
                .iter()
                .filter(|(_, v)| v != first)
                .map(|(id, _)| id.as_str())
                .collect();
            if !changed.is_empty() {
                any = true;
                let _ = writeln!(
                    md,
                    "- `{family}`: `{}` changes on {} (vs `{}`)",
                    o.name,
                    changed
                        .iter()
                        .map(|c| format!("`{c}`"))
                        .collect::<Vec<_>>()
                        .join(", "),
                    vectors[0].0
                );
            }
        }
    }
    if !any {
        let _ = writeln!(md, "none.");
    }
}
