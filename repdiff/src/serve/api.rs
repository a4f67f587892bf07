//! The JSON API (docs/serve.md): what a request may hold, how it is
//! refused, and what it is answered. Nothing a request sends reaches a
//! shell or a path: bodies go to the oracles over their pipes, and the only
//! files served are the write-ups listed when the server started.

use super::pool::{Done, Pool, Refused, Work};
use crate::lint;
use base64::Engine as _;
use engine::oracle::{Answer, Ask, Query};
use oracles::profiles::aipref;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::time::Duration;

/// Per-request limits.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Bytes of request body (the JSON, the robots.txt inside it).
    pub max_body: usize,
    /// Questions one check may ask.
    pub max_queries: usize,
    /// Time from queueing to answer.
    pub request_time: Duration,
    /// A lint's time for finding lines and rewrites (below `request_time`).
    pub lint_budget: Duration,
    /// Whether `/api/lint` fetches a `url` (`serve --allow-fetch`), and
    /// which addresses it may reach (`--allow-private`).
    pub fetch: Option<lint::fetch::Targets>,
}

/// An answer: status and JSON.
pub struct Reply {
    pub status: u16,
    pub json: serde_json::Value,
}

impl Reply {
    pub fn ok(json: serde_json::Value) -> Reply {
        Reply { status: 200, json }
    }

    /// A refusal: status and one sentence saying why.
    pub fn error(status: u16, why: impl Into<String>) -> Reply {
        Reply {
            status,
            json: serde_json::json!({ "error": why.into() }),
        }
    }
}

/// The robots.txt of a request, as text or as base64 of its bytes (an
/// upload keeps its BOM and any bytes that are not UTF-8).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Request {
    #[serde(default)]
    pub robots: Option<String>,
    #[serde(default)]
    pub robots_base64: Option<String>,
    /// User agents to ask (check: crossed with `urls`; lint: asked for the
    /// file's paths as well as its own agents).
    #[serde(default)]
    pub agents: Vec<String>,
    #[serde(default)]
    pub urls: Vec<String>,
    /// `/api/lint` only, with `serve --allow-fetch`: a site whose
    /// /robots.txt the server fetches (RFC 9309 §2.3) instead of `robots`.
    #[serde(default)]
    pub fetch: Option<String>,
    /// `/api/lint` only: also ask the AI crawlers of the pinned list for
    /// `/` (`lint --ai-crawlers`).
    #[serde(default)]
    pub ai_crawlers: bool,
    /// `/api/check` only: give each verdict's deciding line, derived for
    /// the parsers that cannot tell it (one more call per candidate line
    /// per parser, so off unless asked).
    #[serde(default)]
    pub lines: bool,
    /// `/api/review` only: the earlier version of the file, as text; the
    /// review asks both versions the union of their questions.
    #[serde(default)]
    pub before: Option<String>,
    /// `/api/review` only: intended changes, as globs over "AGENT URL"
    /// (`lint --expect-change`).
    #[serde(default)]
    pub expect_change: Vec<String>,
}

impl Request {
    /// The request as JSON, or why not (400).
    pub fn parse(bytes: &[u8]) -> Result<Request, Reply> {
        serde_json::from_slice(bytes).map_err(|e| {
            Reply::error(
                400,
                format!("the request is not the JSON this API takes: {e}"),
            )
        })
    }

    /// The robots.txt bytes, or why not (400).
    fn body(&self) -> Result<Vec<u8>, Reply> {
        match (&self.robots, &self.robots_base64) {
            (Some(text), None) => Ok(text.as_bytes().to_vec()),
            (None, Some(b64)) => base64::engine::general_purpose::STANDARD
                .decode(b64)
                .map_err(|e| Reply::error(400, format!("robots_base64 is not base64: {e}"))),
            (None, None) => Err(Reply::error(
                400,
                "give the robots.txt as `robots` or `robots_base64`",
            )),
            (Some(_), Some(_)) => Err(Reply::error(
                400,
                "give `robots` or `robots_base64`, not both",
            )),
        }
    }
}

