//! The Markdown of a write-up and of the index. Plain text built from
//! typed data; every section a maintainer needs has its own heading, which
//! the xtask test checks.

use super::repro::{self, escape_bytes};
use super::{Finding, Pick};
use engine::oracle::Ask;
use std::fmt::Write as _;

/// The headings every write-up has, in order (checked by the tests): what
/// a maintainer reads first, then repdiff's own bookkeeping (ledger ids,
/// case files, `repdiff check` lines) in the appendix.
#[cfg(test)]
pub const SECTIONS: &[&str] = &[
    "## Upstream",
    "## Affected versions",
    "## Minimal input",
    "## Expected behaviour (RFC 9309)",
    "## Actual behaviour",
    "## Newest release",
    "## Reproducer",
    "## Suggested fix",
    "## Appendix: where this comes from in repdiff",
];

/// Bodies longer than this are shown by their start only, and the direct
/// reproducers point to the case instead of embedding them.
pub(super) const SHOWN_BYTES: usize = 2000;

/// The upstream link, or `None` when the ledger knows of none.
pub fn upstream<'a>(f: &Finding<'a>) -> Option<&'a str> {
    let u = f.entry.upstream.trim();
    (u.starts_with("http://") || u.starts_with("https://")).then_some(u)
}

pub fn write_up(f: &Finding) -> String {
    let e = f.entry;
    let mut s = format!(
        "<!-- Written by `repdiff findings` from the ledger, the corpus and cases/findings.yaml; \
do not edit (--check fails). -->\n# {}\n\nRFC 9309 {} · affects {}\n\n",
        e.title,
        e.rfc,
        e.oracles
            .iter()
            .map(|o| library(f, o))
            .collect::<Vec<_>>()
            .join(", ")
    );
    s.push_str("## Upstream\n\n");
    match upstream(f) {
        Some(u) => {
            let _ = writeln!(s, "Already reported or discussed upstream: <{u}>\n");
        }
        None => s.push_str("No upstream issue known.\n\n"),
    }
    affected(&mut s, f);
    minimal_input(&mut s, f);
    expected(&mut s, f);
    actual(&mut s, f);
    newest(&mut s, f);
    direct(&mut s, f);
    s.push_str("## Suggested fix\n\n");
    s.push_str(f.fix.unwrap_or("No suggested fix written yet."));
    s.push_str("\n\n");
    appendix(&mut s, f);
    s
}

/// An oracle as a maintainer knows it: the library and version the
/// published run tested (`protego 0.7.0`), else the oracle's name.
fn library(f: &Finding, oracle: &str) -> String {
    f.versions
        .get(oracle)
        .map_or_else(|| format!("`{oracle}`"), |(identity, _)| identity.clone())
}

fn affected(s: &mut String, f: &Finding) {
    s.push_str(
        "## Affected versions\n\n| library and version tested | obtained from |\n|---|---|\n",
    );
    for o in &f.entry.oracles {
        let from = f.versions.get(o).map_or("", |(_, from)| from.as_str());
        let _ = writeln!(s, "| {} | {from} |", library(f, o));
    }
    s.push_str("\nOther versions were not checked.\n\n");
}

