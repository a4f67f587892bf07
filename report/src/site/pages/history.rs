//! `history.html`: each lineage across versions and how its cells moved.

use super::*;

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
                    esc(&versions::version_label(&p.record))
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
            if (&w[0].record.oracle, &w[0].record.identity)
                == (&w[1].record.oracle, &w[1].record.identity)
            {
                continue;
            }
            let moves = versions::moves(r, &w[0], &w[1]);
            let _ = write!(
                b,
                "<h3>{} {} → {} {}: {} cell(s) moved</h3>",
                esc(&w[0].record.oracle),
                esc(&versions::version_label(&w[0].record)),
                esc(&w[1].record.oracle),
                esc(&versions::version_label(&w[1].record)),
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
                esc(&versions::version_label(&w[0].record)),
                esc(&w[1].record.oracle),
                esc(&versions::version_label(&w[1].record)),
            );
            for m in moves {
                let (case, q) = (m.cell.case.as_str(), m.cell.query.map_or(1, |q| q + 1));
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
    crate::site::html::page("versions", "", &cx.footer, &b)
}
