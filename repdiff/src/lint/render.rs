//! Lint's two outputs: text for a terminal and one JSON object for
//! scripts (its shape is docs/lint.md's). Both are made from the
//! [`Report`] through the same view types, so they cannot say different
//! things. Both are written through the binary's output module
//! ([`crate::output`]), like every command's answer.

use super::group::Disagreement;
use super::group::LineGroup;
use super::panel::Reading;
use super::suggestion::Hunk;
use super::Report;
use crate::deciding::Found;
use engine::oracle::{Deciding, Label};
use serde::Serialize;

/// The version of the JSON shape (docs/lint.md).
pub const FORMAT: u32 = 1;

#[derive(Serialize)]
struct View<'r> {
    format: u32,
    file: FileView<'r>,
    oracles: Vec<OracleView<'r>>,
    unavailable: Vec<UnavailableView<'r>>,
    questions: usize,
    /// What was not asked: agents past `--max-agents`, questions past the cap.
    skipped: &'r super::questions::Skipped,
    disagreements: usize,
    agree: bool,
    groups: Vec<GroupView<'r>>,
    unexamined: Vec<QuestionView<'r>>,
    failures: Vec<FailureView<'r>>,
    /// Lines written for AI use, what each does, its rewrite.
    hazards: &'r [super::hazards::Hazard],
    /// `--ai-crawlers`: per AI crawler, the parsers keeping it out of `/`.
    ai_crawlers: &'r [super::AiVerdict],
}

#[derive(Serialize)]
struct FileView<'r> {
    name: &'r str,
    bytes: usize,
    lines: usize,
    not_utf8: Option<super::input::Position>,
    oversize: Option<super::input::Oversize>,
    fetched: Option<&'r str>,
}

#[derive(Serialize)]
struct OracleView<'r> {
    name: &'r str,
    version: &'r str,
}

#[derive(Serialize)]
struct UnavailableView<'r> {
    oracle: &'r str,
    reason: &'r str,
    fix: String,
}

#[derive(Serialize)]
struct LineView {
    number: usize,
    text: String,
}

#[derive(Serialize)]
struct CauseView {
    name: cause::Diagnosis,
    /// The cause for someone who writes robots.txt files.
    plain: &'static str,
    neutralises: &'static str,
    reunites_all: bool,
}

#[derive(Serialize)]
struct QuestionView<'r> {
    agent: &'r str,
    url: &'r str,
    source: super::questions::Source,
    allowed: Vec<&'r str>,
    disallowed: Vec<&'r str>,
    failed: Vec<FailedView<'r>>,
    /// Per parser with a verdict, the line that decided it (empty when
    /// lint had no time to look).
    deciding: Vec<DecidingView<'r>>,
}

/// One parser's deciding line: `told` by its library, `derived` by
/// removing lines, or `not-derived` with why; `lines` empty when no rule
/// matched.
#[derive(Serialize)]
struct DecidingView<'r> {
    oracle: &'r str,
    how: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    lines: Option<Vec<u32>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    why: Option<&'r str>,
    /// The line itself, when exactly one decided.
    #[serde(skip_serializing_if = "Option::is_none")]
    text: Option<String>,
}

impl<'r> DecidingView<'r> {
    fn of(oracle: &'r str, found: &'r Found, file: &[Vec<u8>]) -> DecidingView<'r> {
        let (how, lines, why) = match found {
            Found::Told(Deciding::Line(n)) => ("told", Some(vec![*n]), None),
            Found::Told(Deciding::NoRule) => ("told", Some(Vec::new()), None),
            Found::Derived(lines) => ("derived", Some(lines.clone()), None),
            Found::NotDerived(why) => ("not-derived", None, Some(why.as_str())),
        };
        let text = match lines.as_deref() {
            Some(&[n]) => file.get((n as usize).wrapping_sub(1)).map(|l| visible(l)),
            _ => None,
        };
        DecidingView {
            oracle,
            how,
            lines,
            why,
            text,
        }
    }
}

#[derive(Serialize)]
struct FailedView<'r> {
    oracle: &'r str,
    outcome: &'r Label,
}

#[derive(Serialize)]
struct HunkView {
    /// The first line the hunk replaces (or goes before), 1-based.
    line: usize,
    old: Vec<String>,
    new: Vec<String>,
}

#[derive(Serialize)]
struct RewriteView {
    transformation: &'static str,
    changes_reference: bool,
    /// How many of the group's questions every parser then agrees on.
    settles: usize,
    /// Parsers still apart on some of them afterwards (a partial rewrite).
    remaining: Vec<String>,
    /// Why each of them still reads otherwise.
    apart: Vec<ApartView>,
    hunks: Vec<HunkView>,
}

