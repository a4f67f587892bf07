//! `cargo xtask bench`: what a parser costs on its own, what it costs through
//! repdiff's worker process, and how `rfc9309` and `google` compare.
//!
//! Every figure is a median over interleaved samples taken in one run: the
//! contenders of a measurement take turns (the order rotates each round), so
//! drift on a busy machine hits all of them alike and their ratio holds even
//! when the absolute numbers do not. Each sample repeats its call enough
//! times to last a few milliseconds, so the clock's resolution does not
//! matter; calls are made once untimed first (warm-up and answer check).

use crate::{paths, setup};
use engine::oracle::{Answer, Ask, Oracle, Outcome, Query, Unavailable};
use engine::rng::Rng;
use engine::worker::{Limits, Supervised};
use repdiff::cli::Usage;
use serde_json::{json, Value};
use std::fmt::Write as _;
use std::hint::black_box;
use std::time::{Duration, Instant};

pub const HELP: &str = "\
Times each oracle answering a batch of 100 can_fetch queries on four bodies
generated in code (small: 10 lines, medium: 200 lines, large: ~500 KiB,
realistic: several groups with `*`, `$` and comments):

  raw      the oracle in this process: one `run(body, queries)` call;
  repdiff  the same call through a supervised worker (`xtask worker NAME`),
           as conformance runs it; overhead = repdiff / raw, target < 1.5x.

Then `rfc9309` against `google` on the small and large bodies, per query,
with the 100 queries in one call and asked one call each. Then the
external oracles, direct script vs protocol (full runs only), and a census
sample: the first 200 files of the census's default input (20 with --quick)
through every oracle as `cargo xtask census` runs them, in files/s and
queries/s.

A full run writes reports/run/bench/latest.md and latest.json (ignored by
git); a --quick or --oracle-filtered run writes partial.md and partial.json
there. --publish, on a full run, writes reports/bench/latest.* instead.
--quick is a smoke run (few, short samples): its figures are not meant to be
quoted. Exit status: 0 when every oracle ran, 1 when one could not (listed as
UNAVAILABLE), 2 on bad arguments. Missing the overhead target does not fail
the command: this is a measurement, not a gate.";

/// The overhead the worker process may add, per the issue: under 1.5x raw.
pub const TARGET_OVERHEAD: f64 = 1.5;

/// How long and how often to sample.
#[derive(Debug, Clone, Copy)]
pub struct Plan {
    /// Each contender is sampled for at least this much in total…
    pub min_time: Duration,
    /// …and at least this many rounds…
    pub min_rounds: usize,
    /// …but never more rounds than this,
    pub max_rounds: usize,
    /// and a measurement stops once it has taken this long and has
    /// `floor_rounds` rounds (slow Python on 500 KiB).
    pub max_wall: Duration,
    pub floor_rounds: usize,
    /// One sample repeats the call until it lasts about this long.
    pub sample_target: Duration,
}

impl Plan {
    pub fn full() -> Plan {
        Plan {
            min_time: Duration::from_millis(300),
            min_rounds: 7,
            max_rounds: 400,
            max_wall: Duration::from_secs(25),
            floor_rounds: 3,
            sample_target: Duration::from_millis(8),
        }
    }

    pub fn quick() -> Plan {
        Plan {
            min_time: Duration::from_millis(15),
            min_rounds: 2,
            max_rounds: 10,
            max_wall: Duration::from_millis(500),
            floor_rounds: 1,
            sample_target: Duration::from_millis(1),
        }
    }
}

// ---------------------------------------------------------------- bodies ---

/// A body and its batch of queries.
pub struct Body {
    pub name: &'static str,
    pub what: &'static str,
    pub text: String,
    pub queries: Vec<Query>,
}

impl Body {
    pub fn lines(&self) -> usize {
        self.text.lines().count()
    }
}

/// Queries per batch, as the issue states the target.
pub const BATCH: usize = 100;

/// Stay under 500 KiB, RFC 9309's minimum parsing limit (§2.5), so no oracle
/// truncates the large body and all of them answer the same question.
const LARGE_MAX_BYTES: usize = 510_000;