/// The project-internal part: ledger entry, case files, the `repdiff
/// check` lines and the ledger's analysis, apart from the report text.
fn appendix(s: &mut String, f: &Finding) {
    let e = f.entry;
    let _ = writeln!(
        s,
        "## Appendix: where this comes from in repdiff\n\n\
Ledger entry [`{}`](../site/ledger.html#{}), classification `bug`, oracles {}. The outcomes above are \
the ones the ledger pins; every conformance run checks them against the real library, and \
`repdiff findings --verify` runs every program above and checks it prints them. Versions are those of \
the published run (`reports/latest/compat.json`).\n",
        e.id,
        e.id,
        e.oracles.iter().map(|o| format!("`{o}`")).collect::<Vec<_>>().join(", ")
    );
    for p in &f.picks {
        let _ = writeln!(
            s,
            "- input from case `{}` ({}, line {}), shown for {}",
            cell_ref(p),
            p.case
                .file
                .strip_prefix(crate::paths::root())
                .unwrap_or(&p.case.file)
                .display(),
            p.case.line,
            oracles_of(p),
        );
    }
    let _ = writeln!(
        s,
        "- the entry explains {} case reference(s): {}\n",
        e.cases.len(),
        e.cases
            .iter()
            .map(|c| format!("`{c}`"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    s.push_str("Through repdiff, beside its RFC 9309 reference:\n\n```sh\n");
    for p in &f.picks {
        let mut line = format!("repdiff check --case {}", cell_ref(p));
        for (o, _) in &p.oracles {
            let _ = write!(line, " --oracle {o}");
        }
        line.push_str(" --oracle rfc9309");
        let _ = writeln!(s, "{line}");
    }
    s.push_str("```\n\nThe ledger's analysis:\n\n");
    s.push_str(e.explanation.trim());
    s.push('\n');
}

/// Which queries a pick shows, as `case#N`.
fn cell_ref(p: &Pick) -> String {
    engine::query_ref::QueryRef::one(&p.case.id, p.index).to_string()
}

fn oracles_of(p: &Pick) -> String {
    p.oracles
        .iter()
        .map(|(o, _)| format!("`{o}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn minimal_input(s: &mut String, f: &Finding) {
    s.push_str("## Minimal input\n\n");
    let many = f.picks.len() > 1;
    for p in &f.picks {
        let q = &p.case.queries[p.index].query;
        let title = sentence(&p.case.title);
        if many {
            let _ = writeln!(s, "For {}: {title}\n", libraries_of(f, p));
        } else {
            let _ = writeln!(s, "{title}\n");
        }
        let body = &p.case.body;
        let shown = &body[..body.len().min(SHOWN_BYTES)];
        let more = if body.len() > SHOWN_BYTES {
            format!(" (the first {SHOWN_BYTES} of {} bytes)", body.len())
        } else {
            format!(" ({} bytes)", body.len())
        };
        let _ = writeln!(
            s,
            "robots.txt body{more}, as escaped bytes:\n\n```text\nb\"{}\"\n```\n",
            escape_bytes(shown)
        );
        let _ = writeln!(
            s,
            "- ask: `{}`\n- agent: `{}`\n- URL: `{}`",
            q.ask.as_str(),
            escape_bytes(q.agent.as_bytes()),
            escape_bytes(q.url.as_bytes())
        );
        if let Some(h) = &p.case.http {
            let _ = writeln!(
                s,
                "- served over HTTP: status {}{}{}",
                h.status,
                if h.gzip { ", gzip-encoded" } else { "" },
                if h.redirects.is_empty() {
                    String::new()
                } else {
                    format!(", after redirects {:?}", h.redirects)
                }
            );
        }
        s.push('\n');
    }
}

fn expected(s: &mut String, f: &Finding) {
    s.push_str("## Expected behaviour (RFC 9309)\n\n");
    let many = f.picks.len() > 1;
    for p in &f.picks {
        let q = &p.case.queries[p.index];
        let lead = if many {
            format!("For {}: expected", libraries_of(f, p))
        } else {
            "Expected".into()
        };
        let literal = match &p.reference {
            Some(r) if q.expect.to_string() != r.to_string() => {
                format!("; RFC 9309 read literally answers **{r}**")
            }
            _ => String::new(),
        };
        let _ = writeln!(s, "{lead} **{}** ({}){literal}.", q.expect, q.basis);
        if let Some(why) = &q.why {
            let _ = writeln!(s, "Why: {}", why.trim());
        }
        s.push('\n');
    }
}

fn actual(s: &mut String, f: &Finding) {
    s.push_str("## Actual behaviour\n\n| library | answer |\n|---|---|\n");
    for p in &f.picks {
        for (o, pin) in &p.oracles {
            let _ = writeln!(s, "| {} | **{pin}** |", library(f, o));
        }
    }
    s.push('\n');
}

/// A case title as a sentence: its first letter capitalised.
fn sentence(title: &str) -> String {
    let mut c = title.chars();
    c.next()
        .map(|first| first.to_uppercase().chain(c).collect())
        .unwrap_or_default()
}

/// Whether an oracle's newest release still has the bug, as running it
/// showed.
pub enum Status<'a> {
    /// The pinned version is the newest: CI's `findings --verify` re-runs it.
    Pinned(&'a super::notes::Newest),
    Still(&'a super::notes::Newest),
    Fixed(&'a super::notes::Newest),
    NotChecked,
}

pub fn status<'a>(f: &Finding<'a>, oracle: &str) -> Status<'a> {
    let Some(n) = f.newest.get(oracle) else {
        return Status::NotChecked;
    };
    let id = &f.entry.id;
    if n.fixed.contains(id) {
        Status::Fixed(n)
    } else if n.pinned {
        Status::Pinned(n)
    } else if n.still.contains(id) {
        Status::Still(n)
    } else {
        Status::NotChecked
    }
}

/// True when every oracle's newest release was run and no longer has it.
pub fn fixed_upstream(f: &Finding) -> bool {
    f.entry
        .oracles
        .iter()
        .all(|o| matches!(status(f, o), Status::Fixed(_)))
}

fn newest(s: &mut String, f: &Finding) {
    s.push_str(
        "## Newest release

",
    );
    for o in &f.entry.oracles {
        let lib = library(f, o);
        let _ = match status(f, o) {
            Status::Pinned(n) => writeln!(
                s,
                "- {lib}: still present in the newest release, {}: the version tested here, on \
which CI re-runs the reproducer below ({}).",
                n.release, n.checked
            ),
            Status::Still(n) => writeln!(
                s,
                "- {lib}: still present in the newest release, {}, checked by running it there ({}).",
                n.release, n.checked
            ),
            Status::Fixed(n) => writeln!(
                s,
                "- {lib}: fixed in the newest release, {}, checked by running it there ({}).",
                n.release, n.checked
            ),
            Status::NotChecked => writeln!(s, "- {lib}: not checked on a newer release yet."),
        };
    }
    s.push('\n');
}

fn libraries_of(f: &Finding, p: &Pick) -> String {
    p.oracles
        .iter()
        .map(|(o, _)| library(f, o))
        .collect::<Vec<_>>()
        .join(", ")
}

fn direct(s: &mut String, f: &Finding) {
    s.push_str("## Reproducer\n\n");
    for p in &f.picks {
        let q = &p.case.queries[p.index];
        for (o, pin) in &p.oracles {
            let _ = writeln!(s, "### {}\n", library(f, o));
            match direct_program(p.case, p.index, o, pin) {
                Direct::Http => {
                    s.push_str("This case depends on the HTTP response (see the minimal input), so the direct \
reproducer is the `repdiff check` line above, which serves it from a local server.\n\n");
                }
                Direct::TooLong(n) => {
                    let _ = writeln!(
                        s,
                        "The body is {n} bytes; take it from the case file named above.\n"
                    );
                }
                Direct::Program(program) => {
                    let _ = writeln!(s, "```{}\n{}```\n", program.lang.fence(), program.source);
                }
                Direct::NoTemplate => {
                    let ask = if q.query.ask == Ask::CanFetch {
                        "this oracle"
                    } else {
                        q.query.ask.as_str()
                    };
                    let _ = writeln!(
                        s,
                        "No direct template for {ask} yet; use the `repdiff check` line.\n"
                    );
                }
            }
        }
    }
}

/// A write-up's direct reproducer for one oracle of one pick, or why it
/// has none: what the write-up shows and `findings --verify` runs, decided
/// in one place.
pub(super) enum Direct {
    /// The case depends on the HTTP response: `repdiff check` serves it.
    Http,
    /// The body is too long to show (its length).
    TooLong(usize),
    Program(repro::Program),
    /// The oracle has no template for the query's ask.
    NoTemplate,
}

pub(super) fn direct_program(
    case: &engine::case::Case,
    index: usize,
    oracle: &str,
    pin: &engine::oracle::Label,
) -> Direct {
    if case.http.is_some() {
        return Direct::Http;
    }
    if case.body.len() > SHOWN_BYTES {
        return Direct::TooLong(case.body.len());
    }
    let q = &case.queries[index];
    let expected = q.expect.to_string();
    let actual = pin.to_string();
    let inp = repro::Input {
        body: &case.body,
        query: &q.query,
        expected: &expected,
        actual: &actual,
    };
    repro::direct(oracle, &inp).map_or(Direct::NoTemplate, Direct::Program)
}

/// `reports/findings/README.md`: one row per write-up.
pub fn index(findings: &[Finding]) -> String {
    let fixed = findings.iter().filter(|f| f.fix.is_some()).count();
    let up = findings.iter().filter(|f| upstream(f).is_some()).count();
    let (gone, open): (Vec<&Finding>, Vec<&Finding>) =
        findings.iter().partition(|f| fixed_upstream(f));
    let mut s = format!(
        "<!-- Written by `repdiff findings`; do not edit (--check fails). -->\n# Findings: upstream-ready write-ups\n\n\
One write-up per ledger entry classified `bug` ({} in all; {fixed} with a hand-written suggested fix, \
{up} with a known upstream issue). Each has the affected versions, the minimal input as escaped bytes, \
the RFC 9309 expectation, the actual answer, whether the newest release still has it, a program in the \
library's own language (`repdiff findings --verify` runs every one), a suggested fix, and repdiff's \
own references in an appendix. Regenerate with `repdiff findings`; suggested fixes and newest-release \
checks live in `cases/findings.yaml`. Ready-to-send reports, one file per project, are in \
[upstream/](upstream/).\n\n",
        findings.len()
    );
    index_table(&mut s, &open);
    if !gone.is_empty() {
        let _ = writeln!(
            s,
            "\n## Fixed upstream\n\nThe newest release of every library named no longer has these \
({} write-ups, checked by running each on it).\n",
            gone.len()
        );
        index_table(&mut s, &gone);
    }
    s
}

fn index_table(s: &mut String, findings: &[&Finding]) {
    s.push_str("| write-up | oracles | RFC 9309 | upstream | fix |\n|---|---|---|---|---|\n");
    for f in findings {
        let e = f.entry;
        let _ = writeln!(
            s,
            "| [{}]({}.md) | {} | {} | {} | {} |",
            e.title.replace('|', "\\|"),
            e.id,
            e.oracles
                .iter()
                .map(|o| format!("`{o}`"))
                .collect::<Vec<_>>()
                .join(", "),
            e.rfc,
            upstream(f).map_or("none known".to_string(), |u| format!("<{u}>")),
            if f.fix.is_some() { "yes" } else { "–" }
        );
    }
}
