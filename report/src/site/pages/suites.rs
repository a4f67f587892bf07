//! `suites.html`: every oracle on every parser's own test suite, from the
//! published scoreboard (`reports/suites.json`, written by
//! `repdiff suites --publish`).

use super::*;
use crate::suites::{SuiteRow, SuitesReport};

pub fn suites_page(cx: &Ctx) -> String {
    let Some(s) = cx.inp.suites else {
        let b = "<h1>Every parser on every parser's own tests</h1><p>No suite scoreboard is \
published in this checkout: run <code>repdiff suites --publish</code>, then \
<code>repdiff report --publish</code>.</p>";
        return crate::site::html::page("suites", "", &cx.footer, b);
    };
    let mut b = String::from(
        "<h1>Every parser on every parser's own tests</h1><p>Each parser's own test suite, \
captured at setup by running the suite in its own runtime against a recording shim of its own \
parser (<code>oracles/harness/&lt;oracle&gt;/suite/</code>): every allow/disallow call made by a test that \
passed, with the verdict the test accepted. Every oracle is then asked the same questions. A cell \
is the number of assertions the oracle answers as the suite expects; <b>*</b> marks the suite's \
own parser.</p>",
    );
    matrix(cx, &mut b, s);
    for (name, row) in &s.suites {
        own_misses(&mut b, name, row);
    }
    contradictions(&mut b, s);
    sources(&mut b, s);
    crate::site::html::page("suites", "", &cx.footer, &b)
}

fn matrix(cx: &Ctx, b: &mut String, s: &SuitesReport) {
    b.push_str(
        "<div class=\"wrap\"><table><thead><tr><th>suite</th><th class=\"n\">assertions</th>\
<th class=\"n\">skipped</th>",
    );
    for o in s.oracles.keys() {
        let _ = write!(b, "<th class=\"m\">{}</th>", cx.oracle_ref("", o));
    }
    b.push_str("</tr></thead><tbody>");
    for (name, row) in &s.suites {
        let _ = write!(
            b,
            "<tr><td><a href=\"#suite-{}\">{}</a></td><td class=\"n\">{}</td><td class=\"n\">{}</td>",
            slug(name),
            esc(name),
            row.assertions,
            row.skipped
        );
        for o in s.oracles.keys() {
            let passed = row.scores.get(o).copied().unwrap_or(0);
            let share = (row.assertions > 0).then(|| passed as f64 * 100.0 / row.assertions as f64);
            let own = if *o == row.own_oracle { "*" } else { "" };
            let _ = write!(
                b,
                "<td class=\"m {}\">{own}{passed}/{}<br>{}</td>",
                band(share),
                row.assertions,
                pct(share)
            );
        }
        b.push_str("</tr>");
    }
    b.push_str("</tbody></table></div>");
    if !s.unavailable.is_empty() || !s.missing_suites.is_empty() {
        let _ = write!(
            b,
            "<p class=\"untri\">Incomplete: oracles unavailable: {}; suites missing: {}.</p>",
            esc(&s
                .unavailable
                .iter()
                .map(|u| u.oracle.as_str())
                .collect::<Vec<_>>()
                .join(", ")),
            esc(&s.missing_suites.join(", "))
        );
    }
}

fn own_misses(b: &mut String, name: &str, row: &SuiteRow) {
    let _ = write!(
        b,
        "<h2 id=\"suite-{}\">{}</h2><p>{} of {} tests passed in the capture run; {} assertions, {} \
calls skipped{}. Own parser: <code>{}</code>, {} miss(es) on its own suite.</p>",
        slug(name),
        esc(name),
        row.tests_passed,
        row.tests_total,
        row.assertions,
        row.skipped,
        if row.skipped_by_kind.is_empty() {
            String::new()
        } else {
            format!(
                " ({})",
                esc(&row
                    .skipped_by_kind
                    .iter()
                    .map(|(k, v)| format!("{v} {k}"))
                    .collect::<Vec<_>>()
                    .join(", "))
            )
        },
        esc(&row.own_oracle),
        row.own_misses.len()
    );
    if row.own_misses.is_empty() {
        return;
    }
    b.push_str(
        "<table><thead><tr><th>assertion</th><th>agent</th><th>url</th><th>expected</th>\
<th>got</th><th>why</th></tr></thead><tbody>",
    );
    for m in &row.own_misses {
        let _ = write!(
            b,
            "<tr><td><code>{}</code></td><td><code>{}</code></td><td><code>{}</code></td>\
<td>{}</td><td>{}</td><td>{}</td></tr>",
            esc(&m.id),
            esc(&m.agent),
            esc(&m.url),
            esc(&m.expected),
            esc(&m.got),
            esc(m.note.as_deref().unwrap_or(""))
        );
    }
    b.push_str("</tbody></table>");
}

fn contradictions(b: &mut String, s: &SuitesReport) {
    let _ = write!(
        b,
        "<h2>Contradictions between suites ({})</h2><p>The same body, agent and URL, expected \
allowed by one suite and disallowed by another.</p>",
        s.contradictions.len()
    );
    for c in &s.contradictions {
        let _ = write!(
            b,
            "<p>agent <code>{}</code>, url <code>{}</code>: allowed by {}, disallowed by {}</p>{}",
            esc(&c.agent),
            esc(&c.url),
            esc(&c.allowed.join(", ")),
            esc(&c.disallowed.join(", ")),
            body_view(c.body.as_bytes())
        );
    }
}

fn sources(b: &mut String, s: &SuitesReport) {
    b.push_str("<h2>Where each suite comes from</h2><ul>");
    for (name, row) in &s.suites {
        let _ = write!(
            b,
            "<li><b>{}</b>: {} ({}){}</li>",
            esc(name),
            esc(&row.source),
            esc(&row.runtime),
            row.notes
                .iter()
                .map(|n| format!("<br><span class=\"muted\">{}</span>", esc(n)))
                .collect::<String>()
        );
    }
    b.push_str("</ul>");
}
