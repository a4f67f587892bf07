//! The census's figures and pages, derived from a tally alone so a merged
//! census renders exactly as one run would.

use crate::tally::{Example, ImpactRow, Tally};
use crate::{Census, OracleId, Section, Speed};
use engine::oracle::Label;
use engine::signature::Signature;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

/// Signatures listed in the summary and in `census.md`.
pub const TOP_SIGNATURES: usize = 20;
/// High-impact rows shown in `census.md` (all kept rows are in the JSON).
pub const IMPACT_SHOWN: usize = 40;

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// Sorted by share of files with a disagreement, largest first.
    pub pairs: Vec<PairSummary>,
    pub oracles: Vec<OracleSummary>,
    pub top_signatures: Vec<SignatureSummary>,
    pub high_impact_files: u64,
    pub high_impact: Vec<ImpactRow>,
    /// The widely used pairs, most files disagreeing first
    /// ([`crate::tally::Headline`]); empty in the probes' section.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub headline: Vec<HeadlinePair>,
}

/// "`a` and `b` disagree on N real sites, on `/` or a path the site's
/// rules name, for Googlebot or a crawler the file does not name".
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct HeadlinePair {
    pub a: String,
    pub b: String,
    pub files_disagree: u64,
    pub files_compared: u64,
    pub file_share: f64,
    pub examples: Vec<HeadlineExample>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct HeadlineExample {
    pub example: Example,
    /// `a`'s and `b`'s answers (outcome labels).
    pub answers: (String, String),
    /// Why they differ, named by the same triage as a top signature's
    /// causes with `a` in the reference's place; filled by whoever holds
    /// the oracles (`repdiff census`), absent until then.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cause: Option<SignatureCause>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PairSummary {
    pub a: String,
    pub b: String,
    /// Of the queries both answered with a verdict.
    pub query_share: f64,
    /// Of the files on which both answered some query with a verdict.
    pub file_share: f64,
    pub queries_disagree: u64,
    pub files_disagree: u64,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct OracleSummary {
    pub name: String,
    pub version: String,
    pub files_error_share: f64,
    pub files_crash_share: f64,
    pub files_timeout_share: f64,
    /// Share of the queries it and the reference both answered with a
    /// verdict on which they differ; absent without a reference.
    pub departs_from_reference: Option<f64>,
    /// The same share against each expectation profile asked.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub departs_from_profiles: BTreeMap<String, f64>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SignatureSummary {
    pub signature: Signature,
    pub files: u64,
    pub queries: u64,
    pub example: Example,
    /// Why each oracle outside the reference's class answers as it does on
    /// the example, named by root-cause triage; filled after the tally by
    /// whoever holds the oracles (`repdiff census`), empty until then.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub causes: Vec<SignatureCause>,
}

/// How a cause that could not be named begins (`not triaged: <why>`): it
/// is neither linked nor unexplained.
pub const NOT_TRIAGED: &str = "not triaged";

/// What root-cause triage made of one departing oracle's example: the
/// cause it named (a catalogue name, `new` when no transformation
/// neutralises the pair), or why the example could not be triaged. Stored
/// as `name` or `not triaged: why`, read back by its own `FromStr`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Triage {
    Named(String),
    NotTriaged { why: String },
}

impl Default for Triage {
    /// No cause yet: the empty name, as the field was before it was typed.
    fn default() -> Triage {
        Triage::Named(String::new())
    }
}

impl std::fmt::Display for Triage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Triage::Named(name) => f.write_str(name),
            Triage::NotTriaged { why } => write!(f, "{NOT_TRIAGED}: {why}"),
        }
    }
}

impl std::str::FromStr for Triage {
    type Err = std::convert::Infallible;

    /// Any text is a cause name unless it has the not-triaged prefix.
    fn from_str(s: &str) -> Result<Triage, Self::Err> {
        Ok(
            match s
                .strip_prefix(NOT_TRIAGED)
                .and_then(|r| r.strip_prefix(": "))
            {
                Some(why) => Triage::NotTriaged {
                    why: why.to_string(),
                },
                None => Triage::Named(s.to_string()),
            },
        )
    }
}

engine::serde_as_text!(Triage);

