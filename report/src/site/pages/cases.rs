//! `cases.html`: every case by tag, with each oracle's worst status.

use super::*;

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
    crate::site::html::page("all cases", "", &cx.footer, &b)
}
