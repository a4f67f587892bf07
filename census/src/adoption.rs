//! The adoption census: does adding a proposed line to real robots.txt
//! files change what crawlers' parsers decide there?
//!
//! Each proposal (aipref's `Content-Usage`, Cloudflare's managed block,
//! RSL's `License`, `DisallowAITraining`) says, by its intent, that the
//! allow/disallow verdicts stay as they were. For every real file, each
//! [`Edit`] is applied the way it is deployed and the file's as-written
//! questions (derived from the original file, so the same questions) are
//! asked again of every oracle; a site counts for an (edit, oracle) pair
//! when one of its verdicts flips. The edits are data
//! (`census/edits/*.yaml`), so a new proposal is a new entry, not code.

use crate::error::ReadError;
use crate::input::{InputError, Record};
use crate::pipeline::{self, Work};
use crate::render::SignatureCause;
use crate::{queries, OracleId, Progress};
use engine::oracle::{Answer, Oracle, Outcome};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// `adoption.json`'s format.
pub const FORMAT: &str = "repdiff-adoption/1";

/// Hosts kept per (edit, oracle) pair as examples.
const EXAMPLES: usize = 3;

/// Files asked per batch: each file goes out once plus once per edit.
const BATCH_FILES: usize = 4;

/// A file of edits.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EditFile {
    pub edits: Vec<Edit>,
}

/// One proposal as it is deployed.
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Edit {
    /// Stable, kebab-case.
    pub id: String,
    pub title: String,
    /// The text and paragraph that say where the line goes.
    pub source: String,
    pub placement: Placement,
    /// The line(s) inserted, `\n`-separated; written with the file's own
    /// line ends.
    pub text: String,
}

/// Where an edit's text goes.
#[derive(Debug, Clone, Copy, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum Placement {
    /// Before line 1 (after a leading BOM): RSL's `License:`, Cloudflare's
    /// managed block.
    Prepend,
    /// After the last record of every group (before the blank lines that
    /// separate it from the next): a rule added to each group.
    GroupEnd,
    /// Right after the user-agent lines of every group naming `*`, before
    /// its first rule: where Cloudflare's file puts `Content-Signal`.
    StarGroupStart,
}

/// Read an edits file; a bad one is refused with its path and line.
pub fn load(path: &Path) -> Result<Vec<Edit>, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("{}: cannot read: {e}", path.display()))?;
    let file: EditFile =
        serde_yaml::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut ids = BTreeSet::new();
    for e in &file.edits {
        if !ids.insert(e.id.as_str()) {
            return Err(format!("{}: edit id {:?} twice", path.display(), e.id));
        }
        if e.text.trim().is_empty() {
            return Err(format!("{}: edit {:?} has no text", path.display(), e.id));
        }
    }
    Ok(file.edits)
}

/// One line of a body: its content and its line end (empty on a last
/// line without one).
struct Line<'b> {
    content: &'b [u8],
    end: &'b [u8],
}

fn lines(body: &[u8]) -> Vec<Line<'_>> {
    let mut out = Vec::new();
    let mut rest = body;
    while !rest.is_empty() {
        let (content, end, next) = match rest.iter().position(|&b| b == b'\n') {
            Some(i) if i > 0 && rest[i - 1] == b'\r' => (&rest[..i - 1], &rest[i - 1..=i], i + 1),
            Some(i) => (&rest[..i], &rest[i..=i], i + 1),
            None => (rest, &rest[rest.len()..], rest.len()),
        };
        out.push(Line { content, end });
        rest = &rest[next..];
    }
    out
}

/// The lower-cased key of a record line and its value, or `None` for a
/// blank or comment line.
fn record(content: &[u8]) -> Option<(String, String)> {
    let content = content.split(|&b| b == b'#').next().unwrap_or_default();
    let text = String::from_utf8_lossy(content);
    let (key, value) = text.split_once(':')?;
    Some((key.trim().to_ascii_lowercase(), value.trim().to_string()))
}

