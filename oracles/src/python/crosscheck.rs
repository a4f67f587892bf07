//! Fidelity checks of the Python adapters: a small deterministic generator of
//! robots.txt cases, a direct run of the same library in another interpreter
//! (`direct_runner.py`: a `python3` subprocess, or pyodide under node), and a
//! comparison of the two, answer by answer.
//!
//! Used by `oracles/tests/it/python_fidelity.rs` and `cargo xtask verify-cpython315`.

use engine::oracle::{Answer, Ask, Outcome, Query, Value};
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

/// The reference runner (shares no code with the glue).
pub const DIRECT_RUNNER: &str = include_str!("direct_runner.py");

/// One generated input: a body and the queries put to it.
#[derive(Debug, Clone)]
pub struct Case {
    pub body: Vec<u8>,
    pub queries: Vec<Query>,
}

pub use engine::rng::Rng;

const UA_FIELDS: &[&str] = &[
    "User-agent",
    "user-agent",
    "USER-AGENT",
    "User-Agent ",
    "useragent",
    "User agent",
];
const FILE_AGENTS: &[&str] = &[
    "*",
    "*",
    "*",
    "bot",
    "bot",
    "MyBot",
    "MyBot",
    "mybot",
    "Googlebot",
    "google",
    "bot*",
    "BöT",
    "my-bot",
    "*bot",
    "MyBot/1.0",
    "foo bot",
    "",
    "Mozilla",
];
const QUERY_AGENTS: &[&str] = &[
    "MyBot",
    "mybot",
    "MyBot/1.0",
    "Googlebot/2.1",
    "bot",
    "Bot",
    "BöT",
    "other",
    "*",
    "",
    "Mozilla/5.0 (compatible; MyBot/1.0)",
    "my-bot",
    "my_bot",
    "foo bot",
];
const RULE_FIELDS: &[&str] = &[
    "Disallow",
    "Disallow",
    "Disallow",
    "Allow",
    "Allow",
    "disallow",
    "ALLOW",
    "Dissallow",
    " Disallow",
    "Disallow ",
];
/// Path pieces: wildcards, anchors, percent escapes (valid, lowercase,
/// broken), non-ASCII, query and fragment characters.
const PIECES: &[&str] = &[
    "/",
    "/",
    "/a",
    "/b/",
    "/a/b",
    "/x",
    "*",
    "*",
    "$",
    "/%2F",
    "/%2f",
    "%41",
    "/%7E",
    "/~",
    "/%C3%A9",
    "/é",
    "/ü",
    "?",
    "?q=1",
    "&x=2",
    "=",
    "/index.html",
    ".php",
    "/**",
    "$$",
    "/a$b",
    "%",
    "%zz",
    "/%E2%82%AC",
    "/€",
    "/;p",
    "/A",
    "/a%3Fb",
    "/%3f",
    "%20",
    " x",
    "/robots.txt",
];
const URL_PIECES: &[&str] = &[
    "/",
    "/a",
    "/b/",
    "/a/b",
    "/x",
    "/%2F",
    "/%2f",
    "%41",
    "/%7E",
    "/~",
    "/%C3%A9",
    "/é",
    "/ü",
    "?",
    "?q=1",
    "&x=2",
    "=",
    "/index.html",
    ".php",
    "/a$b",
    "%",
    "%zz",
    "/€",
    "/;p",
    "/A",
    "/a%3Fb",
    "#frag",
    "*",
    "/%3f",
    "%20",
];
const SPECIAL_URLS: &[&str] = &[
    "https://example.test/robots.txt",
    "http://example.test/robots.txt?x",
    "/relative/path",
    "",
    "http://example.test",
    "http://[::1]/a",
    "http://[bad/a",
    "http://[v1.x]/a",
    "http://[V1.x]/a",
    "http://[127.0.0.1]/a",
    "http://[::1]x/a",
    "HTTP://EXAMPLE.TEST/A",
    "http://example.test/a?",
    "http://example.test/a?b",
    "http://u:p@example.test/a",
    "ftp://example.test/y",
    "http://example.test/a#b?c",
    "//example.test/a",
    "http://example.test\t/a",
    " http://example.test/a",
    "http://ex\u{2100}ample.test/a",
];
const DELAYS: &[&str] = &[
    "1",
    "0.5",
    "10",
    " 7 ",
    "abc",
    "-1",
    "²",
    "٣",
    "1e3",
    "99999999999999999999999",
    "0",
    "",
    "inf",
    "nan",
    "-0",
    "3 ",
];
const RATES: &[&str] = &[
    "3/10",
    "1/5s",
    "a/b",
    "3/",
    "٣/5",
    "1/0",
    "5/1m",
    "2/3 0100-0200",
    "99999999999999999999999/1",
    "-1/5",
    "1/2h",
];
const SITEMAPS: &[&[u8]] = &[
    b"http://example.test/s.xml",
    b"/rel.xml",
    "http://example.test/é.xml".as_bytes(),
    b"http://example.test/\xff.xml",
    b"",
];
const COMMENTS: &[&str] = &["# comment", "#", "  # indented comment"];
/// Line breaks: the common three, and what `str.splitlines()` also splits on.
const BREAKS: &[&[u8]] = &[
    b"\n",
    b"\n",
    b"\n",
    b"\r\n",
    b"\r\n",
    b"\r",
    b"\x0b",
    b"\x0c",
    b"\x1c",
    b"\xc2\x85",
    b"\xe2\x80\xa8",
];
/// Stray bytes: invalid UTF-8 and control characters.
const STRAY: &[&[u8]] = &[b"\xff", b"\xc3", b"\xe9", b"\x00", b"\t", b"\xef\xbb\xbf"];