/// One departing oracle of a top signature: the example minimised for the
/// pair (reference, oracle) and classified with fuzz triage's catalogue.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SignatureCause {
    pub oracle: String,
    /// The reference's and the oracle's answers on the minimised example
    /// (none when it could not be triaged; written `""`).
    #[serde(with = "engine::oracle::label_or_empty")]
    pub reference_answer: Option<Label>,
    #[serde(with = "engine::oracle::label_or_empty")]
    pub answer: Option<Label>,
    /// A catalogue name (docs/causes.md), `new` when no transformation
    /// neutralises the pair, or why the example could not be triaged.
    pub cause: Triage,
    /// The minimised body as escaped bytes (`\n`, `\xNN`).
    pub body: String,
    pub agent: String,
    pub url: String,
    /// Ledger entries naming this cause for this oracle: empty means the
    /// cause is unexplained (or `new`).
    pub ledger: Vec<String>,
}

/// Shares as fractions rounded to 6 places: stable in JSON, exact enough.
fn share(n: u64, d: u64) -> f64 {
    if d == 0 {
        return 0.0;
    }
    (n as f64 / d as f64 * 1e6).round() / 1e6
}

pub fn summarise(t: &Tally, oracles: &[OracleId], reference: &str) -> Summary {
    let mut pairs: Vec<PairSummary> = t
        .pairs
        .iter()
        .map(|(k, p)| PairSummary {
            a: k.a.clone(),
            b: k.b.clone(),
            query_share: share(p.queries_disagree, p.queries_compared),
            file_share: share(p.files_disagree, p.files_compared),
            queries_disagree: p.queries_disagree,
            files_disagree: p.files_disagree,
        })
        .collect();
    pairs.sort_by(|x, y| {
        y.file_share
            .total_cmp(&x.file_share)
            .then(y.query_share.total_cmp(&x.query_share))
            .then((&x.a, &x.b).cmp(&(&y.a, &y.b)))
    });
    let has_reference = oracles.iter().any(|o| o.name == reference);
    let oracles = oracles
        .iter()
        .map(|o| {
            let s = t.oracles.get(&o.name).cloned().unwrap_or_default();
            OracleSummary {
                name: o.name.clone(),
                version: o.version.clone(),
                files_error_share: share(s.files_error, t.files),
                files_crash_share: share(s.files_crash, t.files),
                files_timeout_share: share(s.files_timeout, t.files),
                departs_from_reference: (has_reference && o.name != reference)
                    .then(|| share(s.queries_depart_reference, s.queries_vs_reference)),
                departs_from_profiles: s
                    .profiles
                    .iter()
                    .map(|(p, v)| (p.clone(), share(v.queries_disagree, v.queries_compared)))
                    .collect(),
            }
        })
        .collect();
    let mut sigs: Vec<SignatureSummary> = t
        .signatures
        .iter()
        .map(|(k, s)| SignatureSummary {
            signature: k.clone(),
            files: s.files,
            queries: s.queries,
            example: s.example.clone(),
            causes: Vec::new(),
        })
        .collect();
    sigs.sort_by(|x, y| {
        (y.files, y.queries)
            .cmp(&(x.files, x.queries))
            .then(x.signature.cmp(&y.signature))
    });
    sigs.truncate(TOP_SIGNATURES);
    Summary {
        pairs,
        oracles,
        top_signatures: sigs,
        high_impact_files: t.high_impact.total,
        high_impact: t.high_impact.rows.clone(),
        headline: headline(t),
    }
}

fn headline(t: &Tally) -> Vec<HeadlinePair> {
    let mut out: Vec<HeadlinePair> = t
        .headline
        .iter()
        .map(|(k, h)| HeadlinePair {
            a: k.a.clone(),
            b: k.b.clone(),
            files_disagree: h.files_disagree,
            files_compared: h.files_compared,
            file_share: share(h.files_disagree, h.files_compared),
            examples: h
                .examples
                .iter()
                .map(|r| HeadlineExample {
                    example: r.example.clone(),
                    answers: r.answers.clone(),
                    cause: None,
                })
                .collect(),
        })
        .collect();
    out.sort_by(|x, y| {
        y.files_disagree
            .cmp(&x.files_disagree)
            .then((&x.a, &x.b).cmp(&(&y.a, &y.b)))
    });
    out
}

