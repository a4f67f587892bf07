//! `oracles/NAME.html`: one oracle's identity, scores by section and tag, its
//! ledger entries, its divergences and its versions.

use super::*;

const ROOT: &str = "../";

pub fn oracle(cx: &Ctx, name: &str) -> String {
    let r = cx.report;
    let Some(o) = r.oracle(name) else {
        return String::new();
    };
    let card = cx.cards.get(name).cloned().unwrap_or_default();
    let mut b = String::new();
    identity(&mut b, o, &card);
    standards(&mut b, cx, name);
    scores(&mut b, &card);
    ledger_entries(&mut b, cx, name);
    divergences(&mut b, cx, name);
    versions(&mut b, cx, name);
    crate::site::html::page(&format!("oracle {name}"), ROOT, &cx.footer, &b)
}

/// What the oracle announced about itself, and its overall score.
fn identity(b: &mut String, o: &crate::compat::OracleRec, card: &Card) {
    let name = o.name.as_str();
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
        esc(&o.identity.to_string()),
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
}

/// One row per section or tag: the score and every count.
fn score_table(b: &mut String, id: &str, rows: Vec<(String, String, Score)>) {
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
}

/// Its row of the oracle x profile matrix: which standard it follows.
fn standards(b: &mut String, cx: &Ctx, name: &str) {
    let table = profile_table(cx, ROOT, &[name]);
    if table.is_empty() {
        return;
    }
    let _ = write!(
        b,
        "<h2 id=\"profiles\">Which standard? Closest profile: {}</h2>",
        cx.closest
            .get(name)
            .map_or("–".into(), |c| format!("<code>{}</code>", esc(c)))
    );
    b.push_str(&table);
}

fn scores(b: &mut String, card: &Card) {
    b.push_str("<h2>Scorecard against RFC 9309, section by section</h2>");
    let mut secs: Vec<(&String, &Score)> = card.sections.iter().collect();
    secs.sort_by_key(|(s, _)| section_order(s));
    score_table(
        b,
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
    score_table(
        b,
        "by-tag",
        card.tags
            .iter()
            .map(|(t, x)| (format!("tag-{}", slug(t)), esc(t), *x))
            .collect(),
    );
}

/// The ledger entries that name this oracle.
fn ledger_entries(b: &mut String, cx: &Ctx, name: &str) {
    let root = ROOT;
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
}

/// Every cell of this oracle that does not match.
fn divergences(b: &mut String, cx: &Ctx, name: &str) {
    let r = cx.report;
    let root = ROOT;
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
                .map(|q| q.expect.to_string())
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
}

/// The versions of this parser (its lineage) in the report and the history.
fn versions(b: &mut String, cx: &Ctx, name: &str) {
    let root = ROOT;
    let lineage = lineage_of(name).to_string();
    if let Some(pts) = cx.points.get(&lineage) {
        b.push_str("<h2 id=\"versions\">Versions</h2>");
        b.push_str(&versions_table(cx, pts, root));
        if distinct_versions(pts) > 1 {
            let _ = write!(
                b,
                "<p><a href=\"../history.html#fam-{}\">How {} moved across versions</a></p>",
                slug(&lineage),
                esc(&lineage)
            );
        }
    }
}

fn capabilities(c: &engine::oracle::Capabilities) -> String {
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
