//! `index.html`: the scorecard, the oracle x tag and oracle x RFC-section
//! matrices, version moves and the ledger at a glance.

use super::*;

pub fn index(cx: &Ctx) -> String {
    let mut b = String::new();
    intro(&mut b, cx);
    scorecard(&mut b, cx);
    standards(&mut b, cx);
    matrices(&mut b, cx);
    version_moves(&mut b, cx);
    ledger_glance(&mut b, cx);
    crate::site::html::page("RFC 9309 conformance", "", &cx.footer, &b)
}

/// What was run, what did not run, and whether every divergence is triaged.
fn intro(b: &mut String, cx: &Ctx) {
    let r = cx.report;
    let _ = write!(
        b,
        "<h1>repdiff: robots.txt parsers against RFC 9309</h1>\
<p>Every parser below ran the same corpus of {} cases ({} queries) as its real library; \
each answer is compared with what RFC 9309 says and every disagreement is explained by an entry of the \
<a href=\"ledger.html\">known-divergence ledger</a> or flagged as untriaged. \
Run of {}, corpus <code>{}</code>.</p>",
        r.cases.len(),
        r.queries(),
        crate::site::utc(r.generated_unix),
        esc(short(&r.corpus_hash))
    );
    if !r.unavailable.is_empty() {
        b.push_str("<p class=\"untri\">Oracles NOT run in this report:</p><ul>");
        for u in &r.unavailable {
            let _ = write!(
                b,
                "<li><code>{}</code>: {} — fix: <code>{}</code></li>",
                esc(&u.oracle),
                esc(&u.reason),
                esc(&u.fix_line("repdiff"))
            );
        }
        b.push_str("</ul>");
    }
    let untriaged = r.untriaged().count();
    let _ = write!(
        b,
        "<p><strong>{}</strong> · {} ledger entries explain {} cells · {} stale entr{}.</p>",
        if untriaged == 0 {
            "✓ every divergence is triaged".to_string()
        } else {
            format!("⚠ {untriaged} untriaged cell(s)")
        },
        cx.explained.len(),
        cx.explained.values().map(Vec::len).sum::<usize>(),
        r.stale.len(),
        if r.stale.len() == 1 { "y" } else { "ies" }
    );
}

fn scorecard(b: &mut String, cx: &Ctx) {
    let r = cx.report;
    b.push_str("<h2 id=\"summary\">Scorecard</h2>");
    b.push_str(
        "<p class=\"muted\">score = matched / scored, where scored counts the queries with a definite \
RFC 9309 answer that the oracle answered (match + deviate + failed); <code>either</code> queries only \
count when the oracle sides with a minority (split).</p>",
    );
    b.push_str(
        "<div class=\"wrap\"><table id=\"scorecard\"><thead><tr><th>oracle</th><th>score</th>\
<th class=\"n\">✓ match</th><th class=\"n\">✗ deviate</th><th class=\"n\">! failed</th>\
<th class=\"n\">≠ split</th><th class=\"n\">– unsupported</th><th class=\"n\">triaged</th>\
<th class=\"n\">untriaged</th><th>badge</th><th>version</th></tr></thead><tbody>",
    );
    for o in &r.oracles {
        let t = cx.cards.get(&o.name).map(|c| c.all).unwrap_or_default();
        let _ = write!(
            b,
            "<tr><th>{}</th>{}<td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td>\
<td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n{}\">{}</td>\
<td><a href=\"badges/{}.json\">json</a></td><td><small>{}</small></td></tr>",
            oracle_link("", &o.name),
            score_td(&t, None),
            t.matched,
            t.deviated,
            t.failed,
            t.split,
            t.unsupported,
            t.triaged,
            if t.untriaged > 0 { " untri" } else { "" },
            t.untriaged,
            slug(&o.name),
            esc(&o.identity.to_string())
        );
    }
    b.push_str("</tbody></table></div>");
    b.push_str(band_legend());
}

/// Oracles x expectation profiles: which standard each parser follows.
fn standards(b: &mut String, cx: &Ctx) {
    let oracles: Vec<&str> = cx.report.oracles.iter().map(|o| o.name.as_str()).collect();
    let table = profile_table(cx, "", &oracles);
    if table.is_empty() {
        return;
    }
    b.push_str(
        "<h2 id=\"profiles\">Which standard? Oracles × profiles</h2>\
<p>The same answers scored against four generations of robots.txt rules: RFC 9309, the 1996 draft \
(<code>robots-1996</code>), the 1994 standard (<code>robots-1994</code>) and Google's documented \
behaviour (<code>googlebot</code>), each an executable reference.</p>",
    );
    b.push_str(&table);
}