fn pct(x: f64) -> String {
    format!("{:.1}%", x * 100.0)
}

/// Which section a page shows: its title, its heatmap file and what it asks.
pub struct SectionView<'a> {
    pub title: &'static str,
    pub heatmap: &'static str,
    pub about: &'static str,
    pub section: &'a Section,
}

/// The as-written questions first, then the near misses, then the probes:
/// every reader meets the figures a crawler's own questions give before
/// the ones we derive or invent. A census of [`crate::LEGACY_FORMAT`]
/// counted its near misses as written, and says so.
pub fn sections(c: &Census) -> Vec<SectionView<'_>> {
    let written = if c.has_near_misses() {
        SectionView {
            title: "As-written questions",
            heatmap: "heatmap.svg",
            about: "`/`, the common paths, each rule's path as written and its query-string \
                    variant (every rule, for the agents of its groups): questions a crawler \
                    following the site's own links asks.",
            section: &c.written,
        }
    } else {
        SectionView {
            title: "As-written questions",
            heatmap: "heatmap.svg",
            about: "`/`, the common paths, each rule's path as written, its near miss and \
                    its query-string variant: questions a crawler following the site's own \
                    links asks.",
            section: &c.written,
        }
    };
    let mut out = vec![written];
    if c.has_near_misses() {
        out.push(SectionView {
            title: "Near misses",
            heatmap: "heatmap-near-misses.svg",
            about: "Each rule's path minus its last character (`/x.pdf` -> `/x.pd`), for the \
                    first 24 rules: a URL the site need not have and no link asks, which \
                    finds parsers that match a character short or long.",
            section: &c.near_misses,
        });
    }
    out.push(SectionView {
        title: "Probes",
        heatmap: "heatmap-probes.svg",
        about: "Questions we invent: each rule's path with its first letter or digit \
                    %-encoded (`/admin` -> `/%61dmin`), a URL no link on the site contains. \
                    They find differences in URL normalisation; no crawler asks them by itself.",
        section: &c.probes,
    });
    out
}

pub fn markdown(c: &Census, speed: Option<&Speed>) -> String {
    let t = &c.written.tally;
    let near = if c.has_near_misses() {
        format!(", {} near misses", c.near_misses.tally.queries)
    } else {
        String::new()
    };
    let mut out = format!(
        "# Census of real robots.txt files\n\n\
         Input: `{}`{}; {} files asked, {} as-written questions{near} and {} probes ({} oracles). \
         Queries are derived from each file (see docs/census.md). \
         A pair *disagrees* on a query when both answer with a verdict and the verdicts differ.\n\n",
        c.input,
        c.limit.map(|l| format!(" (first {l} files)")).unwrap_or_default(),
        t.files,
        t.queries,
        c.probes.tally.queries,
        c.oracles.len()
    );
    if c.has_near_misses() {
        out.push_str(&unrequested_line(c));
    }
    if !t.skipped_status.is_empty() {
        let s: Vec<String> = t
            .skipped_status
            .iter()
            .map(|(k, v)| format!("{v} with status {k}"))
            .collect();
        out.push_str(&format!(
            "Not asked (HTTP status not 2xx): {}.\n\n",
            s.join(", ")
        ));
    }
    headline_md(&mut out, &c.written.summary.headline);
    for view in sections(c) {
        out.push_str(&format!("\n## {}\n\n{}\n\n", view.title, view.about));
        section_md(&mut out, c, &view);
    }
    if let Some(sp) = speed {
        out.push_str(&format!(
            "\n## Speed\n\n{} files in {:.1} s wall: {:.1} files/s, {:.0} queries/s.\n\n",
            sp.files, sp.wall_seconds, sp.files_per_second, sp.queries_per_second
        ));
        out.push_str(&speed_table(sp));
        if let Some(f) = &sp.floor {
            out.push_str(&floor_table(f, sp.wall_seconds));
        }
    }
    out
}