const SMALL: &str = "\
User-agent: *
Disallow: /private/
Allow: /private/public/
Disallow: /*.pdf$
Disallow: /search?
Allow: /search?about
Crawl-delay: 2

User-agent: Googlebot
Disallow: /nogoogle/
";

const REALISTIC: &str = "\
# robots.txt for www.example.com
# Questions: webmaster@example.com
# Last change: see the changelog of the site.

User-agent: *
Disallow: /admin/
Disallow: /cgi-bin/
Disallow: /cart
Disallow: /checkout/
Disallow: /account/
Allow: /account/login
Disallow: /search
Allow: /search/help$
Disallow: /*?sessionid=
Disallow: /*?sort=
Disallow: /*&sort=
Disallow: /*.json$
Disallow: /*.pdf$
Allow: /press/*.pdf$
Disallow: /tmp/
Disallow: /print/
Allow: /print/terms
Disallow: /api/
Allow: /api/docs/

# Google gets the archive, not the internal search
User-agent: Googlebot
User-agent: Googlebot-News
Disallow: /search
Disallow: /admin/
Disallow: /*?sessionid=
Allow: /archive/
Disallow: /archive/drafts/
Disallow: /*.json$

User-agent: Googlebot-Image
Disallow: /images/private/
Allow: /images/
Disallow: /*.gif$

User-agent: Bingbot
Crawl-delay: 5
Disallow: /search
Disallow: /archive/
Allow: /archive/2024/

# Crawlers we do not want at all
User-agent: GPTBot
User-agent: CCBot
Disallow: /

User-agent: DuckDuckBot
Disallow: /cart
Disallow: /admin/

Sitemap: https://www.example.com/sitemap.xml
Sitemap: https://www.example.com/news-sitemap.xml
";

/// Agents in generated files (`*` included) and agents the queries use.
const FILE_AGENTS: &[&str] = &[
    "*",
    "Googlebot",
    "Bingbot",
    "ExampleBot",
    "Googlebot-Image",
    "DuckDuckBot",
    "YandexBot",
    "Slurp",
];
const QUERY_AGENTS: &[&str] = &[
    "Googlebot",
    "googlebot-image",
    "Bingbot",
    "ExampleBot",
    "UnknownCrawler",
    "DuckDuckBot",
    "Slurp",
    "GPTBot",
];

/// One group of a generated file: comment, agents, rules of its own
/// section `/s{g}/` (so a path hits only its group's rules), a few global.
fn synthetic_group(rng: &mut Rng, g: usize, rules: (usize, usize)) -> Vec<String> {
    let mut out = Vec::new();
    if rng.below(2) == 0 {
        out.push(format!("# section {g}: generated rules"));
    }
    for _ in 0..rng.range(1, 2) {
        out.push(format!(
            "User-agent: {}",
            FILE_AGENTS[rng.below(FILE_AGENTS.len())]
        ));
    }
    if rng.below(8) == 0 {
        out.push(format!("Crawl-delay: {}", rng.range(1, 10)));
    }
    for _ in 0..rng.range(rules.0, rules.1) {
        let (b, c) = (rng.below(50), rng.below(400));
        out.push(match rng.below(10) {
            0 => format!("Disallow: /s{g}/p{b}/"),
            1 => format!("Allow: /s{g}/p{b}/public/"),
            2 => format!("Disallow: /s{g}/*.pdf$"),
            3 => format!("Disallow: /s{g}/*?sessionid="),
            4 => format!("Allow: /s{g}/p{b}/*.html$"),
            5 => format!("Disallow: /s{g}/p{b}/item-{c}"),
            6 => format!("Disallow: /s{g}/p{b}/*/edit"),
            7 => format!("Allow: /s{g}/p{b}/item-{c}/comments$"),
            8 => format!("Disallow: /*/tag-{c}/"),
            _ => format!("Disallow: /s{g}/tmp-{c}"),
        });
        if rng.below(40) == 0 {
            out.push(format!("# rule note {c}"));
        }
    }
    out.push(String::new());
    out
}

/// Generated lines until `done(lines so far, bytes so far)`, then a sitemap.
fn synthetic(seed: u64, rules: (usize, usize), done: impl Fn(usize, usize) -> bool) -> String {
    let mut rng = Rng::new(seed);
    let mut lines: Vec<String> = vec!["# generated by cargo xtask bench".into()];
    let mut bytes = lines[0].len() + 1;
    let mut g = 0;
    'outer: loop {
        for line in synthetic_group(&mut rng, g, rules) {
            if done(lines.len() + 1, bytes + line.len() + 1) {
                break 'outer;
            }
            bytes += line.len() + 1;
            lines.push(line);
        }
        g += 1;
    }
    let mut text = lines.join("\n");
    text.push('\n');
    text
}

/// A path derived from one rule of a body, with the agent of its group.
struct Derived {
    /// A path the rule matches.
    hit: String,
    /// A near miss: case changed, or a `$` end overrun.
    near: String,
    /// An agent the rule's group names (`UnknownCrawler` for `*`).
    agent: String,
}

/// Paths derived from the body's own rules, so answers go both ways.
fn rule_paths(text: &str) -> Vec<Derived> {
    let mut out = Vec::new();
    let mut agents: Vec<String> = Vec::new();
    let mut in_rules = false;
    for line in text.lines() {
        let Some((key, value)) = line.split_once(':') else {
            continue;
        };
        let key = key.trim().to_ascii_lowercase();
        let value = value.split('#').next().unwrap_or("").trim();
        if key == "user-agent" {
            if in_rules {
                agents.clear();
                in_rules = false;
            }
            agents.push(if value == "*" {
                "UnknownCrawler".to_string()
            } else {
                value.to_string()
            });
            continue;
        }
        if key != "allow" && key != "disallow" {
            continue;
        }
        in_rules = true;
        if !value.starts_with('/') || agents.is_empty() {
            continue;
        }
        let anchored = value.ends_with('$');
        let mut hit = value.trim_end_matches('$').replace('*', "any/thing");
        if hit.ends_with('/') {
            hit.push_str("page.html");
        }
        let near = if anchored {
            format!("{hit}?v=2")
        } else {
            // Paths match case-sensitively: `/Admin/` misses `/admin/`.
            let mut chars: Vec<char> = hit.chars().collect();
            match chars.iter().position(|c| c.is_ascii_lowercase()) {
                Some(i) => {
                    chars[i] = chars[i].to_ascii_uppercase();
                    chars.into_iter().collect()
                }
                None => format!("/other{hit}"),
            }
        };
        let agent = agents[out.len() % agents.len()].clone();
        out.push(Derived { hit, near, agent });
    }
    out
}

/// The batch for a body: 100 can_fetch queries, about half on paths a rule
/// of the file matches (anywhere in it, the end of a large file included),
/// a quarter on near misses, the rest on paths no rule names. Mostly by an
/// agent of the rule's group, sometimes by another one.
pub fn queries_for(text: &str, seed: u64) -> Vec<Query> {
    let derived = rule_paths(text);
    let mut rng = Rng::new(seed ^ 0x5eed);
    (0..BATCH)
        .map(|i| {
            let roll = rng.below(100);
            let d = (!derived.is_empty()).then(|| &derived[rng.below(derived.len())]);
            let (path, agent) = match d {
                Some(d) if roll < 80 => (
                    if roll < 55 { &d.hit } else { &d.near }.clone(),
                    if rng.below(4) == 0 {
                        QUERY_AGENTS[rng.below(QUERY_AGENTS.len())].to_string()
                    } else {
                        d.agent.clone()
                    },
                ),
                _ => (
                    match i % 4 {
                        0 => "/".to_string(),
                        1 => format!("/zz-{}/index.html", rng.below(1000)),
                        2 => format!("/s{}/unlisted?x={}", 100_000 + rng.below(100), i),
                        _ => "/about/contact".to_string(),
                    },
                    QUERY_AGENTS[rng.below(QUERY_AGENTS.len())].to_string(),
                ),
            };
            Query {
                ask: Ask::CanFetch,
                agent,
                url: format!("https://example.com{path}"),
            }
        })
        .collect()
}