impl Edit {
    /// The body with this edit applied as it is deployed.
    pub fn apply(&self, body: &[u8]) -> Vec<u8> {
        let eol: &[u8] = if body.windows(2).any(|w| w == b"\r\n") {
            b"\r\n"
        } else {
            b"\n"
        };
        let mut block = Vec::new();
        for l in self.text.trim_end_matches('\n').split('\n') {
            block.extend_from_slice(l.as_bytes());
            block.extend_from_slice(eol);
        }
        if self.placement == Placement::Prepend {
            let (bom, rest) = match body.strip_prefix(b"\xEF\xBB\xBF") {
                Some(rest) => (&body[..3], rest),
                None => (&body[..0], body),
            };
            return [bom, &block, rest].concat();
        }
        let lines = lines(body);
        let after = self.insertion_points(&lines);
        let mut out = Vec::with_capacity(body.len() + block.len() * (after.len() + 1));
        for (i, l) in lines.iter().enumerate() {
            out.extend_from_slice(l.content);
            if after.contains(&i) {
                out.extend_from_slice(if l.end.is_empty() { eol } else { l.end });
                out.extend_from_slice(&block);
            } else {
                out.extend_from_slice(l.end);
            }
        }
        out
    }

    /// Indexes of the lines the block goes after.
    fn insertion_points(&self, lines: &[Line]) -> BTreeSet<usize> {
        let mut after = BTreeSet::new();
        // The last record line seen, whether it was a user-agent line, and
        // whether the current run of user-agent lines names `*`.
        let mut last: Option<(usize, bool)> = None;
        let (mut star_run, mut seen_agent) = (false, false);
        for (i, l) in lines.iter().enumerate() {
            let Some((key, value)) = record(l.content) else {
                continue;
            };
            let agent = key == "user-agent";
            match self.placement {
                Placement::GroupEnd => {
                    if let Some((j, false)) = last.filter(|_| agent && seen_agent) {
                        after.insert(j);
                    }
                }
                Placement::StarGroupStart => {
                    if let Some((j, true)) = last.filter(|_| !agent && star_run) {
                        after.insert(j);
                    }
                }
                Placement::Prepend => {}
            }
            if agent {
                let run_continues = matches!(last, Some((_, true)));
                star_run = (run_continues && star_run) || value == "*";
                seen_agent = true;
            }
            last = Some((i, agent));
        }
        match (self.placement, last) {
            (Placement::GroupEnd, Some((j, _))) if seen_agent => {
                after.insert(j);
            }
            (Placement::StarGroupStart, Some((j, true))) if star_run => {
                after.insert(j);
            }
            _ => {}
        }
        after
    }
}

/// One flipped verdict.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Flip {
    pub host: String,
    pub agent: String,
    pub url: String,
    pub before: String,
    pub after: String,
    /// Why it flipped, named after the run with the oracles still up
    /// (none when the run named no causes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cause: Option<FlipCause>,
}

/// Why one oracle's verdict flipped. The reference says what the edited
/// file means under RFC 9309: a flip the reference makes too is the
/// edit's own doing, one it does not make is the oracle's reading, named
/// by the same triage as the census's signatures.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum FlipCause {
    /// The reference flips too and the edit's own user-agent lines name
    /// the agent: what the edit is for (Cloudflare's block keeping GPTBot
    /// out).
    Intended,
    /// The reference flips too, for an agent the edit does not name: the
    /// edit changes the verdict under RFC 9309 itself.
    Standard,
    /// The oracle reads the edited file otherwise than the reference.
    Departs(SignatureCause),
    /// The oracle read the original otherwise than the reference and the
    /// edit brings it to the reference's reading.
    Mended(SignatureCause),
}

impl FlipCause {
    /// A short name for tables: `intended`, `RFC 9309 too`, or the
    /// triage's cause with which file it was found on.
    pub fn label(&self) -> String {
        match self {
            FlipCause::Intended => "intended (the edit names the agent)".into(),
            FlipCause::Standard => "RFC 9309 too".into(),
            FlipCause::Departs(c) => format!("edited file read apart: {}", c.cause),
            FlipCause::Mended(c) => format!("original read apart: {}", c.cause),
        }
    }
}