/// A parser apart, and the cause; `measured`: a ledger entry of that
/// parser has that cause (else the transformation only reconciles it here).
#[derive(Serialize)]
struct ApartView {
    oracle: String,
    cause: cause::Diagnosis,
    plain: &'static str,
    measured: bool,
}

#[derive(Serialize)]
struct GroupView<'r> {
    lines: Vec<LineView>,
    minimal: Vec<LineView>,
    minimised: bool,
    cause: CauseView,
    /// Each parser apart on the first question and its own cause.
    apart: Vec<ApartView>,
    questions: Vec<QuestionView<'r>>,
    rewrite: Option<RewriteView>,
}

#[derive(Serialize)]
struct FailureView<'r> {
    agent: &'r str,
    url: &'r str,
    oracle: &'r str,
    outcome: &'r Label,
}

fn view<'r>(r: &'r Report, program: &str) -> View<'r> {
    let names: Vec<&str> = r.oracles.iter().map(|(n, _)| n.as_str()).collect();
    View {
        format: FORMAT,
        file: FileView {
            name: &r.file.name,
            bytes: r.file.body.len(),
            lines: r.lines.len(),
            not_utf8: r.file.not_utf8,
            oversize: r.file.oversize,
            fetched: r.file.fetched.as_deref(),
        },
        oracles: r
            .oracles
            .iter()
            .map(|(name, version)| OracleView { name, version })
            .collect(),
        unavailable: r
            .unavailable
            .iter()
            .map(|u| UnavailableView {
                oracle: &u.oracle,
                reason: &u.reason,
                fix: u.fix_line(program),
            })
            .collect(),
        questions: r.questions.len(),
        skipped: &r.skipped,
        disagreements: r.disagreements(),
        agree: r.disagreements() == 0,
        groups: r.groups.iter().map(|g| group_view(r, g, &names)).collect(),
        unexamined: r
            .unexamined
            .iter()
            .map(|d| question_view(d, &names, &r.lines))
            .collect(),
        failures: r
            .failures
            .iter()
            .map(|f| FailureView {
                agent: &f.question.agent,
                url: &f.question.url,
                oracle: &f.oracle,
                outcome: &f.label,
            })
            .collect(),
        hazards: &r.hazards,
        ai_crawlers: &r.ai_crawlers,
    }
}

fn line_views(r: &Report, indices: &[usize]) -> Vec<LineView> {
    indices
        .iter()
        .map(|&i| LineView {
            number: i + 1,
            text: visible(&r.lines[i]),
        })
        .collect()
}

fn group_view<'r>(r: &'r Report, g: &'r LineGroup, names: &[&'r str]) -> GroupView<'r> {
    GroupView {
        lines: line_views(r, &g.lines),
        minimal: line_views(r, &g.minimal),
        minimised: g.minimised,
        cause: CauseView {
            name: g.cause.name,
            plain: plain_cause(g.cause.name),
            neutralises: g.cause.neutralises,
            reunites_all: g.cause.reunites_all,
        },
        apart: g.apart.iter().map(apart_view).collect(),
        questions: g
            .disagreements
            .iter()
            .map(|d| question_view(d, names, &r.lines))
            .collect(),
        rewrite: g.rewrite.as_ref().map(|s| RewriteView {
            transformation: s.transformation,
            changes_reference: s.changes_reference,
            settles: s.settles,
            remaining: s.remaining.clone(),
            apart: s.apart.iter().map(apart_view).collect(),
            hunks: s.hunks.iter().map(hunk_view).collect(),
        }),
    }
}

fn apart_view(a: &super::attribute::Apart) -> ApartView {
    ApartView {
        oracle: a.oracle.clone(),
        cause: a.cause,
        plain: plain_cause(a.cause),
        measured: a.measured,
    }
}

/// A cause in a site owner's words, else the catalogue's sentence.
fn plain_cause(d: cause::Diagnosis) -> &'static str {
    super::plain::words(d)
        .or_else(|| {
            cause::CATALOGUE
                .iter()
                .find(|t| d.name() == Some(t.name))
                .map(|t| t.neutralises)
        })
        .unwrap_or("no transformation of the catalogue reconciles it with the other side")
}