/// `POST /api/check`: every oracle's answer to each question. The
/// questions are every agent crossed with every URL when both are given,
/// else the ones `lint` derives from the file (plus those given).
pub fn check(pool: &Pool, limits: &Limits, req: &Request) -> Reply {
    let body = match req.body() {
        Ok(b) => b,
        Err(r) => return r,
    };
    let queries = match questions(&body, req, limits) {
        Ok(q) => q,
        Err(r) => return r,
    };
    let usage = usage_of(&body, &queries);
    let work = Work::Check {
        body: body.clone(),
        queries: queries.clone(),
        lines: req.lines,
    };
    match pool.submit(work, limits.request_time) {
        Ok(Done::Checked { answers, deciding }) => {
            let mut json = checked(&pool.names, &queries, &answers);
            if let Some(deciding) = deciding {
                add_deciding(&mut json, &pool.names, &body, &deciding);
            }
            if let Some(usage) = usage {
                json["usage_draft"] = aipref::DRAFT.into();
                for (row, u) in json["queries"]
                    .as_array_mut()
                    .into_iter()
                    .flatten()
                    .zip(usage)
                {
                    row["usage"] = u;
                }
            }
            Reply::ok(json)
        }
        Ok(_) => Reply::error(500, "the panel answered another kind of job"),
        Err(r) => refused(r, limits),
    }
}

/// The usage preference draft-ietf-aipref-attach-05 gives each question,
/// with its sentence (`text`), when the file has a `Content-Usage` rule.
fn usage_of(body: &[u8], queries: &[Query]) -> Option<Vec<serde_json::Value>> {
    let answers = aipref::usage_preferences(body, queries)?;
    Some(
        answers
            .into_iter()
            .map(|u| {
                let Some(u) = u else {
                    return serde_json::Value::Null;
                };
                let mut v = serde_json::to_value(&u).unwrap_or_default();
                v["text"] = u.describe().into();
                v
            })
            .collect(),
    )
}

fn questions(body: &[u8], req: &Request, limits: &Limits) -> Result<Vec<Query>, Reply> {
    let asked = req.agents.len().saturating_mul(req.urls.len());
    if asked > limits.max_queries {
        return Err(too_many(asked, limits));
    }
    let queries: Vec<Query> = if !req.agents.is_empty() && !req.urls.is_empty() {
        req.agents
            .iter()
            .flat_map(|agent| {
                req.urls.iter().map(move |url| Query {
                    ask: Ask::CanFetch,
                    agent: agent.clone(),
                    url: url.clone(),
                })
            })
            .collect()
    } else {
        if req.agents.len() + req.urls.len() > limits.max_queries {
            return Err(too_many(req.agents.len() + req.urls.len(), limits));
        }
        lint::questions::questions(
            body,
            &req.agents,
            &req.urls,
            lint::questions::DEFAULT_MAX_AGENTS,
            &[],
        )
        .0
        .iter()
        .map(|q| q.query())
        .collect()
    };
    if queries.len() > limits.max_queries {
        return Err(too_many(queries.len(), limits));
    }
    Ok(queries)
}

fn too_many(n: usize, limits: &Limits) -> Reply {
    Reply::error(
        422,
        format!(
            "{n} questions asked; this server answers at most {} per request",
            limits.max_queries
        ),
    )
}

/// One oracle's answer to one question.
#[derive(Serialize)]
struct Cell<'a> {
    /// As the ledger pins it: `allowed`, `disallowed`, `error:ValueError`,
    /// `timeout`, `crash`, `unsupported` (serialised as that text).
    outcome: engine::oracle::Label,
    detail: String,
    explain: &'a str,
}

fn checked(
    names: &[(String, String)],
    queries: &[Query],
    per_oracle: &[Vec<Answer>],
) -> serde_json::Value {
    let oracles = oracle_list(names);
    let rows: Vec<_> = queries
        .iter()
        .enumerate()
        .map(|(i, q)| {
            let answers: BTreeMap<&str, Cell> = names
                .iter()
                .zip(per_oracle)
                .filter_map(|((name, _), answers)| {
                    let a = answers.get(i)?;
                    Some((
                        name.as_str(),
                        Cell {
                            outcome: a.outcome.pin(),
                            detail: a.outcome.detail(),
                            explain: &a.explain,
                        },
                    ))
                })
                .collect();
            use engine::oracle::Label;
            let said = |l: Label| answers.values().any(|c| c.outcome == l);
            let split = said(Label::Allowed) && said(Label::Disallowed);
            serde_json::json!({ "agent": q.agent, "url": q.url, "split": split, "answers": answers })
        })
        .collect();
    serde_json::json!({ "oracles": oracles, "queries": rows })
}

