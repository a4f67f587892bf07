//! `cases/ID.html`: one case's body byte for byte, the verdict grid, each
//! query's basis and reproducers, flips across versions, and the diffs.

use super::*;
use crate::compat::QueryRec;

const ROOT: &str = "../";

pub fn case(cx: &Ctx, case: &CaseRec) -> String {
    let mut b = String::new();
    facts(&mut b, cx, case);
    body(&mut b, case);
    verdict_grid(&mut b, cx, case);
    b.push_str("<h2 id=\"queries\">Queries</h2>");
    for (i, q) in case.queries.iter().enumerate() {
        query_section(&mut b, cx, case, i, q);
    }
    version_flips(&mut b, cx, case);
    diffs(&mut b, cx, case);
    crate::site::html::page(&format!("case {}", case.id), ROOT, &cx.footer, &b)
}

/// Title, tags, where it was written, its metamorphic family, its HTTP
/// response.
fn facts(b: &mut String, cx: &Ctx, case: &CaseRec) {
    let r = cx.report;
    let root = ROOT;
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
            esc(&http_json(h))
        );
    }
    b.push_str("</tbody></table>");
}

/// The HTTP response as JSON with sorted keys: the form the site has always
/// shown, whatever the order of [`engine::case::HttpSpec`]'s fields.
fn http_json(h: &engine::case::HttpSpec) -> String {
    serde_json::to_value(h)
        .map(|v| v.to_string())
        .unwrap_or_default()
}

/// The body, escapes made visible, and a hex dump when it is small.
fn body(b: &mut String, case: &CaseRec) {
    let body = case.body();
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
}

/// One row per query, one column per oracle.
fn verdict_grid(b: &mut String, cx: &Ctx, case: &CaseRec) {
    let r = cx.report;
    let root = ROOT;
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
            esc(q.ask.as_str()),
            text_view(&q.agent),
            if q.url.is_empty() {
                String::new()
            } else {
                format!("<br>url <code>{}</code>", text_view(&q.url))
            },
            esc(&q.expect.to_string())
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
}

/// A query's basis and agreement, how to replay it, and the cells that need
/// an explanation with theirs.
fn query_section(b: &mut String, cx: &Ctx, case: &CaseRec, i: usize, q: &QueryRec) {
    let _ = write!(
        b,
        "<h3>#{}: {} {}</h3><p>basis: {}{}</p>",
        i + 1,
        esc(q.ask.as_str()),
        esc(&q.expect.to_string()),
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
            esc(q.signature.as_str())
        );
    }
    if let Some((draft, Some(usage))) = cx
        .inp
        .usage
        .get(&case.id)
        .and_then(|u| Some((&u.draft, u.answers.get(i)?)))
    {
        let _ = write!(
            b,
            "<p>usage preference ({}): {}</p>",
            esc(draft),
            esc(usage)
        );
    }
    let _ = write!(
        b,
        "<p>replay every oracle: <code class=\"repro\">repdiff check --case {}#{}</code></p>",
        esc(&case.id),
        i + 1
    );
    needs_triage(b, cx, case, i);
    oracle_explanations(b, cx, case, i);
}

fn needs_triage(b: &mut String, cx: &Ctx, case: &CaseRec, i: usize) {
    let r = cx.report;
    let root = ROOT;
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
                esc(&crate::reproducer(&case.id, i, &c.oracle)),
                detail(c)
            );
        }
        b.push_str("</ul>");
    }
}

/// What the oracles that explain their answers said about query `i`.
fn oracle_explanations(b: &mut String, cx: &Ctx, case: &CaseRec, i: usize) {
    let r = cx.report;
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

/// Queries on which two versions of one parser (one lineage) answer
/// differently, oldest version first.
fn version_flips(b: &mut String, cx: &Ctx, case: &CaseRec) {
    let r = cx.report;
    let mut lineages: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for o in &r.oracles {
        lineages
            .entry(lineage_of(&o.name))
            .or_default()
            .push(&o.name);
    }
    let mut flips = String::new();
    for (lineage, mut members) in lineages {
        if members.len() < 2 {
            continue;
        }
        members.sort_by_key(|m| {
            r.oracle(m)
                .and_then(|o| version_number(&o.identity.version))
                .map(version_key)
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
                        .and_then(|o| version_number(&o.identity.version))
                        .unwrap_or("")
                        .to_string()
                };
                let _ = write!(
                    flips,
                    "<li class=\"flip\" data-family=\"{}\">#{}: <code>{}</code> ({}) said <span class=\"s-{}\">{}</span> → \
<code>{}</code> ({}) says <span class=\"s-{}\">{}</span></li>",
                    esc(lineage),
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
}

/// Expected vs actual, for every oracle with a cell to explain.
fn diffs(b: &mut String, cx: &Ctx, case: &CaseRec) {
    let r = cx.report;
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
        for o in with_div {
            let diff = crate::markdown::answers_diff(case, o, &|i| {
                cx.cell(&case.id, i, o).map(|c| c.label())
            });
            let _ = write!(
                b,
                "<h3><code>{}</code></h3><pre class=\"diff\">{}</pre>",
                esc(o),
                diff_view(&diff)
            );
        }
    }
}

fn text_view(s: &str) -> String {
    if s.is_empty() {
        return "<span class=\"muted\">(empty)</span>".into();
    }
    let v = body_view(s.as_bytes());
    // body_view marks a missing final LF; a query string has none.
    v.replace("<span class=\"rep\">⟨no final LF⟩</span>", "")
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
