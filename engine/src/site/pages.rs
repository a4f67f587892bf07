//! The pages of the site: index, one per oracle, one per case, the case
//! list, the ledger and the version history.

use super::history::{self, Point};
use super::html::{
    band, band_legend, body_view, diff_view, esc, hex_dump, link_or_text, slug, status_symbol,
    status_text,
};
use super::model::{
    cards, family_of, section_order, section_title, sections, tags, version_number, Card, CaseRec,
    CellRec, Report, Status, Tally,
};
use super::Inputs;
use crate::ledger::Entry;
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
            "Rendered by `cargo xtask report` from compat.json of {} (format {}, corpus {}); \
             {} cases, {} queries, {} oracles, {} cells.",
            super::utc(report.generated_unix),
            report.format,
            short(&report.corpus_hash),
            report.cases.len(),
            report.queries(),
            report.oracles.len(),
            report.cells.len()
        );
        Ctx {
            inp,
            report,
            cards: cards(report),
            cells: report
                .cells
                .iter()
                .map(|c| ((c.case.as_str(), c.query, c.oracle.as_str()), c))
                .collect(),
            explained,
            points: history::points(report, inp.history),
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

    /// Families with more than one version point.
    fn moving_families(&self) -> Vec<(&String, &Vec<Point>)> {
        self.points
            .iter()
            .filter(|(_, pts)| distinct_versions(pts) > 1)
            .collect()
    }
}

fn distinct_versions(pts: &[Point]) -> usize {
    pts.iter()
        .map(|p| (&p.record.oracle, &p.record.version))
        .collect::<BTreeSet<_>>()
        .len()
}