fn path(rng: &mut Rng, pieces: &[&str]) -> String {
    let mut out = String::new();
    for _ in 0..1 + rng.below(4) {
        out.push_str(rng.pick(pieces));
    }
    out
}

fn rule_value(rng: &mut Rng, field: &str, paths: &mut Vec<String>) -> Vec<u8> {
    match field {
        "Crawl-delay" => rng.pick(DELAYS).as_bytes().to_vec(),
        "Request-rate" => rng.pick(RATES).as_bytes().to_vec(),
        "Sitemap" => rng.pick(SITEMAPS).to_vec(),
        _ => {
            if rng.chance(8) {
                Vec::new()
            } else {
                let p = path(rng, PIECES);
                paths.push(p.clone());
                p.into_bytes()
            }
        }
    }
}

/// One robots.txt body, and the paths of its rules (to aim queries at).
pub fn body(rng: &mut Rng) -> (Vec<u8>, Vec<String>) {
    let mut paths = Vec::new();
    let mut lines: Vec<Vec<u8>> = Vec::new();
    if rng.chance(10) {
        // A rule before any user-agent line.
        lines.push(format!("Disallow: {}", path(rng, PIECES)).into_bytes());
    }
    for _ in 0..rng.below(5) {
        if rng.chance(40) && !lines.is_empty() {
            lines.push(Vec::new());
        }
        for _ in 0..1 + rng.below(3) {
            let field = rng.pick(UA_FIELDS);
            let sep = if rng.chance(5) { " " } else { ": " };
            lines.push(format!("{field}{sep}{}", rng.pick(FILE_AGENTS)).into_bytes());
        }
        for _ in 0..rng.below(7) {
            let roll = rng.below(100);
            let field = match roll {
                0..=5 => "Crawl-delay",
                6..=10 => "Request-rate",
                11..=14 => "Sitemap",
                15..=17 => "Host",
                _ => rng.pick(RULE_FIELDS),
            };
            let mut line = field.as_bytes().to_vec();
            line.extend_from_slice(if rng.chance(4) { b" " } else { b": " });
            line.extend(rule_value(rng, field, &mut paths));
            if rng.chance(6) {
                line.extend_from_slice(b" # trailing comment");
            }
            if rng.chance(4) {
                line.extend_from_slice(rng.pick(STRAY));
            }
            lines.push(line);
            if rng.chance(7) {
                // A blank line inside a group ends it for the old CPython parser.
                lines.push(Vec::new());
            }
            if rng.chance(5) {
                lines.push(rng.pick(COMMENTS).as_bytes().to_vec());
            }
        }
    }
    if rng.chance(20) {
        lines.push(
            b"Sitemap: "
                .iter()
                .copied()
                .chain(rng.pick(SITEMAPS).iter().copied())
                .collect(),
        );
    }
    let mut out = Vec::new();
    if rng.chance(5) {
        out.extend_from_slice(b"\xef\xbb\xbf");
    }
    let main_break: &[u8] = rng.pick(&[b"\n" as &[u8], b"\r\n", b"\r"]);
    let mixed = rng.chance(15);
    for line in lines {
        if rng.chance(5) {
            out.extend_from_slice(b"  ");
        }
        out.extend(line);
        out.extend_from_slice(if mixed { rng.pick(BREAKS) } else { main_break });
    }
    if rng.chance(10) && !out.is_empty() {
        out.pop();
    }
    (out, paths)
}

