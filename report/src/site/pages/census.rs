//! `census.html`: every oracle over real websites' robots.txt files, from
//! the published census (`reports/census/census.json`, written by
//! `repdiff census --publish`).

use super::*;
use ::census::render::{
    heatmap, sections, url_path, HeadlinePair, Summary, HEADLINE_ABOUT, IMPACT_SHOWN,
};
use ::census::Census;
use engine::signature::Signature;

/// Pairs listed in the page's table (all are in the heatmap and the JSON).
const PAIRS_SHOWN: usize = 30;

fn share(x: f64) -> String {
    format!("{:.1}%", x * 100.0)
}

pub fn census_page(cx: &Ctx) -> String {
    let Some(c) = cx.inp.census else {
        let b = "<h1>Census of real robots.txt files</h1><p>No census is published in this \
checkout: run <code>repdiff census --publish</code> (all oracles over the 4,231 files of \
protego 0.7.0's test data), then <code>repdiff report --publish</code>.</p>";
        return crate::site::html::page("census", "", &cx.footer, b);
    };
    let mut b = String::new();
    let near = if c.has_near_misses() {
        format!(", {} near misses", c.near_misses.tally.queries)
    } else {
        String::new()
    };
    let _ = write!(
        b,
        "<h1>Census of real robots.txt files</h1><p>Input: <code>{}</code>{}; {} files asked, {} \
as-written questions{near} and {} probes, {} oracles. The queries are derived from each file \
(<code>docs/census.md</code>): each agent it names (as the product token a crawler sends) plus \
<code>ExampleBot</code> and <code>Googlebot</code>, on <code>/</code>, common paths and paths \
built from its own rules. A pair <em>disagrees</em> on a query when both answer with a verdict \
and the verdicts differ.</p>",
        esc(&c.input),
        c.limit
            .map(|l| format!(" (first {l} files)"))
            .unwrap_or_default(),
        c.written.tally.files,
        c.written.tally.queries,
        c.probes.tally.queries,
        c.oracles.len()
    );
    if c.has_near_misses() {
        let _ = write!(
            b,
            "<p>{}</p>",
            markdown_code(::census::render::unrequested_line(c).trim_end())
        );
    }
    ai_era(&mut b, cx.inp.ai_era);
    headline(&mut b, &c.written.summary.headline);
    for view in sections(c) {
        let _ = write!(
            b,
            "<h2>{}</h2><p>{}</p><p class=\"muted\">{} files, {} queries.</p><div class=\"wrap\">",
            view.title,
            markdown_code(view.about),
            view.section.tally.files,
            view.section.tally.queries
        );
        b.push_str(&heatmap(c, view.section));
        b.push_str("</div>");
        let s = &view.section.summary;
        pairs(&mut b, s);
        oracles(cx, &mut b, c, s);
        signatures(cx, &mut b, s);
        impact(&mut b, s);
    }
    crate::site::html::page("census", "", &cx.footer, &b)
}

