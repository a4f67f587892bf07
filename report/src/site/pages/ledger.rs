//! `ledger.html`: every ledger entry, by classification, with the cells it
//! explains in this report.

use super::*;

const ROOT: &str = "";

pub fn ledger(cx: &Ctx) -> String {
    let mut b = String::new();
    intro(&mut b, cx);
    // Index by classification.
    let mut by_class: BTreeMap<&str, Vec<&Entry>> = BTreeMap::new();
    for e in &cx.inp.ledger.entries {
        by_class
            .entry(e.classification.as_str())
            .or_default()
            .push(e);
    }
    entry_table(&mut b, cx);
    for (class, entries) in by_class {
        let _ = write!(
            b,
            "<h2 id=\"class-{}\">{} ({})</h2>",
            slug(class),
            esc(class),
            entries.len()
        );
        for e in entries {
            entry(&mut b, cx, e);
        }
    }
    crate::site::html::page("ledger", "", &cx.footer, &b)
}

/// What the ledger is for, and what in this run it does not explain (the
/// untriaged cells) or explains nothing of (the stale entries).
fn intro(b: &mut String, cx: &Ctx) {
    let r = cx.report;
    let root = ROOT;
    let _ = write!(
        b,
        "<h1>The known-divergence ledger</h1><p>{} entries in <code>cases/divergences.yaml</code>, <code>cases/divergences/</code> and each external oracle's <code>oracles/harness/NAME/divergences.yaml</code>. \
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
                esc(&crate::reproducer(&c.case, c.query, &c.oracle))
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
}

/// Every entry in one table: classification, section, oracles, cells.
fn entry_table(b: &mut String, cx: &Ctx) {
    let root = ROOT;
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
}

/// The classification, with a link to the write-up for a `bug`.
fn classification_html(e: &Entry) -> String {
    if e.classification == engine::ledger::Classification::Bug {
        format!(
            "bug · <a href=\"{}\">write-up</a>",
            esc(&write_up_href(ROOT, &e.id))
        )
    } else {
        esc(e.classification.as_str())
    }
}

/// One entry: its facts and explanation, then the cells that show it.
fn entry(b: &mut String, cx: &Ctx, e: &Entry) {
    let root = ROOT;
    let cells = cx.explained.get(e.id.as_str()).cloned().unwrap_or_default();
    let _ = write!(
        b,
        "<h3 id=\"{}\"><code>{}</code> — {}</h3><table><tbody>\
<tr><th>classification</th><td>{}</td></tr><tr><th>RFC 9309</th><td>{}</td></tr>\
<tr><th>upstream</th><td>{}</td></tr><tr><th>oracles</th><td>{}</td></tr></tbody></table><p>{}</p>",
        slug(&e.id),
        esc(&e.id),
        esc(&e.title),
        classification_html(e),
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
                .map(|c| format!("<code>{}</code>", esc(&c.to_string())))
                .collect::<Vec<_>>()
                .join(", ")
        );
        return;
    }
    shown_by(b, cx, &cells);
}

/// The cells an entry explains: one row per query, the oracles there.
fn shown_by(b: &mut String, cx: &Ctx, cells: &[&CellRec]) {
    let r = cx.report;
    let root = ROOT;
    let mut rows: BTreeMap<(&str, usize), Vec<&CellRec>> = BTreeMap::new();
    for c in cells {
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
            .map(|x| x.expect.to_string())
            .unwrap_or_default();
        let _ = write!(
            b,
            "<li>{} (expects {}): {}</li>",
            case_link(root, case, Some(q)),
            esc(&expected),
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