/// The census against its parsers' own loops over the same questions, in
/// the same invocation: each library's CPU, the census's CPU for it, the
/// ratio, and the wall time against the libraries' floor.
pub fn floor_table(f: &crate::Floor, wall: f64) -> String {
    let mut out = String::from(
        "\n### Against the parsers' own loops\n\n\
         Each library in a loop of its own runtime over the very questions above (its \
         manifest's `loop:`), run after the census in the same invocation. *census CPU* is \
         its worker plus the thread driving it; the ratio is what repdiff adds. Each loop \
         answers as its harness does (`repdiff/tests/it/speed_loops.rs` holds them to it).\n\n\
         | oracle | library loop | library CPU s | census CPU s | ratio |\n\
         |---|---|---:|---:|---:|\n",
    );
    let or_dash = |v: Option<String>| v.unwrap_or_else(|| "–".into());
    for o in &f.oracles {
        out.push_str(&format!(
            "| `{}` | {} | {} | {:.2} | {} |\n",
            o.name,
            or_dash(o.how.clone().or_else(|| o.error.clone())),
            or_dash(o.library_cpu_seconds.map(|c| format!("{c:.2}"))),
            o.census_cpu_seconds,
            or_dash(o.ratio.map(|r| format!("{r:.2}x"))),
        ));
    }
    out.push_str(&format!(
        "\nLibraries' CPU over {} core(s): a floor of {:.1} s of wall (an oracle without a \
         loop counts with its census CPU); this census took {wall:.1} s, {:.2}x the floor.\n",
        f.cores, f.floor_seconds, f.wall_over_floor
    ));
    out
}

/// Where a run's time went, per oracle: the wall time its calls took, the
/// CPU its worker used (parser and harness) and the CPU of the census
/// thread driving it; then the CPU in all against the wall time on this
/// machine's cores. Shared by census.md and the bench's census row.
pub fn speed_table(sp: &Speed) -> String {
    let mut out = String::from(
        "| oracle | busy s (wall) | worker CPU s | driver CPU s | files/s | queries/s |\n|---|---:|---:|---:|---:|---:|\n",
    );
    let (mut workers, mut drivers) = (0.0, 0.0);
    for o in &sp.oracles {
        workers += o.worker_cpu_seconds.unwrap_or(0.0);
        drivers += o.driver_cpu_seconds;
        let worker = o
            .worker_cpu_seconds
            .map_or("in process".to_string(), |w| format!("{w:.2}"));
        out.push_str(&format!(
            "| `{}` | {:.2} | {worker} | {:.2} | {:.1} | {:.0} |\n",
            o.name, o.busy_seconds, o.driver_cpu_seconds, o.files_per_second, o.queries_per_second
        ));
    }
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let floor = (workers + drivers) / cores as f64;
    out.push_str(&format!(
        "\nCPU in all: workers {workers:.1} s + driver threads {drivers:.1} s = {:.1} s; on {cores} \
         core(s) no run can take less than {floor:.1} s of wall, and this one took {:.1} s \
         ({:.2}x). Worker CPU is the parser with its harness (JSON, base64); the expectation \
         profiles and the tally are not in it.\n",
        workers + drivers,
        sp.wall_seconds,
        sp.wall_seconds / floor.max(1e-9)
    ));
    out
}

/// The questions on URLs no crawler requests, counted in their sections
/// and left out of the headline: said, so the headline's reader knows.
pub fn unrequested_line(c: &Census) -> String {
    let n =
        c.written.tally.unrequested + c.near_misses.tally.unrequested + c.probes.tally.unrequested;
    format!(
        "Unrequested: {n} questions on URLs no crawler requests (`/robots.txt`, a bare `?`) \
         are asked but left out of the headline.\n\n"
    )
}

/// What the headline counts, in words every page repeats.
pub const HEADLINE_ABOUT: &str = "Real sites on which two widely used parsers decide \
    differently whether a crawler may fetch `/` or a path the site's own rules name (a \
    rule's pattern with `*` read as one letter and a final `$` dropped), for Googlebot or \
    for a crawler the file does not name (`ExampleBot`): nothing in it is a question we \
    invented.";

fn headline_md(out: &mut String, pairs: &[HeadlinePair]) {
    out.push_str(&format!(
        "## Headline: the pairs crawlers choose between\n\n{HEADLINE_ABOUT} Each host is \
         one of the smallest such files, with the cause its triage names.\n\n"
    ));
    out.push_str(&headline_table(pairs));
}