fn question_view<'r>(d: &'r Disagreement, names: &[&'r str], file: &[Vec<u8>]) -> QuestionView<'r> {
    let (q, s) = (&d.question, &d.split);
    let who = |r: Reading| s.reading(&r).into_iter().map(|i| names[i]).collect();
    QuestionView {
        agent: &q.agent,
        url: &q.url,
        source: q.source,
        allowed: who(Reading::Allowed),
        disallowed: who(Reading::Disallowed),
        failed: s
            .failures()
            .into_iter()
            .map(|(i, outcome)| FailedView {
                oracle: names[i],
                outcome,
            })
            .collect(),
        deciding: d
            .deciding
            .iter()
            .zip(names)
            .filter_map(|(f, name)| f.as_ref().map(|f| DecidingView::of(name, f, file)))
            .collect(),
    }
}

fn hunk_view(h: &Hunk) -> HunkView {
    HunkView {
        line: h.old_start + 1,
        old: h.old.iter().map(|l| visible(l)).collect(),
        new: h.new.iter().map(|l| visible(l)).collect(),
    }
}

/// A line as it can be shown: its line end dropped, printable UTF-8 as is,
/// everything else (controls, a BOM, bytes that are not UTF-8) escaped.
pub fn visible(line: &[u8]) -> String {
    let end = line
        .iter()
        .rev()
        .take_while(|b| **b == b'\n' || **b == b'\r')
        .count();
    let mut out = String::new();
    for chunk in line[..line.len() - end].utf8_chunks() {
        for c in chunk.valid().chars() {
            match c {
                '\t' => out.push_str("\\t"),
                c if c.is_control() || c == '\u{FEFF}' || c.is_whitespace() && c != ' ' => {
                    out.push_str(&format!("\\u{{{:04X}}}", c as u32))
                }
                c => out.push(c),
            }
        }
        for b in chunk.invalid() {
            out.push_str(&format!("\\x{b:02X}"));
        }
    }
    out
}

/// The JSON report as a value (docs/lint.md): what `--json` prints and
/// what `repdiff serve` answers; fix lines name `program`.
pub fn value(r: &Report, program: &str) -> serde_json::Value {
    serde_json::to_value(view(r, program))
        .unwrap_or_else(|e| serde_json::json!({ "error": e.to_string() }))
}

/// `--json`: exactly one object on stdout.
pub fn json(r: &Report, program: &str) {
    match serde_json::to_string(&view(r, program)) {
        Ok(s) => crate::out!("{s}"),
        Err(e) => log::error!("cannot write the JSON report: {e}"),
    }
}

/// Questions shown per reading of a group; the rest are counted.
const SHOWN: usize = 4;

/// The terminal report.
pub fn text(r: &Report, program: &str) {
    let v = view(r, program);
    crate::out!(
        "{}: {} line(s), {} question(s), asked of {} parser(s)",
        v.file.name,
        v.file.lines,
        v.questions,
        v.oracles.len()
    );
    if let Some(f) = v.file.fetched {
        crate::out!("  fetched: {f}");
    }
    for u in &v.unavailable {
        crate::out!("  not asked: {} ({}; fix: {})", u.oracle, u.reason, u.fix);
    }
    if !v.skipped.agents.is_empty() {
        crate::out!(
            "  not asked: {} more agent(s) the file names, past --max-agents: {}",
            v.skipped.agents.len(),
            v.skipped.agents.join(", ")
        );
    }
    if v.skipped.questions > 0 {
        crate::out!(
            "  not asked: {} question(s) past the {} a lint asks",
            v.skipped.questions,
            super::questions::MAX_QUESTIONS
        );
    }
    if let Some(p) = v.file.not_utf8 {
        crate::out!(
            "note: the file is not valid UTF-8 (line {}, column {}): RFC 9309 wants UTF-8, and parsers read such bytes differently",
            p.line, p.column
        );
    }
    if let Some(o) = v.file.oversize {
        crate::out!(
            "\nwarning: the file is {} bytes, past {} KiB. Google ignores what follows (\"Content \
             after 500 KiB is ignored\"), here from line {} on ({} allow/disallow line(s)), and \
             RFC 9309 §2.5 lets every crawler stop there. The parsers below were given the whole \
             file, as their libraries take it; the limit is the fetcher's (ask the `googlebot` \
             profile: repdiff check --oracle googlebot). Keep the rules that matter in the \
             first 500 KiB.",
            o.bytes,
            o.limit / 1024,
            o.first_ignored_line,
            o.rules_ignored
        );
    }
    for h in v.hazards {
        crate::out!("\nline {} `{}`: {}", h.line, h.key, h.what);
        if let Some(rw) = &h.rewrite {
            crate::out!("  rewrite: {rw}");
        }
    }
    for g in &v.groups {
        print_group(g);
    }
    if !v.unexamined.is_empty() {
        crate::out!(
            "\n{} more disagreement(s) not traced to lines (the --budget ran out):",
            v.unexamined.len()
        );
        print_questions(&v.unexamined);
    }
    print_failures(&v.failures);
    print_ai_crawlers(v.ai_crawlers, v.oracles.len());
    crate::out!();
    if v.agree {
        crate::out!("Every parser agrees on every question.");
    } else {
        crate::out!(
            "Parsers disagree on {} of {} question(s), from {} line group(s).",
            v.disagreements,
            v.questions,
            v.groups.len()
        );
    }
}

/// `--ai-crawlers`: the crawlers some parser keeps out of `/`, then how
/// many every parser lets in.
fn print_ai_crawlers(verdicts: &[super::AiVerdict], parsers: usize) {
    if verdicts.is_empty() {
        return;
    }
    crate::out!(
        "\nAI crawlers ({} of the pinned list) asked for `/`:",
        verdicts.len()
    );
    let mut open = 0;
    for v in verdicts {
        match v.disallowed_by.len() {
            0 if v.allowed_by == parsers => open += 1,
            0 => crate::out!("  {:<28} no verdict from some parser", v.token),
            n if n == parsers => crate::out!("  {:<28} kept out by every parser", v.token),
            n => crate::out!(
                "  {:<28} kept out by {n} of {parsers}: {}",
                v.token,
                v.disallowed_by.join(", ")
            ),
        }
    }
    if open > 0 {
        crate::out!("  {open} more: let in by every parser");
    }
}

fn print_group(g: &GroupView<'_>) {
    crate::out!();
    for l in &g.lines {
        crate::out!("line {}: {}", l.number, l.text);
    }
    let numbers: Vec<String> = g.minimal.iter().map(|l| l.number.to_string()).collect();
    crate::out!(
        "  smallest file that still splits them: line(s) {}{}",
        numbers.join(", "),
        if g.minimised {
            ""
        } else {
            " (not fully minimised: budget)"
        }
    );
    print_causes(g);
    print_questions(&g.questions);
    print_rewrite(g.rewrite.as_ref(), g.questions.len());
}

/// The cause per parser apart: one line when they share it.
fn print_causes(g: &GroupView<'_>) {
    let mut by_cause: Vec<(&ApartView, Vec<&str>)> = Vec::new();
    for a in &g.apart {
        match by_cause
            .iter_mut()
            .find(|(c, _)| (c.cause, c.measured) == (a.cause, a.measured))
        {
            Some((_, names)) => names.push(&a.oracle),
            None => by_cause.push((a, vec![&a.oracle])),
        }
    }
    if by_cause.is_empty() {
        crate::out!("  cause: {} ({})", g.cause.plain, g.cause.name);
        return;
    }
    let indent = if by_cause.len() > 1 {
        crate::out!("  causes, per parser apart:");
        "    "
    } else {
        "  cause of "
    };
    for (a, names) in by_cause {
        crate::out!("{indent}{}", apart_sentence(a, &names));
    }
}

/// `heritrix: <plain> (lowercase-agent)`, or for a cause no ledger entry
/// of theirs names, what undoing it does and no more.
fn apart_sentence(a: &ApartView, names: &[&str]) -> String {
    let who = names.join(", ");
    if a.measured || a.cause.is_new() {
        format!("{who}: {} ({})", a.plain, a.cause)
    } else {
        let (it, its) = if names.len() == 1 {
            ("it", "its")
        } else {
            ("them", "their")
        };
        format!(
            "{who}: undoing `{}` ({}) reconciles {it} with the other side here, but no ledger \
             entry of {its} names that cause: another behaviour may be the reason",
            a.cause, a.plain
        )
    }
}

/// The questions, those read alike by the same parsers together, with
/// each parser's deciding line on the first of them.
fn print_questions(qs: &[QuestionView<'_>]) {
    let mut done = vec![false; qs.len()];
    for i in 0..qs.len() {
        if done[i] {
            continue;
        }
        let same: Vec<usize> = (i..qs.len())
            .filter(|&j| qs[j].allowed == qs[i].allowed && qs[j].disallowed == qs[i].disallowed)
            .collect();
        for &j in &same {
            done[j] = true;
        }
        for &j in same.iter().take(SHOWN) {
            crate::out!("  agent {:?}, {}", qs[j].agent, qs[j].url);
        }
        if same.len() > SHOWN {
            crate::out!(
                "  ... and {} more question(s) read the same way",
                same.len() - SHOWN
            );
        }
        crate::out!(
            "    allowed ({}):    {}",
            qs[i].allowed.len(),
            qs[i].allowed.join(", ")
        );
        crate::out!(
            "    disallowed ({}): {}",
            qs[i].disallowed.len(),
            qs[i].disallowed.join(", ")
        );
        for f in &qs[i].failed {
            crate::out!("    failed:     {} ({})", f.oracle, f.outcome);
        }
        for line in deciding_lines(&qs[i].deciding) {
            crate::out!("    {line}");
        }
    }
}

/// The parsers of one question grouped by the line that decided for
/// them: `decided by line 3 `Allow: /`: google, protego*` (* derived by
/// removing lines), then those with no line and why.
fn deciding_lines(found: &[DecidingView<'_>]) -> Vec<String> {
    let mut by_line: Vec<(&DecidingView<'_>, Vec<String>)> = Vec::new();
    let mut why: Vec<(&str, Vec<&str>)> = Vec::new();
    for d in found {
        let name = format!("{}{}", d.oracle, if d.how == "derived" { "*" } else { "" });
        match (&d.lines, d.why) {
            (Some(_), _) => match by_line.iter_mut().find(|(l, _)| l.lines == d.lines) {
                Some((_, names)) => names.push(name),
                None => by_line.push((d, vec![name])),
            },
            (None, w) => {
                let w = w.unwrap_or("no line");
                match why.iter_mut().find(|(r, _)| *r == w) {
                    Some((_, names)) => names.push(d.oracle),
                    None => why.push((w, vec![d.oracle])),
                }
            }
        }
    }
    let quote = |text: &str| {
        let cut: String = text.chars().take(60).collect();
        let more = if cut.len() < text.len() { "…" } else { "" };
        format!("`{cut}{more}`")
    };
    let mut out: Vec<String> = by_line
        .into_iter()
        .map(|(d, names)| {
            let at = match d.lines.as_deref() {
                Some([]) | None => "no rule matched".to_string(),
                Some([n]) => format!("line {n} {}", quote(d.text.as_deref().unwrap_or(""))),
                Some(ns) => format!(
                    "lines {} (disabling any one flips it)",
                    ns.iter()
                        .map(|n| n.to_string())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            };
            format!("decided by {at}: {}", names.join(", "))
        })
        .collect();
    for (reason, names) in why {
        out.push(format!("no deciding line ({reason}): {}", names.join(", ")));
    }
    if found.iter().any(|d| d.how == "derived") {
        out.push("(* derived: disabling that line alone flips the parser's verdict)".into());
    }
    out
}

fn print_rewrite(s: Option<&RewriteView>, questions: usize) {
    let Some(s) = s else {
        crate::out!(
            "  rewrite: none found that makes every parser agree without changing what the file means under RFC 9309"
        );
        return;
    };
    let on = if s.settles == questions {
        "every parser agrees".to_string()
    } else if s.remaining.is_empty() {
        format!(
            "every parser agrees on {} of these {questions} questions",
            s.settles
        )
    } else {
        format!(
            "fewer parsers stand apart: only {} still read{} some of these {questions} questions otherwise",
            s.remaining.join(", "),
            if s.remaining.len() == 1 { "s" } else { "" }
        )
    };
    crate::out!(
        "  rewrite ({}), after which {on}{}:",
        s.transformation,
        if s.changes_reference {
            "; RFC 9309 readers now read the mended line too"
        } else {
            ""
        }
    );
    for a in &s.apart {
        crate::out!("    still apart: {}", apart_sentence(a, &[&a.oracle]));
    }
    for h in &s.hunks {
        let place = if h.old.is_empty() {
            "before line"
        } else {
            "line"
        };
        crate::out!("    {place} {}:", h.line);
        for l in &h.old {
            crate::out!("    - {l}");
        }
        for l in &h.new {
            crate::out!("    + {l}");
        }
    }
}

fn print_failures(fs: &[FailureView<'_>]) {
    if fs.is_empty() {
        return;
    }
    crate::out!(
        "\n{} answer(s) were errors, not verdicts (not counted as disagreements):",
        fs.len()
    );
    for f in fs.iter().take(10) {
        crate::out!(
            "  {}: agent {:?}, {}: {}",
            f.oracle,
            f.agent,
            f.url,
            f.outcome
        );
    }
    if fs.len() > 10 {
        crate::out!("  ... and {} more", fs.len() - 10);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_shown_with_what_cannot_be_seen_escaped() {
        assert_eq!(
            visible(b"\xEF\xBB\xBFUser-agent: *\r\n"),
            "\\u{FEFF}User-agent: *"
        );
        assert_eq!(visible(b"Disallow: /\xE9\tx\n"), "Disallow: /\\xE9\\tx");
    }
}
