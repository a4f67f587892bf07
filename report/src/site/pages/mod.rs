//! The pages of the site, one module per page: the index, one per oracle,
//! one per case, the case list, the ledger, the version history, the
//! census, the suites scoreboard and the README summary. This module holds what they share (the context computed
//! once, links, score cells); the pages import it whole (`use super::*`) so
//! that they read alike.

mod case;
mod cases;
mod census;
mod findings;
mod history;
mod index;
mod ledger;
mod oracle;
mod suites;
mod summary;

pub use case::case;
pub use cases::cases;
pub use census::census_page;
pub use findings::{findings_page, write_up_href};
pub use history::history_page;
pub use index::index;
pub use ledger::ledger;
pub use oracle::oracle;
pub use suites::suites_page;
pub use summary::summary_markdown;

use super::html::{
    band, band_legend, body_view, diff_view, esc, hex_dump, link_or_text, slug, status_symbol,
    status_text,
};
use super::Inputs;
use crate::compat::{section_order, section_title, CaseRec, CellRec, Report, Status};
use crate::history::{self as versions, lineage_of, version_key, version_number, Point};
use crate::score::{cards, sections, tags, Card, Score};
use engine::ledger::Entry;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

/// Everything the pages share, computed once.
pub struct Ctx<'a> {
    pub inp: &'a Inputs<'a>,
    pub report: &'a Report,
    pub cards: BTreeMap<String, Card>,
    /// (case, query, oracle) -> cell.
    pub cells: BTreeMap<(&'a str, usize, &'a str), &'a CellRec>,
    /// ledger entry -> cells it explains in this run.
    pub explained: BTreeMap<&'a str, Vec<&'a CellRec>>,
    pub points: BTreeMap<String, Vec<Point>>,
    pub footer: String,
    /// Oracle -> profile -> counts ([`crate::score::profile_matrix`]).
    pub profiles: BTreeMap<String, BTreeMap<String, Score>>,
    /// Oracle -> the profile it is closest to.
    pub closest: BTreeMap<String, String>,
}

impl<'a> Ctx<'a> {
    pub fn new(inp: &'a Inputs<'a>) -> Ctx<'a> {
        let report = inp.report;
        let mut explained: BTreeMap<&str, Vec<&CellRec>> = BTreeMap::new();
        for c in &report.cells {
            if let Some(e) = &c.triaged_by {
                explained.entry(e.as_str()).or_default().push(c);
            }
        }
        let footer = format!(
            "Rendered by `repdiff report` from compat.json of {} (format {}, corpus {}); \
             {} cases, {} queries, {} oracles, {} cells.",
            super::utc(report.generated_unix),
            report.format,
            short(&report.corpus_hash),
            report.cases.len(),
            report.queries(),
            report.oracles.len(),
            report.cells.len()
        );
        let profiles = crate::score::profile_matrix(report);
        let closest = crate::score::closest_profiles(report, &profiles);
        Ctx {
            inp,
            report,
            profiles,
            closest,
            cards: cards(report),
            cells: report
                .cells
                .iter()
                .map(|c| ((c.case.as_str(), c.query, c.oracle.as_str()), c))
                .collect(),
            explained,
            points: versions::points(report, inp.history),
            footer,
        }
    }

    fn cell(&self, case: &str, q: usize, oracle: &str) -> Option<&'a CellRec> {
        self.cells.get(&(case, q, oracle)).copied()
    }

    /// A link to an oracle's page, or its name when this report has no page for it.
    fn oracle_ref(&self, root: &str, name: &str) -> String {
        if self.report.oracle(name).is_some() {
            oracle_link(root, name)
        } else {
            format!("<code>{}</code>", esc(name))
        }
    }

    /// Lineages with more than one version point.
    fn moving_lineages(&self) -> Vec<(&String, &Vec<Point>)> {
        self.points
            .iter()
            .filter(|(_, pts)| distinct_versions(pts) > 1)
            .collect()
    }
}

