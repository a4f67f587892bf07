//! `compat.md`: the report for a reader in a terminal or a pull request
//! (scorecards, the HTTP status matrix, metamorphic families, divergences by
//! ledger entry, untriaged cells with a diff and a reproducer).
//!
//! Rendered from the typed report alone (plus the ledger for the entries'
//! prose), so a published `compat.json` can be rendered again.

use crate::compat::{CaseRec, CellRec, Report};
use crate::score::{cards, tags, Card, Score};
use engine::ledger::Ledger;
use engine::run::Status;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

/// The whole `compat.md`.
pub fn render(report: &Report, ledger: &Ledger) -> String {
    let mut md = String::new();
    header(&mut md, report);
    let cards = cards(report);
    scorecard(&mut md, report, &cards);
    per_tag(&mut md, report, &cards);
    profile_matrix(&mut md, report);
    status_matrix(&mut md, report);
    metamorphic(&mut md, report);
    divergences(&mut md, report, ledger);
    untriaged(&mut md, report);
    stale(&mut md, report);
    md
}

/// Title, size of the run, and the oracles that did not run: a report
/// missing an oracle must say so before any score.
fn header(md: &mut String, report: &Report) {
    let _ = writeln!(md, "# repdiff compatibility report\n");
    let _ = writeln!(
        md,
        "{} cases, {} queries, {} oracles; corpus `{}`; {} ms.\n",
        report.cases.len(),
        report.queries(),
        report.oracles.len(),
        report.corpus_hash.chars().take(16).collect::<String>(),
        report.millis
    );
    if !report.unavailable.is_empty() {
        let _ = writeln!(md, "> **Oracles NOT run (unavailable):**");
        for u in &report.unavailable {
            let _ = writeln!(
                md,
                "> - `{}`: {} — fix: `{}`",
                u.oracle,
                u.reason,
                u.fix_line("repdiff")
            );
        }
        md.push('\n');
    }
}

