//! `census.html`: every oracle over real websites' robots.txt files, from
//! the published census (`reports/census/census.json`, written by
//! `cargo xtask census --publish`).

use super::*;
use ::census::render::{heatmap, IMPACT_SHOWN};
use ::census::Census;

/// Pairs listed in the page's table (all are in the heatmap and the JSON).
const PAIRS_SHOWN: usize = 30;

fn share(x: f64) -> String {
    format!("{:.1}%", x * 100.0)
}

pub fn census_page(cx: &Ctx) -> String {
    let Some(c) = cx.inp.census else {
        let b = "<h1>Census of real robots.txt files</h1><p>No census is published in this \
checkout: run <code>cargo xtask census --publish</code> (all oracles over the 4,231 files of \
protego 0.7.0's test data), then <code>cargo xtask report --publish</code>.</p>";
        return crate::site::html::page("census", "", &cx.footer, b);
    };
    let mut b = String::new();
    let _ = write!(
        b,
        "<h1>Census of real robots.txt files</h1><p>Input: <code>{}</code>{}; {} files asked, {} \
queries, {} oracles. The queries are derived from each file (<code>docs/census.md</code>): each \
agent it names plus <code>ExampleBot</code> and <code>Googlebot</code>, on <code>/</code>, common \
paths and paths built from its own rules. A pair <em>disagrees</em> on a query when both answer \
with a verdict and the verdicts differ.</p>",
        esc(&c.input),
        c.limit
            .map(|l| format!(" (first {l} files)"))
            .unwrap_or_default(),
        c.tally.files,
        c.tally.queries,
        c.oracles.len()
    );
    b.push_str("<h2>Pairwise disagreement</h2><div class=\"wrap\">");
    b.push_str(&heatmap(c));
    b.push_str("</div>");
    pairs(&mut b, c);
    oracles(cx, &mut b, c);
    signatures(&mut b, c);
    impact(&mut b, c);
    crate::site::html::page("census", "", &cx.footer, &b)
}

fn pairs(b: &mut String, c: &Census) {
    let _ = write!(
        b,
        "<h2>Pairs, most files first</h2><p class=\"muted\">The {} pairs that disagree on the most \
files, of {}.</p><table><thead><tr><th>pair</th><th class=\"n\">queries disagreeing</th>\
<th class=\"n\">files with a disagreement</th></tr></thead><tbody>",
        PAIRS_SHOWN.min(c.summary.pairs.len()),
        c.summary.pairs.len()
    );
    for p in c.summary.pairs.iter().take(PAIRS_SHOWN) {
        let _ = write!(
            b,
            "<tr><td><code>{}</code> vs <code>{}</code></td><td class=\"n\">{} ({})</td>\
<td class=\"n\">{} ({})</td></tr>",
            esc(&p.a),
            esc(&p.b),
            share(p.query_share),
            p.queries_disagree,
            share(p.file_share),
            p.files_disagree
        );
    }
    b.push_str("</tbody></table>");
}

fn oracles(cx: &Ctx, b: &mut String, c: &Census) {
    let _ = write!(
        b,
        "<h2>Oracles</h2><table><thead><tr><th>oracle</th><th>version</th><th class=\"n\">files \
raised on</th><th class=\"n\">crashed on</th><th class=\"n\">timed out on</th><th class=\"n\">\
queries departing from <code>{}</code></th></tr></thead><tbody>",
        esc(&c.reference)
    );
    for o in &c.summary.oracles {
        let _ = write!(
            b,
            "<tr><td>{}</td><td>{}</td>\
<td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td></tr>",
            cx.oracle_ref("", &o.name),
            esc(&o.version),
            share(o.files_error_share),
            share(o.files_crash_share),
            share(o.files_timeout_share),
            o.departs_from_reference
                .map(share)
                .unwrap_or_else(|| "–".into())
        );
    }
    b.push_str("</tbody></table>");
}

fn signatures(b: &mut String, c: &Census) {
    b.push_str(
        "<h2>Top signatures by files affected</h2><p>A signature is the agreement classes of one \
query, as the conformance run writes them. None is linked to a ledger entry yet: each is \
<span class=\"untri\">unexplained</span> until triaged. The example is the smallest affected \
file.</p>",
    );
    for (i, sig) in c.summary.top_signatures.iter().enumerate() {
        let e = &sig.example;
        let cut = if e.body_bytes as usize > e.body.len() {
            ", cut"
        } else {
            ""
        };
        let _ = write!(
            b,
            "<h3>{}. {} files, {} queries</h3><p><code>{}</code></p><p>Example: host \
<code>{}</code>, agent <code>{}</code>, url <code>{}</code> ({} bytes{cut})</p>{}",
            i + 1,
            sig.files,
            sig.queries,
            esc(&sig.signature),
            esc(&e.host),
            esc(&e.agent),
            esc(&e.url),
            e.body_bytes,
            body_view(e.body.as_bytes())
        );
    }
}

fn impact(b: &mut String, c: &Census) {
    let _ = write!(
        b,
        "<h2>High impact: {} (file, pair) disagreements on <code>/</code> or a whole-site \
rule</h2>",
        c.summary.high_impact_files
    );
    if c.summary.high_impact.is_empty() {
        b.push_str("<p>None.</p>");
        return;
    }
    b.push_str(
        "<table><thead><tr><th>host</th><th>pair</th><th>agent</th><th>url</th><th>answers</th>\
</tr></thead><tbody>",
    );
    for r in c.summary.high_impact.iter().take(IMPACT_SHOWN) {
        let _ = write!(
            b,
            "<tr><td><code>{}</code></td><td>{}</td><td><code>{}</code></td><td><code>{}</code>\
</td><td>{}</td></tr>",
            esc(&r.host),
            esc(&r.pair),
            esc(&r.agent),
            esc(&r.url),
            esc(&r.answers)
        );
    }
    b.push_str("</tbody></table>");
    if c.summary.high_impact.len() > IMPACT_SHOWN {
        let _ = write!(
            b,
            "<p class=\"muted\">First {IMPACT_SHOWN} by file name; census.json keeps {}.</p>",
            c.summary.high_impact.len()
        );
    }
}