/// One (edit, oracle) pair.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Row {
    pub edit: String,
    pub oracle: String,
    /// Sites where at least one verdict flipped.
    pub sites: u64,
    /// Verdicts (allowed/disallowed) that flipped.
    pub questions: u64,
    /// Questions whose answer before or after was no verdict (an error, a
    /// timeout, a crash), so no flip can be told: counted, not judged.
    pub unjudged: u64,
    pub examples: Vec<Flip>,
}

/// An edit and the sites where any oracle's verdict flipped.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct EditSummary {
    #[serde(flatten)]
    pub edit: Edit,
    pub sites_any: u64,
}

/// The whole run: what `adoption.json` holds.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Adoption {
    pub format: String,
    pub input: String,
    /// The oracle whose reading of the edited files tells the edit's own
    /// effect from a parser's (`FlipCause`).
    #[serde(default = "default_reference")]
    pub reference: String,
    pub files: u64,
    /// As-written questions asked per version of the files (near misses
    /// and probes are not asked here).
    pub questions: u64,
    pub oracles: Vec<OracleId>,
    pub edits: Vec<EditSummary>,
    /// Every (edit, oracle) pair, edits in file order, oracles in run order.
    pub rows: Vec<Row>,
}

fn default_reference() -> String {
    "rfc9309".into()
}

/// A run's report and the original bodies of the files its examples come
/// from, by host: what naming the causes asks again.
pub struct Ran {
    pub adoption: Adoption,
    pub bodies: BTreeMap<String, Vec<u8>>,
}

/// Ask every oracle each file and each edited file.
pub fn run(
    records: impl Iterator<Item = Result<Record, InputError>>,
    oracles: &mut [Box<dyn Oracle>],
    edits: &[Edit],
    input: String,
    limit: Option<u64>,
    expected: Option<u64>,
) -> Result<Ran, InputError> {
    let ids: Vec<OracleId> = oracles
        .iter()
        .map(|o| OracleId {
            name: o.name().to_string(),
            version: o.identity().to_string(),
        })
        .collect();
    let mut rows: Vec<Row> = edits
        .iter()
        .flat_map(|e| {
            ids.iter().map(|o| Row {
                edit: e.id.clone(),
                oracle: o.name.clone(),
                sites: 0,
                questions: 0,
                unjudged: 0,
                examples: Vec::new(),
            })
        })
        .collect();
    let mut sites_any = vec![0u64; edits.len()];
    let mut bodies = BTreeMap::new();
    let (mut files, mut questions) = (0u64, 0u64);
    for o in oracles.iter_mut() {
        o.skip_explanations();
    }
    let n = oracles.len();
    let lanes: Vec<(usize, &mut Box<dyn Oracle>)> = oracles.iter_mut().enumerate().collect();
    let mut progress = Progress::new(expected);
    let records = records
        .take(usize::try_from(limit.unwrap_or(u64::MAX)).unwrap_or(usize::MAX))
        .filter(|r| {
            r.as_ref()
                .map_or(true, |r| r.status.is_none_or(|s| (200..300).contains(&s)))
        });
    let work = Versions { records, edits };
    pipeline::run(work, n, lanes, |w, answered| {
        let versions = edits.len() + 1;
        for f in (0..w.files.len()).step_by(versions) {
            files += 1;
            questions += w.asked[f].len() as u64;
            for (e, edit_any) in sites_any.iter_mut().enumerate() {
                let mut any = false;
                for k in 0..n {
                    let before = &answered.answers[k][f];
                    let after = &answered.answers[k][f + 1 + e];
                    let row = &mut rows[e * n + k];
                    let examples = row.examples.len();
                    any |= compare(row, &w.files[f].host, &w.asked[f], before, after);
                    if row.examples.len() > examples {
                        bodies
                            .entry(w.files[f].host.clone())
                            .or_insert_with(|| w.files[f].body.clone());
                    }
                }
                *edit_any += u64::from(any);
            }
        }
        progress.tick((w.files.len() / (edits.len() + 1)) as u64);
    })?;
    progress.finish();
    let adoption = Adoption {
        format: FORMAT.into(),
        input,
        reference: default_reference(),
        files,
        questions,
        oracles: ids,
        edits: edits
            .iter()
            .zip(sites_any)
            .map(|(e, sites_any)| EditSummary {
                edit: e.clone(),
                sites_any,
            })
            .collect(),
        rows,
    };
    Ok(Ran { adoption, bodies })
}