fn distinct_versions(pts: &[Point]) -> usize {
    pts.iter()
        .map(|p| (&p.record.oracle, &p.record.identity))
        .collect::<BTreeSet<_>>()
        .len()
}

/// The first 12 characters of a hash; by characters, since a hand-edited
/// report may hold anything there.
pub fn short(hash: &str) -> &str {
    match hash.char_indices().nth(12) {
        Some((i, _)) => &hash[..i],
        None => hash,
    }
}

pub fn pct(p: Option<f64>) -> String {
    match p {
        // As the terminal and compat.md round, but never 100.0% unless perfect.
        Some(p) if p < 100.0 && format!("{p:.1}") == "100.0" => "99.9%".into(),
        Some(p) => format!("{p:.1}%"),
        None => "–".into(),
    }
}

/// A score cell: matched/scored and the percentage, coloured by band.
fn score_td(t: &Score, href: Option<&str>) -> String {
    if t.scored() == 0 {
        let extra = if t.unsupported > 0 {
            format!("<br><small>{} unsupported</small>", t.unsupported)
        } else {
            String::new()
        };
        return format!("<td class=\"m na\">– <small>none scored</small>{extra}</td>");
    }
    let text = format!("{}/{}<br>{}", t.matched, t.scored(), pct(t.share()));
    let text = match href {
        Some(h) => format!("<a href=\"{}\">{text}</a>", esc(h)),
        None => text,
    };
    let untri = if t.untriaged > 0 {
        format!(
            "<br><span class=\"untri\">⚠ {} untriaged</span>",
            t.untriaged
        )
    } else {
        String::new()
    };
    format!("<td class=\"m {}\">{text}{untri}</td>", band(t.share()))
}

fn oracle_link(root: &str, name: &str) -> String {
    format!(
        "<a href=\"{root}oracles/{}.html\"><code>{}</code></a>",
        slug(name),
        esc(name)
    )
}

fn case_link(root: &str, id: &str, query: Option<usize>) -> String {
    match query {
        Some(q) => format!(
            "<a href=\"{root}cases/{}.html#q{}\"><code>{}#{}</code></a>",
            slug(id),
            q + 1,
            esc(id),
            q + 1
        ),
        None => format!(
            "<a href=\"{root}cases/{}.html\"><code>{}</code></a>",
            slug(id),
            esc(id)
        ),
    }
}

fn entry_link(root: &str, id: &str) -> String {
    format!(
        "<a href=\"{root}ledger.html#{}\"><code>{}</code></a>",
        slug(id),
        esc(id)
    )
}

/// A matrix with one row per key and one column per oracle.
fn matrix(
    cx: &Ctx,
    id: &str,
    caption: &str,
    rows: &[String],
    title: &dyn Fn(&str) -> String,
    pick: &dyn Fn(&Card, &str) -> Score,
    anchor: &str,
) -> String {
    let mut s = String::new();
    let _ = write!(
        s,
        "<div class=\"wrap\"><table id=\"{id}\"><caption class=\"muted\">{}</caption><thead><tr><th>{}</th>",
        esc(caption),
        esc(anchor)
    );
    for o in &cx.report.oracles {
        let _ = write!(s, "<th class=\"m\">{}</th>", oracle_link("", &o.name));
    }
    s.push_str("</tr></thead><tbody>");
    for row in rows {
        let _ = write!(s, "<tr><th>{}</th>", title(row));
        for o in &cx.report.oracles {
            let card = cx.cards.get(&o.name).cloned().unwrap_or_default();
            let t = pick(&card, row);
            let href = format!(
                "oracles/{}.html#{}-{}",
                slug(&o.name),
                anchor,
                slug(row.trim_start_matches('§'))
            );
            s.push_str(&score_td(&t, Some(&href)));
        }
        s.push_str("</tr>");
    }
    s.push_str("</tbody></table></div>");
    s
}