pub fn short(hash: &str) -> &str {
    &hash[..hash.len().min(12)]
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
fn score_td(t: &Tally, href: Option<&str>) -> String {
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
    pick: &dyn Fn(&Card, &str) -> Tally,
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

fn section_heading(sec: &str) -> String {
    let t = section_title(sec);
    if t.is_empty() {
        format!("<code>{}</code>", esc(sec))
    } else {
        format!("<code>{}</code> {}", esc(sec), esc(t))
    }
}

pub fn index(cx: &Ctx) -> String {
    let r = cx.report;
    let mut b = String::new();
    let _ = write!(
        b,
        "<h1>repdiff: robots.txt parsers against RFC 9309</h1>\
<p>Every parser below ran the same corpus of {} cases ({} queries) as its real library; \
each answer is compared with what RFC 9309 says and every disagreement is explained by an entry of the \
<a href=\"ledger.html\">known-divergence ledger</a> or flagged as untriaged. \
Run of {}, corpus <code>{}</code>.</p>",
        r.cases.len(),
        r.queries(),
        super::utc(r.generated_unix),
        esc(short(&r.corpus_hash))
    );
    if !r.unavailable.is_empty() {
        b.push_str("<p class=\"untri\">Oracles NOT run in this report:</p><ul>");
        for u in &r.unavailable {
            let _ = write!(
                b,
                "<li><code>{}</code>: {} — fix: <code>{}</code></li>",
                esc(&u.oracle),
                esc(&u.reason),
                esc(&u.fix)
            );
        }
        b.push_str("</ul>");
    }
    let untriaged = r.untriaged().count();
    let _ = write!(
        b,
        "<p><strong>{}</strong> · {} ledger entries explain {} cells · {} stale entr{}.</p>",
        if untriaged == 0 {
            "✓ every divergence is triaged".to_string()
        } else {
            format!("⚠ {untriaged} untriaged cell(s)")
        },
        cx.explained.len(),
        cx.explained.values().map(Vec::len).sum::<usize>(),
        r.stale.len(),
        if r.stale.len() == 1 { "y" } else { "ies" }
    );

    b.push_str("<h2 id=\"summary\">Scorecard</h2>");
    b.push_str(
        "<p class=\"muted\">score = matched / scored, where scored counts the queries with a definite \
RFC 9309 answer that the oracle answered (match + deviate + failed); <code>either</code> queries only \
count when the oracle sides with a minority (split).</p>",
    );
    b.push_str(
        "<div class=\"wrap\"><table id=\"scorecard\"><thead><tr><th>oracle</th><th>score</th>\
<th class=\"n\">✓ match</th><th class=\"n\">✗ deviate</th><th class=\"n\">! failed</th>\
<th class=\"n\">≠ split</th><th class=\"n\">– unsupported</th><th class=\"n\">triaged</th>\
<th class=\"n\">untriaged</th><th>badge</th><th>version</th></tr></thead><tbody>",
    );
    for o in &r.oracles {
        let t = cx.cards.get(&o.name).map(|c| c.all).unwrap_or_default();
        let _ = write!(
            b,
            "<tr><th>{}</th>{}<td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td>\
<td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n{}\">{}</td>\
<td><a href=\"badges/{}.json\">json</a></td><td><small>{}</small></td></tr>",
            oracle_link("", &o.name),
            score_td(&t, None),
            t.matched,
            t.deviated,
            t.failed,
            t.split,
            t.unsupported,
            t.triaged,
            if t.untriaged > 0 { " untri" } else { "" },
            t.untriaged,
            slug(&o.name),
            esc(&o.version)
        );
    }
    b.push_str("</tbody></table></div>");
    b.push_str(band_legend());

    let tag_rows = tags(r);
    b.push_str("<h2 id=\"tags\">By feature (tag)</h2>");
    b.push_str(&matrix(
        cx,
        "matrix-tags",
        "oracles × tags: matched/scored",
        &tag_rows,
        &|t| format!("<a href=\"cases.html#tag-{}\">{}</a>", slug(t), esc(t)),
        &|c, t| c.tags.get(t).copied().unwrap_or_default(),
        "tag",
    ));
    let sec_rows = sections(r);
    b.push_str("<h2 id=\"sections\">By RFC 9309 section</h2>");
    b.push_str(
        "<p class=\"muted\">Each query cites the section its expectation rests on \
(<code>RFC 9309 §x.y …</code>); <code>convention</code> rows are queries the RFC is silent on.</p>",
    );
    b.push_str(&matrix(
        cx,
        "matrix-sections",
        "oracles × RFC 9309 sections: matched/scored",
        &sec_rows,
        &|s| section_heading(s),
        &|c, s| c.sections.get(s).copied().unwrap_or_default(),
        "section",
    ));

    // Version moves.
    let moving = cx.moving_families();
    if !moving.is_empty() {
        b.push_str("<h2 id=\"versions\">Across versions</h2><ul>");
        for (fam, pts) in moving {
            for w in pts.windows(2) {
                if (&w[0].record.oracle, &w[0].record.version)
                    == (&w[1].record.oracle, &w[1].record.version)
                {
                    continue;
                }
                let moves = history::moves(r, &w[0], &w[1]);
                let fixed = moves.iter().filter(|m| m.kind == "fixed").count();
                let broke = moves.iter().filter(|m| m.kind == "broke").count();
                let _ = write!(
                    b,
                    "<li><a href=\"history.html#fam-{}\">{}</a>: <code>{}</code> {} → <code>{}</code> {}: \
{} cell(s) moved ({fixed} fixed, {broke} broke), score {} → {}</li>",
                    slug(fam),
                    esc(fam),
                    esc(&w[0].record.oracle),
                    esc(&history::version_label(&w[0].record)),
                    esc(&w[1].record.oracle),
                    esc(&history::version_label(&w[1].record)),
                    moves.len(),
                    pct(w[0].record.tally().share()),
                    pct(w[1].record.tally().share()),
                );
            }
        }
        b.push_str("</ul>");
    }

    // The ledger at a glance.
    let mut by_class: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    for e in &cx.inp.ledger.entries {
        let n = cx.explained.get(e.id.as_str()).map_or(0, Vec::len);
        let slot = by_class.entry(e.classification.as_str()).or_default();
        slot.0 += 1;
        slot.1 += n;
    }
    b.push_str("<h2 id=\"ledger\">Known divergences</h2><table><thead><tr><th>classification</th><th class=\"n\">entries</th><th class=\"n\">cells explained</th></tr></thead><tbody>");
    for (class, (e, n)) in &by_class {
        let _ = write!(
            b,
            "<tr><td><a href=\"ledger.html#class-{}\">{}</a></td><td class=\"n\">{e}</td><td class=\"n\">{n}</td></tr>",
            slug(class),
            esc(class)
        );
    }
    b.push_str("</tbody></table>");
    let _ = write!(
        b,
        "<p><a href=\"cases.html\">All {} cases</a> · <a href=\"ledger.html\">the ledger</a> · \
<a href=\"history.html\">versions and history</a> · raw report: \
<a href=\"../latest/compat.json\">compat.json</a>, <a href=\"../latest/compat.md\">compat.md</a></p>",
        r.cases.len()
    );
    super::html::page("RFC 9309 conformance", "", &cx.footer, &b)
}

pub fn oracle(cx: &Ctx, name: &str) -> String {
    let r = cx.report;
    let Some(o) = r.oracle(name) else {
        return String::new();
    };
    let card = cx.cards.get(name).cloned().unwrap_or_default();
    let root = "../";
    let mut b = String::new();
    let _ = write!(
        b,
        "<h1>Oracle <code>{}</code></h1><table><tbody>\
<tr><th>exact version</th><td><code>{}</code></td></tr>\
<tr><th>how it was obtained</th><td>{}</td></tr>\
<tr><th>answers</th><td>{}</td></tr>\
<tr><th>time in this run</th><td>{} ms</td></tr>\
<tr><th>score</th>{}</tr>\
<tr><th>badge</th><td><a href=\"../badges/{}.json\">badges/{}.json</a> (shields.io endpoint)</td></tr>\
</tbody></table>",
        esc(name),
        esc(&o.version),
        Some(o.about.provenance_text())
            .filter(|p| !p.is_empty())
            .map(|p| ticks(&esc(&p)))
            .unwrap_or_else(|| "<span class=\"muted\">not recorded</span>".into()),
        esc(&capabilities(&o.capabilities)),
        o.millis,
        score_td(&card.all, None),
        slug(name),
        slug(name)
    );

    let tally_table = |b: &mut String, id: &str, rows: Vec<(String, String, Tally)>| {
        let _ = write!(
            b,
            "<div class=\"wrap\"><table id=\"{id}\"><thead><tr><th>{}</th><th>score</th>\
<th class=\"n\">✓ match</th><th class=\"n\">✗ deviate</th><th class=\"n\">! failed</th>\
<th class=\"n\">≠ split</th><th class=\"n\">– unsupported</th><th class=\"n\">triaged</th>\
<th class=\"n\">untriaged</th></tr></thead><tbody>",
            if id.contains("section") {
                "RFC 9309 section"
            } else {
                "tag"
            }
        );
        for (anchor, title, t) in rows {
            let _ = write!(
                b,
                "<tr id=\"{}\"><th>{title}</th>{}<td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td>\
<td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n{}\">{}</td></tr>",
                esc(&anchor),
                score_td(&t, None),
                t.matched,
                t.deviated,
                t.failed,
                t.split,
                t.unsupported,
                t.triaged,
                if t.untriaged > 0 { " untri" } else { "" },
                t.untriaged
            );
        }
        b.push_str("</tbody></table></div>");
    };
    b.push_str("<h2>Scorecard against RFC 9309, section by section</h2>");
    let mut secs: Vec<(&String, &Tally)> = card.sections.iter().collect();
    secs.sort_by_key(|(s, _)| section_order(s));
    tally_table(
        &mut b,
        "by-section",
        secs.into_iter()
            .map(|(s, t)| {
                (
                    format!("section-{}", slug(s.trim_start_matches('§'))),
                    section_heading(s),
                    *t,
                )
            })
            .collect(),
    );
    b.push_str(band_legend());
    b.push_str("<h2>By tag</h2>");
    tally_table(
        &mut b,
        "by-tag",
        card.tags
            .iter()
            .map(|(t, x)| (format!("tag-{}", slug(t)), esc(t), *x))
            .collect(),
    );

    // Ledger entries naming this oracle.
    let entries: Vec<&Entry> = cx
        .inp
        .ledger
        .entries
        .iter()
        .filter(|e| e.oracles.iter().any(|x| x == name))
        .collect();
    let _ = write!(
        b,
        "<h2 id=\"ledger\">Its ledger entries ({})</h2>",
        entries.len()
    );
    if entries.is_empty() {
        b.push_str("<p>None.</p>");
    } else {
        b.push_str("<table><thead><tr><th>entry</th><th>classification</th><th>RFC 9309</th><th class=\"n\">cells here</th><th>title</th></tr></thead><tbody>");
        for e in entries {
            let n = cx
                .explained
                .get(e.id.as_str())
                .map_or(0, |v| v.iter().filter(|c| c.oracle == name).count());
            let _ = write!(
                b,
                "<tr><td>{}</td><td>{}</td><td>{}</td><td class=\"n\">{n}</td><td>{}</td></tr>",
                entry_link(root, &e.id),
                esc(e.classification.as_str()),
                esc(&e.rfc),
                esc(&e.title)
            );
        }
        b.push_str("</tbody></table>");
    }

    // Cells that do not match.
    let off: Vec<&CellRec> = r
        .cells
        .iter()
        .filter(|c| c.oracle == name && c.status.needs_triage())
        .collect();
    let _ = write!(
        b,
        "<h2 id=\"divergences\">Its divergences ({} cells)</h2>",
        off.len()
    );
    if !off.is_empty() {
        b.push_str("<div class=\"wrap\"><table><thead><tr><th>cell</th><th>expected</th><th>answered</th><th>status</th><th>explained by</th></tr></thead><tbody>");
        for c in off {
            let expected = r
                .case(&c.case)
                .and_then(|k| k.queries.get(c.query))
                .map(|q| q.expect.clone())
                .unwrap_or_default();
            let _ = write!(
                b,
                "<tr><td>{}</td><td>{}</td><td class=\"s-{}\">{}</td><td class=\"s-{}\">{}</td><td>{}</td></tr>",
                case_link(root, &c.case, Some(c.query)),
                esc(&expected),
                c.status.as_str(),
                esc(&c.label()),
                c.status.as_str(),
                status_text(c.status),
                triage_html(root, c)
            );
        }
        b.push_str("</tbody></table></div>");
    }

    // Versions of this parser.
    let fam = family_of(name).to_string();
    if let Some(pts) = cx.points.get(&fam) {
        b.push_str("<h2 id=\"versions\">Versions</h2>");
        b.push_str(&versions_table(cx, pts, root));
        if distinct_versions(pts) > 1 {
            let _ = write!(
                b,
                "<p><a href=\"../history.html#fam-{}\">How {} moved across versions</a></p>",
                slug(&fam),
                esc(&fam)
            );
        }
    }
    super::html::page(&format!("oracle {name}"), root, &cx.footer, &b)
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

fn capabilities(c: &crate::oracle::Capabilities) -> String {
    let mut v = Vec::new();
    if c.can_fetch {
        v.push("can_fetch");
    }
    if c.crawl_delay {
        v.push("crawl_delay");
    }
    if c.request_rate {
        v.push("request_rate");
    }
    if c.sitemaps {
        v.push("sitemaps");
    }
    if c.http_fetch {
        v.push("its own HTTP fetcher");
    }
    if v.is_empty() {
        "nothing".into()
    } else {
        v.join(", ")
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
            esc(&history::version_label(&p.record)),
            score_td(&t, None),
            t.matched,
            t.deviated,
            t.failed,
            t.split,
            esc(short(&p.record.corpus_hash)),
            if p.current { " (this report)" } else { "" },
            super::utc(p.record.recorded_unix),
            esc(&p.record.version)
        );
    }
    b.push_str("</tbody></table></div>");
    b
}

/// The queries' verdict lines of one oracle (or the expectations), as the
/// markdown report writes them, for the `similar` diff.
fn verdict_lines(case: &CaseRec, oracle: Option<&str>, cx: &Ctx) -> String {
    let mut s = String::new();
    for (i, q) in case.queries.iter().enumerate() {
        let said = match oracle {
            None => q.expect.clone(),
            Some(o) => cx
                .cell(&case.id, i, o)
                .map(|c| c.label())
                .unwrap_or_else(|| "-".into()),
        };
        let _ = writeln!(
            s,
            "#{} {} agent={:?} url={:?} -> {}",
            i + 1,
            q.ask,
            q.agent,
            q.url,
            said
        );
    }
    s
}

fn text_view(s: &str) -> String {
    if s.is_empty() {
        return "<span class=\"muted\">(empty)</span>".into();
    }
    let v = body_view(s.as_bytes());
    // body_view marks a missing final LF; a query string has none.
    v.replace("<span class=\"rep\">⟨no final LF⟩</span>", "")
}

pub fn case(cx: &Ctx, case: &CaseRec) -> String {
    let r = cx.report;
    let root = "../";
    let body = case.body();
    let mut b = String::new();
    let _ = write!(
        b,
        "<h1><code>{}</code>: {}</h1><p>",
        esc(&case.id),
        esc(&case.title)
    );
    for t in &case.tags {
        let _ = write!(
            b,
            "<a class=\"tag\" href=\"../cases.html#tag-{}\">{}</a>",
            slug(t),
            esc(t)
        );
    }
    let _ = write!(
        b,
        "</p><table><tbody><tr><th>source</th><td>{}</td></tr><tr><th>written in</th><td><code>{}:{}</code></td></tr>",
        esc(&case.source),
        esc(case.file_rel()),
        case.line
    );
    if let Some(f) = &case.family {
        let members: Vec<&CaseRec> = r
            .cases
            .iter()
            .filter(|c| c.family.as_deref() == Some(f.as_str()))
            .collect();
        let _ = write!(
            b,
            "<tr><th>metamorphic family</th><td><code>{}</code>: {}</td></tr>",
            esc(f),
            members
                .iter()
                .map(|m| case_link(root, &m.id, None))
                .collect::<Vec<_>>()
                .join(" ")
        );
    }
    if let Some(h) = &case.http {
        let _ = write!(
            b,
            "<tr><th>served over HTTP as</th><td><code>{}</code></td></tr>",
            esc(&serde_json::to_string(h).unwrap_or_default())
        );
    }
    b.push_str("</tbody></table>");

    // The body.
    let _ = write!(
        b,
        "<h2 id=\"body\">robots.txt: {} bytes, exactly</h2>\
<p class=\"muted\">Escapes are highlighted: <span class=\"esc\">\\r</span> CR, <span class=\"lf\">\\n</span> LF \
(followed by a real line break), <span class=\"esc\">\\t</span> tab, <span class=\"esc\">\\0</span> NUL, \
<span class=\"esc\">&lt;BOM&gt;</span> byte order mark, <span class=\"esc\">\\xNN</span> a byte that is not \
valid UTF-8 or a control byte; <span class=\"rep\">⟨…⟩</span> folds repeats with their exact count.</p>\
<pre class=\"body\" id=\"robots\">{}</pre>",
        body.len(),
        body_view(&body)
    );
    if !body.is_empty() && body.len() <= 4096 {
        let _ = write!(
            b,
            "<details><summary>hex dump</summary><pre>{}</pre></details>",
            hex_dump(&body)
        );
    }

    // Verdict grid.
    b.push_str("<h2 id=\"verdicts\">Verdicts</h2><div class=\"wrap\"><table id=\"verdict-grid\"><thead><tr><th>#</th><th>query</th><th>RFC 9309 expects</th>");
    for o in &r.oracles {
        let _ = write!(b, "<th class=\"v\">{}</th>", oracle_link(root, &o.name));
    }
    b.push_str("</tr></thead><tbody>");
    for (i, q) in case.queries.iter().enumerate() {
        let _ = write!(
            b,
            "<tr id=\"q{}\"><th><a href=\"#q{}\">#{}</a></th><td><code>{}</code><br>agent <code>{}</code>{}</td><td><strong>{}</strong></td>",
            i + 1,
            i + 1,
            i + 1,
            esc(&q.ask),
            text_view(&q.agent),
            if q.url.is_empty() {
                String::new()
            } else {
                format!("<br>url <code>{}</code>", text_view(&q.url))
            },
            esc(&q.expect)
        );
        for o in &r.oracles {
            match cx.cell(&case.id, i, &o.name) {
                Some(c) => {
                    let _ = write!(
                        b,
                        "<td class=\"v s-{}\" data-oracle=\"{}\">{}<br><small>{}</small>{}</td>",
                        c.status.as_str(),
                        esc(&o.name),
                        esc(&c.label()),
                        status_text(c.status),
                        match triage_html(root, c) {
                            t if t.is_empty() => t,
                            t => format!("<br><small>{t}</small>"),
                        }
                    );
                }
                None => b.push_str("<td class=\"m na\">– not run</td>"),
            }
        }
        b.push_str("</tr>");
    }
    b.push_str("</tbody></table></div>");

    // Per query: basis, agreement classes, reproducers, explanations.
    b.push_str("<h2 id=\"queries\">Queries</h2>");
    for (i, q) in case.queries.iter().enumerate() {
        let _ = write!(
            b,
            "<h3>#{}: {} {}</h3><p>basis: {}{}</p>",
            i + 1,
            esc(&q.ask),
            esc(&q.expect),
            esc(&q.basis),
            q.why
                .as_deref()
                .map(|w| format!("<br>why either: {}", esc(w)))
                .unwrap_or_default()
        );
        if !q.signature.is_empty() {
            let _ = write!(
                b,
                "<p>agreement: <code class=\"signature\">{}</code></p>",
                esc(&q.signature)
            );
        }
        let _ = write!(
            b,
            "<p>replay every oracle: <code class=\"repro\">cargo xtask check --case {}#{}</code></p>",
            esc(&case.id),
            i + 1
        );
        let needs: Vec<&CellRec> = r
            .oracles
            .iter()
            .filter_map(|o| cx.cell(&case.id, i, &o.name))
            .filter(|c| c.status.needs_triage())
            .collect();
        if !needs.is_empty() {
            b.push_str("<ul>");
            for c in needs {
                let _ = write!(
                    b,
                    "<li><code>{}</code> said <strong>{}</strong> ({}) {}<br>reproduce: <code class=\"repro\">{}</code>{}</li>",
                    esc(&c.oracle),
                    esc(&c.label()),
                    status_text(c.status),
                    match &c.triaged_by {
                        Some(e) => format!("— explained by {}", entry_link(root, e)),
                        None => "— <span class=\"untri\">⚠ UNTRIAGED</span>".into(),
                    },
                    esc(&crate::report::reproducer(&case.id, i, &c.oracle)),
                    detail(c)
                );
            }
            b.push_str("</ul>");
        }
        let explains: Vec<(&str, &CellRec)> = r
            .oracles
            .iter()
            .filter_map(|o| cx.cell(&case.id, i, &o.name).map(|c| (o.name.as_str(), c)))
            .filter(|(_, c)| !c.answer.explain.is_empty())
            .collect();
        for (name, c) in explains {
            let _ = write!(
                b,
                "<p class=\"muted\"><code>{}</code> explains: {}</p>",
                esc(name),
                esc(&c.answer.explain)
            );
        }
    }

    // Across versions of one parser.
    let mut fams: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for o in &r.oracles {
        fams.entry(family_of(&o.name)).or_default().push(&o.name);
    }
    let mut flips = String::new();
    for (fam, mut members) in fams {
        if members.len() < 2 {
            continue;
        }
        members.sort_by_key(|m| {
            r.oracle(m)
                .and_then(|o| version_number(&o.version))
                .map(super::model::version_key)
                .unwrap_or_default()
        });
        for (i, _) in case.queries.iter().enumerate() {
            for w in members.windows(2) {
                let (Some(a), Some(c)) = (cx.cell(&case.id, i, w[0]), cx.cell(&case.id, i, w[1]))
                else {
                    continue;
                };
                if a.label() == c.label() {
                    continue;
                }
                let ver = |n: &str| {
                    r.oracle(n)
                        .and_then(|o| version_number(&o.version))
                        .unwrap_or("")
                        .to_string()
                };
                let _ = write!(
                    flips,
                    "<li class=\"flip\" data-family=\"{}\">#{}: <code>{}</code> ({}) said <span class=\"s-{}\">{}</span> → \
<code>{}</code> ({}) says <span class=\"s-{}\">{}</span></li>",
                    esc(fam),
                    i + 1,
                    esc(w[0]),
                    esc(&ver(w[0])),
                    a.status.as_str(),
                    esc(&format!("{} ({})", a.label(), status_text(a.status))),
                    esc(w[1]),
                    esc(&ver(w[1])),
                    c.status.as_str(),
                    esc(&format!("{} ({})", c.label(), status_text(c.status))),
                );
            }
        }
    }
    if !flips.is_empty() {
        let _ = write!(
            b,
            "<h2 id=\"versions\">Across versions of one parser</h2><ul id=\"version-flips\">{flips}</ul>\
<p><a href=\"../history.html\">All moves across versions</a></p>"
        );
    }

    // Expected vs actual, for every oracle with a cell to explain.
    let with_div: Vec<&str> = r
        .oracles
        .iter()
        .map(|o| o.name.as_str())
        .filter(|o| {
            (0..case.queries.len()).any(|i| {
                cx.cell(&case.id, i, o)
                    .is_some_and(|c| c.status.needs_triage())
            })
        })
        .collect();
    if !with_div.is_empty() {
        b.push_str("<h2 id=\"diffs\">Expected vs actual</h2>");
        let expected = verdict_lines(case, None, cx);
        for o in with_div {
            let actual = verdict_lines(case, Some(o), cx);
            let diff = similar::TextDiff::from_lines(&expected, &actual)
                .unified_diff()
                .header("expected", o)
                .to_string();
            let _ = write!(
                b,
                "<h3><code>{}</code></h3><pre class=\"diff\">{}</pre>",
                esc(o),
                diff_view(&diff)
            );
        }
    }
    super::html::page(&format!("case {}", case.id), root, &cx.footer, &b)
}

fn detail(c: &CellRec) -> String {
    let d = c.answer.outcome.detail();
    if d.is_empty() || c.status == Status::Unsupported {
        String::new()
    } else {
        let d: String = d.chars().take(600).collect();
        format!("<br><small class=\"mono\">{}</small>", esc(&d))
    }
}

pub fn cases(cx: &Ctx) -> String {
    let r = cx.report;
    let mut b = String::new();
    let _ = write!(
        b,
        "<h1>All {} cases</h1><p class=\"muted\">Per oracle: the worst status among the case's queries \
and how many queries had it (✓ match, ✗ deviates, ! failed, ≠ split, – unsupported); ⚠ marks untriaged.</p>",
        r.cases.len()
    );
    let mut by_tag: BTreeMap<&str, Vec<&CaseRec>> = BTreeMap::new();
    for c in &r.cases {
        for t in &c.tags {
            by_tag.entry(t.as_str()).or_default().push(c);
        }
    }
    b.push_str("<p>");
    for (t, cs) in &by_tag {
        let _ = write!(
            b,
            "<a class=\"tag\" href=\"#tag-{}\">{} ({})</a>",
            slug(t),
            esc(t),
            cs.len()
        );
    }
    b.push_str("</p>");
    for (t, cs) in &by_tag {
        let _ = write!(
            b,
            "<h2 id=\"tag-{}\">{} ({})</h2><div class=\"wrap\"><table><thead><tr><th>case</th><th>title</th><th class=\"n\">q</th>",
            slug(t),
            esc(t),
            cs.len()
        );
        for o in &r.oracles {
            let _ = write!(b, "<th class=\"m\"><code>{}</code></th>", esc(&o.name));
        }
        b.push_str("</tr></thead><tbody>");
        for c in cs {
            let _ = write!(
                b,
                "<tr><td>{}</td><td>{}</td><td class=\"n\">{}</td>",
                case_link("", &c.id, None),
                esc(&c.title),
                c.queries.len()
            );
            for o in &r.oracles {
                let cells: Vec<&CellRec> = (0..c.queries.len())
                    .filter_map(|i| cx.cell(&c.id, i, &o.name))
                    .collect();
                let worst = cells.iter().map(|x| x.status).max_by_key(|s| match s {
                    Status::Deviate => 4,
                    Status::Failed => 3,
                    Status::Split => 2,
                    Status::Match => 1,
                    Status::Unsupported => 0,
                });
                match worst {
                    None => b.push_str("<td class=\"m na\">–</td>"),
                    Some(w) => {
                        let n = cells.iter().filter(|x| x.status == w).count();
                        let untri = cells.iter().any(|x| x.untriaged());
                        let _ = write!(
                            b,
                            "<td class=\"m s-{}\" title=\"{}\">{}{}{}</td>",
                            w.as_str(),
                            w.as_str(),
                            status_symbol(w),
                            n,
                            if untri { " ⚠" } else { "" }
                        );
                    }
                }
            }
            b.push_str("</tr>");
        }
        b.push_str("</tbody></table></div>");
    }
    super::html::page("all cases", "", &cx.footer, &b)
}

pub fn ledger(cx: &Ctx) -> String {
    let r = cx.report;
    let root = "";
    let mut b = String::new();
    let _ = write!(
        b,
        "<h1>The known-divergence ledger</h1><p>{} entries in <code>cases/divergences.yaml</code>. \
Every cell that deviates from RFC 9309, fails, or splits an <code>either</code> query must be explained \
by one of them; an entry that explains nothing is stale.</p>",
        cx.inp.ledger.entries.len()
    );
    let untriaged: Vec<&CellRec> = r.untriaged().collect();
    if !untriaged.is_empty() {
        let _ = write!(
            b,
            "<h2 id=\"untriaged\" class=\"untri\">⚠ Untriaged cells ({})</h2><ul>",
            untriaged.len()
        );
        for c in untriaged {
            let _ = write!(
                b,
                "<li>{} <code>{}</code> said {} ({}) — <code>{}</code></li>",
                case_link(root, &c.case, Some(c.query)),
                esc(&c.oracle),
                esc(&c.label()),
                status_text(c.status),
                esc(&crate::report::reproducer(&c.case, c.query, &c.oracle))
            );
        }
        b.push_str("</ul>");
    }
    if !r.stale.is_empty() {
        let _ = write!(
            b,
            "<p class=\"untri\">Stale in this run (explain nothing): {}</p>",
            r.stale
                .iter()
                .map(|s| entry_link(root, s))
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    // Index by classification.
    let mut by_class: BTreeMap<&str, Vec<&Entry>> = BTreeMap::new();
    for e in &cx.inp.ledger.entries {
        by_class
            .entry(e.classification.as_str())
            .or_default()
            .push(e);
    }
    b.push_str("<table><thead><tr><th>entry</th><th>classification</th><th>RFC 9309</th><th>oracles</th><th class=\"n\">cells</th></tr></thead><tbody>");
    for e in &cx.inp.ledger.entries {
        let _ = write!(
            b,
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td class=\"n\">{}</td></tr>",
            entry_link(root, &e.id),
            esc(e.classification.as_str()),
            esc(&e.rfc),
            e.oracles
                .iter()
                .map(|o| format!("<code>{}</code>", esc(o)))
                .collect::<Vec<_>>()
                .join(" "),
            cx.explained.get(e.id.as_str()).map_or(0, Vec::len)
        );
    }
    b.push_str("</tbody></table>");
    for (class, entries) in by_class {
        let _ = write!(
            b,
            "<h2 id=\"class-{}\">{} ({})</h2>",
            slug(class),
            esc(class),
            entries.len()
        );
        for e in entries {
            let cells = cx.explained.get(e.id.as_str()).cloned().unwrap_or_default();
            let _ = write!(
                b,
                "<h3 id=\"{}\"><code>{}</code> — {}</h3><table><tbody>\
<tr><th>classification</th><td>{}</td></tr><tr><th>RFC 9309</th><td>{}</td></tr>\
<tr><th>upstream</th><td>{}</td></tr><tr><th>oracles</th><td>{}</td></tr></tbody></table><p>{}</p>",
                slug(&e.id),
                esc(&e.id),
                esc(&e.title),
                esc(e.classification.as_str()),
                esc(&e.rfc),
                link_or_text(&e.upstream),
                e.oracles
                    .iter()
                    .map(|o| cx.oracle_ref(root, o))
                    .collect::<Vec<_>>()
                    .join(" "),
                esc(e.explanation.trim())
            );
            if cells.is_empty() {
                let _ = write!(
                    b,
                    "<p class=\"untri\">Explains no cell in this report (declared cases: {}).</p>",
                    e.cases
                        .iter()
                        .map(|c| format!("<code>{}</code>", esc(c)))
                        .collect::<Vec<_>>()
                        .join(", ")
                );
                continue;
            }
            // Cases that show it: one row per query, the oracles it explains there.
            let mut rows: BTreeMap<(&str, usize), Vec<&CellRec>> = BTreeMap::new();
            for c in &cells {
                rows.entry((c.case.as_str(), c.query)).or_default().push(c);
            }
            let _ = write!(
                b,
                "<p>Shown by {} cell(s) in {} case(s):</p><ul>",
                cells.len(),
                rows.keys().map(|(c, _)| c).collect::<BTreeSet<_>>().len()
            );
            for ((case, q), cs) in rows {
                let expected = r
                    .case(case)
                    .and_then(|k| k.queries.get(q))
                    .map(|x| x.expect.as_str())
                    .unwrap_or("");
                let _ = write!(
                    b,
                    "<li>{} (expects {}): {}</li>",
                    case_link(root, case, Some(q)),
                    esc(expected),
                    cs.iter()
                        .map(|c| format!(
                            "<code>{}</code> <span class=\"s-{}\">{}</span>",
                            esc(&c.oracle),
                            c.status.as_str(),
                            esc(&c.label())
                        ))
                        .collect::<Vec<_>>()
                        .join(", ")
                );
            }
            b.push_str("</ul>");
        }
    }
    super::html::page("ledger", "", &cx.footer, &b)
}

pub fn history_page(cx: &Ctx) -> String {
    let r = cx.report;
    let mut b = String::from(
        "<h1>Versions and history</h1><p>Each full conformance run appends one record per oracle to \
<code>reports/history.jsonl</code>, keyed by (oracle, exact version, corpus hash). Oracles that are \
versions of one library (<code>protego-0.6.1</code> and <code>protego</code>; <code>cpython-3.11</code> \
and <code>cpython-3.15</code>) are shown as one parser moving across versions, oldest first. Moves \
between two oracles of this report compare every cell; moves against an older record compare the cells \
that were off.</p>",
    );
    b.push_str("<ul>");
    for (fam, pts) in &cx.points {
        let _ = write!(
            b,
            "<li><a href=\"#fam-{}\">{}</a>: {}</li>",
            slug(fam),
            esc(fam),
            pts.iter()
                .map(|p| format!(
                    "<code>{}</code> {}",
                    esc(&p.record.oracle),
                    esc(&history::version_label(&p.record))
                ))
                .collect::<Vec<_>>()
                .join(" → ")
        );
    }
    b.push_str("</ul>");
    for (fam, pts) in &cx.points {
        let _ = write!(b, "<h2 id=\"fam-{}\">{}</h2>", slug(fam), esc(fam));
        b.push_str(&versions_table(cx, pts, ""));
        for w in pts.windows(2) {
            if (&w[0].record.oracle, &w[0].record.version)
                == (&w[1].record.oracle, &w[1].record.version)
            {
                continue;
            }
            let moves = history::moves(r, &w[0], &w[1]);
            let _ = write!(
                b,
                "<h3>{} {} → {} {}: {} cell(s) moved</h3>",
                esc(&w[0].record.oracle),
                esc(&history::version_label(&w[0].record)),
                esc(&w[1].record.oracle),
                esc(&history::version_label(&w[1].record)),
                moves.len()
            );
            if w[0].record.corpus_hash != w[1].record.corpus_hash {
                b.push_str("<p class=\"muted\">Different corpora: cases added or changed in between also move.</p>");
            }
            if moves.is_empty() {
                continue;
            }
            let _ = write!(
                b,
                "<div class=\"wrap\"><table class=\"moves\"><thead><tr><th>cell</th><th>expected</th><th>{} {}</th><th>{} {}</th><th>move</th></tr></thead><tbody>",
                esc(&w[0].record.oracle),
                esc(&history::version_label(&w[0].record)),
                esc(&w[1].record.oracle),
                esc(&history::version_label(&w[1].record)),
            );
            for m in moves {
                let (case, q) = m
                    .cell
                    .rsplit_once('#')
                    .map(|(c, n)| (c, n.parse::<usize>().unwrap_or(1)))
                    .unwrap_or((m.cell.as_str(), 1));
                let class = match m.kind {
                    "fixed" => "s-match",
                    "broke" => "s-deviate",
                    _ => "s-split",
                };
                let _ = write!(
                    b,
                    "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td class=\"{class}\">{}</td></tr>",
                    case_link("", case, Some(q.saturating_sub(1))),
                    esc(&m.expected),
                    esc(&m.before),
                    esc(&m.after),
                    match m.kind {
                        "fixed" => "✓ fixed",
                        "broke" => "✗ broke",
                        _ => "≠ changed",
                    }
                );
            }
            b.push_str("</tbody></table></div>");
        }
    }
    super::html::page("versions", "", &cx.footer, &b)
}

/// The summary for the README: the scorecard and the oracle x tag matrix,
/// in markdown (text only: every number is there, no colour needed).
pub fn summary_markdown(report: &Report) -> String {
    let cards = cards(report);
    let mut s = String::new();
    let _ = writeln!(
        s,
        "Run of {}: {} cases, {} queries, corpus `{}`; {} untriaged cell(s).\n",
        super::utc(report.generated_unix),
        report.cases.len(),
        report.queries(),
        short(&report.corpus_hash),
        report.untriaged().count()
    );
    let _ = writeln!(
        s,
        "| oracle | version | RFC 9309 score | matched / scored | deviate | failed | split | untriaged |\n|---|---|---|---|---|---|---|---|"
    );
    for o in &report.oracles {
        let t = cards.get(&o.name).map(|c| c.all).unwrap_or_default();
        let version = o.version.split(" (").next().unwrap_or("");
        let _ = writeln!(
            s,
            "| [`{}`](reports/site/oracles/{}.html) | {} | **{}** | {}/{} | {} | {} | {} | {} |",
            o.name,
            slug(&o.name),
            version.replace('|', "\\|"),
            pct(t.share()),
            t.matched,
            t.scored(),
            t.deviated,
            t.failed,
            t.split,
            t.untriaged
        );
    }
    let _ = write!(s, "\n| tag |");
    for o in &report.oracles {
        let _ = write!(s, " `{}` |", o.name);
    }
    let _ = write!(s, "\n|---|");
    for _ in &report.oracles {
        s.push_str("---|");
    }
    s.push('\n');
    for tag in tags(report) {
        let _ = write!(s, "| {tag} |");
        for o in &report.oracles {
            let t = cards
                .get(&o.name)
                .and_then(|c| c.tags.get(&tag))
                .copied()
                .unwrap_or_default();
            if t.scored() == 0 {
                s.push_str(" – |");
            } else {
                let _ = write!(s, " {} |", pct(t.share()));
            }
        }
        s.push('\n');
    }
    s
}