/// Count one site's flips into `row`; whether any verdict flipped.
fn compare(
    row: &mut Row,
    host: &str,
    asked: &[queries::Asked],
    before: &[Answer],
    after: &[Answer],
) -> bool {
    let verdict = |o: &Outcome| match o {
        Outcome::Allowed => Some(true),
        Outcome::Disallowed => Some(false),
        _ => None,
    };
    let mut flipped = false;
    for ((q, b), a) in asked.iter().zip(before).zip(after) {
        match (verdict(&b.outcome), verdict(&a.outcome)) {
            (Some(x), Some(y)) if x != y => {
                row.questions += 1;
                if !flipped && row.examples.len() < EXAMPLES {
                    row.examples.push(Flip {
                        host: host.to_string(),
                        agent: q.query.agent.clone(),
                        url: q.query.url.clone(),
                        before: b.outcome.pin().to_string(),
                        after: a.outcome.pin().to_string(),
                        cause: None,
                    });
                }
                flipped = true;
            }
            (Some(_), Some(_)) => {}
            _ if b.outcome.pin() != a.outcome.pin() => row.unjudged += 1,
            _ => {}
        }
    }
    row.sites += u64::from(flipped);
    flipped
}

/// Batches of [`BATCH_FILES`] files, each followed by its edited versions,
/// every version asked the original's as-written questions.
struct Versions<'e, I> {
    records: I,
    edits: &'e [Edit],
}

impl<I: Iterator<Item = Result<Record, InputError>>> Iterator for Versions<'_, I> {
    type Item = Result<Work, InputError>;

    fn next(&mut self) -> Option<Self::Item> {
        let mut files = Vec::new();
        let mut asked = Vec::new();
        while files.len() < BATCH_FILES * (self.edits.len() + 1) {
            let r = match self.records.next() {
                None => break,
                Some(Ok(r)) => r,
                Some(Err(e)) => return Some(Err(e)),
            };
            let written: Vec<queries::Asked> = queries::derive(&r.host, &r.body)
                .into_iter()
                .filter(|a| a.kind.origin() == queries::Origin::Written)
                .collect();
            for e in self.edits {
                asked.push(written.clone());
                files.push(Record {
                    body: e.apply(&r.body),
                    ..r.clone()
                });
            }
            asked.insert(asked.len() - self.edits.len(), written);
            files.insert(files.len() - self.edits.len(), r);
        }
        (!files.is_empty()).then_some(Ok(Work {
            files,
            asked,
            skipped: 0,
        }))
    }
}

