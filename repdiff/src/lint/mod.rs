//! `repdiff lint FILE`: for the people who write robots.txt files. Which
//! lines of this file do the parsers crawlers run read differently, why,
//! and how to write them so that every parser agrees?
//!
//! The steps, one module each: [`input`] reads and refuses; [`questions`]
//! derives what a crawler would ask; [`panel`] asks every oracle;
//! [`group`] minimises each disagreement to the lines that make it and
//! names the cause; [`rewrite`] looks for a safe rewrite; [`render`]
//! prints text or JSON (docs/lint.md).

pub mod attribute;
pub mod fetch;
pub mod group;
pub mod hazards;
pub mod input;
pub mod panel;
pub mod plain;
pub mod questions;
pub mod render;
pub mod review;
pub mod rewrite;
pub mod suggestion;

use crate::select;
use crate::shared::{seconds, Host, Usage};
use group::Disagreement;
pub use questions::Question;
use std::time::{Duration, Instant};

const AFTER_HELP: &str = "\
Exit status: 0 every parser agrees on every question; 1 some disagree, or the
file is past 500 KiB (Google ignores the rest); 2 bad
arguments or a file lint refuses (binary, UTF-16, larger than 10 MiB); 3 some
parser was not asked or gave no answer (could not start, timed out, crashed):
never a pass (--skip-oracle NAME leaves one out on purpose). --json prints one
object, described in docs/lint.md.";

// The help text is the doc comment of the `Product` variant (cli.rs).
#[derive(Debug, clap::Args)]
#[command(after_long_help = AFTER_HELP)]
pub struct Opts {
    /// The robots.txt to lint, read as raw bytes (`-`: stdin), or a site's
    /// URL: its /robots.txt is fetched as RFC 9309 §2.3 says a crawler
    /// fetches it
    #[arg(value_name = "FILE|-|URL")]
    pub file: String,
    /// Also ask the file's paths for this user agent (repeatable)
    #[arg(long = "agent", value_name = "UA")]
    pub agents: Vec<String>,
    /// Also ask this URL, for every agent (repeatable)
    #[arg(long = "url", value_name = "URL")]
    pub urls: Vec<String>,
    /// Ask only this oracle (repeatable) [default: every registered one that is available]
    #[arg(long = "oracle", value_name = "NAME")]
    pub oracles: Vec<String>,
    /// One more oracle: any program speaking docs/protocol.md, run by `sh -c` (repeatable)
    #[arg(long = "oracle-cmd", value_name = "NAME='COMMAND'")]
    pub oracle_cmds: Vec<String>,
    /// Print one JSON object (docs/lint.md)
    #[arg(long)]
    pub json: bool,
    /// Seconds for a call before the oracle's worker is killed
    #[arg(long, value_name = "SECS", default_value = "5", value_parser = seconds)]
    pub timeout: Duration,
    /// Seconds for finding the lines and rewrites; disagreements not reached
    /// by then are listed apart
    #[arg(long, value_name = "SECS", default_value = "120", value_parser = seconds)]
    pub budget: Duration,
    /// Run the built-in oracles in this process instead of supervised workers
    #[arg(long)]
    pub in_process: bool,
    /// Do not run setup first
    #[arg(long)]
    pub no_setup: bool,
    /// Change review: compare this earlier version with FILE; list every
    /// question whose verdict changes for some parser (exit 1 on any
    /// change not named by --expect-change)
    #[arg(long, value_name = "OLD")]
    pub before: Option<String>,
    /// With --before: a change that is intended, as a glob over
    /// "AGENT URL" (e.g. 'GPTBot *', '* */private/*';
    /// repeatable)
    #[arg(long, value_name = "PATTERN", requires = "before")]
    pub expect_change: Vec<String>,
    /// Also ask, for each AI crawler of the pinned list (PyPI
    /// ai-crawler-index, fetched by setup), whether it may fetch `/`, and
    /// show which parsers keep each out
    #[arg(long)]
    pub ai_crawlers: bool,
    /// Agents of the file to ask, in file order; the rest are listed as not
    /// asked
    #[arg(long, value_name = "N", default_value_t = questions::DEFAULT_MAX_AGENTS)]
    pub max_agents: usize,
    #[command(flatten)]
    pub workers: select::WorkerFlags,
}

/// A question on which some oracle failed (an error, a crash, a timeout):
/// reported apart from the disagreements.
#[derive(Debug, Clone)]
pub struct Failure {
    pub question: Question,
    pub oracle: String,
    pub label: engine::oracle::Label,
}

/// One AI crawler's `/` question: the parsers that keep it out.
#[derive(Debug, Clone, serde::Serialize)]
pub struct AiVerdict {
    pub token: String,
    pub disallowed_by: Vec<String>,
    pub allowed_by: usize,
}

