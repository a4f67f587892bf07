//! `findings.html`: the index of the upstream-ready write-ups, one per
//! ledger entry classified `bug`. The write-ups themselves are Markdown in
//! `reports/findings/` (written by `repdiff findings`, next to the site,
//! so a maintainer can be sent one file); this page links them relatively.

use super::*;
use engine::ledger::Classification;

/// Where the write-up of a `bug` entry lives, relative to the site root.
pub fn write_up_href(root: &str, id: &str) -> String {
    format!("{root}../findings/{}.md", slug(id))
}

pub fn findings_page(cx: &Ctx) -> String {
    let bugs: Vec<&Entry> = cx
        .inp
        .ledger
        .entries
        .iter()
        .filter(|e| e.classification == Classification::Bug)
        .collect();
    let mut b = format!(
        "<h1>Findings: upstream-ready write-ups</h1><p>One write-up per ledger entry classified \
<code>bug</code> ({} in all): affected versions, the minimal input as escaped bytes, the RFC 9309 \
expectation, the actual answer, a <code>repdiff check</code> line and a program in the library's \
own language. Written by <code>repdiff findings</code> into <code>reports/findings/</code> \
(<a href=\"../findings/README.md\">index</a>).</p>\
<div class=\"wrap\"><table><thead><tr><th>write-up</th><th>oracles</th><th>RFC 9309</th>\
<th>upstream</th><th>ledger</th></tr></thead><tbody>",
        bugs.len()
    );
    for e in bugs {
        let _ = write!(
            b,
            "<tr><td><a href=\"{}\">{}</a></td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            esc(&write_up_href("", &e.id)),
            esc(&e.title),
            e.oracles
                .iter()
                .map(|o| cx.oracle_ref("", o))
                .collect::<Vec<_>>()
                .join(" "),
            esc(&e.rfc),
            link_or_text(&e.upstream),
            entry_link("", &e.id)
        );
    }
    b.push_str("</tbody></table></div>");
    slow_table(cx, &mut b);
    crate::site::html::page("findings", "", &cx.footer, &b)
}

/// The write-ups of kind `slow`: an input on which one parser takes far
/// longer than on others, minimised on its time, growth measured.
fn slow_table(cx: &Ctx, b: &mut String) {
    if cx.inp.slow.is_empty() {
        return;
    }
    let _ = write!(
        b,
        "<h2>Slow inputs</h2><p>Inputs on which one parser takes over 100 times its median \
time while the others stay fast, found and minimised on their time by <code>repdiff triage \
sweep</code>, with the growth measured at several sizes ({}).</p>\
<div class=\"wrap\"><table><thead><tr><th>write-up</th><th>oracle</th></tr></thead><tbody>",
        cx.inp.slow.len()
    );
    for s in cx.inp.slow {
        let _ = write!(
            b,
            "<tr><td><a href=\"{}\">{}</a></td><td>{}</td></tr>",
            esc(&write_up_href("", &s.id)),
            esc(&s.title),
            cx.oracle_ref("", &s.oracle)
        );
    }
    b.push_str("</tbody></table></div>");
}
