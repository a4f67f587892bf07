//! Write-ups of kind `slow`: an input on which one parser takes orders of
//! magnitude longer than on any other while every other parser stays fast
//! (found by `repdiff triage sweep`, judged by `crate::slow`). No ledger
//! entry can hold one (the ledger explains verdicts), so the person who
//! read the library's source names it in `cases/findings.yaml` under
//! `slow:` with the cause and a fix, and points at the committed sweep
//! report whose figures the write-up quotes. Everything else comes from
//! that report, so the write-up is as reproducible as the ledger's.

use super::repro::{self, escape_bytes};
use crate::paths;
use crate::shared::Usage;
use crate::slow::SlowFinding;
use engine::oracle::{Ask, Query};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// The sections of a slow write-up, in order (the test checks them).
#[cfg(test)]
pub const SECTIONS: &[&str] = &[
    "## Upstream",
    "## Affected versions",
    "## Minimal input",
    "## Expected behaviour",
    "## Actual behaviour",
    "## Reproducer",
    "## Direct reproducer",
    "## Suggested fix",
    "## Why",
];

/// One slow finding as written in cases/findings.yaml.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SlowNote {
    /// The write-up's name (`reports/findings/<id>.md`).
    pub id: String,
    pub title: String,
    pub oracle: String,
    /// The committed sweep report (repository-relative) holding the figures.
    pub sweep: String,
    /// Which of its slow inputs (`source` in the report).
    pub source: String,
    /// Why it is slow, naming the library's function and lines.
    pub cause: String,
    pub fix: String,
    /// An upstream issue, when one is known.
    #[serde(default)]
    pub upstream: Option<String>,
}

/// The report's entry for the note, or an error naming what is missing.
pub fn load_sweep(note: &SlowNote) -> Result<SlowFinding, Usage> {
    let path = paths::root().join(&note.sweep);
    let text = std::fs::read_to_string(&path).map_err(|e| {
        Usage(format!(
            "slow finding `{}`: {}: {e}",
            note.id,
            path.display()
        ))
    })?;
    #[derive(Deserialize)]
    struct Report {
        slow: Vec<SlowFinding>,
    }
    let report: Report = serde_json::from_str(&text).map_err(|e| {
        Usage(format!(
            "slow finding `{}`: {}: {e}",
            note.id,
            path.display()
        ))
    })?;
    report
        .slow
        .into_iter()
        .find(|f| f.source == note.source && f.slow.oracle == note.oracle)
        .ok_or_else(|| {
            Usage(format!(
                "slow finding `{}`: {} has no slow input `{}` of `{}`",
                note.id,
                path.display(),
                note.source,
                note.oracle
            ))
        })
}

fn ms_list(v: &[(String, f64)]) -> String {
    v.iter()
        .map(|(k, ms)| format!("{k}: {ms:.1} ms"))
        .collect::<Vec<_>>()
        .join(", ")
}

