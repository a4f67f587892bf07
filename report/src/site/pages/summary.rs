//! `summary.md`: the run's summary, on the site and the results page (`reports/RESULTS.md`).

use super::*;

/// The summary for the results page: the scorecard and the oracle x tag matrix,
/// in markdown (text only: every number is there, no colour needed).
pub fn summary_markdown(report: &Report) -> String {
    let cards = cards(report);
    let mut s = String::new();
    let _ = writeln!(
        s,
        "Run of {}: {} cases, {} queries, corpus `{}`; {} untriaged cell(s).\n",
        crate::site::utc(report.generated_unix),
        report.cases.len(),
        report.queries(),
        short(&report.corpus_hash),
        report.untriaged().count()
    );
    let _ = writeln!(
        s,
        "| oracle | version | RFC 9309 score | matched / scored | deviate | failed | split | untriaged |\n|---|---|---|---|---|---|---|---|"
    );
    for o in &report.oracles {
        let t = cards.get(&o.name).map(|c| c.all).unwrap_or_default();
        let version = o.identity.to_string();
        let _ = writeln!(
            s,
            "| [`{}`](reports/site/oracles/{}.html) | {} | **{}** | {}/{} | {} | {} | {} | {} |",
            o.name,
            slug(&o.name),
            version.replace('|', "\\|"),
            pct(t.share()),
            t.matched,
            t.scored(),
            t.deviated,
            t.failed,
            t.split,
            t.untriaged
        );
    }
    profile_matrix(&mut s, report);
    let _ = write!(s, "\n| tag |");
    for o in &report.oracles {
        let _ = write!(s, " `{}` |", o.name);
    }
    let _ = write!(s, "\n|---|");
    for _ in &report.oracles {
        s.push_str("---|");
    }
    s.push('\n');
    for tag in tags(report) {
        let _ = write!(s, "| {tag} |");
        for o in &report.oracles {
            let t = cards
                .get(&o.name)
                .and_then(|c| c.tags.get(&tag))
                .copied()
                .unwrap_or_default();
            if t.scored() == 0 {
                s.push_str(" – |");
            } else {
                let _ = write!(s, " {} |", pct(t.share()));
            }
        }
        s.push('\n');
    }
    s
}

/// The oracle x profile matrix: the share of queries each oracle answers as
/// each profile expects, and the closest profile (rules in compat.md).
fn profile_matrix(s: &mut String, report: &Report) {
    if report.profile_names().is_empty() {
        return;
    }
    s.push_str(
        "\nWhich standard? The share of the queries each oracle answers as each expectation profile \
         expects, and the closest profile (counting rules in [compat.md](reports/latest/compat.md)).\n\n",
    );
    crate::markdown::profile_table(
        s,
        report,
        "oracle × profile",
        |t| pct(t.copied().unwrap_or_default().share()),
        |c| format!("**`{c}`**"),
    );
}
