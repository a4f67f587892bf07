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
    signatures(cx, &mut b, c);
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

fn signatures(cx: &Ctx, b: &mut String, c: &Census) {
    b.push_str(
        "<h2>Top signatures by files affected</h2><p>A signature is the agreement classes of one \
query, as the conformance run writes them. The example is the smallest affected file. Each \
oracle that answers otherwise than the reference on it is triaged as a fuzz finding is: the \
example is minimised for that pair alone, and the first catalogue transformation that makes \
the pair agree names the cause (<code>new</code> when none does); the ledger entries naming \
that cause for that oracle are linked, and a cause with none is \
<span class=\"untri\">unexplained</span>. Below that, where corpus queries of this run have \
the same signature, the entries explaining their cells: a lead, not a proof.</p>",
    );
    let corpus = corpus_signatures(cx);
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
        causes_table(cx, b, &sig.causes);
        explained_by(cx, b, corpus.get(sig.signature.as_str()));
    }
}

/// The top signature's departing oracles, each with its named cause, the
/// minimised input and the ledger entries that name the cause.
fn causes_table(cx: &Ctx, b: &mut String, causes: &[::census::render::SignatureCause]) {
    if causes.is_empty() {
        return;
    }
    b.push_str(
        "<table><thead><tr><th>oracle</th><th>reference → oracle</th><th>cause</th>\
<th>ledger</th><th>minimised body</th><th>agent</th><th>url</th></tr></thead><tbody>",
    );
    for c in causes {
        let ledger = if c.cause.starts_with(::census::render::NOT_TRIAGED) {
            "–".to_string()
        } else if c.ledger.is_empty() {
            "<span class=\"untri\">unexplained</span>".to_string()
        } else {
            c.ledger
                .iter()
                .map(|id| entry_link("", id))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let _ = write!(
            b,
            "<tr><td>{}</td><td>{} → {}</td><td><code>{}</code></td><td>{ledger}</td>\
<td><code>\"{}\"</code></td><td><code>{}</code></td><td><code>{}</code></td></tr>",
            cx.oracle_ref("", &c.oracle),
            esc(&c.reference_answer),
            esc(&c.answer),
            esc(&c.cause),
            esc(&c.body),
            esc(&c.agent),
            esc(&c.url)
        );
    }
    b.push_str("</tbody></table>");
}

/// Corpus signature -> the (case, query) pairs that show it in this run.
fn corpus_signatures<'a>(cx: &Ctx<'a>) -> BTreeMap<&'a str, Vec<(&'a str, usize)>> {
    let mut out: BTreeMap<&str, Vec<(&str, usize)>> = BTreeMap::new();
    for case in &cx.report.cases {
        for q in &case.queries {
            out.entry(q.signature.as_str())
                .or_default()
                .push((case.id.as_str(), q.index));
        }
    }
    out
}

/// The ledger entries (and their causes) explaining the cells of the corpus
/// queries with a census signature, per oracle.
fn explained_by(cx: &Ctx, b: &mut String, hits: Option<&Vec<(&str, usize)>>) {
    let Some(hits) = hits else {
        b.push_str(
            "<p><span class=\"untri\">Unexplained</span>: no corpus query has this \
signature.</p>",
        );
        return;
    };
    let mut per_oracle: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    for &(case, q) in hits {
        for o in &cx.report.oracles {
            if let Some(e) = cx
                .cell(case, q, &o.name)
                .and_then(|c| c.triaged_by.as_deref())
            {
                per_oracle.entry(o.name.as_str()).or_default().insert(e);
            }
        }
    }
    let (case, q) = hits[0];
    let _ = write!(
        b,
        "<p>In the corpus: {} quer{} with this signature (first {}).</p>",
        hits.len(),
        if hits.len() == 1 { "y" } else { "ies" },
        case_link("", case, Some(q))
    );
    if per_oracle.is_empty() {
        return;
    }
    b.push_str(
        "<table><thead><tr><th>oracle</th><th>ledger entries (cause)</th></tr></thead><tbody>",
    );
    for (oracle, entries) in per_oracle {
        let list: Vec<String> = entries
            .iter()
            .map(|id| {
                let cause = cx
                    .inp
                    .ledger
                    .get(id)
                    .and_then(|e| e.cause.as_deref())
                    .map(|c| format!(" ({})", esc(c)))
                    .unwrap_or_default();
                format!("{}{cause}", entry_link("", id))
            })
            .collect();
        let _ = write!(
            b,
            "<tr><td>{}</td><td>{}</td></tr>",
            cx.oracle_ref("", oracle),
            list.join(", ")
        );
    }
    b.push_str("</tbody></table>");
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
