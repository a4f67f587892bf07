//! `cargo xtask check`: every oracle's answer to one ad-hoc query, or to one
//! case of the corpus — the first thing a user reaches for.

use crate::cli::{Args, Usage};
use crate::{paths, select, setup};
use engine::oracle::{Answer, Ask, Outcome, Query};
use engine::worker::Limits;
use std::io::Read;
use std::time::Duration;

pub const HELP: &str = "\
cargo xtask check --robots FILE|- --agent UA --url URL [--oracle NAME]... [--oracle-cmd NAME='COMMAND']... [--json]
cargo xtask check --case ID[#N] [--oracle NAME]... [--oracle-cmd NAME='COMMAND']... [--json]

Asks every available oracle (or those named) whether UA may fetch URL under
the robots.txt in FILE (read as raw bytes; `-` reads stdin), or replays the
queries of one corpus case. --json prints exactly one object:
  {\"oracles\": {\"<name>\": {\"version\": ..., \"outcome\": ..., \"detail\": ...}}}
with outcome one of allowed|disallowed|error|crash|timeout|unsupported.
--oracle-cmd NAME='COMMAND' adds any program that speaks docs/protocol.md
(run by `sh -c`), e.g. --oracle-cmd mine='python3 oracles/harness/example.py'.";

struct Job {
    title: String,
    body: Vec<u8>,
    queries: Vec<Query>,
    expect: Vec<String>,
    /// Set for a corpus case: HTTP cases are then fetched from the local server.
    case: Option<engine::case::Case>,
}

pub fn main(raw: &[String]) -> Result<i32, Usage> {
    let args = Args::parse(
        raw,
        &["json", "in-process", "no-setup", "help"],
        &[
            "robots",
            "agent",
            "url",
            "oracle",
            "oracle-cmd",
            "case",
            "timeout",
        ],
    )?;
    if args.has("help") {
        println!("{HELP}");
        return Ok(0);
    }
    let names = args.all("oracle");
    let extra = select::oracle_cmds(&args.all("oracle-cmd"))?;
    select::validate(&names, &extra)?;
    let job = match args.one("case")? {
        Some(r) => case_job(&r)?,
        None => adhoc_job(&args)?,
    };
    let timeout = Duration::from_secs_f64(args.number("timeout", 5.0)?);
    if !args.has("no-setup") {
        setup::ensure_or_reexec();
    }
    crate::http::check_fetch_timeout();
    let mut sel = select::start(
        &names,
        &extra,
        args.has("in-process"),
        Limits {
            timeout,
            ..Limits::default()
        },
    );
    let server = job
        .case
        .as_ref()
        .and_then(|c| crate::http::Server::start(&[c]));
    let url_for = |c: &engine::case::Case| server.as_ref().and_then(|s| s.url_for(c));
    let mut rows: Vec<(String, String, Vec<Answer>)> = Vec::new();
    let mut bad_answers = false;
    for o in sel.oracles.iter_mut() {
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
                eprintln!("ERROR: {message}");
                bad_answers = true;
                a
            }
        };
        rows.push((o.name().to_string(), o.version(), answers));
    }
    if args.has("json") {
        print_json(&rows, &sel.unavailable, &job);
    } else {
        print_human(&rows, &sel.unavailable, &job);
    }
    Ok(if sel.unavailable.is_empty() && !bad_answers {
        0
    } else {
        1
    })
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

fn adhoc_job(args: &Args) -> Result<Job, Usage> {
    let robots = args.required("robots")?;
    let agent = args.required("agent")?;
    let url = args.required("url")?;
    let body = if robots == "-" {
        let mut buf = Vec::new();
        std::io::stdin()
            .read_to_end(&mut buf)
            .map_err(|e| Usage(format!("cannot read robots.txt from stdin: {e}")))?;
        buf
    } else {
        std::fs::read(&robots)
            .map_err(|e| Usage(format!("cannot read robots file {robots}: {e}")))?
    };
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

fn case_job(reference: &str) -> Result<Job, Usage> {
    let corpus = paths::load_corpus()?;
    let (id, n) = match reference.split_once('#') {
        Some((id, n)) => (
            id,
            Some(
                n.parse::<usize>()
                    .map_err(|_| Usage(format!("bad query number in {reference:?}")))?,
            ),
        ),
        None => (reference, None),
    };
    let case = corpus.get(id).ok_or_else(|| {
        Usage(format!(
            "no case `{id}` in {}",
            paths::corpus_dir().display()
        ))
    })?;
    let picked: Vec<usize> = match n {
        Some(k) if k >= 1 && k <= case.queries.len() => vec![k - 1],
        Some(_) => {
            return Err(Usage(format!(
                "case `{id}` has queries 1..={}",
                case.queries.len()
            )))
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
fn print_json(
    rows: &[(String, String, Vec<Answer>)],
    unavailable: &[engine::oracle::Unavailable],
    job: &Job,
) {
    let mut oracles = serde_json::Map::new();
    for (name, version, answers) in rows {
        let cell = |a: &Answer| {
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
            serde_json::json!({"version": version, "outcome": outcome, "detail": detail})
        };
        let mut first = answers
            .first()
            .map(cell)
            .unwrap_or_else(|| serde_json::json!({}));
        if job.queries.len() > 1 {
            first["queries"] = answers.iter().map(cell).collect();
        }
        oracles.insert(name.clone(), first);
    }
    for u in unavailable {
        oracles.insert(
            u.oracle.clone(),
            serde_json::json!({"version": "unavailable", "outcome": "error",
                               "detail": format!("oracle unavailable: {} (fix: {})", u.reason, u.fix)}),
        );
    }
    println!("{}", serde_json::json!({ "oracles": oracles }));
}

fn print_human(
    rows: &[(String, String, Vec<Answer>)],
    unavailable: &[engine::oracle::Unavailable],
    job: &Job,
) {
    println!("{}", job.title);
    for (i, q) in job.queries.iter().enumerate() {
        println!(
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
        for (name, version, answers) in rows {
            let a = &answers[i];
            // The ledger's spelling (`error:ValueError`), ready to pin.
            let outcome = engine::ledger::pin_label(&a.outcome);
            println!("  {name:<16} {outcome:<11} {version}");
            let detail = a.outcome.detail();
            if !detail.is_empty() {
                println!("  {:<16} {}", "", detail);
            }
            if !a.explain.is_empty() {
                println!("  {:<16} why: {}", "", a.explain);
            }
        }
    }
    for u in unavailable {
        eprintln!("ERROR: {u}");
    }
}