/// The four bodies, always the same bytes and the same queries.
pub fn bodies() -> Vec<Body> {
    let make = |name, what, text: String, seed| Body {
        name,
        what,
        queries: queries_for(&text, seed),
        text,
    };
    vec![
        make("small", "10 lines, two groups", SMALL.to_string(), 1),
        make(
            "medium",
            "200 generated lines",
            synthetic(2, (5, 30), |lines, _| lines > 200),
            2,
        ),
        make(
            "large",
            "~500 KiB generated",
            synthetic(3, (20, 120), |_, bytes| bytes > LARGE_MAX_BYTES),
            3,
        ),
        make(
            "realistic",
            "site-like: 7 groups, `*`, `$`, comments",
            REALISTIC.to_string(),
            4,
        ),
    ]
}

// ------------------------------------------------------------- sampling ---

/// What one contender's samples say, in nanoseconds per unit of work.
#[derive(Debug, Clone)]
pub struct Stats {
    pub samples: Vec<f64>,
    /// Calls per sample.
    pub reps: usize,
}

impl Stats {
    pub fn median(&self) -> f64 {
        quantile(&self.samples, 0.5)
    }
    fn to_json(&self, per: usize) -> Value {
        json!({
            "median_ns": self.median(),
            "per_query_ns": self.median() / per.max(1) as f64,
            "p25_ns": quantile(&self.samples, 0.25),
            "p75_ns": quantile(&self.samples, 0.75),
            "samples": self.samples.len(),
            "calls_per_sample": self.reps,
        })
    }
}

pub fn quantile(xs: &[f64], q: f64) -> f64 {
    if xs.is_empty() {
        return f64::NAN;
    }
    let mut v = xs.to_vec();
    v.sort_by(f64::total_cmp);
    let pos = q * (v.len() - 1) as f64;
    let (lo, hi) = (pos.floor() as usize, pos.ceil() as usize);
    v[lo] + (v[hi] - v[lo]) * (pos - lo as f64)
}

/// Sample each unit of work in turn, rotating who goes first each round,
/// until the plan is satisfied. Callers warm their works up (the answer
/// check does); here each is called for a quarter of a sample's target (at
/// least once) to choose its repetitions per sample.
pub fn interleave(works: &mut [&mut dyn FnMut()], plan: &Plan) -> Vec<Stats> {
    let n = works.len();
    let mut stats: Vec<Stats> = Vec::with_capacity(n);
    let target = plan.sample_target.as_secs_f64();
    for w in works.iter_mut() {
        let t = Instant::now();
        let mut calls = 0usize;
        while calls == 0 || t.elapsed().as_secs_f64() < target / 4.0 {
            w();
            calls += 1;
        }
        let once = (t.elapsed().as_secs_f64() / calls as f64).max(1e-9);
        let reps = (target / once).ceil() as usize;
        stats.push(Stats {
            samples: Vec::new(),
            reps: reps.clamp(1, 100_000),
        });
    }
    let start = Instant::now();
    let mut spent = vec![0.0f64; n];
    let mut round = 0;
    loop {
        for k in 0..n {
            let i = (k + round) % n;
            let reps = stats[i].reps;
            let t = Instant::now();
            for _ in 0..reps {
                works[i]();
            }
            let el = t.elapsed().as_secs_f64();
            spent[i] += el;
            stats[i].samples.push(el * 1e9 / reps as f64);
        }
        round += 1;
        let enough =
            round >= plan.min_rounds && spent.iter().all(|s| *s >= plan.min_time.as_secs_f64());
        if enough
            || round >= plan.max_rounds
            || (round >= plan.floor_rounds && start.elapsed() >= plan.max_wall)
        {
            return stats;
        }
    }
}

/// Per-round ratios b/a of two contenders sampled in the same rounds.
fn paired_ratios(a: &Stats, b: &Stats) -> Vec<f64> {
    a.samples
        .iter()
        .zip(&b.samples)
        .map(|(x, y)| y / x)
        .collect()
}

// ----------------------------------------------------------- measurements ---

/// One oracle on one body, raw and through repdiff.
pub struct Row {
    pub oracle: String,
    pub version: String,
    pub body: &'static str,
    pub raw: Stats,
    pub repdiff: Stats,
    /// Median of the per-round ratios repdiff / raw (each round times the
    /// two back to back, so drift between rounds cancels): the headline.
    pub ratio: f64,
    /// Median repdiff / median raw, for comparison.
    pub ratio_of_medians: f64,
    pub ratio_p25: f64,
    pub ratio_p75: f64,
    /// Queries where raw and repdiff answered differently.
    pub mismatches: usize,
    /// Failure outcomes (error, crash, timeout) in the repdiff answers.
    pub failures: usize,
    pub first_failure: String,
}

impl Row {
    /// Figures that mean something: same answers, no failed calls.
    pub fn valid(&self) -> bool {
        self.mismatches == 0 && self.failures == 0
    }
    pub fn met(&self) -> bool {
        self.valid() && self.ratio < TARGET_OVERHEAD
    }
}