/// The oracles in panel order, each with who runs it (`runs_in`, from its
/// manifest; empty for an `--oracle-cmd` one): the page groups its columns
/// by it.
pub fn oracle_list(names: &[(String, String)]) -> Vec<serde_json::Value> {
    let runs_in = crate::registry::runs_in().ok();
    names
        .iter()
        .map(|(name, identity)| {
            let runs = runs_in.and_then(|m| m.get(name)).map_or("", String::as_str);
            serde_json::json!({ "name": name, "identity": identity, "runs_in": runs })
        })
        .collect()
}

/// Each answer's deciding line (`{how, lines|why}` and its sentence as
/// `text`) under `deciding`, beside its outcome.
fn add_deciding(
    json: &mut serde_json::Value,
    names: &[(String, String)],
    body: &[u8],
    deciding: &[Vec<Option<crate::deciding::Found>>],
) {
    let Some(rows) = json["queries"].as_array_mut() else {
        return;
    };
    for (i, row) in rows.iter_mut().enumerate() {
        for ((name, _), found) in names.iter().zip(deciding) {
            let Some(Some(found)) = found.get(i) else {
                continue;
            };
            let mut d = found.json();
            d["text"] = found.describe(body).into();
            row["answers"][name.as_str()]["deciding"] = d;
        }
    }
}

/// What the ledger knows of a cause: entries that carry it and their
/// write-ups, so a page can link a lint finding to them.
#[derive(Debug, Clone, Serialize)]
pub struct Known {
    pub entry: String,
    pub title: String,
    /// The oracles the entry is about: the page links an entry only to a
    /// finding where one of them splits from the rest.
    pub oracles: Vec<String>,
    /// `/findings/<entry>.md` when a write-up exists.
    pub writeup: Option<String>,
}

/// `POST /api/lint`: `repdiff lint`'s JSON report (docs/lint.md) under
/// `lint`, under `known` the ledger entries of each cause it names, and
/// under `oracles` who runs each parser (the page groups by it).
pub fn lint(
    pool: &Pool,
    limits: &Limits,
    known: &BTreeMap<String, Vec<Known>>,
    causes: &std::sync::Arc<lint::attribute::KnownCauses>,
    req: &Request,
    program: &str,
) -> Reply {
    let (body, fetched) = match &req.fetch {
        Some(site) => match fetched_body(site, limits) {
            Ok((body, summary)) => (body, Some(summary)),
            Err(r) => return r,
        },
        None => match req.body() {
            Ok(b) => (b, None),
            Err(r) => return r,
        },
    };
    if req.agents.len() + req.urls.len() > limits.max_queries {
        return too_many(req.agents.len() + req.urls.len(), limits);
    }
    // Lint asks each given agent every path the file names: bound what it
    // will ask, not only what was sent.
    let asked = lint::questions::questions(
        &body,
        &req.agents,
        &req.urls,
        lint::questions::DEFAULT_MAX_AGENTS,
        &[],
    )
    .0
    .len();
    if asked > limits.max_queries {
        return too_many(asked, limits);
    }
    let name = req.fetch.as_deref().unwrap_or("the robots.txt sent");
    let mut file = match lint::input::check(name, body) {
        Ok(f) => f,
        Err(lint::input::Refusal(why)) => return Reply::error(422, why),
    };
    file.fetched = fetched;
    let ai_crawlers = if req.ai_crawlers {
        match crate::census_cmd::ai_crawlers::list(program) {
            Ok(list) => list.crawlers.into_iter().map(|c| c.token).collect(),
            Err(crate::shared::Usage(why)) => return Reply::error(422, why),
        }
    } else {
        Vec::new()
    };
    let work = Work::Lint {
        file,
        agents: req.agents.clone(),
        urls: req.urls.clone(),
        budget: limits.lint_budget,
        ai_crawlers,
        known: std::sync::Arc::clone(causes),
    };
    match pool.submit(work, limits.request_time) {
        Ok(Done::Linted(report)) => {
            let causes: BTreeMap<&str, &Vec<Known>> = report
                .groups
                .iter()
                .flat_map(|g| {
                    let rest = g.rewrite.iter().flat_map(|r| &r.apart);
                    g.apart.iter().chain(rest).filter_map(|a| a.cause.name())
                })
                .filter_map(|c| known.get_key_value(c))
                .map(|(k, v)| (k.as_str(), v))
                .collect();
            Reply::ok(serde_json::json!({
                "lint": lint::render::value(&report, program),
                "known": causes,
                "oracles": oracle_list(&report.oracles),
            }))
        }
        Ok(_) => Reply::error(500, "the panel answered another kind of job"),
        Err(r) => refused(r, limits),
    }
}