pub fn write_up(
    note: &SlowNote,
    f: &SlowFinding,
    versions: &BTreeMap<String, (String, String)>,
) -> String {
    let m = &f.minimised;
    let mut s = format!(
        "<!-- Written by `repdiff findings` from cases/findings.yaml and {}; do not edit (--check fails). -->\n\
# {}\n\nKind `slow` (super-linear time) · oracle `{}` · found by the fuzz corpus sweep (`repdiff triage sweep`) on fuzz corpus input `{}`\n\n",
        note.sweep, note.title, note.oracle, f.source
    );
    s.push_str("## Upstream\n\n");
    match &note.upstream {
        Some(u) => {
            let _ = writeln!(s, "Already reported or discussed upstream: <{u}>\n");
        }
        None => s.push_str("No upstream issue known.\n\n"),
    }
    let (version, from) = versions
        .get(&note.oracle)
        .cloned()
        .unwrap_or_else(|| ("not in the published run".into(), String::new()));
    let _ = write!(
        s,
        "## Affected versions\n\n| oracle | library and version tested | obtained from |\n|---|---|---|\n| `{}` | {version} | {from} |\n\n",
        note.oracle
    );
    let _ = write!(
        s,
        "## Minimal input\n\nMinimised on the time alone ({} probes, {:.0} s): the smallest input found on which `{}` still takes over 20 ms and 100x its median.\n\n\
```text\nbody:  b\"{}\"\nagent: {:?}\nurl:   {:?}\n```\n\n",
        m.probes,
        m.seconds,
        note.oracle,
        escape_bytes(&m.body),
        f.agent,
        m.url
    );
    s.push_str(
        "## Expected behaviour\n\nAn answer in time proportional to the rule's length times the path's, as the reference \
matcher does (Google's robots.cc `Matches` keeps one array of candidate positions and never backtracks). \
RFC 9309 §3 asks implementors to \"treat the content of a robots.txt file as untrusted content\": a \
file anyone can serve must not stall a crawler.\n\n",
    );
    let _ = write!(
        s,
        "## Actual behaviour\n\n\
- The fuzz input ({} bytes of body): {:.1} ms for one question (fastest of three: {:.1} ms), against a median of {:.3} ms per input for `{}` over the sweep: {:.0}x.\n\
- The same input cut to a share of its rules and path: {}.\n\
- The minimised input with every run of three or more equal characters stretched 1, 2 and 3 times: {}.\n\
- The slowest other oracle on the minimised input: `{}`, {:.2} ms.\n\n",
        unescaped_len(&f.body),
        f.slow.ms,
        f.confirmed_ms,
        f.slow.median_ms,
        note.oracle,
        f.slow.ratio(),
        ms_list(&f.growth),
        ms_list(&f.stretched),
        f.others_slowest.0,
        f.others_slowest.1
    );
    let _ = write!(
        s,
        "## Reproducer\n\n```sh\nprintf '%b' '{}' > slow.txt\ntime repdiff check --robots slow.txt --agent {} --url {} --oracle {}\n```\n\n",
        printf_escape(&m.body),
        shell_quote(&f.agent),
        shell_quote(&m.url),
        note.oracle
    );
    let query = Query {
        ask: Ask::CanFetch,
        agent: f.agent.clone(),
        url: m.url.clone(),
    };
    let input = repro::Input {
        body: &m.body,
        query: &query,
        expected: "an answer in well under a millisecond",
        actual: "the answer, after the time above",
    };
    s.push_str("## Direct reproducer\n\n");
    match repro::direct(&note.oracle, &input) {
        Some(program) => {
            let _ = write!(
                s,
                "Time it (`time`): the answer itself is not the finding.\n\n```{}\n{}\n```\n\n",
                program.lang.fence(),
                program.source
            );
        }
        None => s.push_str("None for this oracle: the `repdiff check` line is the reproducer.\n\n"),
    }
    let _ = write!(
        s,
        "## Suggested fix\n\n{}\n\n## Why\n\n{}\n",
        note.fix.trim(),
        note.cause.trim()
    );
    s
}

/// The index's section for slow findings.
pub fn index(notes: &[SlowNote]) -> String {
    if notes.is_empty() {
        return String::new();
    }
    let mut s = String::from(
        "\n## Slow inputs\n\nInputs on which one parser takes orders of magnitude longer than the others \
(kind `slow`, from the fuzz corpus sweep, `repdiff triage sweep`; written in `cases/findings.yaml` under `slow:`).\n\n\
| write-up | oracle | upstream |\n|---|---|---|\n",
    );
    for n in notes {
        let _ = writeln!(
            s,
            "| [{}]({}.md) | `{}` | {} |",
            n.title.replace('|', "\\|"),
            n.id,
            n.oracle,
            n.upstream
                .as_deref()
                .map_or("none known".to_string(), |u| format!("<{u}>"))
        );
    }
    s
}

/// Bytes in a Rust `escape_ascii` rendering.
fn unescaped_len(escaped: &str) -> usize {
    let b = escaped.as_bytes();
    let (mut i, mut n) = (0, 0);
    while i < b.len() {
        i += match (b[i], b.get(i + 1)) {
            (b'\\', Some(b'x')) => 4,
            (b'\\', Some(_)) => 2,
            _ => 1,
        };
        n += 1;
    }
    n
}

/// The body as the argument of `printf '%b'` inside single quotes.
fn printf_escape(body: &[u8]) -> String {
    let mut s = String::new();
    for &b in body {
        match b {
            b'\\' => s.push_str("\\\\"),
            b'\n' => s.push_str("\\n"),
            0x20..=0x7e if b != b'\'' => s.push(b as char),
            _ => s.push_str(&format!("\\x{b:02x}")),
        }
    }
    s
}

fn shell_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaped_length_counts_bytes() {
        let raw = b"a\\\t\x00\xff'\"z";
        assert_eq!(unescaped_len(&raw.escape_ascii().to_string()), raw.len());
    }

    /// What bash's printf makes of the escape is the body again.
    #[test]
    fn printf_escape_round_trips_through_bash() {
        let body = b"User-agent: *\nDisallow: /a'b\\c\"%d\x00\xff\t";
        let out = std::process::Command::new("bash")
            .arg("-c")
            .arg(format!("printf '%b' '{}'", printf_escape(body)))
            .output()
            .expect("bash runs");
        assert_eq!(out.stdout, body.to_vec());
    }

    #[test]
    fn shell_quoting_survives_a_quote() {
        assert_eq!(shell_quote("it's"), "'it'\\''s'");
    }
}