/// Oracles x tags and oracles x RFC sections.
fn matrices(b: &mut String, cx: &Ctx) {
    let r = cx.report;
    let tag_rows = tags(r);
    b.push_str("<h2 id=\"tags\">By feature (tag)</h2>");
    b.push_str(&matrix(
        cx,
        "matrix-tags",
        "oracles × tags: matched/scored",
        &tag_rows,
        &|t| format!("<a href=\"cases.html#tag-{}\">{}</a>", slug(t), esc(t)),
        &|c, t| c.tags.get(t).copied().unwrap_or_default(),
        "tag",
    ));
    let sec_rows = sections(r);
    b.push_str("<h2 id=\"sections\">By RFC 9309 section</h2>");
    b.push_str(
        "<p class=\"muted\">Each query cites the section its expectation rests on \
(<code>RFC 9309 §x.y …</code>); <code>convention</code> rows are queries the RFC is silent on.</p>",
    );
    b.push_str(&matrix(
        cx,
        "matrix-sections",
        "oracles × RFC 9309 sections: matched/scored",
        &sec_rows,
        &|s| section_heading(s),
        &|c, s| c.sections.get(s).copied().unwrap_or_default(),
        "section",
    ));
}

/// Each lineage's moves between consecutive versions.
fn version_moves(b: &mut String, cx: &Ctx) {
    let r = cx.report;
    let moving = cx.moving_lineages();
    if !moving.is_empty() {
        b.push_str("<h2 id=\"versions\">Across versions</h2><ul>");
        for (lineage, pts) in moving {
            for w in pts.windows(2) {
                if (&w[0].record.oracle, &w[0].record.identity)
                    == (&w[1].record.oracle, &w[1].record.identity)
                {
                    continue;
                }
                let moves = versions::moves(r, &w[0], &w[1]);
                let fixed = moves.iter().filter(|m| m.kind == "fixed").count();
                let broke = moves.iter().filter(|m| m.kind == "broke").count();
                let _ = write!(
                    b,
                    "<li><a href=\"history.html#fam-{}\">{}</a>: <code>{}</code> {} → <code>{}</code> {}: \
{} cell(s) moved ({fixed} fixed, {broke} broke), score {} → {}</li>",
                    slug(lineage),
                    esc(lineage),
                    esc(&w[0].record.oracle),
                    esc(&versions::version_label(&w[0].record)),
                    esc(&w[1].record.oracle),
                    esc(&versions::version_label(&w[1].record)),
                    moves.len(),
                    pct(w[0].record.tally().share()),
                    pct(w[1].record.tally().share()),
                );
            }
        }
        b.push_str("</ul>");
    }
}

/// Ledger entries and the cells they explain, by classification, and the
/// links onwards.
fn ledger_glance(b: &mut String, cx: &Ctx) {
    let r = cx.report;
    let mut by_class: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    for e in &cx.inp.ledger.entries {
        let n = cx.explained.get(e.id.as_str()).map_or(0, Vec::len);
        let slot = by_class.entry(e.classification.as_str()).or_default();
        slot.0 += 1;
        slot.1 += n;
    }
    b.push_str("<h2 id=\"ledger\">Known divergences</h2><table><thead><tr><th>classification</th><th class=\"n\">entries</th><th class=\"n\">cells explained</th></tr></thead><tbody>");
    for (class, (e, n)) in &by_class {
        let _ = write!(
            b,
            "<tr><td><a href=\"ledger.html#class-{}\">{}</a></td><td class=\"n\">{e}</td><td class=\"n\">{n}</td></tr>",
            slug(class),
            esc(class)
        );
    }
    b.push_str("</tbody></table>");
    let _ = write!(
        b,
        "<p><a href=\"cases.html\">All {} cases</a> · <a href=\"ledger.html\">the ledger</a> · \
<a href=\"history.html\">versions and history</a> · raw report: \
<a href=\"../latest/compat.json\">compat.json</a>, <a href=\"../latest/compat.md\">compat.md</a></p>",
        r.cases.len()
    );
}