/// The AI era first: does adding the new lines change what crawlers
/// decide (per edit, the parsers that change and on how many sites), and
/// which AI crawlers the parsers keep out of `/` (the rows where they
/// part most).
fn ai_era(b: &mut String, era: crate::site::AiEra) {
    if let Some(a) = era.adoption {
        let _ = write!(
            b,
            "<h2>Adoption: do the AI-era lines change what crawlers decide?</h2><p>Each edit applied to {} real files as it is deployed, the files' {} as-written questions asked before and after by {} parsers (<code>reports/census/adoption.md</code>). By each text's intent no verdict should change.</p><p>Why: the reference's reading of each parser's first example tells the edit's own doing (<em>intended</em>: the edit names the agent; <em>RFC 9309 too</em>: the standard's reading flips as well) from a parser's reading, whose cause root-cause triage names.</p><table><tr><th>edit</th><th>sites changed (any parser)</th><th>parsers that change (sites)</th><th>why (parsers, sites)</th><th>hosts (the largest mover's)</th><th>source</th></tr>",
            a.files,
            a.questions,
            a.oracles.len()
        );
        for e in &a.edits {
            let mut movers: Vec<_> = a
                .rows
                .iter()
                .filter(|r| r.edit == e.edit.id && r.sites > 0)
                .collect();
            movers.sort_by(|x, y| y.sites.cmp(&x.sites).then(x.oracle.cmp(&y.oracle)));
            let list: Vec<String> = movers
                .iter()
                .map(|r| format!("{} {}", esc(&r.oracle), r.sites))
                .collect();
            let why: Vec<String> = ::census::adoption::why(&movers)
                .into_iter()
                .map(|(label, rows)| format!("<b>{}</b>: {}", esc(&label), esc(&rows)))
                .collect();
            let hosts: Vec<String> = movers
                .first()
                .map(|r| {
                    r.examples
                        .iter()
                        .map(|f| {
                            format!(
                                "{}: {} <code>{}</code> {} → {}",
                                esc(&f.host),
                                esc(&f.agent),
                                esc(&f.url),
                                esc(&f.before),
                                esc(&f.after)
                            )
                        })
                        .collect()
                })
                .unwrap_or_default();
            let none = || "none".to_string();
            let _ = write!(
                b,
                "<tr><td><code>{}</code> {}</td><td>{} of {}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                esc(&e.edit.id),
                esc(&e.edit.title),
                e.sites_any,
                a.files,
                if list.is_empty() { none() } else { list.join(", ") },
                if why.is_empty() { none() } else { why.join("<br>") },
                if hosts.is_empty() { none() } else { hosts.join("<br>") },
                esc(&e.edit.source)
            );
        }
        b.push_str("</table>");
    }
    if let Some(ai) = era.ai_crawlers {
        let _ = write!(
            b,
            "<h2>AI crawlers: kept out of <code>/</code> by which parser?</h2><p>{} files, each asked by {} parsers whether each of the {} AI crawlers of {} may fetch <code>/</code>; the 15 crawlers on whose sites the parsers split most (all in <code>reports/census/ai-crawlers.md</code>).</p><table><tr><th>crawler</th><th>operator</th><th>sites naming it</th><th>kept out (most)</th><th>kept out (fewest)</th><th>sites split</th></tr>",
            ai.files,
            ai.oracles.len(),
            ai.rows.len(),
            esc(&ai.list)
        );
        let mut rows: Vec<_> = ai.rows.iter().collect();
        rows.sort_by(|x, y| {
            y.split
                .cmp(&x.split)
                .then(x.crawler.token.cmp(&y.crawler.token))
        });
        for r in rows.into_iter().take(15) {
            let by: Vec<(u64, &str)> = r
                .disallowed
                .iter()
                .zip(&ai.oracles)
                .map(|(&d, o)| (d, o.name.as_str()))
                .collect();
            let most = by.iter().max_by_key(|x| x.0).copied().unwrap_or((0, "-"));
            let fewest = by.iter().min_by_key(|x| x.0).copied().unwrap_or((0, "-"));
            let _ = write!(
                b,
                "<tr><td><code>{}</code></td><td>{}</td><td>{}</td><td>{} ({})</td><td>{} ({})</td><td>{}</td></tr>",
                esc(&r.crawler.token),
                esc(&r.crawler.operator),
                r.named,
                most.0,
                esc(most.1),
                fewest.0,
                esc(fewest.1),
                r.split
            );
        }
        b.push_str("</table>");
    }
}

/// The `code` spans of a sentence written for Markdown, as HTML.
fn markdown_code(text: &str) -> String {
    esc(text)
        .split('`')
        .enumerate()
        .map(|(i, part)| {
            if i % 2 == 1 {
                format!("<code>{part}</code>")
            } else {
                part.to_string()
            }
        })
        .collect()
}

fn headline(b: &mut String, pairs: &[HeadlinePair]) {
    let _ = write!(
        b,
        "<h2>Headline: the pairs crawlers choose between</h2><p>{} Each host is one of the \
smallest such files, with the cause its triage names.</p>",
        markdown_code(HEADLINE_ABOUT)
    );
    if pairs.is_empty() {
        b.push_str("<p>None of the pairs was in this census.</p>");
        return;
    }
    b.push_str(
        "<table><thead><tr><th>pair</th><th class=\"n\">real sites disagreeing</th>\
<th>three of them: host, question, answers (first / second), cause</th></tr></thead><tbody>",
    );
    for p in pairs {
        let hosts: Vec<String> = p
            .examples
            .iter()
            .map(|e| {
                let cause = e
                    .cause
                    .as_ref()
                    .map_or_else(|| "–".to_string(), |c| c.cause.to_string());
                format!(
                    "<code>{}</code> ({} <code>{}</code>: {} / {}; <code>{}</code>)",
                    esc(&e.example.host),
                    esc(&e.example.agent),
                    esc(url_path(&e.example.url)),
                    esc(&e.answers.0),
                    esc(&e.answers.1),
                    esc(&cause)
                )
            })
            .collect();
        let _ = write!(
            b,
            "<tr><td><code>{}</code> vs <code>{}</code></td><td class=\"n\">{} of {} ({})</td>\
<td>{}</td></tr>",
            esc(&p.a),
            esc(&p.b),
            p.files_disagree,
            p.files_compared,
            share(p.file_share),
            hosts.join("<br>")
        );
    }
    b.push_str("</tbody></table>");
}