fn measure_overhead(raw: &mut dyn Oracle, sup: &mut Supervised, body: &Body, plan: &Plan) -> Row {
    let bytes = body.text.as_bytes();
    let q = &body.queries;
    let raw_answers = raw.run(bytes, q);
    let sup_answers = sup.run(bytes, q);
    let mismatches = raw_answers
        .iter()
        .zip(&sup_answers)
        .filter(|(a, b)| a != b)
        .count()
        + raw_answers.len().abs_diff(sup_answers.len());
    let failed: Vec<&Answer> = sup_answers
        .iter()
        .filter(|a| a.outcome.is_failure())
        .collect();
    let first_failure = failed
        .first()
        .map(|a| format!("{}: {}", a.outcome.label(), a.outcome.detail()))
        .unwrap_or_default();
    let failures = failed.len();
    let (raw_stats, sup_stats) = if failures > 0 {
        // A crashed or timed-out worker is not a speed: do not time it.
        let none = || Stats {
            samples: Vec::new(),
            reps: 0,
        };
        (none(), none())
    } else {
        let mut a = || {
            black_box(raw.run(black_box(bytes), black_box(q)));
        };
        let mut b = || {
            black_box(sup.run(black_box(bytes), black_box(q)));
        };
        let mut s = interleave(&mut [&mut a, &mut b], plan).into_iter();
        (
            s.next().unwrap_or_else(empty),
            s.next().unwrap_or_else(empty),
        )
    };
    let ratios = paired_ratios(&raw_stats, &sup_stats);
    Row {
        oracle: raw.name().to_string(),
        version: raw.version(),
        body: body.name,
        ratio: quantile(&ratios, 0.5),
        ratio_of_medians: sup_stats.median() / raw_stats.median(),
        ratio_p25: quantile(&ratios, 0.25),
        ratio_p75: quantile(&ratios, 0.75),
        raw: raw_stats,
        repdiff: sup_stats,
        mismatches,
        failures,
        first_failure,
    }
}

fn empty() -> Stats {
    Stats {
        samples: Vec::new(),
        reps: 0,
    }
}

/// `rfc9309` against `google` on one body: the batch in one call, and each
/// query in a call of its own (what a one-question caller pays).
pub struct HeadToHead {
    pub body: &'static str,
    pub bytes: usize,
    pub rfc_batch: Stats,
    pub google_batch: Stats,
    pub rfc_alone: Stats,
    pub google_alone: Stats,
    pub disagreements: usize,
}

fn head_to_head(
    rfc: &mut dyn Oracle,
    google: &mut dyn Oracle,
    body: &Body,
    plan: &Plan,
) -> HeadToHead {
    let bytes = body.text.as_bytes();
    let q = &body.queries;
    let disagreements = rfc
        .run(bytes, q)
        .iter()
        .zip(google.run(bytes, q))
        .filter(|(a, b)| a.outcome != b.outcome)
        .count();
    let (r, g) = (
        std::cell::RefCell::new(rfc),
        std::cell::RefCell::new(google),
    );
    let mut rb = || {
        black_box(r.borrow_mut().run(black_box(bytes), black_box(q)));
    };
    let mut gb = || {
        black_box(g.borrow_mut().run(black_box(bytes), black_box(q)));
    };
    let mut ra = || {
        for one in q.chunks(1) {
            black_box(r.borrow_mut().run(black_box(bytes), black_box(one)));
        }
    };
    let mut ga = || {
        for one in q.chunks(1) {
            black_box(g.borrow_mut().run(black_box(bytes), black_box(one)));
        }
    };
    let mut s = interleave(&mut [&mut rb, &mut gb, &mut ra, &mut ga], plan).into_iter();
    let mut next = || s.next().unwrap_or_else(empty);
    HeadToHead {
        body: body.name,
        bytes: bytes.len(),
        rfc_batch: next(),
        google_batch: next(),
        rfc_alone: next(),
        google_alone: next(),
        disagreements,
    }
}

// ----------------------------------------------------------------- main ---

#[derive(Debug, clap::Args)]
pub struct Opts {
    /// Bench only this oracle (repeatable)
    #[arg(long = "oracle", value_name = "NAME")]
    oracles: Vec<String>,
    /// A smoke run: few, short samples, not figures to quote
    #[arg(long)]
    quick: bool,
    /// Do not run setup first
    #[arg(long)]
    no_setup: bool,
    /// On a full run, write the committed reports/bench/latest.* instead
    #[arg(long)]
    publish: bool,
}

impl Opts {
    /// The command line as the report records it.
    fn command(&self) -> String {
        let mut words = vec!["cargo xtask bench".to_string()];
        words.extend(self.oracles.iter().map(|o| format!("--oracle {o}")));
        for (set, flag) in [
            (self.quick, "--quick"),
            (self.no_setup, "--no-setup"),
            (self.publish, "--publish"),
        ] {
            if set {
                words.push(flag.to_string());
            }
        }
        words.join(" ")
    }
}

pub fn main(opts: Opts) -> Result<i32, Usage> {
    // The built-in oracles (raw: an in-process call of the adapter) and the
    // external ones (bench_external: direct script vs protocol).
    let names = oracle_names(&opts.oracles)?;
    let filtered = !opts.oracles.is_empty();
    let quick = opts.quick;
    let plan = if quick { Plan::quick() } else { Plan::full() };
    if !opts.no_setup {
        setup::ensure_or_reexec();
    }

    let wall = Instant::now();
    let load_start = loadavg();
    let bodies = bodies();
    eprintln!(
        "bench: {} oracle(s) x {} bodies, {} queries per batch, {} plan; load average {load_start}",
        names.len(),
        bodies.len(),
        BATCH,
        if quick { "quick" } else { "full" },
    );
    for b in &bodies {
        eprintln!(
            "bench: body {:<9} {:>7} bytes {:>6} lines",
            b.name,
            b.text.len(),
            b.lines()
        );
    }
    let mix = hit_mix(&bodies);
    let registry = oracles::registry();
    let (rows, unavailable) = measure_builtins(&names, &registry, &bodies, &plan);
    let h2h = run_head_to_head(&names, &registry, &bodies, &plan, &unavailable);
    let external: Vec<crate::bench_external::ExtRow> = if quick {
        Vec::new()
    } else {
        eprintln!("bench: external oracles, direct script vs protocol");
        crate::bench_external::measure(&bodies, &names)
    };
    let census_row = crate::bench_census::measure(&names, quick);
    let meta = Meta {
        quick,
        filtered,
        commit: git_describe(),
        cpus: std::thread::available_parallelism().map_or(0, |n| n.get()),
        load_start,
        load_end: loadavg(),
        secs: wall.elapsed().as_secs_f64(),
        command: opts.command(),
    };
    let mut md = to_markdown(&meta, &bodies, &mix, &rows, &h2h, &unavailable);
    md.push_str(&crate::bench_external::to_markdown(&external));
    md.push_str(&crate::bench_census::to_markdown(&census_row));
    let json = to_json(&meta, &bodies, &mix, &rows, &h2h, &unavailable);
    let json = match serde_json::from_str::<Value>(&json) {
        Ok(mut doc) => {
            doc["external"] = crate::bench_external::to_json(&external);
            doc["census"] = crate::bench_census::to_json(&census_row);
            serde_json::to_string_pretty(&doc).unwrap_or(json) + "\n"
        }
        Err(_) => json,
    };
    print!("{}", terminal_tables(&rows, &h2h, &unavailable));
    if let Err(e) = write_outputs(&meta, opts.publish, &md, &json) {
        eprintln!("error: {e}");
        return Ok(1);
    }
    let invalid = rows.iter().any(|r| !r.valid());
    Ok(if unavailable.is_empty() && !invalid {
        0
    } else {
        1
    })
}