fn scorecard(md: &mut String, report: &Report, cards: &BTreeMap<String, Card>) {
    let _ = writeln!(md, "## Scorecard against RFC 9309 expectations\n");
    let _ = writeln!(
        md,
        "| oracle | version | match | deviate | failed | split | unsupported | score | triaged | untriaged |"
    );
    let _ = writeln!(md, "|---|---|---|---|---|---|---|---|---|---|");
    for o in &report.oracles {
        if let Some(card) = cards.get(&o.name) {
            let s = &card.all;
            let _ = writeln!(
                md,
                "| `{}` | {} | {} | {} | {} | {} | {} | {:.1}% | {} | {} |",
                o.name,
                o.identity.to_string().replace('|', "\\|"),
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
}

fn per_tag(md: &mut String, report: &Report, cards: &BTreeMap<String, Card>) {
    let _ = writeln!(md, "\n### Per tag (matched / scored)\n");
    let _ = write!(md, "| tag |");
    for o in &report.oracles {
        let _ = write!(md, " `{}` |", o.name);
    }
    let _ = write!(md, "\n|---|");
    for _ in &report.oracles {
        let _ = write!(md, "---|");
    }
    md.push('\n');
    for tag in tags(report) {
        let _ = write!(md, "| {tag} |");
        for o in &report.oracles {
            let s = cards
                .get(&o.name)
                .and_then(|card| card.tags.get(&tag))
                .copied()
                .unwrap_or_default();
            if s.scored() == 0 {
                let _ = write!(md, " – |");
            } else {
                let _ = write!(md, " {}/{} |", s.matched, s.scored());
            }
        }
        md.push('\n');
    }
}

/// How the profile matrix counts, for every reader of it (compat.md, the
/// site); [`crate::score::profile_matrix`] is the code.
pub const PROFILE_RULES: &str = "Each cell is the share of the queries an oracle answers as the profile expects: \
matched / (matched + deviated + failed). `rfc9309` uses the corpus's own expectations and is the RFC 9309 score \
above (a matched `either` query and a split are not scored). Every other profile expects its hand pin where the \
case has one (with its citation), else what its reference answered; queries it cannot decide (crawl-delay, \
request-rate, sitemaps) are not counted, and since it always decides allowed or disallowed, RFC 9309's `either` \
queries count like any other. An error, crash or timeout counts as a miss (failed); an unsupported query (e.g. \
an HTTP case for a parser without a fetcher) is not scored. Profiles are references, never triaged: the ledger \
stays RFC 9309's. Closest: the highest share; a tie goes to more matched queries, then to the earlier column.";

/// The oracle x profile matrix: which standard each parser follows.
fn profile_matrix(md: &mut String, report: &Report) {
    if report.profile_names().is_empty() {
        return;
    }
    let _ = writeln!(md, "\n## Which standard? Oracle × profile\n");
    let _ = writeln!(md, "{PROFILE_RULES}\n");
    profile_table(
        md,
        report,
        "oracle",
        |s| match s {
            Some(s) if s.scored() > 0 => {
                format!("{:.1}% ({}/{})", s.percent(), s.matched, s.scored())
            }
            _ => "–".into(),
        },
        |c| format!("`{c}`"),
    );
}

/// The oracle x profile table in Markdown, recomputed from the cells as the
/// scorecard is; compat.md and the README summary differ only in how a cell
/// and the closest profile are written.
pub fn profile_table(
    md: &mut String,
    report: &Report,
    corner: &str,
    cell: impl Fn(Option<&Score>) -> String,
    closest_name: impl Fn(&str) -> String,
) {
    let profiles = report.profile_names();
    let matrix = crate::score::profile_matrix(report);
    let closest = crate::score::closest_profiles(report, &matrix);
    let _ = write!(md, "| {corner} |");
    for p in &profiles {
        let _ = write!(md, " `{p}` |");
    }
    let _ = write!(md, " closest |\n|---|");
    for _ in &profiles {
        md.push_str("---|");
    }
    md.push_str("---|\n");
    for o in &report.oracles {
        let _ = write!(md, "| `{}` |", o.name);
        let row = matrix.get(&o.name);
        for p in &profiles {
            let _ = write!(md, " {} |", cell(row.and_then(|r| r.get(p))));
        }
        let c = closest.get(&o.name);
        let _ = writeln!(md, " {} |", c.map_or("–".into(), |c| closest_name(c)));
    }
}

/// The label `oracle` gave to query `query` of `case`, empty when it has
/// no cell there.
fn label_of(report: &Report, case: &str, query: usize, oracle: &str) -> String {
    report
        .cells
        .iter()
        .find(|c| c.case == case && c.query == query && c.oracle == oracle)
        .map(CellRec::label)
        .unwrap_or_default()
}

/// The HTTP status matrix: what each fetching oracle did with each response,
/// beside the RFC 9309 §2.3.1 expectation and Googlebot's documented policy.
fn status_matrix(md: &mut String, report: &Report) {
    let http: Vec<&CaseRec> = report.cases.iter().filter(|c| c.http.is_some()).collect();
    if http.is_empty() {
        return;
    }
    let answering: Vec<&str> = report
        .oracles
        .iter()
        .map(|o| o.name.as_str())
        .filter(|name| {
            report.cells.iter().any(|c| {
                c.oracle == *name
                    && c.status != Status::Unsupported
                    && http.iter().any(|h| h.id == c.case)
            })
        })
        .collect();
    let silent: Vec<String> = report
        .oracles
        .iter()
        .map(|o| o.name.as_str())
        .filter(|n| !answering.contains(n))
        .map(|s| format!("`{s}`"))
        .collect();
    let _ = writeln!(md, "\n## HTTP status matrix\n");
    let _ = writeln!(
        md,
        "Served by repdiff's local HTTP server; fetched with each library's own fetcher. \
         No fetcher (not run, never guessed): {}.\n",
        if silent.is_empty() {
            "none".to_string()
        } else {
            silent.join(", ")
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
        status_rows(md, report, case, &answering);
    }
}

/// One row per query of an HTTP case.
fn status_rows(md: &mut String, report: &Report, case: &CaseRec, answering: &[&str]) {
    let Some(h) = &case.http else { return };
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
        for o in answering {
            let _ = write!(md, " {} |", label_of(report, &case.id, i, o));
        }
        md.push('\n');
    }
}

/// Metamorphic families: variants RFC 9309 treats as equivalent must get the
/// same verdicts; list each oracle whose verdict changes across a family.
fn metamorphic(md: &mut String, report: &Report) {
    let mut families: BTreeMap<&str, Vec<&CaseRec>> = BTreeMap::new();
    for c in &report.cases {
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
        for o in &report.oracles {
            // verdict vectors per variant, query by query
            let vectors: Vec<(&str, Vec<String>)> = members
                .iter()
                .map(|c| {
                    let v = (0..c.queries.len())
                        .map(|i| label_of(report, &c.id, i, &o.name))
                        .collect();
                    (c.id.as_str(), v)
                })
                .collect();
            let first = &vectors[0].1;
            let changed: Vec<String> = vectors
                .iter()
                .filter(|(_, v)| v != first)
                .map(|(id, _)| format!("`{id}`"))
                .collect();
            if !changed.is_empty() {
                any = true;
                let _ = writeln!(
                    md,
                    "- `{family}`: `{}` changes on {} (vs `{}`)",
                    o.name,
                    changed.join(", "),
                    vectors[0].0
                );
            }
        }
    }
    if !any {
        let _ = writeln!(md, "none.");
    }
}

fn divergences(md: &mut String, report: &Report, ledger: &Ledger) {
    let _ = writeln!(md, "\n## Divergences by ledger entry\n");
    let mut by_entry: BTreeMap<&str, Vec<&CellRec>> = BTreeMap::new();
    for c in &report.cells {
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
                c.label(),
                c.status
            );
        }
        md.push('\n');
    }
}

/// Each untriaged cell with its reproducer; the first of each (case,
/// oracle) also with the diff of its answers against the expectations.
fn untriaged(md: &mut String, report: &Report) {
    let untriaged: Vec<&CellRec> = report.untriaged().collect();
    let _ = writeln!(md, "## Untriaged cells: {}\n", untriaged.len());
    let mut shown = BTreeSet::new();
    for c in &untriaged {
        let _ = writeln!(
            md,
            "- `{}` `{}` said {} ({:?}); reproduce: `{}`",
            c.query_ref(),
            c.oracle,
            c.label(),
            c.status,
            crate::reproducer(&c.case, c.query, &c.oracle)
        );
        if shown.insert((c.case.as_str(), c.oracle.as_str())) {
            if let Some(case) = report.case(&c.case) {
                let _ = writeln!(
                    md,
                    "\n```diff\n{}```\n",
                    untriaged_diff(case, report, &c.oracle)
                );
            }
        }
    }
}

fn stale(md: &mut String, report: &Report) {
    if report.stale.is_empty() {
        return;
    }
    let _ = writeln!(
        md,
        "\n## Stale ledger entries (explain nothing in this run)\n"
    );
    for s in &report.stale {
        let _ = writeln!(md, "- `{s}`");
    }
}

/// One line per query of a case, as the oracle answered (`answer(i)`, `-`
/// when it has no cell) or as expected (`answer` absent); the two lists are
/// what a diff of an oracle against the expectations compares.
fn verdict_lines(case: &CaseRec, answer: Option<&dyn Fn(usize) -> Option<String>>) -> String {
    let mut s = String::new();
    for (i, q) in case.queries.iter().enumerate() {
        let said = match answer {
            None => q.expect.to_string(),
            Some(answer) => answer(i).unwrap_or_else(|| "-".into()),
        };
        let _ = writeln!(
            s,
            "#{} {} agent={:?} url={:?} -> {}",
            i + 1,
            q.ask.as_str(),
            q.agent,
            q.url,
            said
        );
    }
    s
}

/// The unified diff of `oracle`'s answers on `case` (`answer(i)`: its label
/// for query `i`) against the expectations; compat.md and the case pages
/// show the same diff.
pub fn answers_diff(
    case: &CaseRec,
    oracle: &str,
    answer: &dyn Fn(usize) -> Option<String>,
) -> String {
    let expected = verdict_lines(case, None);
    let actual = verdict_lines(case, Some(answer));
    similar::TextDiff::from_lines(&expected, &actual)
        .unified_diff()
        .header("expected", oracle)
        .to_string()
}

/// [`answers_diff`] of a cell's (case, oracle) in `report`.
fn untriaged_diff(case: &CaseRec, report: &Report, oracle: &str) -> String {
    answers_diff(case, oracle, &|i| {
        report
            .cells
            .iter()
            .find(|c| c.case == case.id && c.oracle == oracle && c.query == i)
            .map(CellRec::label)
    })
}