fn pairs(b: &mut String, s: &Summary) {
    let _ = write!(
        b,
        "<h3>Pairs, most files first</h3><p class=\"muted\">The {} pairs that disagree on the most \
files, of {}.</p><table><thead><tr><th>pair</th><th class=\"n\">queries disagreeing</th>\
<th class=\"n\">files with a disagreement</th></tr></thead><tbody>",
        PAIRS_SHOWN.min(s.pairs.len()),
        s.pairs.len()
    );
    for p in s.pairs.iter().take(PAIRS_SHOWN) {
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

fn oracles(cx: &Ctx, b: &mut String, c: &Census, s: &Summary) {
    let _ = write!(
        b,
        "<h3>Oracles</h3><table><thead><tr><th>oracle</th><th>version</th><th class=\"n\">files \
raised on</th><th class=\"n\">crashed on</th><th class=\"n\">timed out on</th><th class=\"n\">\
queries departing from <code>{}</code></th></tr></thead><tbody>",
        esc(&c.reference)
    );
    for o in &s.oracles {
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

fn signatures(cx: &Ctx, b: &mut String, s: &Summary) {
    b.push_str(
        "<h3>Top signatures by files affected</h2><p>A signature is the agreement classes of one \
query, as the conformance run writes them. The example is the smallest affected file. Each \
oracle that answers otherwise than the reference on it is triaged as a fuzz finding is: the \
example is minimised for that pair alone, and the first catalogue transformation that makes \
the pair agree names the cause (<code>new</code> when none does); the ledger entries naming \
that cause for that oracle are linked, and a cause with none is \
<span class=\"untri\">unexplained</span>. Below that, where corpus queries of this run have \
the same signature, the entries explaining their cells: a lead, not a proof.</p>",
    );
    let corpus = corpus_signatures(cx);
    for (i, sig) in s.top_signatures.iter().enumerate() {
        let e = &sig.example;
        let cut = if e.body_bytes as usize > e.body.len() {
            ", cut"
        } else {
            ""
        };
        let _ = write!(
            b,
            "<h4>{}. {} files, {} queries</h4><p><code>{}</code></p><p>Example: host \
<code>{}</code>, agent <code>{}</code>, url <code>{}</code> ({} bytes{cut})</p>{}",
            i + 1,
            sig.files,
            sig.queries,
            esc(sig.signature.as_str()),
            esc(&e.host),
            esc(&e.agent),
            esc(&e.url),
            e.body_bytes,
            body_view(e.body.as_bytes())
        );
        causes_table(cx, b, &sig.causes);
        explained_by(cx, b, corpus.get(&sig.signature));
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
        let ledger = if matches!(c.cause, ::census::render::Triage::NotTriaged { .. }) {
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
            esc(&::census::render::shown(&c.reference_answer)),
            esc(&::census::render::shown(&c.answer)),
            esc(&c.cause.to_string()),
            esc(&c.body),
            esc(&c.agent),
            esc(&c.url)
        );
    }
    b.push_str("</tbody></table>");
}

/// Corpus signature -> the (case, query) pairs that show it in this run.
fn corpus_signatures<'a>(cx: &Ctx<'a>) -> BTreeMap<&'a Signature, Vec<(&'a str, usize)>> {
    let mut out: BTreeMap<&Signature, Vec<(&str, usize)>> = BTreeMap::new();
    for case in &cx.report.cases {
        for q in &case.queries {
            out.entry(&q.signature)
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
                    .and_then(|e| e.cause.as_ref())
                    .map(|c| format!(" ({})", esc(&c.to_string())))
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

fn impact(b: &mut String, s: &Summary) {
    let _ = write!(
        b,
        "<h3>High impact: {} (file, pair) disagreements on <code>/</code> or a whole-site \
rule</h3>",
        s.high_impact_files
    );
    if s.high_impact.is_empty() {
        b.push_str("<p>None.</p>");
        return;
    }
    b.push_str(
        "<table><thead><tr><th>host</th><th>pair</th><th>agent</th><th>url</th><th>answers</th>\
</tr></thead><tbody>",
    );
    for r in s.high_impact.iter().take(IMPACT_SHOWN) {
        let _ = write!(
            b,
            "<tr><td><code>{}</code></td><td>{}</td><td><code>{}</code></td><td><code>{}</code>\
</td><td>{}</td></tr>",
            esc(&r.host),
            esc(&r.pair.to_string()),
            esc(&r.agent),
            esc(&r.url),
            esc(&r.answers)
        );
    }
    b.push_str("</tbody></table>");
    if s.high_impact.len() > IMPACT_SHOWN {
        let _ = write!(
            b,
            "<p class=\"muted\">First {IMPACT_SHOWN} by file name; census.json keeps {}.</p>",
            s.high_impact.len()
        );
    }
}