/// The oracles to bench: those named (checked as `check` checks them),
/// else every registered one.
fn oracle_names(named: &[String]) -> Result<Vec<String>, Usage> {
    crate::select::validate(named, &[])?;
    Ok(if named.is_empty() {
        crate::select::known_names()
    } else {
        named.to_vec()
    })
}

/// Every built-in oracle among `names`, in process and through its worker,
/// on every body; those that cannot start in both ways are unavailable.
fn measure_builtins(
    names: &[String],
    registry: &[oracles::Entry],
    bodies: &[Body],
    plan: &Plan,
) -> (Vec<Row>, Vec<Unavailable>) {
    let mut rows: Vec<Row> = Vec::new();
    let mut unavailable: Vec<Unavailable> = Vec::new();
    for (i, name) in names.iter().enumerate() {
        let Some(entry) = registry.iter().find(|e| e.name == name.as_str()) else {
            continue;
        };
        eprintln!(
            "bench: [{}/{}] {name}: starting in-process and worker",
            i + 1,
            names.len()
        );
        let (mut raw, mut sup) = match start_both(name, entry) {
            Ok(pair) => pair,
            Err(u) => {
                eprintln!("ERROR: {u}");
                unavailable.push(u);
                continue;
            }
        };
        for body in bodies {
            let t = Instant::now();
            let row = measure_overhead(raw.as_mut(), &mut sup, body, plan);
            eprintln!(
                "bench:   {name} x {:<9} raw {:>9}  repdiff {:>9}  {}  ({} rounds, {:.1} s)",
                body.name,
                fmt_ns(row.raw.median()),
                fmt_ns(row.repdiff.median()),
                if row.valid() {
                    format!("{:.2}x", row.ratio)
                } else {
                    format!(
                        "INVALID: {} mismatches, {} failures {}",
                        row.mismatches, row.failures, row.first_failure
                    )
                },
                row.raw.samples.len(),
                t.elapsed().as_secs_f64()
            );
            rows.push(row);
        }
    }
    (rows, unavailable)
}

/// One oracle in this process and the same one as a supervised worker (this
/// binary's `worker NAME`), or why either could not start.
fn start_both(
    name: &str,
    entry: &oracles::Entry,
) -> Result<(Box<dyn engine::oracle::Oracle>, Supervised), Unavailable> {
    let limits = Limits {
        // Python on 500 KiB is slow, and a slow call is a figure, not a fault.
        timeout: Duration::from_secs(120),
        max_restarts: 3,
        max_restarts_total: 1000,
        ..Limits::default()
    };
    let exe = crate::select::self_exe();
    let raw = (entry.make)();
    let sup = Supervised::start(name, vec![exe, "worker".into(), name.to_string()], limits);
    match (raw, sup) {
        (Ok(r), Ok(s)) => Ok((r, s)),
        (r, s) => {
            let mut why = Vec::new();
            let mut fix = String::new();
            if let Err(u) = r {
                why.push(format!("in process: {}", u.reason));
                fix = u.fix;
            }
            if let Err(u) = s {
                why.push(format!("worker: {}", u.reason));
                if fix.is_empty() {
                    fix = u.fix;
                }
            }
            Err(Unavailable {
                oracle: name.to_string(),
                reason: why.join("; "),
                fix,
            })
        }
    }
}

/// A plain run writes to the ignored run folder; --publish (a full run
/// only) replaces the committed reports/bench/latest.*.
fn write_outputs(meta: &Meta, publish: bool, md: &str, json: &str) -> Result<(), String> {
    let stem = if meta.quick || meta.filtered {
        "partial"
    } else {
        "latest"
    };
    let dir = if publish && stem == "latest" {
        paths::root().join("reports/bench")
    } else {
        paths::run_dir().join("bench")
    };
    for (ext, text) in [("md", md), ("json", json)] {
        let path = dir.join(format!("{stem}.{ext}"));
        engine::write_atomic(&path, text.as_bytes())
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    }
    println!(
        "\nreport: {} ({:.0} s)",
        dir.join(format!("{stem}.md")).display(),
        meta.secs
    );
    Ok(())
}

/// Outcome of the head-to-head section.
enum H2h {
    Ran(Vec<HeadToHead>),
    Skipped(String),
}