/// The oracle x profile matrix for `oracles` (every oracle on the index, one
/// on its own page): the share each answers as each profile expects, and
/// the profile it is closest to. Empty for a report without profiles.
fn profile_table(cx: &Ctx, root: &str, oracles: &[&str]) -> String {
    let profiles = cx.report.profile_names();
    if profiles.is_empty() {
        return String::new();
    }
    let mut s = String::from(
        "<div class=\"wrap\"><table id=\"matrix-profiles\"><thead><tr><th>oracle</th>",
    );
    for p in &profiles {
        let version = cx
            .report
            .profiles
            .iter()
            .find(|r| &r.name == p)
            .map_or("RFC 9309 (the corpus's expectations)".to_string(), |r| {
                r.identity.to_string()
            });
        let _ = write!(
            s,
            "<th class=\"m\" title=\"{}\"><code>{}</code></th>",
            esc(&version),
            esc(p)
        );
    }
    s.push_str("<th>closest</th></tr></thead><tbody>");
    for o in oracles {
        let _ = write!(s, "<tr><th>{}</th>", oracle_link(root, o));
        let row = cx.profiles.get(*o);
        for p in &profiles {
            let t = row.and_then(|r| r.get(p)).copied().unwrap_or_default();
            s.push_str(&score_td(&t, None));
        }
        let closest = cx.closest.get(*o).map_or("–".into(), |c| {
            format!("<strong><code>{}</code></strong>", esc(c))
        });
        let _ = write!(s, "<td>{closest}</td></tr>");
    }
    s.push_str("</tbody></table></div>");
    let _ = write!(
        s,
        "<p class=\"muted\">{}</p>",
        ticks(&esc(crate::markdown::PROFILE_RULES))
    );
    s
}

/// `code` spans of already escaped text as `<code>`.
fn ticks(escaped: &str) -> String {
    let mut out = String::new();
    for (i, part) in escaped.split('`').enumerate() {
        if i % 2 == 1 {
            let _ = write!(out, "<code>{part}</code>");
        } else {
            out.push_str(part);
        }
    }
    out
}

fn section_heading(sec: &str) -> String {
    let t = section_title(sec);
    if t.is_empty() {
        format!("<code>{}</code>", esc(sec))
    } else {
        format!("<code>{}</code> {}", esc(sec), esc(t))
    }
}

fn triage_html(root: &str, c: &CellRec) -> String {
    match (&c.triaged_by, c.status.needs_triage()) {
        (Some(e), _) => entry_link(root, e),
        (None, true) => "<span class=\"untri\">⚠ UNTRIAGED</span>".into(),
        (None, false) => String::new(),
    }
}

fn versions_table(cx: &Ctx, pts: &[Point], root: &str) -> String {
    let mut b = String::from(
        "<div class=\"wrap\"><table><thead><tr><th>oracle</th><th>version</th><th>score</th>\
<th class=\"n\">✓</th><th class=\"n\">✗</th><th class=\"n\">!</th><th class=\"n\">≠</th>\
<th>corpus</th><th>first recorded</th><th>exact version</th></tr></thead><tbody>",
    );
    for p in pts {
        let t = p.record.tally();
        let _ = write!(
            b,
            "<tr><td>{}</td><td>{}</td>{}<td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td>\
<td><code>{}</code>{}</td><td>{}</td><td><small>{}</small></td></tr>",
            cx.oracle_ref(root, &p.record.oracle),
            esc(&versions::version_label(&p.record)),
            score_td(&t, None),
            t.matched,
            t.deviated,
            t.failed,
            t.split,
            esc(short(&p.record.corpus_hash)),
            if p.current { " (this report)" } else { "" },
            super::utc(p.record.recorded_unix),
            esc(&p.record.identity.to_string())
        );
    }
    b.push_str("</tbody></table></div>");
    b
}