/// Everything lint found about one file.
pub struct Report {
    pub file: input::File,
    /// The file's lines, with their line ends.
    pub lines: Vec<Vec<u8>>,
    /// Name and version of each oracle asked.
    pub oracles: Vec<(String, String)>,
    pub unavailable: Vec<engine::oracle::Unavailable>,
    pub questions: Vec<Question>,
    /// Per AI crawler asked (`--ai-crawlers`): who keeps it out of `/`.
    pub ai_crawlers: Vec<AiVerdict>,
    /// What was not asked (agents past `--max-agents`, questions past the cap).
    pub skipped: questions::Skipped,
    pub groups: Vec<group::LineGroup>,
    /// Disagreements the budget left no time to minimise.
    pub unexamined: Vec<Disagreement>,
    pub failures: Vec<Failure>,
    /// The lines written for AI use and what they do ([`hazards`]).
    pub hazards: Vec<hazards::Hazard>,
}

impl Report {
    pub fn disagreements(&self) -> usize {
        self.groups
            .iter()
            .map(|g| g.disagreements.len())
            .sum::<usize>()
            + self.unexamined.len()
    }
}

pub fn main(opts: Opts, host: &Host) -> Result<i32, crate::error::Error> {
    let extra = select::oracle_cmds(&opts.oracle_cmds)?;
    select::validate(&opts.oracles, &extra)?;
    if opts.oracles.len() == 1 && extra.is_empty() {
        return Err(Usage(
            "lint compares parsers: name at least two with --oracle, or none for all".into(),
        )
        .into());
    }
    let file = match read_arg(&opts.file)? {
        Ok(file) => file,
        Err(fetched) => return Ok(no_file(&fetched)),
    };
    let old = match &opts.before {
        Some(old) => Some(
            read_arg(old)?
                .map_err(|f| Usage(format!("--before {}: {}", f.summary(), f.decision.reason())))?,
        ),
        None => None,
    };
    if !opts.no_setup {
        log::info!(
            "lint: checking the setup (a first run fetches and builds the parsers: minutes)"
        );
        host.ensure(crate::shared::Needs::Oracles);
    }
    let wanted = opts.workers.wanted(&opts.oracles, &extra)?;
    log::info!(
        "lint: starting {} parsers",
        if wanted.is_empty() {
            select::known_names().len() + extra.len()
        } else {
            wanted.len()
        }
    );
    let sel = select::start_for(
        host.program,
        &wanted,
        &extra,
        opts.in_process,
        opts.workers.limits(opts.timeout),
    );
    // A parser that could not start was not asked: its verdicts could be
    // the very split the file has, so the run is no pass (issue 52).
    let not_run = !sel.unavailable.is_empty();
    for u in &sel.unavailable {
        log::error!("{u}");
    }
    if sel.oracles.len() < 2 {
        log::error!("fewer than two oracles could start: nothing to compare");
        return Ok(crate::shared::EXIT_NOT_RUN);
    }
    let mut panel = panel::Panel::new(sel.oracles);
    let ai_crawlers: Vec<String> = if opts.ai_crawlers {
        crate::census_cmd::ai_crawlers::list(host.program)?
            .crawlers
            .into_iter()
            .map(|c| c.token)
            .collect()
    } else {
        Vec::new()
    };
    let known = attribute::KnownCauses::load();
    let asked = Asked {
        agents: &opts.agents,
        urls: &opts.urls,
        budget: opts.budget,
        progress: true,
        max_agents: opts.max_agents,
        ai_crawlers: &ai_crawlers,
        known: &known,
    };
    if let Some(old) = old {
        return Ok(review_main(&mut panel, &old, &file, &asked, &opts, not_run));
    }
    let report = examine(&mut panel, file, &asked, sel.unavailable);
    if opts.json {
        render::json(&report, host.program);
    } else {
        render::text(&report, host.program);
    }
    let silent: std::collections::BTreeSet<&str> = report
        .failures
        .iter()
        .filter(|f| {
            matches!(
                f.label,
                engine::oracle::Label::Crash | engine::oracle::Label::Timeout
            )
        })
        .map(|f| f.oracle.as_str())
        .collect();
    if !silent.is_empty() {
        log::error!(
            "no answer (timeout or crash) on some questions from: {} (exit {})",
            silent.iter().copied().collect::<Vec<_>>().join(", "),
            crate::shared::EXIT_NOT_RUN
        );
    }
    if not_run {
        log::error!(
            "{} parser(s) could not start and were not asked: {} (exit {}; \
             --skip-oracle NAME leaves one out on purpose)",
            report.unavailable.len(),
            report
                .unavailable
                .iter()
                .map(|u| u.oracle.as_str())
                .collect::<Vec<_>>()
                .join(", "),
            crate::shared::EXIT_NOT_RUN
        );
    }
    if not_run || !silent.is_empty() {
        return Ok(crate::shared::EXIT_NOT_RUN);
    }
    // Past 500 KiB Googlebot ignores the rest whatever the parsers say.
    Ok(
        if report.disagreements() > 0 || report.file.oversize.is_some() {
            1
        } else {
            0
        },
    )
}