/// `adoption.md`: the table of (edit, oracle) pairs with flips, then each
/// edit's examples.
pub fn markdown(a: &Adoption) -> String {
    let mut out = format!(
        "# Adoption census: do the new lines change what crawlers decide?\n\n\
         {} real robots.txt files ({}), each asked its {} as-written questions \
         in all before and after each edit, by {} parsers. By each text's intent \
         no allow/disallow verdict should change; a site counts when one does.\n\n",
        a.files,
        a.input,
        a.questions,
        a.oracles.len()
    );
    if a.rows
        .iter()
        .any(|r| r.examples.iter().any(|f| f.cause.is_some()))
    {
        out.push_str(&format!(
            "Why a verdict flips is told by the reference ({}) on each parser's first example: \
             *intended* when the reference flips too and the edit's own user-agent lines name the agent; \
             *RFC 9309 too* when the reference flips too for an agent the edit does not name (the edit \
             itself changes the verdict under the standard); otherwise the parser reads the edited \
             (or the original) file apart from the reference, and root-cause triage names why \
             (docs/causes.md).\n\n",
            a.reference
        ));
    }
    out.push_str("| edit | sites changed (any parser) | parsers that change (sites) | why (parsers, sites) | answers that became or stopped being no verdict (unjudged questions) | source |\n|---|---:|---|---|---|---|\n");
    for e in &a.edits {
        let mut movers: Vec<&Row> = a
            .rows
            .iter()
            .filter(|r| r.edit == e.edit.id && r.sites > 0)
            .collect();
        movers.sort_by(|x, y| y.sites.cmp(&x.sites).then(x.oracle.cmp(&y.oracle)));
        let list = movers
            .iter()
            .map(|r| format!("{} {}", r.oracle, r.sites))
            .collect::<Vec<_>>()
            .join(", ");
        let mut unjudged: Vec<&Row> = a
            .rows
            .iter()
            .filter(|r| r.edit == e.edit.id && r.unjudged > 0)
            .collect();
        unjudged.sort_by(|x, y| y.unjudged.cmp(&x.unjudged).then(x.oracle.cmp(&y.oracle)));
        let unjudged = unjudged
            .iter()
            .map(|r| format!("{} {}", r.oracle, r.unjudged))
            .collect::<Vec<_>>()
            .join(", ");
        let why = why(&movers)
            .into_iter()
            .map(|(label, rows)| format!("{label}: {rows}"))
            .collect::<Vec<_>>()
            .join("; ");
        out.push_str(&format!(
            "| `{}` {} | {} of {} | {} | {} | {} | {} |\n",
            e.edit.id,
            e.edit.title,
            e.sites_any,
            a.files,
            if list.is_empty() { "none".into() } else { list },
            if why.is_empty() { "-".into() } else { why },
            if unjudged.is_empty() {
                "none".into()
            } else {
                unjudged
            },
            e.edit.source
        ));
    }
    for e in &a.edits {
        out.push_str(&format!("\n## `{}`\n\n{}\n\n", e.edit.id, e.edit.title));
        out.push_str(&format!("```\n{}\n```\n\n", e.edit.text.trim_end()));
        let rows: Vec<&Row> = a
            .rows
            .iter()
            .filter(|r| r.edit == e.edit.id && (r.sites > 0 || r.unjudged > 0))
            .collect();
        if rows.is_empty() {
            out.push_str("No parser changed a verdict on any site.\n");
            continue;
        }
        out.push_str("| parser | sites | verdicts flipped | unjudged | examples (host: agent url, before → after) |\n|---|---:|---:|---:|---|\n");
        for r in rows {
            let ex = r
                .examples
                .iter()
                .map(example)
                .collect::<Vec<_>>()
                .join("<br>");
            out.push_str(&format!(
                "| {} | {} | {} | {} | {} |\n",
                r.oracle, r.sites, r.questions, r.unjudged, ex
            ));
        }
    }
    out
}

/// The movers grouped by their first example's cause, largest group
/// first: `(label, "oracle sites, ...")`; rows without a named cause are
/// left out.
pub fn why(movers: &[&Row]) -> Vec<(String, String)> {
    let mut groups: Vec<(String, u64, Vec<String>)> = Vec::new();
    for r in movers {
        let Some(cause) = r.examples.first().and_then(|f| f.cause.as_ref()) else {
            continue;
        };
        let label = cause.label();
        let entry = format!("{} {}", r.oracle, r.sites);
        match groups.iter_mut().find(|g| g.0 == label) {
            Some(g) => {
                g.1 += r.sites;
                g.2.push(entry);
            }
            None => groups.push((label, r.sites, vec![entry])),
        }
    }
    groups.sort_by(|x, y| y.1.cmp(&x.1).then(x.0.cmp(&y.0)));
    groups
        .into_iter()
        .map(|(label, _, rows)| (label, rows.join(", ")))
        .collect()
}