fn run_head_to_head(
    names: &[String],
    registry: &[oracles::Entry],
    bodies: &[Body],
    plan: &Plan,
    unavailable: &[Unavailable],
) -> H2h {
    let pair = [oracles::rfc9309::NAME, oracles::google::NAME];
    if let Some(missing) = pair.iter().find(|p| !names.iter().any(|n| n == *p)) {
        return H2h::Skipped(format!("`{missing}` not selected (--oracle)"));
    }
    if let Some(u) = unavailable
        .iter()
        .find(|u| pair.contains(&u.oracle.as_str()))
    {
        return H2h::Skipped(format!("NOT RUN: {u}"));
    }
    let make = |n: &str| registry.iter().find(|e| e.name == n).map(|e| (e.make)());
    let (Some(Ok(mut rfc)), Some(Ok(mut google))) = (make(pair[0]), make(pair[1])) else {
        return H2h::Skipped("NOT RUN: an oracle of the pair did not start".into());
    };
    let mut out = Vec::new();
    for body in bodies
        .iter()
        .filter(|b| b.name == "small" || b.name == "large")
    {
        eprintln!("bench: head-to-head rfc9309 vs google x {}", body.name);
        let h = head_to_head(rfc.as_mut(), google.as_mut(), body, plan);
        eprintln!(
            "bench:   per query, batched: rfc9309 {} google {} ({:.2}x); alone: rfc9309 {} google {} ({:.2}x)",
            fmt_ns(h.rfc_batch.median() / BATCH as f64),
            fmt_ns(h.google_batch.median() / BATCH as f64),
            h.google_batch.median() / h.rfc_batch.median(),
            fmt_ns(h.rfc_alone.median() / BATCH as f64),
            fmt_ns(h.google_alone.median() / BATCH as f64),
            h.google_alone.median() / h.rfc_alone.median(),
        );
        out.push(h);
    }
    H2h::Ran(out)
}

/// Per body, how `rfc9309` answers the batch: proof the queries hit and miss.
fn hit_mix(bodies: &[Body]) -> Vec<(usize, usize)> {
    let mut rfc = oracles::rfc9309::Rfc9309::default();
    bodies
        .iter()
        .map(|b| {
            let answers = rfc.run(b.text.as_bytes(), &b.queries);
            let dis = answers
                .iter()
                .filter(|a| a.outcome == Outcome::Disallowed)
                .count();
            (answers.len() - dis, dis)
        })
        .collect()
}

struct Meta {
    quick: bool,
    filtered: bool,
    commit: String,
    cpus: usize,
    load_start: String,
    load_end: String,
    secs: f64,
    command: String,
}

fn loadavg() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "unknown".into())
}

fn git_describe() -> String {
    std::process::Command::new("git")
        .args(["describe", "--always", "--dirty"])
        .current_dir(paths::root())
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_else(|| "unknown".into())
}

// -------------------------------------------------------------- output ---

pub fn fmt_ns(ns: f64) -> String {
    if !ns.is_finite() {
        return "-".into();
    }
    if ns < 0.0 {
        return format!("-{}", fmt_ns(-ns));
    }
    let (v, unit) = if ns < 1e3 {
        (ns, "ns")
    } else if ns < 1e6 {
        (ns / 1e3, "µs")
    } else if ns < 1e9 {
        (ns / 1e6, "ms")
    } else {
        (ns / 1e9, "s")
    };
    if v < 10.0 {
        format!("{v:.2} {unit}")
    } else if v < 100.0 {
        format!("{v:.1} {unit}")
    } else {
        format!("{v:.0} {unit}")
    }
}

/// A pipe table with padded columns: readable in a terminal and in Markdown.
/// Columns after the first two are right-aligned.
fn table(header: &[&str], rows: &[Vec<String>]) -> String {
    let width = |i: usize| {
        rows.iter()
            .map(|r| r[i].chars().count())
            .chain(std::iter::once(header[i].chars().count()))
            .max()
            .unwrap_or(0)
    };
    let widths: Vec<usize> = (0..header.len()).map(width).collect();
    let line = |cells: Vec<String>| {
        let padded: Vec<String> = cells
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let pad = widths[i].saturating_sub(c.chars().count());
                if i < 2 {
                    format!("{c}{}", " ".repeat(pad))
                } else {
                    format!("{}{c}", " ".repeat(pad))
                }
            })
            .collect();
        format!("| {} |\n", padded.join(" | "))
    };
    let mut out = line(header.iter().map(|s| s.to_string()).collect());
    out.push_str(&line(
        widths
            .iter()
            .enumerate()
            .map(|(i, w)| {
                let dashes = "-".repeat((*w).max(3));
                if i < 2 {
                    dashes
                } else {
                    format!("{}:", &dashes[1..])
                }
            })
            .collect(),
    ));
    for r in rows {
        out.push_str(&line(r.clone()));
    }
    out
}

fn overhead_table(rows: &[Row]) -> String {
    let cells: Vec<Vec<String>> = rows
        .iter()
        .map(|r| {
            let per = |s: &Stats| fmt_ns(s.median() / BATCH as f64);
            let (ratio, spread, of_medians, met) = if r.valid() {
                (
                    format!("{:.2}x", r.ratio),
                    format!("{:.2}–{:.2}", r.ratio_p25, r.ratio_p75),
                    format!("{:.2}x", r.ratio_of_medians),
                    if r.met() { "yes" } else { "NO" }.to_string(),
                )
            } else {
                (
                    "-".into(),
                    "-".into(),
                    "-".into(),
                    format!("INVALID ({} mismatch, {} failed)", r.mismatches, r.failures),
                )
            };
            vec![
                r.oracle.clone(),
                r.body.to_string(),
                fmt_ns(r.raw.median()),
                per(&r.raw),
                fmt_ns(r.repdiff.median()),
                per(&r.repdiff),
                fmt_ns(r.repdiff.median() - r.raw.median()),
                ratio,
                spread,
                of_medians,
                met,
                r.raw.samples.len().to_string(),
            ]
        })
        .collect();
    table(
        &[
            "oracle",
            "body",
            "raw batch",
            "raw /query",
            "repdiff batch",
            "repdiff /query",
            "added",
            "overhead",
            "p25–p75",
            "med/med",
            "< 1.5x",
            "rounds",
        ],
        &cells,
    )
}

fn h2h_table(h2h: &[HeadToHead]) -> String {
    let per = |s: &Stats| fmt_ns(s.median() / BATCH as f64);
    let cells: Vec<Vec<String>> = h2h
        .iter()
        .flat_map(|h| {
            [
                ("100 in one call", &h.rfc_batch, &h.google_batch),
                ("1 per call", &h.rfc_alone, &h.google_alone),
            ]
            .map(|(mode, r, g)| {
                vec![
                    format!("{} ({} B)", h.body, h.bytes),
                    mode.to_string(),
                    per(r),
                    per(g),
                    format!("{:.2}x", g.median() / r.median()),
                    r.samples.len().to_string(),
                ]
            })
        })
        .collect();
    table(
        &[
            "body",
            "queries",
            "rfc9309 /query",
            "google /query",
            "google / rfc9309",
            "rounds",
        ],
        &cells,
    )
}