/// A file, or a URL fetched: the file, or, when the fetch gave no file to
/// parse (a 4xx, a 5xx, no response, too many redirects), what it gave.
fn read_arg(arg: &str) -> Result<Result<input::File, fetch::Fetched>, Usage> {
    let refused = |input::Refusal(why)| Usage(why);
    if !fetch::is_url(arg) {
        return input::read(arg).map(Ok).map_err(refused);
    }
    let robots = fetch::robots_url(arg).map_err(refused)?;
    log::info!("lint: fetching {robots}");
    let fetched = fetch::fetch(&robots);
    log::info!("lint: {}", fetched.summary());
    if !matches!(
        fetched.decision,
        oracles::rfc9309::AccessDecision::ParseBody { .. }
    ) {
        return Ok(Err(fetched));
    }
    let (summary, name) = (fetched.summary(), fetched.final_url().to_string());
    let mut file = input::check(&name, fetched.body).map_err(refused)?;
    file.fetched = Some(summary);
    Ok(Ok(file))
}

/// A fetch with no file to lint: what RFC 9309 makes of it, and what each
/// parser's fetcher did with that status in the corpus. Exit 1: there is
/// no robots.txt a crawler would parse.
fn no_file(fetched: &fetch::Fetched) -> i32 {
    crate::out!("{}", fetched.summary());
    for h in fetched.hops.iter().rev().skip(1).rev() {
        crate::out!("  redirect: HTTP {} at {}", h.status, h.url);
    }
    crate::out!("RFC 9309: {}", fetched.decision.reason());
    if let Some(status) = fetched.status() {
        let verdicts = fetch::corpus_verdicts(status);
        let (unsupported, known): (Vec<_>, Vec<_>) =
            verdicts.into_iter().partition(|(_, o)| o == "unsupported");
        if !known.is_empty() {
            crate::out!(
                "What the parsers that fetch for themselves did with HTTP {status} (corpus case \
                 http-{status}, first question):"
            );
            for (oracle, outcome) in known {
                crate::out!("  {oracle:<26} {outcome}");
            }
        }
        if !unsupported.is_empty() {
            crate::out!(
                "  ({} parser(s) have no fetcher of their own: their crawler decides)",
                unsupported.len()
            );
        }
    }
    crate::out!("No robots.txt to lint at this URL.");
    1
}

/// `--before`: review, print, and the exit status (3 when a parser was
/// not asked or gave no answer, 1 on a change not expected, else 0).
fn review_main(
    panel: &mut panel::Panel,
    old: &input::File,
    new: &input::File,
    asked: &Asked,
    opts: &Opts,
    not_run: bool,
) -> i32 {
    let r = review::review(panel, old, new, asked, &opts.expect_change);
    if opts.json {
        review::json(&r);
    } else {
        review::text(&r);
    }
    let silent = !r.silent.is_empty();
    if silent {
        log::error!(
            "no answer (timeout or crash) from {} on some question: the review is incomplete",
            r.silent.join(", ")
        );
    }
    if not_run || silent {
        crate::shared::EXIT_NOT_RUN
    } else if r.unexpected > 0 {
        1
    } else {
        0
    }
}

/// What a lint asks beyond the file's own questions, and how long it may
/// take: the command line's flags, or a request to `repdiff serve`.
pub struct Asked<'a> {
    pub agents: &'a [String],
    pub urls: &'a [String],
    /// Time for finding the lines and rewrites.
    pub budget: Duration,
    /// Say progress on stderr (a terminal run; never a served request).
    pub progress: bool,
    /// Agents of the file to ask ([`questions::DEFAULT_MAX_AGENTS`]).
    pub max_agents: usize,
    /// AI crawler tokens to ask `/` for.
    pub ai_crawlers: &'a [String],
    /// The ledger's measured causes per parser ([`attribute`]).
    pub known: &'a attribute::KnownCauses,
}