/// One example as a table cell: the host, the question, the flip and its
/// cause (with the minimised file and ledger entries of a triaged one).
fn example(f: &Flip) -> String {
    let mut s = format!(
        "{}: {} {} {} → {}",
        f.host, f.agent, f.url, f.before, f.after
    );
    match &f.cause {
        None => {}
        Some(c @ (FlipCause::Intended | FlipCause::Standard)) => {
            s.push_str(&format!(" ({})", c.label()));
        }
        Some(c @ (FlipCause::Departs(t) | FlipCause::Mended(t))) => {
            s.push_str(&format!(" ({}", c.label()));
            if !t.body.is_empty() {
                // A `|` would end the table cell.
                let body = t.body.replace('|', "\\|");
                s.push_str(&format!("; minimised `{body}` {} {}", t.agent, t.url));
            }
            if !t.ledger.is_empty() {
                s.push_str(&format!("; ledger {}", t.ledger.join(", ")));
            }
            s.push(')');
        }
    }
    s
}

/// Read an `adoption.json` back (to render it again).
pub fn read(path: &Path) -> Result<Adoption, ReadError> {
    let text = std::fs::read_to_string(path).map_err(|e| ReadError::read(path, e))?;
    let a: Adoption = serde_json::from_str(&text)
        .map_err(|e| ReadError::invalid(path, format!("not an adoption.json: {e}")))?;
    if a.format != FORMAT {
        let message = format!("format {:?}, expected {FORMAT:?}", a.format);
        return Err(ReadError::invalid(path, message));
    }
    Ok(a)
}