/// The headline as a Markdown table (census.md and the results page, `reports/RESULTS.md`).
pub fn headline_table(pairs: &[HeadlinePair]) -> String {
    if pairs.is_empty() {
        return "None of the pairs was in this run.\n".into();
    }
    let mut out = String::from(
        "| pair | real sites disagreeing | three of them: host, question, answers (first / second), cause |\n|---|---|---|\n",
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
                    "`{}` ({} `{}`: {} / {}; `{}`)",
                    e.example.host,
                    e.example.agent,
                    url_path(&e.example.url),
                    e.answers.0,
                    e.answers.1,
                    cause
                )
            })
            .collect();
        out.push_str(&format!(
            "| `{}` vs `{}` | {} of {} ({}) | {} |\n",
            p.a,
            p.b,
            p.files_disagree,
            p.files_compared,
            pct(p.file_share),
            hosts.join("<br>")
        ));
    }
    out
}

/// The path (and query) of a census URL, for tables.
pub fn url_path(url: &str) -> &str {
    url.strip_prefix("https://")
        .and_then(|rest| rest.find('/').map(|i| &rest[i..]))
        .unwrap_or(url)
}

fn section_md(out: &mut String, c: &Census, view: &SectionView) {
    let s = &view.section.summary;
    out.push_str(&format!(
        "{} files, {} queries.\n\n![pairwise disagreement heatmap]({})\n\n### Oracle pairs\n\n",
        view.section.tally.files, view.section.tally.queries, view.heatmap
    ));
    out.push_str("| pair | queries disagreeing | files with a disagreement |\n|---|---|---|\n");
    for p in &s.pairs {
        out.push_str(&format!(
            "| `{}` vs `{}` | {} ({}) | {} ({}) |\n",
            p.a,
            p.b,
            pct(p.query_share),
            p.queries_disagree,
            pct(p.file_share),
            p.files_disagree
        ));
    }
    oracles_md(out, c, s);
    signatures_md(out, s);
    impact_md(out, s);
}

fn oracles_md(out: &mut String, c: &Census, s: &Summary) {
    // Every profile any oracle was compared with, in name order.
    let profiles: BTreeSet<&String> = s
        .oracles
        .iter()
        .flat_map(|o| o.departs_from_profiles.keys())
        .collect();
    out.push_str(&format!(
        "\n### Oracles\n\n| oracle | version | files raised on | crashed on | timed out on | departs from `{}` |{}\n|---|---|---|---|---|---|{}\n",
        c.reference,
        profiles
            .iter()
            .map(|p| format!(" departs from profile `{p}` |"))
            .collect::<String>(),
        "---|".repeat(profiles.len())
    ));
    for o in &s.oracles {
        out.push_str(&format!(
            "| `{}` | {} | {} | {} | {} | {} |{}\n",
            o.name,
            o.version,
            pct(o.files_error_share),
            pct(o.files_crash_share),
            pct(o.files_timeout_share),
            o.departs_from_reference
                .map(pct)
                .unwrap_or_else(|| "–".into()),
            profiles
                .iter()
                .map(|p| format!(
                    " {} |",
                    o.departs_from_profiles
                        .get(*p)
                        .map_or_else(|| "–".into(), |v| pct(*v))
                ))
                .collect::<String>()
        ));
    }
}

fn signatures_md(out: &mut String, s: &Summary) {
    out.push_str(
        "\n### Top signatures by files affected\n\n\
         A signature is the agreement classes of one query (`engine::signature::Signature`). \
         The example is the smallest affected file. Under it, each oracle that answers \
         otherwise than the reference is triaged as fuzz findings are: the example is \
         minimised for that pair alone, then the first catalogue transformation that makes \
         the pair agree names the cause (docs/causes.md); `new` is a cause no \
         transformation neutralises. A cause with no ledger entry for that oracle is \
         unexplained until triaged.\n",
    );
    for (i, sig) in s.top_signatures.iter().enumerate() {
        let e = &sig.example;
        out.push_str(&format!(
            "\n#### {}. {} files, {} queries\n\n`{}`\n\nExample: host `{}`, agent `{}`, url `{}` ({} bytes{}):\n\n```\n{}\n```\n",
            i + 1,
            sig.files,
            sig.queries,
            sig.signature,
            e.host,
            e.agent,
            e.url,
            e.body_bytes,
            if e.body_bytes as usize > e.body.len() { ", cut" } else { "" },
            e.body.replace("```", "` ` `").trim_end()
        ));
        causes_md(out, &sig.causes);
    }
}

