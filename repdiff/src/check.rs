//! `repdiff check`: every oracle's answer to one ad-hoc query, or to one
//! case of the corpus — the first thing a user reaches for.

use crate::deciding::Found;
use crate::error::Error;
use crate::shared::{seconds, Host, Usage};
use crate::{paths, select};
use engine::oracle::{Answer, Ask, Outcome, Query};
use oracles::profiles::aipref;
use oracles::rfc9309::UsageOutcome;
use std::io::Read;
use std::time::Duration;

const AFTER_HELP: &str = "\
--json prints exactly one object:
  {\"oracles\": {\"<name>\": {\"version\": ..., \"outcome\": ..., \"detail\": ...}}}
with outcome one of allowed|disallowed|error|crash|timeout|unsupported.
When the file has a Content-Usage line, the object also has
  \"usage\": {\"draft\": ..., \"queries\": [{\"kind\": \"rules\"|\"no_rule\"|\"not_crawlable\", ...}]}
the usage preference draft-ietf-aipref-attach-05 gives each question
(train-ai and search: allow|disallow|unknown, and the deciding lines).
Each can_fetch verdict carries \"deciding\": {\"how\": \"told\", \"lines\": [N]}
(the library's own account; [] is no rule matched), {\"how\": \"derived\",
\"lines\": [...]} (the lines whose disabling alone flips that parser's
verdict; [] is no rule matched) or {\"how\": \"not-derived\", \"why\": ...}.
--oracle-cmd NAME='COMMAND' adds any program that speaks docs/protocol.md
(run by `sh -c`), e.g. --oracle-cmd mine='python3 oracles/harness/example.py'.";

// The help text is the doc comment of the `Product` variant (cli.rs).
#[derive(Debug, clap::Args)]
#[command(after_long_help = AFTER_HELP)]
pub struct Opts {
    /// The robots.txt to ask about, read as raw bytes (`-`: stdin)
    #[arg(long, value_name = "FILE|-", required_unless_present = "case")]
    pub robots: Option<String>,
    /// The user agent asking
    #[arg(long, value_name = "UA", required_unless_present = "case")]
    pub agent: Option<String>,
    /// The URL it wants to fetch
    #[arg(long, value_name = "URL", required_unless_present = "case")]
    pub url: Option<String>,
    /// Replay a corpus case (all its queries, or query N with ID#N)
    #[arg(long, value_name = "ID[#N]")]
    pub case: Option<String>,
    /// Ask only this oracle (repeatable)
    #[arg(long = "oracle", value_name = "NAME")]
    pub oracles: Vec<String>,
    /// One more oracle: any program speaking docs/protocol.md, run by `sh -c` (repeatable)
    #[arg(long = "oracle-cmd", value_name = "NAME='COMMAND'")]
    pub oracle_cmds: Vec<String>,
    /// Print exactly one JSON object (the contract scripts rely on)
    #[arg(long)]
    pub json: bool,
    /// Seconds for a call before the oracle's worker is killed (each query
    /// after the first adds a quarter)
    #[arg(long, value_name = "SECS", default_value = "5", value_parser = seconds)]
    pub timeout: Duration,
    #[command(flatten)]
    pub workers: select::WorkerFlags,
    /// Run the built-in oracles in this process instead of supervised workers
    #[arg(long)]
    pub in_process: bool,
    /// Do not run setup first
    #[arg(long)]
    pub no_setup: bool,
    /// Ask the agent and URL as given, even an empty agent or a URL that
    /// does not parse (a probe of how parsers take bad input)
    #[arg(long)]
    pub raw: bool,
    /// The largest robots.txt asked about, in KiB; a larger one is refused
    /// (Google parses only the first 500 KiB; RFC 9309 §2.5 lets every
    /// crawler stop there)
    #[arg(long, value_name = "KIB", default_value_t = 4096)]
    pub max_size: u64,
}

struct Job {
    title: String,
    body: Vec<u8>,
    queries: Vec<Query>,
    expect: Vec<String>,
    /// Set for a corpus case: HTTP cases are then fetched from the local server.
    case: Option<engine::case::Case>,
}

/// One oracle's answers, one per query, and the line that decided each.
struct Row {
    name: String,
    version: String,
    answers: Vec<Answer>,
    /// Per query: told by the library or derived against it (`deciding`);
    /// `None` for a non-verdict, another ask, or a case fetched over HTTP.
    deciding: Vec<Option<Found>>,
}

pub fn main(opts: Opts, host: &Host) -> Result<i32, Error> {
    let extra = select::oracle_cmds(&opts.oracle_cmds)?;
    select::validate(&opts.oracles, &extra)?;
    let job = match &opts.case {
        Some(r) => case_job(r)?,
        None => adhoc_job(&opts)?,
    };
    if !opts.no_setup {
        host.ensure(crate::shared::Needs::Oracles);
    }
    crate::http::check_fetch_timeout();
    let limits = opts.workers.limits(opts.timeout);
    let wanted = opts.workers.wanted(&opts.oracles, &extra)?;
    let sel = select::start_for(host.program, &wanted, &extra, opts.in_process, limits);
    let (rows, bad_answers) = ask_all(sel.oracles, &job);
    if opts.json {
        print_json(&rows, &sel.unavailable, &job, host.program);
    } else {
        print_human(&rows, &sel.unavailable, &job);
    }
    let failed: Vec<&str> = rows
        .iter()
        .filter(|r| {
            r.answers
                .iter()
                .any(|a| matches!(a.outcome, Outcome::Timeout | Outcome::Crash { .. }))
        })
        .map(|r| r.name.as_str())
        .collect();
    if !failed.is_empty() {
        log::error!(
            "no answer (timeout or crash) from: {}; the verdicts above are incomplete",
            failed.join(", ")
        );
    }
    Ok(
        if sel.unavailable.is_empty() && !bad_answers && failed.is_empty() {
            0
        } else {
            crate::shared::EXIT_NOT_RUN
        },
    )
}

/// An agent and a URL a crawler could send: a non-blank agent and an
/// absolute http(s) URL with a host. Anything else is refused unless
/// `--raw` says it is a probe: a parser's answer to a malformed question
/// says nothing about what it does for a crawler.
fn check_question(agent: &str, url: &str) -> Result<(), Usage> {
    if agent.trim().is_empty() {
        return Err(Usage(format!(
            "--agent {agent:?} is blank: no crawler sends that; give a product token \
             (e.g. Googlebot), or add --raw to ask it as a probe"
        )));
    }
    match url::Url::parse(url) {
        Ok(u) if matches!(u.scheme(), "http" | "https") && u.host().is_some() => Ok(()),
        Ok(u) => Err(Usage(format!(
            "--url {url:?} is not an http(s) URL with a host (scheme `{}`): give the whole \
             URL a crawler would fetch (e.g. https://example.com/path), or add --raw",
            u.scheme()
        ))),
        Err(e) => Err(Usage(format!(
            "--url {url:?} does not parse as a URL ({e}): give the whole URL a crawler would \
             fetch (e.g. https://example.com/path), or add --raw to ask it as a probe"
        ))),
    }
}

/// Read the robots.txt, refusing one past `max_kib` before it is held
/// whole: a 50 MiB file cost 756 MB of workers' memory and eight timeouts.
/// One that cannot be read or is too big is an [`Error::Input`] naming it.
fn read_body(robots: &str, max_kib: u64) -> Result<Vec<u8>, Error> {
    let limit = max_kib.saturating_mul(1024);
    let bad = |message: String| Error::Input {
        path: robots.into(),
        line: None,
        message,
    };
    let mut reader: Box<dyn Read> = if robots == "-" {
        Box::new(std::io::stdin())
    } else {
        Box::new(
            std::fs::File::open(robots)
                .map_err(|e| bad(format!("cannot read the robots file: {e}")))?,
        )
    };
    let mut body = Vec::new();
    reader
        .by_ref()
        .take(limit.saturating_add(1))
        .read_to_end(&mut body)
        .map_err(|e| bad(format!("cannot read the robots file: {e}")))?;
    if body.len() as u64 > limit {
        return Err(bad(format!(
            "over {max_kib} KiB (--max-size): Google's crawler parses only its \
             first 500 KiB and RFC 9309 §2.5 lets every crawler stop there, so most would \
             ignore the rest; ask about the first 500 KiB, or raise --max-size"
        )));
    }
    Ok(body)
}

/// Every oracle's answers to the job; true when one answered the wrong
/// number of queries.
fn ask_all(mut oracles: Vec<Box<dyn engine::oracle::Oracle>>, job: &Job) -> (Vec<Row>, bool) {
    let server = job
        .case
        .as_ref()
        .and_then(|c| crate::http::Server::start(&[c]));
    let url_for = |c: &engine::case::Case| server.as_ref().and_then(|s| s.url_for(c));
    let mut rows: Vec<Row> = Vec::new();
    let mut bad_answers = false;
    for o in oracles.iter_mut() {
        let answers = match &job.case {
            Some(case) => {
                let caps = o.capabilities();
                engine::run::run_one(o.as_mut(), caps, case, &url_for)
            }
            None => o.run(&job.body, &job.queries),
        };
        let answers = match checked_count(o.name(), answers, job.queries.len()) {
            Ok(a) => a,
            Err((a, message)) => {
                log::error!("{message}");
                bad_answers = true;
                a
            }
        };
        // A case served over HTTP is the server's body, not `job.body`.
        let deciding = if job.case.as_ref().is_some_and(|c| c.http.is_some()) {
            vec![None; answers.len()]
        } else {
            crate::deciding::find(o.as_mut(), &job.body, &job.queries, &answers)
        };
        rows.push(Row {
            name: o.name().to_string(),
            version: o.identity().to_string(),
            answers,
            deciding,
        });
    }
    (rows, bad_answers)
}

/// One answer per query, or an error naming the oracle: a worker (an
/// external one above all) that answers too few or too many must not make
/// `check` index past the end. Each query then gets an `error` outcome of
/// kind `protocol`.
pub fn checked_count(
    oracle: &str,
    answers: Vec<Answer>,
    queries: usize,
) -> Result<Vec<Answer>, (Vec<Answer>, String)> {
    if answers.len() == queries {
        return Ok(answers);
    }
    let message = format!(
        "oracle `{oracle}` returned {} answer(s) for {queries} quer{}",
        answers.len(),
        if queries == 1 { "y" } else { "ies" }
    );
    let failed = (0..queries)
        .map(|_| {
            Answer::from(Outcome::Error {
                kind: "protocol".into(),
                message: message.clone(),
            })
        })
        .collect();
    Err((failed, message))
}

fn adhoc_job(opts: &Opts) -> Result<Job, Error> {
    let required = |v: &Option<String>, flag: &str| {
        v.clone()
            .ok_or_else(|| Usage(format!("--{flag} is required")))
    };
    let robots = required(&opts.robots, "robots")?;
    let agent = required(&opts.agent, "agent")?;
    let url = required(&opts.url, "url")?;
    if !opts.raw {
        check_question(&agent, &url)?;
    }
    let body = read_body(&robots, opts.max_size)?;
    Ok(Job {
        title: format!(
            "agent {agent:?}, url {url:?}, robots {robots} ({} bytes)",
            body.len()
        ),
        body,
        queries: vec![Query {
            ask: Ask::CanFetch,
            agent,
            url,
        }],
        expect: vec![String::new()],
        case: None,
    })
}

fn case_job(reference: &str) -> Result<Job, Error> {
    let corpus = paths::load_corpus()?;
    let r: engine::query_ref::QueryRef = reference.parse().map_err(Usage)?;
    let id = r.case.as_str();
    let case = corpus.get(id).ok_or_else(|| {
        Usage(format!(
            "no case `{id}` in {}",
            paths::corpus_dir().display()
        ))
    })?;
    let picked: Vec<usize> = match r.query {
        Some(q) if q < case.queries.len() => vec![q],
        Some(_) => {
            return Err(Usage(format!(
                "case `{id}` has queries 1..={}",
                case.queries.len()
            ))
            .into())
        }
        None => (0..case.queries.len()).collect(),
    };
    let mut picked_case = case.clone();
    picked_case.queries = picked.iter().map(|&i| case.queries[i].clone()).collect();
    Ok(Job {
        case: Some(picked_case),
        title: format!(
            "case {id}: {} ({}:{})",
            case.title,
            case.file.display(),
            case.line
        ),
        body: case.body.clone(),
        queries: picked
            .iter()
            .map(|&i| case.queries[i].query.clone())
            .collect(),
        expect: picked
            .iter()
            .map(|&i| format!("{} ({})", case.queries[i].expect, case.queries[i].basis))
            .collect(),
    })
}

/// The contract scripts rely on: one object, `oracles` keyed by name. With
/// several queries (`--case ID`), each oracle's entry carries the first
/// query's outcome and a `queries` list with all of them.
fn print_json(rows: &[Row], unavailable: &[engine::oracle::Unavailable], job: &Job, program: &str) {
    let mut oracles = serde_json::Map::new();
    for Row {
        name,
        version,
        answers,
        deciding,
    } in rows
    {
        let cell = |(a, found): (&Answer, &Option<Found>)| {
            let mut detail = a.outcome.detail();
            if let Outcome::Value { value } = &a.outcome {
                detail = value.to_string();
            }
            if !a.explain.is_empty() {
                if !detail.is_empty() {
                    detail.push_str("; ");
                }
                detail.push_str(&a.explain);
            }
            let outcome = match &a.outcome {
                Outcome::Value { .. } => "value".to_string(),
                o => o.label(),
            };
            let mut cell =
                serde_json::json!({"version": version, "outcome": outcome, "detail": detail});
            if let Some(found) = found {
                cell["deciding"] = found.json();
            }
            cell
        };
        let mut first = answers
            .iter()
            .zip(deciding)
            .next()
            .map(cell)
            .unwrap_or_else(|| serde_json::json!({}));
        if job.queries.len() > 1 {
            first["queries"] = answers.iter().zip(deciding).map(cell).collect();
        }
        oracles.insert(name.clone(), first);
    }
    for u in unavailable {
        oracles.insert(
            u.oracle.clone(),
            serde_json::json!({"version": "unavailable", "outcome": "error",
                               "detail": format!("oracle unavailable: {} (fix: {})", u.reason, u.fix_line(program))}),
        );
    }
    let mut doc = serde_json::json!({ "oracles": oracles });
    if let Some(usage) = usage_of(job) {
        doc["usage"] = serde_json::json!({"draft": aipref::DRAFT, "queries": usage});
    }
    crate::out!("{doc}");
}

/// The usage preference of each can_fetch question (`None` for the
/// others), when the file has a `Content-Usage` rule.
fn usage_of(job: &Job) -> Option<Vec<Option<UsageOutcome>>> {
    aipref::usage_preferences(&job.body, &job.queries)
}

fn print_human(rows: &[Row], unavailable: &[engine::oracle::Unavailable], job: &Job) {
    crate::out!("{}", job.title);
    let usage = usage_of(job);
    for (i, q) in job.queries.iter().enumerate() {
        crate::out!(
            "\n{} agent={:?} url={:?}{}",
            q.ask.as_str(),
            q.agent,
            q.url,
            if job.expect[i].is_empty() {
                String::new()
            } else {
                format!("  expect: {}", job.expect[i])
            }
        );
        for Row {
            name,
            version,
            answers,
            deciding,
        } in rows
        {
            let a = &answers[i];
            // The ledger's spelling (`error:ValueError`), ready to pin.
            let outcome = a.outcome.pin().to_string();
            crate::out!("  {name:<16} {outcome:<11} {version}");
            let detail = a.outcome.detail();
            if !detail.is_empty() {
                crate::out!("  {:<16} {}", "", detail);
            }
            if !a.explain.is_empty() {
                crate::out!("  {:<16} why: {}", "", a.explain);
            }
            if let Some(found) = &deciding[i] {
                crate::out!("  {:<16} {}", "", found.describe(&job.body));
            }
        }
        if let Some(u) = usage.as_ref().and_then(|u| u[i].as_ref()) {
            crate::out!("  usage preference ({}): {}", aipref::DRAFT, u.describe());
        }
    }
    for u in unavailable {
        log::error!("{u}");
    }
}