/// `POST /api/review`: `lint --before`'s change review (docs/lint.md)
/// of `before` against `robots` under `review`, and under `oracles` who
/// runs each parser.
pub fn review(pool: &Pool, limits: &Limits, req: &Request) -> Reply {
    let new = match req.body() {
        Ok(b) => b,
        Err(r) => return r,
    };
    let Some(old) = &req.before else {
        return Reply::error(400, "give the earlier version of the file as `before`");
    };
    if req.agents.len() + req.urls.len() > limits.max_queries {
        return too_many(req.agents.len() + req.urls.len(), limits);
    }
    let asked = |body: &[u8]| {
        lint::questions::questions(
            body,
            &req.agents,
            &req.urls,
            lint::questions::DEFAULT_MAX_AGENTS,
            &[],
        )
        .0
        .len()
    };
    let union = asked(old.as_bytes()) + asked(&new);
    if union > limits.max_queries {
        return too_many(union, limits);
    }
    let check = |name: &str, body: Vec<u8>| {
        lint::input::check(name, body).map_err(|lint::input::Refusal(why)| Reply::error(422, why))
    };
    let old = match check("the earlier version", old.as_bytes().to_vec()) {
        Ok(f) => f,
        Err(r) => return r,
    };
    let new = match check("the robots.txt sent", new) {
        Ok(f) => f,
        Err(r) => return r,
    };
    let work = Work::Review {
        old,
        new,
        agents: req.agents.clone(),
        urls: req.urls.clone(),
        expect_change: req.expect_change.clone(),
    };
    match pool.submit(work, limits.request_time) {
        Ok(Done::Reviewed(review)) => Reply::ok(serde_json::json!({
            "review": *review,
            "oracles": oracle_list(&pool.names),
        })),
        Ok(_) => Reply::error(500, "the panel answered another kind of job"),
        Err(r) => refused(r, limits),
    }
}

/// The robots.txt of `site`, fetched as RFC 9309 §2.3 says, with its
/// one-line summary; or why not: 403 when this server does not fetch, 422
/// when the URL is refused or gave no file to parse (a 4xx, a 5xx, no
/// response, a non-public address).
fn fetched_body(site: &str, limits: &Limits) -> Result<(Vec<u8>, String), Reply> {
    let Some(targets) = limits.fetch else {
        return Err(Reply::error(
            403,
            "this server does not fetch robots.txt files (start it with serve --allow-fetch)",
        ));
    };
    let robots = lint::fetch::robots_url(site)
        .map_err(|lint::input::Refusal(why)| Reply::error(422, why))?;
    let fetched = lint::fetch::fetch_to(&robots, targets);
    if !matches!(
        fetched.decision,
        oracles::rfc9309::AccessDecision::ParseBody { .. }
    ) {
        return Err(Reply::error(
            422,
            format!(
                "{}; RFC 9309: {}; no robots.txt to lint",
                fetched.summary(),
                fetched.decision.reason()
            ),
        ));
    }
    let summary = fetched.summary();
    Ok((fetched.body, summary))
}

fn refused(r: Refused, limits: &Limits) -> Reply {
    match r {
        Refused::Busy => Reply::error(
            503,
            "every worker is busy and the queue is full; try again shortly",
        ),
        Refused::TimedOut => Reply::error(
            504,
            format!(
                "no answer within this server's {} s per request",
                limits.request_time.as_secs_f64()
            ),
        ),
        Refused::Failed => Reply::error(
            500,
            "the panel failed on this request (a repdiff bug; see its log)",
        ),
    }
}