fn causes_md(out: &mut String, causes: &[SignatureCause]) {
    if causes.is_empty() {
        return;
    }
    out.push_str(
        "\n| oracle | reference → oracle | cause | ledger | minimised: body, agent, url |\n|---|---|---|---|---|\n",
    );
    let cell = |s: &str| s.replace('|', "\\|").replace('`', "'");
    for c in causes {
        let ledger = if matches!(c.cause, Triage::NotTriaged { .. }) {
            "–".to_string()
        } else if c.ledger.is_empty() {
            "unexplained".to_string()
        } else {
            c.ledger
                .iter()
                .map(|id| format!("`{id}`"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        out.push_str(&format!(
            "| `{}` | {} → {} | `{}` | {} | `\"{}\"`, `{}`, `{}` |\n",
            c.oracle,
            shown(&c.reference_answer),
            shown(&c.answer),
            c.cause,
            ledger,
            cell(&c.body),
            cell(&c.agent),
            cell(&c.url)
        ));
    }
}

fn impact_md(out: &mut String, s: &Summary) {
    out.push_str(&format!(
        "\n### High impact: {} (file, pair) disagreements on `/` or a whole-site rule\n\n",
        s.high_impact_files
    ));
    if s.high_impact.is_empty() {
        out.push_str("None.\n");
        return;
    }
    out.push_str("| host | pair | agent | url | answers |\n|---|---|---|---|---|\n");
    for r in s.high_impact.iter().take(IMPACT_SHOWN) {
        out.push_str(&format!(
            "| `{}` | {} | `{}` | `{}` | {} |\n",
            r.host, r.pair, r.agent, r.url, r.answers
        ));
    }
    if s.high_impact.len() > IMPACT_SHOWN {
        out.push_str(&format!(
            "\n(first {IMPACT_SHOWN} by file name; census.json keeps {})\n",
            s.high_impact.len()
        ));
    }
}

fn xml(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// Oracle x oracle, each cell the share of the section's queries the pair
/// answers differently; white (0%) to red (the largest share in it).
pub fn heatmap(c: &Census, section: &Section) -> String {
    let names: Vec<&str> = c.oracles.iter().map(|o| o.name.as_str()).collect();
    let (cell, left, top) = (44.0, 130.0, 130.0);
    let n = names.len() as f64;
    let (w, h) = (left + cell * n + 10.0, top + cell * n + 30.0);
    let get = |a: &str, b: &str| {
        section
            .summary
            .pairs
            .iter()
            .find(|p| (p.a == a && p.b == b) || (p.a == b && p.b == a))
            .map(|p| p.query_share)
    };
    let max = section
        .summary
        .pairs
        .iter()
        .map(|p| p.query_share)
        .fold(0.0f64, f64::max)
        .max(1e-9);
    let mut svg = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\" font-family=\"sans-serif\" font-size=\"11\">\n<title>Share of queries on which two oracles disagree ({} files)</title>\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n",
        section.tally.files
    );
    for (i, name) in names.iter().enumerate() {
        let pos = i as f64 * cell + cell / 2.0;
        svg.push_str(&format!(
            "<text x=\"{}\" y=\"{}\" text-anchor=\"end\" dominant-baseline=\"middle\">{}</text>\n",
            left - 6.0,
            top + pos,
            xml(name)
        ));
        svg.push_str(&format!(
            "<text transform=\"translate({} {}) rotate(-60)\">{}</text>\n",
            left + pos,
            top - 6.0,
            xml(name)
        ));
    }
    for (i, a) in names.iter().enumerate() {
        for (j, b) in names.iter().enumerate() {
            let (x, y) = (left + j as f64 * cell, top + i as f64 * cell);
            let (fill, label) = match (i == j, get(a, b)) {
                (true, _) => ("#dddddd".to_string(), String::new()),
                (false, None) => ("#ffffff".to_string(), "–".into()),
                (false, Some(v)) => {
                    let k = (v / max).clamp(0.0, 1.0);
                    let gb = (255.0 * (1.0 - k)).round() as u8;
                    (format!("#ff{gb:02x}{gb:02x}"), format!("{:.1}", v * 100.0))
                }
            };
            svg.push_str(&format!(
                "<rect x=\"{x}\" y=\"{y}\" width=\"{cell}\" height=\"{cell}\" fill=\"{fill}\" stroke=\"#999\"><title>{} vs {}: {label}%</title></rect>\n<text x=\"{}\" y=\"{}\" text-anchor=\"middle\" dominant-baseline=\"middle\">{label}</text>\n",
                xml(a),
                xml(b),
                x + cell / 2.0,
                y + cell / 2.0
            ));
        }
    }
    svg.push_str(&format!(
        "<text x=\"{left}\" y=\"{}\">% of queries answered differently (both gave a verdict); darkest = {:.1}%</text>\n</svg>\n",
        h - 10.0,
        max * 100.0
    ));
    svg
}

/// An answer of a top cause's example as the tables show it: its label,
/// or nothing when the example could not be triaged.
pub fn shown(label: &Option<Label>) -> String {
    label.as_ref().map(Label::to_string).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_cause_reads_back_as_named_or_not_triaged() {
        let named = Triage::Named("strip-bom".into());
        let not = Triage::NotTriaged {
            why: "oracle not running".into(),
        };
        assert_eq!(not.to_string(), "not triaged: oracle not running");
        for t in [named, not, Triage::default()] {
            let json = serde_json::to_string(&t).expect("writes");
            assert_eq!(json, format!("{:?}", t.to_string()));
            assert_eq!(serde_json::from_str::<Triage>(&json).expect("reads"), t);
        }
    }

    use super::*;

    fn row(cause: &str, ledger: &[&str]) -> SignatureCause {
        SignatureCause {
            oracle: "google".into(),
            cause: cause.parse().expect("any text reads as a cause"),
            ledger: ledger.iter().map(|s| s.to_string()).collect(),
            ..SignatureCause::default()
        }
    }

    /// A linked cause lists its entries, an unlinked one is unexplained,
    /// and one that could not be triaged is neither.
    #[test]
    fn a_cause_row_is_linked_unexplained_or_not_triaged() {
        let mut out = String::new();
        causes_md(
            &mut out,
            &[
                row("strip-bom", &["leading-bom-stripped-or-kept"]),
                row("new", &[]),
                row("not triaged: oracle not running", &[]),
            ],
        );
        let lines: Vec<&str> = out.lines().filter(|l| l.starts_with("| `")).collect();
        assert_eq!(lines.len(), 3, "{out}");
        assert!(lines[0].contains("`leading-bom-stripped-or-kept`"), "{out}");
        assert!(lines[1].contains("| unexplained |"), "{out}");
        assert!(
            lines[2].contains("| – |") && !lines[2].contains("unexplained"),
            "{out}"
        );
    }

    /// A top cause's answers are labels, read and written as the text
    /// census.json has always held (`""` when it could not be triaged).
    #[test]
    fn signature_cause_answers_are_labels_stored_as_text() {
        let named = r#"{"oracle":"google","reference_answer":"disallowed","answer":"error:ValueError","cause":"strip-bom","body":"","agent":"a","url":"/","ledger":[]}"#;
        let c: SignatureCause = serde_json::from_str(named).expect("reads");
        assert_eq!(c.reference_answer, Some(Label::Disallowed));
        assert_eq!(c.answer, Some(Label::Error("ValueError".into())));
        assert_eq!(serde_json::to_string(&c).expect("writes"), named);
        let unnamed = named
            .replace("\"disallowed\"", "\"\"")
            .replace("\"error:ValueError\"", "\"\"");
        let c: SignatureCause = serde_json::from_str(&unnamed).expect("reads");
        assert_eq!(
            (c.reference_answer.clone(), shown(&c.answer)),
            (None, String::new())
        );
        assert_eq!(serde_json::to_string(&c).expect("writes"), unnamed);
        assert!(
            serde_json::from_str::<SignatureCause>(&named.replace("disallowed", "maybe")).is_err()
        );
    }
}