fn terminal_tables(rows: &[Row], h2h: &H2h, unavailable: &[Unavailable]) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "\nOverhead: repdiff (worker process) vs raw (in process), batch of {BATCH} can_fetch, median"
    );
    out.push_str(&overhead_table(rows));
    for u in unavailable {
        let _ = writeln!(
            out,
            "UNAVAILABLE {}: {} (fix: {})",
            u.oracle, u.reason, u.fix
        );
    }
    let _ = writeln!(out, "\nHead-to-head: rfc9309 vs google, in process, median");
    match h2h {
        H2h::Ran(h) => out.push_str(&h2h_table(h)),
        H2h::Skipped(why) => {
            let _ = writeln!(out, "{why}");
        }
    }
    out
}

fn to_markdown(
    meta: &Meta,
    bodies: &[Body],
    mix: &[(usize, usize)],
    rows: &[Row],
    h2h: &H2h,
    unavailable: &[Unavailable],
) -> String {
    let mut md = md_header(meta, unavailable);
    md_bodies(&mut md, bodies, mix);
    md_overhead(&mut md, rows);
    md_head_to_head(&mut md, h2h);
    md
}

/// What ran, where and how loaded, and which oracle could not.
fn md_header(meta: &Meta, unavailable: &[Unavailable]) -> String {
    let mut md = String::new();
    let _ = writeln!(md, "# repdiff bench\n");
    if meta.quick {
        let _ = writeln!(
            md,
            "**Quick smoke run: few, short samples. Do not quote these figures.**\n"
        );
    }
    let _ = writeln!(
        md,
        "`{}` at `{}`, {} CPU(s), load average {} at start, {} at end, {:.0} s in all{}.\n",
        meta.command,
        meta.commit,
        meta.cpus,
        meta.load_start,
        meta.load_end,
        meta.secs,
        if meta.filtered {
            ", oracles filtered"
        } else {
            ""
        }
    );
    let _ = writeln!(
        md,
        "Each figure is the median of samples taken in one run, contenders \
         interleaved round by round (the order rotating), each sample repeating \
         its call to last about {} ms. Compare figures within this report, not \
         with another machine's or another run's: the machine may be busy, which \
         moves absolute times more than ratios.\n",
        if meta.quick { 1 } else { 8 }
    );
    for u in unavailable {
        let _ = writeln!(
            md,
            "> **UNAVAILABLE: `{}`**: {} (fix: `{}`)\n",
            u.oracle, u.reason, u.fix
        );
    }
    md
}

fn md_bodies(md: &mut String, bodies: &[Body], mix: &[(usize, usize)]) {
    let _ = writeln!(md, "## Bodies\n");
    let body_rows: Vec<Vec<String>> = bodies
        .iter()
        .zip(mix)
        .map(|(b, (allowed, dis))| {
            vec![
                b.name.to_string(),
                b.what.to_string(),
                b.text.len().to_string(),
                b.lines().to_string(),
                b.queries.len().to_string(),
                format!("{allowed} / {dis}"),
                setup::sha256_hex(b.text.as_bytes())[..12].to_string(),
            ]
        })
        .collect();
    md.push_str(&table(
        &[
            "body",
            "what",
            "bytes",
            "lines",
            "queries",
            "rfc9309 allowed / disallowed",
            "sha256",
        ],
        &body_rows,
    ));
    let _ = writeln!(
        md,
        "\nGenerated in `xtask/src/bench.rs`, byte for byte the same every run. \
         Queries are `can_fetch` for a mix of agents on paths derived from the \
         body's own rules (hits anywhere in the file), near misses and unlisted \
         paths. The large body stays under 500 KiB so no oracle truncates it.\n"
    );
}

fn md_overhead(md: &mut String, rows: &[Row]) {
    let _ = writeln!(md, "## Overhead of the worker process\n");
    let _ = writeln!(
        md,
        "raw: the oracle in this process, one `run(body, 100 queries)` call. \
         repdiff: the same call through `engine::worker::Supervised` and \
         `xtask worker NAME`, as `conformance` runs it (JSON header, raw body \
         bytes, JSON answers). added = median repdiff − median raw. Each round \
         times raw and repdiff back to back; overhead = the median of the \
         per-round ratios repdiff / raw (drift between rounds cancels), \
         p25–p75 their spread, med/med = median repdiff / median raw for \
         comparison. Target: overhead under {TARGET_OVERHEAD}x. A row is \
         INVALID when the two paths answered differently or the worker failed.\n"
    );
    md.push_str(&overhead_table(rows));
    let met = rows.iter().filter(|r| r.met()).count();
    let _ = writeln!(
        md,
        "\nTarget met in {met} of {} oracle × body measurements.\n",
        rows.len()
    );
    let missed: Vec<String> = rows
        .iter()
        .filter(|r| !r.met())
        .map(|r| format!("`{}` × {} ({:.2}x)", r.oracle, r.body, r.ratio))
        .collect();
    if !missed.is_empty() {
        let _ = writeln!(md, "Missed: {}.\n", missed.join(", "));
    }
    let _ = writeln!(md, "Versions:\n");
    let mut seen = Vec::new();
    for r in rows {
        if !seen.contains(&&r.oracle) {
            seen.push(&r.oracle);
            let _ = writeln!(md, "- `{}`: {}", r.oracle, r.version);
        }
    }
}