/// Write `adoption.json` and `adoption.md` into `dir` as one set.
pub fn write_outputs(dir: &Path, a: &Adoption) -> std::io::Result<()> {
    let mut json = serde_json::to_string_pretty(a).map_err(std::io::Error::other)?;
    json.push('\n');
    let mut set = engine::output::Switch::new();
    set.file(&dir.join("adoption.json"), json.as_bytes())?;
    set.file(&dir.join("adoption.md"), markdown(a).as_bytes())?;
    set.commit()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn edit(placement: Placement, text: &str) -> Edit {
        Edit {
            id: "e".into(),
            title: "t".into(),
            source: "s".into(),
            placement,
            text: text.into(),
        }
    }

    fn applied(placement: Placement, text: &str, body: &str) -> String {
        String::from_utf8(edit(placement, text).apply(body.as_bytes())).unwrap()
    }

    #[test]
    fn prepend_goes_before_line_one_and_after_a_bom() {
        assert_eq!(
            applied(
                Placement::Prepend,
                "License: u\n",
                "User-agent: *\r\nDisallow: /\r\n"
            ),
            "License: u\r\nUser-agent: *\r\nDisallow: /\r\n"
        );
        assert_eq!(
            applied(Placement::Prepend, "L: u", "\u{feff}User-agent: *\n"),
            "\u{feff}L: u\nUser-agent: *\n"
        );
    }

    #[test]
    fn group_end_follows_each_group_s_last_record() {
        let body = "Sitemap: s\nUser-agent: a\nUser-agent: b\nDisallow: /x\n\n# c\nUser-agent: *\nAllow: /\nDisallow: /y";
        assert_eq!(
            applied(Placement::GroupEnd, "CU: n", body),
            "Sitemap: s\nUser-agent: a\nUser-agent: b\nDisallow: /x\nCU: n\n\n# c\nUser-agent: *\nAllow: /\nDisallow: /y\nCU: n\n"
        );
        assert_eq!(
            applied(Placement::GroupEnd, "CU: n", "# nothing\n"),
            "# nothing\n"
        );
    }

    #[test]
    fn star_group_start_follows_the_user_agent_lines_of_star_groups_only() {
        let body = "User-agent: a\nDisallow: /a\nUser-agent: b\nUser-agent: *\n\nDisallow: /x\nUser-agent: c\nDisallow: /c\n";
        assert_eq!(
            applied(Placement::StarGroupStart, "S: 1", body),
            "User-agent: a\nDisallow: /a\nUser-agent: b\nUser-agent: *\nS: 1\n\nDisallow: /x\nUser-agent: c\nDisallow: /c\n"
        );
        assert_eq!(
            applied(Placement::StarGroupStart, "S: 1", "User-agent: *"),
            "User-agent: *\nS: 1\n"
        );
    }

    #[test]
    fn a_flip_counts_once_per_site_and_a_non_verdict_is_unjudged() {
        let q = |url: &str| queries::Asked {
            query: engine::oracle::Query {
                ask: engine::oracle::Ask::CanFetch,
                agent: "A".into(),
                url: url.into(),
            },
            kind: queries::Kind::Root,
            whole_site: false,
            unrequested: false,
        };
        let asked = [q("https://h/"), q("https://h/a"), q("https://h/b")];
        let ans = |o: Outcome| Answer::from(o);
        let before = [
            ans(Outcome::Allowed),
            ans(Outcome::Allowed),
            ans(Outcome::Disallowed),
        ];
        let after = [
            ans(Outcome::Disallowed),
            ans(Outcome::Disallowed),
            ans(Outcome::Timeout),
        ];
        let mut row = Row {
            edit: "e".into(),
            oracle: "o".into(),
            sites: 0,
            questions: 0,
            unjudged: 0,
            examples: vec![],
        };
        assert!(compare(&mut row, "h", &asked, &before, &after));
        assert_eq!((row.sites, row.questions, row.unjudged), (1, 2, 1));
        assert_eq!(row.examples.len(), 1);
        assert_eq!(row.examples[0].before, "allowed");
        assert!(!compare(&mut row, "h", &asked, &before, &before));
        assert_eq!(row.sites, 1);
    }

    #[test]
    fn movers_group_by_their_first_example_s_cause_and_render_it() {
        let flip = |cause: Option<FlipCause>| Flip {
            host: "h".into(),
            agent: "A".into(),
            url: "https://h/".into(),
            before: "allowed".into(),
            after: "disallowed".into(),
            cause,
        };
        let row = |oracle: &str, sites: u64, cause: Option<FlipCause>| Row {
            edit: "e".into(),
            oracle: oracle.into(),
            sites,
            questions: sites,
            unjudged: 0,
            examples: vec![flip(cause)],
        };
        let triaged = SignatureCause {
            oracle: "g".into(),
            cause: crate::render::Triage::Named("fix-key-prefix".into()),
            body: "a|b".into(),
            ledger: vec!["key-matched-by-prefix".into()],
            ..SignatureCause::default()
        };
        let rows = [
            row("r", 2, Some(FlipCause::Standard)),
            row("g", 9, Some(FlipCause::Departs(triaged.clone()))),
            row("p", 3, Some(FlipCause::Standard)),
            row("u", 50, None),
        ];
        let movers: Vec<&Row> = rows.iter().collect();
        assert_eq!(
            why(&movers),
            vec![
                (
                    "edited file read apart: fix-key-prefix".to_string(),
                    "g 9".to_string()
                ),
                ("RFC 9309 too".to_string(), "r 2, p 3".to_string()),
            ]
        );
        let cell = example(&flip(Some(FlipCause::Mended(triaged))));
        assert!(
            cell.ends_with(
                "(original read apart: fix-key-prefix; minimised `a\\|b`  ; ledger key-matched-by-prefix)"
            ),
            "{cell}"
        );
        assert_eq!(
            example(&flip(Some(FlipCause::Intended))),
            "h: A https://h/ allowed → disallowed (intended (the edit names the agent))"
        );
    }

    #[test]
    fn a_written_report_reads_back_and_renders_its_unjudged_answers() {
        let a = Adoption {
            format: FORMAT.into(),
            input: "two files".into(),
            reference: "rfc9309".into(),
            files: 2,
            questions: 9,
            oracles: vec![],
            edits: vec![EditSummary {
                edit: edit(Placement::Prepend, "Allow: /llms.txt"),
                sites_any: 1,
            }],
            rows: vec![Row {
                edit: "e".into(),
                oracle: "temoto".into(),
                sites: 0,
                questions: 0,
                unjudged: 7,
                examples: vec![],
            }],
        };
        let dir = std::env::temp_dir().join(format!("adoption-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        write_outputs(&dir, &a).unwrap();
        assert_eq!(read(&dir.join("adoption.json")).unwrap(), a);
        let md = std::fs::read_to_string(dir.join("adoption.md")).unwrap();
        assert!(md.contains("| 1 of 2 | none | - | temoto 7 |"), "{md}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