/// Ask, group, suggest, on a panel that may outlive this one file (the
/// server keeps one for all its requests).
pub fn examine(
    panel: &mut panel::Panel,
    file: input::File,
    asked: &Asked,
    unavailable: Vec<engine::oracle::Unavailable>,
) -> Report {
    let deadline = Instant::now() + asked.budget;
    let mut progress = Progress::new(asked.progress);
    let (questions, skipped) = questions::questions(
        &file.body,
        asked.agents,
        asked.urls,
        asked.max_agents,
        asked.ai_crawlers,
    );
    progress.say(&format!(
        "asking {} oracles {} questions",
        panel.size(),
        questions.len()
    ));
    let splits = panel.ask(&file.body, &questions);
    let failures = failures(panel, &questions, &splits);
    let ai_crawlers = ai_verdicts(panel, asked.ai_crawlers, &questions, &splits);
    let found: Vec<Disagreement> = questions
        .iter()
        .zip(&splits)
        .filter(|(_, s)| s.disagrees())
        .map(|(q, s)| Disagreement {
            question: q.clone(),
            split: s.clone(),
            deciding: Vec::new(),
        })
        .collect();
    let mut grouping = group::group(
        panel,
        &file.body,
        found,
        deadline,
        &mut progress,
        asked.known,
    );
    if Instant::now() < deadline {
        progress.say("finding each parser's deciding line");
        decide(panel, &file.body, &mut grouping);
    }
    let mut reference = panel::reference();
    let mut base = rewrite::Baseline {
        questions: &questions,
        splits: &splits,
        reference: reference.as_mut(),
        reference_labels: Vec::new(),
        known: asked.known,
    };
    base.reference_labels = base.labels(&file.body);
    let total = grouping.groups.len();
    for (n, g) in grouping.groups.iter_mut().enumerate() {
        if Instant::now() > deadline {
            break;
        }
        progress.say(&format!("looking for a rewrite of group {}/{total}", n + 1));
        g.rewrite = rewrite::suggest(panel, &file.body, g, &mut base);
    }
    Report {
        hazards: hazards::hazards(&file.body),
        lines: cause::lines(&file.body),
        file,
        oracles: panel.names.clone(),
        unavailable,
        questions,
        ai_crawlers,
        skipped,
        groups: grouping.groups,
        unexamined: grouping.unexamined,
        failures,
    }
}

/// Each disagreement's deciding line per parser: told by the libraries
/// that can tell, derived for the others by removing lines
/// ([`crate::deciding`]). One batch of every disagreeing question per
/// removed line, so a file costs its candidate lines in calls, not lines
/// times questions.
fn decide(panel: &mut panel::Panel, body: &[u8], grouping: &mut group::Grouping) {
    let mut all: Vec<&mut Disagreement> = grouping
        .groups
        .iter_mut()
        .flat_map(|g| g.disagreements.iter_mut())
        .collect();
    if all.is_empty() {
        return;
    }
    let queries: Vec<engine::oracle::Query> = all.iter().map(|d| d.question.query()).collect();
    let answers = panel.answers(body, &queries);
    let found = panel.deciding(body, &queries, &answers);
    for (k, d) in all.iter_mut().enumerate() {
        d.deciding = found
            .iter()
            .map(|per_oracle| per_oracle.get(k).cloned().flatten())
            .collect();
    }
}

/// Each AI crawler's `/` question (asked once: a file naming the crawler
/// asks it as one of its own agents).
fn ai_verdicts(
    panel: &panel::Panel,
    tokens: &[String],
    questions: &[Question],
    splits: &[panel::Split],
) -> Vec<AiVerdict> {
    let root = format!("https://{}/", questions::HOST);
    tokens
        .iter()
        .filter_map(|token| {
            let i = questions
                .iter()
                .position(|q| q.agent == *token && q.url == root)?;
            let s = &splits[i];
            Some(AiVerdict {
                token: token.clone(),
                disallowed_by: s
                    .reading(&panel::Reading::Disallowed)
                    .into_iter()
                    .map(|i| panel.name(i).to_string())
                    .collect(),
                allowed_by: s.reading(&panel::Reading::Allowed).len(),
            })
        })
        .collect()
}

fn failures(panel: &panel::Panel, questions: &[Question], splits: &[panel::Split]) -> Vec<Failure> {
    questions
        .iter()
        .zip(splits)
        .flat_map(|(q, s)| {
            s.failures().into_iter().map(|(i, label)| Failure {
                question: q.clone(),
                oracle: panel.name(i).to_string(),
                label: label.clone(),
            })
        })
        .collect()
}

/// Progress on stderr, for long runs only: nothing in the first two
/// seconds, then a note through `log` every few seconds
/// ([`crate::progress::Every`]).
pub struct Progress {
    /// False: say nothing at all.
    enabled: bool,
    started: Instant,
    every: crate::progress::Every,
}

impl Progress {
    fn new(enabled: bool) -> Progress {
        Progress {
            enabled,
            started: Instant::now(),
            every: crate::progress::Every::new(),
        }
    }

    pub fn say(&mut self, what: &str) {
        if self.enabled && self.started.elapsed() >= Duration::from_secs(2) && self.every.due() {
            log::info!("  lint: {what} ({} s)", self.started.elapsed().as_secs());
        }
    }
}