/// One query URL: often aimed at one of the body's rule paths (wildcards
/// and anchors dropped or kept, something appended or not), else random.
pub fn url(rng: &mut Rng, paths: &[String]) -> String {
    if !paths.is_empty() && rng.chance(55) {
        let mut p = paths[rng.below(paths.len())].clone();
        if rng.chance(70) {
            p = p.replace(['*', '$'], "");
        }
        if rng.chance(50) {
            p.push_str(rng.pick(URL_PIECES));
        }
        if !p.starts_with('/') {
            p.insert(0, '/');
        }
        format!("http://example.test{p}")
    } else if rng.chance(25) {
        rng.pick(SPECIAL_URLS).to_string()
    } else {
        format!("http://example.test{}", path(rng, URL_PIECES))
    }
}

/// `n` cases from `seed`; the same arguments give the same cases.
pub fn generate(seed: u64, n: usize) -> Vec<Case> {
    let mut rng = Rng::new(seed);
    (0..n)
        .map(|_| {
            let (body, paths) = body(&mut rng);
            let mut queries = Vec::new();
            for _ in 0..3 + rng.below(6) {
                let ask = match rng.below(100) {
                    0..=69 => Ask::CanFetch,
                    70..=79 => Ask::CrawlDelay,
                    80..=89 => Ask::RequestRate,
                    _ => Ask::Sitemaps,
                };
                queries.push(Query {
                    ask,
                    agent: rng.pick(QUERY_AGENTS).to_string(),
                    url: if ask == Ask::CanFetch {
                        url(&mut rng, &paths)
                    } else {
                        String::new()
                    },
                });
            }
            Case { body, queries }
        })
        .collect()
}

/// An answer reduced to what both sides of a comparison can say.
#[derive(Debug, Clone, PartialEq)]
pub enum Canon {
    Allowed,
    Disallowed,
    None,
    Int(i64),
    /// f64 bits, every NaN the same.
    Float(u64),
    Rate(u64, u64),
    /// A request rate outside u64 (our adapter reports it as an error).
    Unrepresentable,
    List(Vec<String>),
    Error {
        kind: String,
        message: String,
    },
    Other(String),
}

fn float(f: f64) -> Canon {
    Canon::Float(if f.is_nan() {
        f64::NAN.to_bits()
    } else {
        f.to_bits()
    })
}

/// What our adapter answered.
pub fn canon_of_answer(answer: &Answer) -> Canon {
    match &answer.outcome {
        Outcome::Allowed => Canon::Allowed,
        Outcome::Disallowed => Canon::Disallowed,
        Outcome::Value { value } => match value {
            Value::None => Canon::None,
            Value::Int(i) => Canon::Int(*i),
            Value::Float(f) => float(*f),
            Value::Rate { requests, seconds } => Canon::Rate(*requests, *seconds),
            Value::List(items) => Canon::List(items.clone()),
        },
        Outcome::Error { kind, .. } if kind == "repdiff.Unrepresentable" => Canon::Unrepresentable,
        Outcome::Error { kind, message } => Canon::Error {
            kind: kind.clone(),
            message: message.clone(),
        },
        other => Canon::Other(format!("{other:?}")),
    }
}

/// What the direct runner answered (one JSON array, see direct_runner.py).
pub fn canon_of_direct(v: &serde_json::Value) -> Canon {
    let s = |i: usize| {
        v.get(i)
            .and_then(|x| x.as_str())
            .unwrap_or_default()
            .to_string()
    };
    match s(0).as_str() {
        "allowed" => Canon::Allowed,
        "disallowed" => Canon::Disallowed,
        "none" => Canon::None,
        "int" => match s(1).parse::<i64>() {
            Ok(i) => Canon::Int(i),
            Err(_) => float(s(1).parse::<f64>().unwrap_or(f64::NAN)),
        },
        "float" => float(s(1).parse::<f64>().unwrap_or(f64::NAN)),
        "rate" => match (s(1).parse::<u64>(), s(2).parse::<u64>()) {
            (Ok(r), Ok(sec)) => Canon::Rate(r, sec),
            _ => Canon::Unrepresentable,
        },
        "list" => Canon::List(
            v.get(1)
                .and_then(|x| x.as_array())
                .map(|items| {
                    items
                        .iter()
                        .map(|h| {
                            String::from_utf8_lossy(&unhex(h.as_str().unwrap_or(""))).into_owned()
                        })
                        .collect()
                })
                .unwrap_or_default(),
        ),
        "error" => Canon::Error {
            kind: s(1),
            message: s(2),
        },
        _ => Canon::Other(v.to_string()),
    }
}

pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn unhex(s: &str) -> Vec<u8> {
    (0..s.len() / 2)
        .filter_map(|i| u8::from_str_radix(&s[2 * i..2 * i + 2], 16).ok())
        .collect()
}

/// The runner's request for `library` ("cpython" or "protego") and `loader`.
pub fn request(library: &str, loader: serde_json::Value, cases: &[Case]) -> String {
    let cases: Vec<serde_json::Value> = cases
        .iter()
        .map(|c| {
            serde_json::json!({
                "body": hex(&c.body),
                "queries": c.queries.iter().map(|q| [q.ask.as_str(), q.agent.as_str(), q.url.as_str()]).collect::<Vec<_>>(),
            })
        })
        .collect();
    serde_json::json!({"library": library, "loader": loader, "cases": cases}).to_string()
}

/// What the direct run said.
#[derive(Debug)]
pub struct DirectRun {
    pub sys_version: String,
    pub library: String,
    pub results: Vec<Vec<Canon>>,
}

// String: a verification tool's message (verify-cpython315, the fidelity
// test), printed as it is.
pub fn parse_direct(reply: &str) -> Result<DirectRun, String> {
    let v: serde_json::Value =
        serde_json::from_str(reply).map_err(|e| format!("bad runner reply ({e}): {reply:.300}"))?;
    let results = v["results"]
        .as_array()
        .ok_or("runner reply has no results")?
        .iter()
        .map(|case| {
            case.as_array()
                .map(|answers| answers.iter().map(canon_of_direct).collect())
                .unwrap_or_default()
        })
        .collect();
    Ok(DirectRun {
        sys_version: v["sys_version"].as_str().unwrap_or_default().to_string(),
        library: v["library"].as_str().unwrap_or_default().to_string(),
        results,
    })
}

/// Run the direct runner with `python` (isolated mode), `request` on stdin.
// String: a verification tool's message (verify-cpython315, the fidelity
// test), printed as it is.
pub fn run_python(python: &Path, request: &str) -> Result<DirectRun, String> {
    let mut child = Command::new(python)
        .args(["-I", "-c", DIRECT_RUNNER])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run {}: {e}", python.display()))?;
    let mut stdin = child.stdin.take().expect("piped stdin");
    let request = request.to_string();
    let writer = std::thread::spawn(move || stdin.write_all(request.as_bytes()));
    let out = child
        .wait_with_output()
        .map_err(|e| format!("{} failed: {e}", python.display()))?;
    let _ = writer.join();
    if !out.status.success() {
        return Err(format!(
            "{} exited with {}: {}",
            python.display(),
            out.status,
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    parse_direct(&String::from_utf8_lossy(&out.stdout))
}

/// One answer on which the adapter and the direct run differ.
#[derive(Debug)]
pub struct Difference {
    pub case: usize,
    pub body: Vec<u8>,
    pub query: Query,
    pub ours: Canon,
    pub theirs: Canon,
}

impl std::fmt::Display for Difference {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "case {}: {} agent={:?} url={:?}\n  body: {:?}\n  adapter: {:?}\n  direct:  {:?}",
            self.case,
            self.query.ask.as_str(),
            self.query.agent,
            self.query.url,
            String::from_utf8_lossy(&self.body),
            self.ours,
            self.theirs
        )
    }
}

/// Every answer where `ours` and `theirs` differ (a missing answer counts).
pub fn compare(cases: &[Case], ours: &[Vec<Answer>], theirs: &[Vec<Canon>]) -> Vec<Difference> {
    let mut diffs = Vec::new();
    for (i, case) in cases.iter().enumerate() {
        for (j, query) in case.queries.iter().enumerate() {
            let a = ours
                .get(i)
                .and_then(|c| c.get(j))
                .map(canon_of_answer)
                .unwrap_or(Canon::Other("missing".into()));
            let b = theirs
                .get(i)
                .and_then(|c| c.get(j))
                .cloned()
                .unwrap_or(Canon::Other("missing".into()));
            if a != b {
                diffs.push(Difference {
                    case: i,
                    body: case.body.clone(),
                    query: query.clone(),
                    ours: a,
                    theirs: b,
                });
            }
        }
    }
    diffs
}