fn md_head_to_head(md: &mut String, h2h: &H2h) {
    let _ = writeln!(md, "\n## Head-to-head: rfc9309 vs google\n");
    match h2h {
        H2h::Ran(h) => {
            let _ = writeln!(
                md,
                "Both in process, same bodies and queries, interleaved. Per query = \
                 median time for all {BATCH} queries / {BATCH}: in one `run` call \
                 (rfc9309 parses once; google's `OneAgentAllowedByRobots` parses \
                 again for each query) and one `run` call per query (each parses).\n"
            );
            md.push_str(&h2h_table(h));
            for x in h {
                let _ = writeln!(
                    md,
                    "\n{}: the two disagree on {} of {} queries (not a speed issue; see the conformance report).",
                    x.body, x.disagreements, BATCH
                );
            }
        }
        H2h::Skipped(why) => {
            let _ = writeln!(md, "{why}");
        }
    }
}

fn to_json(
    meta: &Meta,
    bodies: &[Body],
    mix: &[(usize, usize)],
    rows: &[Row],
    h2h: &H2h,
    unavailable: &[Unavailable],
) -> String {
    let head = match h2h {
        H2h::Ran(h) => json!({
            "ran": true,
            "bodies": h.iter().map(|x| json!({
                "body": x.body,
                "bytes": x.bytes,
                "disagreements": x.disagreements,
                "batched": {
                    "rfc9309": x.rfc_batch.to_json(BATCH),
                    "google": x.google_batch.to_json(BATCH),
                    "google_over_rfc9309": x.google_batch.median() / x.rfc_batch.median(),
                },
                "one_per_call": {
                    "rfc9309": x.rfc_alone.to_json(BATCH),
                    "google": x.google_alone.to_json(BATCH),
                    "google_over_rfc9309": x.google_alone.median() / x.rfc_alone.median(),
                },
            })).collect::<Vec<_>>(),
        }),
        H2h::Skipped(why) => json!({"ran": false, "reason": why}),
    };
    let finite = |x: f64| if x.is_finite() { json!(x) } else { Value::Null };
    let doc = json!({
        "tool": "cargo xtask bench",
        "command": meta.command,
        "quick": meta.quick,
        "filtered": meta.filtered,
        "commit": meta.commit,
        "cpus": meta.cpus,
        "load_average_start": meta.load_start,
        "load_average_end": meta.load_end,
        "seconds": meta.secs,
        "batch": BATCH,
        "target_overhead": TARGET_OVERHEAD,
        "bodies": bodies.iter().zip(mix).map(|(b, (allowed, dis))| json!({
            "name": b.name,
            "what": b.what,
            "bytes": b.text.len(),
            "lines": b.lines(),
            "queries": b.queries.len(),
            "rfc9309_allowed": allowed,
            "rfc9309_disallowed": dis,
            "sha256": setup::sha256_hex(b.text.as_bytes()),
        })).collect::<Vec<_>>(),
        "unavailable": unavailable.iter().map(|u| json!({
            "oracle": u.oracle, "reason": u.reason, "fix": u.fix,
        })).collect::<Vec<_>>(),
        "overhead": rows.iter().map(|r| json!({
            "oracle": r.oracle,
            "version": r.version,
            "body": r.body,
            "raw": r.raw.to_json(BATCH),
            "repdiff": r.repdiff.to_json(BATCH),
            "overhead": finite(r.ratio),
            "overhead_ratio_of_medians": finite(r.ratio_of_medians),
            "round_ratio_p25": finite(r.ratio_p25),
            "round_ratio_p75": finite(r.ratio_p75),
            "valid": r.valid(),
            "met": r.met(),
            "mismatches": r.mismatches,
            "failures": r.failures,
            "first_failure": r.first_failure,
        })).collect::<Vec<_>>(),
        "head_to_head": head,
    });
    let mut s = serde_json::to_string_pretty(&doc).unwrap_or_default();
    s.push('\n');
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bodies_are_deterministic_and_sized() {
        let (a, b) = (bodies(), bodies());
        for (x, y) in a.iter().zip(&b) {
            assert_eq!(x.text, y.text, "{}", x.name);
            assert_eq!(x.queries, y.queries, "{}", x.name);
            assert_eq!(x.queries.len(), BATCH, "{}", x.name);
        }
        let by = |n: &str| a.iter().find(|b| b.name == n).unwrap();
        assert_eq!(by("small").lines(), 10);
        assert_eq!(by("medium").lines(), 200);
        let large = by("large").text.len();
        assert!((490_000..=512_000).contains(&large), "{large}");
        let real = &by("realistic").text;
        assert!(real.matches("User-agent:").count() >= 5);
        for needle in ["*", "$", "#", "Sitemap:"] {
            assert!(real.contains(needle), "{needle}");
        }
    }

    #[test]
    fn every_batch_both_allows_and_disallows() {
        let b = bodies();
        for (body, (allowed, dis)) in b.iter().zip(hit_mix(&b)) {
            assert!(allowed >= 10 && dis >= 10, "{}: {allowed}/{dis}", body.name);
        }
    }

    #[test]
    fn quick_plan_samples_every_contender() {
        // A smoke test of the sampler: counts only, never timings.
        let body = &bodies()[0];
        let mut rfc = oracles::rfc9309::Rfc9309::default();
        let mut calls = 0usize;
        let mut a = || {
            black_box(rfc.run(body.text.as_bytes(), &body.queries));
        };
        let mut b = || calls += 1;
        let stats = interleave(&mut [&mut a, &mut b], &Plan::quick());
        assert_eq!(stats.len(), 2);
        assert_eq!(stats[0].samples.len(), stats[1].samples.len());
        assert!(!stats[0].samples.is_empty());
        assert!(stats.iter().all(|s| s.reps >= 1));
        assert!(calls >= 2);
    }

    #[test]
    fn quantiles_and_units() {
        assert_eq!(quantile(&[3.0, 1.0, 2.0], 0.5), 2.0);
        assert_eq!(quantile(&[1.0, 2.0], 0.5), 1.5);
        assert!(quantile(&[], 0.5).is_nan());
        assert_eq!(fmt_ns(1500.0), "1.50 µs");
        assert_eq!(fmt_ns(2.5e9), "2.50 s");
    }
}
