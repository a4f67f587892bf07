//! The queries the census asks about one file, derived from the file alone.
//!
//! Real files carry no expectations, so the census cannot ask what a
//! parser *should* say; it asks questions a crawler would really put, in
//! places where the file's own rules make parsers likely to part ways, and
//! counts where they answer differently. The derivation is a pure function
//! of the bytes, so two runs (or two shards) ask exactly the same queries.
//!
//! The file is read leniently (lines split on CR, LF or CRLF, `#` starts a
//! comment, `key: value` with the key case-folded); this reading only picks
//! the questions, it decides nothing.
//!
//! The questions come in two parts. The first is a fixed budget, the same
//! as before every rule was asked (so a file's first [`MAX_QUERIES`]
//! questions do not move from one census to the next):
//!
//! - Agents: the product token (see [`product_token`]) of every distinct
//!   `user-agent` value except `*`, in order of first appearance, at most
//!   [`MAX_FILE_AGENTS`]; then `ExampleBot` (a crawler no file names, so it
//!   meets the `*` group) and `Googlebot`.
//! - Paths: `/`, then [`COMMON_PATHS`], then for each distinct `allow` or
//!   `disallow` value (the first [`MAX_RULES`] of them, empty values
//!   skipped): a near miss (the rule's match minus its last character,
//!   when that still leaves a path), the match with a query string (`?q=1`,
//!   or `&q=1` when it has one), the match with its first letter or digit
//!   %-encoded (`/admin` -> `/%61dmin`), and a path the rule matches (`*`
//!   becomes `x`, a final `$` is dropped, a leading `/` is added when
//!   missing). Bytes outside printable ASCII are %-encoded so every URL is
//!   a valid one. Duplicates are dropped, first occurrence kept.
//! - Queries: every path for every agent, path-major (all agents ask `/`
//!   first), cut at [`MAX_QUERIES`].
//!
//! The second part asks every rule: for each distinct rule value in file
//! order, its match and its query-string variant, each asked by the agents
//! of the group(s) holding the rule (the product tokens of the group's
//! `user-agent` lines; `*`, or a token left empty, as `ExampleBot`; a rule
//! before any `user-agent` line as `ExampleBot`), unless that agent already
//! asks that URL. A rule past the budget is so still asked where it
//! applies, by the crawler it names. Most parsers match a question against
//! every rule, so asking every rule of a file costs its rules squared: the
//! second part stops when the file's questions times its distinct rules
//! would pass [`MAX_WORK`]. That asks every rule of a file of up to about
//! 1,300 rules (4,228 of the 4,231 files of the default data); of the
//! three larger ones (3,157, 4,997 and 31,843 rules), the first rules
//! that fit.
//!
//! Each question says its [`Kind`], and each kind its [`Origin`]: *written*
//! (what a crawler following the site's own links asks), *near miss* (a
//! rule's match minus one character: a URL the site may well not have,
//! kept to find off-by-one matching) and *probe* (the %-encoded variant, a
//! URL no link contains). The census counts each origin in a section of
//! its own. A question on a URL no crawler requests (the path
//! `/robots.txt` itself, or a URL ending in a bare `?`) is marked
//! [`Url::unrequested`]: asked and counted in its section, but left out of
//! the headline.
//!
//! URLs are `https://HOST/PATH` with the file's host when it looks like a
//! host name, `example.com` otherwise. Deriving is linear in the file
//! (hash indexes, no list scans): a real file can hold tens of thousands
//! of rules.

use engine::oracle::{Ask, Query};
use std::collections::{HashMap, HashSet};

/// Agents taken from the file. Most files name fewer; the few naming
/// hundreds of bots would otherwise swamp the per-file budget.
pub const MAX_FILE_AGENTS: usize = 6;
/// Rules whose every variant (near miss, probe) is crossed with every
/// agent; the rules past them are asked only as written, by their groups.
pub const MAX_RULES: usize = 24;
/// The budget of the first part: every file asks at least its first
/// [`MAX_QUERIES`] questions as they always were.
pub const MAX_QUERIES: usize = 160;
/// The second part's bound: a file's questions times its distinct rules,
/// about the rule matches each parser makes for it. Unbounded, the file of
/// 31,843 rules asked 63,812 questions, two billion matches per parser
/// (one worker spent minutes of CPU on it alone).
pub const MAX_WORK: usize = 4_000_000;

pub const GENERIC_AGENTS: &[&str] = &["ExampleBot", "Googlebot"];

/// The agent that asks a rule of a `*` group (and of no group): a crawler
/// no file names.
const ANY_AGENT: &str = "ExampleBot";

/// Paths most sites have and most files talk about.
pub const COMMON_PATHS: &[&str] = &[
    "/index.html",
    "/search?q=robots",
    "/admin/",
    "/wp-admin/admin-ajax.php",
    "/login",
    "/cart",
    "/api/v1/items",
    "/images/logo.png",
    "/private/",
    "/sitemap.xml",
];

/// What kind of question a query is; [`Kind::origin`] says which section
/// of the census counts it (add a kind with its origin).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Kind {
    /// `/`.
    Root,
    /// A path a rule names: the rule with `*` as `x`, a final `$` dropped.
    RuleMatch,
    /// One of [`COMMON_PATHS`].
    Common,
    /// A rule's match minus its last character.
    NearMiss,
    /// A rule's match with a query string.
    QueryString,
    /// A rule's match with its first letter or digit %-encoded
    /// (`/admin` -> `/%61dmin`): a URL no link on the site contains.
    Escaped,
}

/// Where a question comes from: the census reports each apart, so a
/// figure says what was asked.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "kebab-case")]
pub enum Origin {
    /// What a crawler following the site's own links asks: `/`, the
    /// common paths, a rule's match and its query-string variant.
    Written,
    /// A rule's match minus its last character: a URL the site need not
    /// have, asked to find off-by-one matching (`repdiff lint` keeps it:
    /// it is useful to a site owner).
    NearMiss,
    /// A rewriting we invent (the %-encoded variant): a URL no link holds.
    Probe,
}

impl Kind {
    pub fn origin(self) -> Origin {
        match self {
            Kind::NearMiss => Origin::NearMiss,
            Kind::Escaped => Origin::Probe,
            Kind::Root | Kind::RuleMatch | Kind::Common | Kind::QueryString => Origin::Written,
        }
    }

    /// A question we made up, not one a crawler following the site's own
    /// links would ask.
    pub fn probe(self) -> bool {
        self.origin() == Origin::Probe
    }

    /// `/` or a path the site's own rules name: what the headline counts.
    pub fn named_by_file(self) -> bool {
        matches!(self, Kind::Root | Kind::RuleMatch)
    }
}

/// One URL of a file's questions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Url {
    /// `https://HOST/PATH`.
    pub url: String,
    pub kind: Kind,
    /// Built from a rule whose pattern covers the whole site (`/`, `/*`,
    /// `*`, `/$`): the high-impact list follows these.
    pub whole_site: bool,
    /// A URL no crawler requests ([`unrequested`]): the headline leaves
    /// it out.
    pub unrequested: bool,
}

#[derive(Debug, Clone)]
pub struct Asked {
    pub query: Query,
    pub kind: Kind,
    pub whole_site: bool,
    /// See [`Url::unrequested`].
    pub unrequested: bool,
}

/// Whether no crawler requests `path` (the part after the host): the
/// robots.txt file itself (which a crawler fetches, never checks), or a
/// URL ending in a bare `?`, which clients drop before requesting. A
/// parser's answer on it decides nothing a crawler does.
pub fn unrequested(path: &str) -> bool {
    path.split('?').next() == Some("/robots.txt") || path.ends_with('?')
}

/// What the derivation reads off a file before crossing agents and paths:
/// for a consumer that crosses them otherwise (`repdiff lint` asks every
/// path for every agent, uncut).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Derived {
    /// The product tokens of the file's agents (at most
    /// [`MAX_FILE_AGENTS`], or the limit given to [`read_with`]), then
    /// [`GENERIC_AGENTS`].
    pub agents: Vec<String>,
    /// The file's agents past that limit, in file order: not asked, and
    /// said so by the tools that show questions to a person.
    pub skipped_agents: Vec<String>,
    /// The paths of the first [`MAX_RULES`] rules (the first part only).
    pub urls: Vec<Url>,
}

/// The product token a crawler named by a `user-agent` line sends: the
/// name up to the first `*`, `/`, space, `(`, `;` or `,`
/// (`Mediapartners-Google*` -> `Mediapartners-Google`, `Googlebot/2.1` ->
/// `Googlebot`). Digits stay (`MJ12bot` is that crawler's token, whatever
/// RFC 9309's letters-only grammar says). Empty when nothing is left.
pub fn product_token(name: &str) -> &str {
    let end = name
        .find(|c: char| matches!(c, '*' | '/' | '(' | ';' | ',') || c.is_whitespace())
        .unwrap_or(name.len());
    &name[..end]
}

/// One lenient pass over a file: its agents, its distinct rules in file
/// order and, per rule, the agents of the groups holding it.
struct Scan<'t> {
    agents: Vec<String>,
    skipped_agents: Vec<String>,
    rules: Vec<&'t str>,
    /// `holders[i]`: the agents asking `rules[i]`, first appearance first.
    holders: Vec<Vec<&'t str>>,
}

fn scan(text: &str, max_agents: usize) -> Scan<'_> {
    let mut s = Scan {
        agents: Vec::new(),
        skipped_agents: Vec::new(),
        rules: Vec::new(),
        holders: Vec::new(),
    };
    // Indexes beside the lists: a real file can hold tens of thousands of
    // rules, and a linear duplicate check made deriving quadratic.
    let mut seen_agents = HashSet::new();
    let mut rule_at: HashMap<&str, usize> = HashMap::new();
    let mut held: HashSet<(usize, &str)> = HashSet::new();
    // The current group's agents; a `user-agent` line after any other
    // line starts a new group, as RFC 9309 groups them.
    let mut group: Vec<&str> = vec![ANY_AGENT];
    let mut in_agents = false;
    for line in text.split(['\n', '\r']) {
        let line = line.split('#').next().unwrap_or("");
        let Some((key, value)) = line.split_once(':') else {
            continue;
        };
        let (key, value) = (key.trim().to_ascii_lowercase(), value.trim());
        if key == "user-agent" {
            if !in_agents {
                group.clear();
                in_agents = true;
            }
            let token = product_token(value);
            group.push(if token.is_empty() { ANY_AGENT } else { token });
            if !token.is_empty() && seen_agents.insert(token) {
                if s.agents.len() < max_agents {
                    s.agents.push(token.to_string());
                } else {
                    s.skipped_agents.push(token.to_string());
                }
            }
            continue;
        }
        in_agents = false;
        if (key == "allow" || key == "disallow") && !value.is_empty() {
            let i = *rule_at.entry(value).or_insert_with(|| {
                s.rules.push(value);
                s.holders.push(Vec::new());
                s.rules.len() - 1
            });
            for &agent in &group {
                if held.insert((i, agent)) {
                    s.holders[i].push(agent);
                }
            }
        }
    }
    for g in GENERIC_AGENTS {
        if !s.agents.iter().any(|a| a == g) {
            s.agents.push(g.to_string());
        }
    }
    s
}

/// The agents and URLs of [`derive()`]'s first part, not yet crossed nor cut.
pub fn read(host: &str, body: &[u8]) -> Derived {
    read_with(host, body, MAX_FILE_AGENTS)
}

/// [`read`] taking at most `max_agents` of the file's agents.
pub fn read_with(host: &str, body: &[u8], max_agents: usize) -> Derived {
    let text = String::from_utf8_lossy(body);
    let s = scan(&text, max_agents);
    let base = url_base(host);
    let rules = &s.rules[..s.rules.len().min(MAX_RULES)];
    let urls = paths(rules)
        .into_iter()
        .map(|(path, kind, whole_site)| Url {
            unrequested: unrequested(&path),
            url: format!("{base}{path}"),
            kind,
            whole_site,
        })
        .collect();
    Derived {
        agents: s.agents,
        skipped_agents: s.skipped_agents,
        urls,
    }
}

/// Every question the census asks about a file: the budgeted first part,
/// then every rule's match and query-string variant for the agents its
/// groups name (see the module's documentation).
pub fn derive(host: &str, body: &[u8]) -> Vec<Asked> {
    let text = String::from_utf8_lossy(body);
    let s = scan(&text, MAX_FILE_AGENTS);
    let base = url_base(host);
    let budgeted = &s.rules[..s.rules.len().min(MAX_RULES)];
    let mut out = Vec::new();
    let mut seen: HashSet<(String, String)> = HashSet::new();
    let mut ask = |out: &mut Vec<Asked>, agent: &str, path: &str, kind: Kind, whole: bool| {
        let url = format!("{base}{path}");
        if seen.insert((agent.to_string(), url.clone())) {
            out.push(Asked {
                query: Query {
                    ask: Ask::CanFetch,
                    agent: agent.to_string(),
                    url,
                },
                kind,
                whole_site: whole,
                unrequested: unrequested(path),
            });
        }
    };
    'outer: for (path, kind, whole) in paths(budgeted) {
        for agent in &s.agents {
            if out.len() == MAX_QUERIES {
                break 'outer;
            }
            ask(&mut out, agent, &path, kind, whole);
        }
    }
    let (written, named) = rule_paths(&s.rules);
    let most = MAX_QUERIES.max(MAX_WORK / s.rules.len().max(1));
    for (i, pair) in written.iter().enumerate() {
        if out.len() >= most {
            break;
        }
        for path in pair {
            let (kind, whole) = named[path.as_str()];
            for agent in &s.holders[i] {
                ask(&mut out, agent, path, kind, whole);
            }
        }
    }
    out
}

/// Each rule's match and query-string variant, and per path the kind it
/// takes (the first in [`Kind`]'s order of the rules reaching it) and
/// whether a whole-site rule reaches it.
#[allow(clippy::type_complexity)]
fn rule_paths(rules: &[&str]) -> (Vec<[String; 2]>, HashMap<String, (Kind, bool)>) {
    let mut named: HashMap<String, (Kind, bool)> = HashMap::new();
    let written: Vec<[String; 2]> = rules
        .iter()
        .map(|rule| {
            let (m, whole) = rule_match(rule);
            let q = with_query(&m);
            for (p, k) in [(&m, Kind::RuleMatch), (&q, Kind::QueryString)] {
                let e = named.entry(p.clone()).or_insert((k, whole));
                *e = (e.0.min(k), e.1 | whole);
            }
            [m, q]
        })
        .collect();
    (written, named)
}

/// The path a rule matches (`*` as `x`, a final `$` dropped, `/` added in
/// front when missing, %-encoded), and whether the rule covers the whole
/// site.
fn rule_match(rule: &str) -> (String, bool) {
    let whole = matches!(rule, "/" | "/*" | "*" | "/$");
    let mut m = rule.replace('*', "x");
    if m.ends_with('$') {
        m.pop();
    }
    let m = encode(&if m.starts_with('/') {
        m
    } else {
        format!("/{m}")
    });
    (m, whole)
}

/// A rule's match with a query string: `?q=1`, or `&q=1` when it has one.
fn with_query(m: &str) -> String {
    let sep = if m.contains('?') { '&' } else { '?' };
    format!("{m}{sep}q=1")
}

/// Each path with its kind and whether a whole-site rule built it. A path
/// reached twice keeps its first place and the kind that comes first in
/// [`Kind`]'s order (a probe of one rule that is another rule's path as
/// written counts as written; a near miss that another rule names counts
/// as named): the set of queries is the same either way.
fn paths(rules: &[&str]) -> Vec<(String, Kind, bool)> {
    let mut out: Vec<(String, Kind, bool)> = Vec::new();
    let mut at: HashMap<String, usize> = HashMap::new();
    let mut push = |p: String, k: Kind, whole: bool| match at.get(&p) {
        Some(&i) => {
            let seen = &mut out[i];
            seen.1 = seen.1.min(k);
            seen.2 |= whole;
        }
        None => {
            at.insert(p.clone(), out.len());
            out.push((p, k, whole));
        }
    };
    push("/".into(), Kind::Root, false);
    for p in COMMON_PATHS {
        push(p.to_string(), Kind::Common, false);
    }
    for rule in rules {
        let (m, whole) = rule_match(rule);
        if m.len() > 1 {
            let mut near = m.clone();
            near.pop();
            if near.ends_with('%') || near.len() > 1 && near.as_bytes()[near.len() - 2] == b'%' {
                near.truncate(near.rfind('%').unwrap_or(near.len()));
            }
            if !near.is_empty() {
                push(near, Kind::NearMiss, whole);
            }
        }
        push(with_query(&m), Kind::QueryString, whole);
        if let Some(i) = m.bytes().position(|b| b.is_ascii_alphanumeric()) {
            push(
                format!("{}%{:02X}{}", &m[..i], m.as_bytes()[i], &m[i + 1..]),
                Kind::Escaped,
                whole,
            );
        }
        push(m, Kind::RuleMatch, whole);
    }
    out
}

/// One file's questions as `census queries` writes them: the input of a
/// direct loop of a library in its own runtime needs to ask exactly what
/// the census asks (the body in hex, so any runtime reads it byte-exact).
#[derive(Debug, serde::Serialize)]
pub struct FileQueries<'a> {
    pub name: &'a str,
    pub host: &'a str,
    pub body_hex: String,
    pub queries: Vec<QueryLine<'a>>,
}

#[derive(Debug, serde::Serialize)]
pub struct QueryLine<'a> {
    pub agent: &'a str,
    pub url: &'a str,
    pub kind: Kind,
    /// The census section counting it.
    pub origin: Origin,
    /// Kept for readers of the first JSONL lines: `origin == probe`.
    pub probe: bool,
    /// Counted in its section, left out of the headline.
    pub unrequested: bool,
}

impl<'a> FileQueries<'a> {
    pub fn new(name: &'a str, host: &'a str, body: &[u8], asked: &'a [Asked]) -> Self {
        let mut body_hex = String::with_capacity(body.len() * 2);
        for b in body {
            body_hex.push_str(&format!("{b:02x}"));
        }
        FileQueries {
            name,
            host,
            body_hex,
            queries: asked
                .iter()
                .map(|a| QueryLine {
                    agent: &a.query.agent,
                    url: &a.query.url,
                    kind: a.kind,
                    origin: a.kind.origin(),
                    probe: a.kind.probe(),
                    unrequested: a.unrequested,
                })
                .collect(),
        }
    }
}

/// Percent-encode what cannot stand in a URL as is.
fn encode(path: &str) -> String {
    let mut out = String::new();
    for b in path.bytes() {
        if b.is_ascii_graphic() {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

pub(crate) fn url_base(host: &str) -> String {
    let ok = !host.is_empty()
        && host.len() <= 253
        && host
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'.' || b == b'-');
    format!("https://{}", if ok { host } else { "example.com" })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn urls(body: &str) -> Vec<String> {
        derive("a.test", body.as_bytes())
            .into_iter()
            .filter(|a| a.query.agent == "ExampleBot")
            .map(|a| a.query.url)
            .collect()
    }

    #[test]
    fn rule_paths() {
        let u = urls("User-agent: *\nDisallow: /admin*\n");
        for want in [
            "https://a.test/",
            "https://a.test/adminx",
            "https://a.test/admin",
            "https://a.test/adminx?q=1",
            "https://a.test/%61dminx",
        ] {
            assert!(u.contains(&want.to_string()), "{want} not in {u:?}");
        }
    }

    #[test]
    fn budgeted_and_deterministic() {
        let mut body = String::new();
        for i in 0..100 {
            body.push_str(&format!("User-agent: bot{i}\nDisallow: /p{i}/ä\n"));
        }
        let a = derive("bad host!", body.as_bytes());
        let b = derive("bad host!", body.as_bytes());
        // The budget, then each rule's match and query for its own bot,
        // less the four that bot0 and bot1 asked within the budget.
        assert_eq!(a.len(), MAX_QUERIES + 2 * 100 - 4);
        assert!(a.iter().zip(&b).all(|(x, y)| x.query == y.query));
        assert_eq!(a[MAX_QUERIES].query.agent, "bot2");
        assert_eq!(a[MAX_QUERIES].query.url, "https://example.com/p2/%C3%A4");
        assert!(a[0].query.url.starts_with("https://example.com/"));
    }

    #[test]
    fn only_the_escaped_variant_is_a_probe() {
        let a = derive(
            "a.test",
            b"User-agent: *\nDisallow: /admin\nDisallow: /%61dmin\n",
        );
        let probes: Vec<&str> = a
            .iter()
            .filter(|q| q.kind.probe() && q.query.agent == "ExampleBot")
            .map(|q| q.query.url.as_str())
            .collect();
        // `/%61dmin` is the first rule's probe and the second rule as
        // written: asked once, as written; the second rule's own probe stays.
        assert_eq!(probes, vec!["https://a.test/%%361dmin"]);
        let a = derive("a.test", b"User-agent: *\nDisallow: /admin\n");
        let probes: Vec<&str> = a
            .iter()
            .filter(|q| q.kind.probe() && q.query.agent == "ExampleBot")
            .map(|q| q.query.url.as_str())
            .collect();
        assert_eq!(probes, vec!["https://a.test/%61dmin"]);
        assert!(a
            .iter()
            .any(|q| q.kind == Kind::RuleMatch && q.query.url == "https://a.test/admin"));
    }

    #[test]
    fn whole_site_rules_are_marked() {
        let a = derive("h.test", b"User-agent: *\nDisallow: /\n");
        assert!(a
            .iter()
            .any(|q| q.whole_site && q.kind == Kind::QueryString));
        assert_eq!(a[0].kind, Kind::Root);
        assert!(a[0].whole_site, "`/` is also the rule's own path");
    }

    #[test]
    fn agents_are_product_tokens() {
        let d = read(
            "a.test",
            b"User-agent: Mediapartners-Google*\nUser-agent: Googlebot/2.1\nUser-agent: MJ12bot\nUser-agent: *\nDisallow: /\n",
        );
        assert_eq!(
            d.agents,
            vec!["Mediapartners-Google", "Googlebot", "MJ12bot", "ExampleBot"]
        );
    }

    #[test]
    fn a_path_two_rules_reach_takes_the_named_kind() {
        // `/admin` is the first rule's near miss and the second's match.
        let d = read(
            "a.test",
            b"User-agent: *\nDisallow: /admin/\nDisallow: /admin\n",
        );
        let u = d
            .urls
            .iter()
            .find(|u| u.url == "https://a.test/admin")
            .unwrap();
        assert_eq!(u.kind, Kind::RuleMatch);
        let near = d
            .urls
            .iter()
            .find(|u| u.url == "https://a.test/admin/")
            .unwrap();
        assert_eq!(near.kind, Kind::RuleMatch);
        assert!(d
            .urls
            .iter()
            .any(|u| u.url == "https://a.test/admin/?q=1" && u.kind == Kind::QueryString));
    }

    /// The derivation as it was before every rule was asked: the first
    /// part alone, crossed and cut, to hold the first 160 questions to it.
    fn budgeted(host: &str, body: &[u8]) -> Vec<(String, String)> {
        let d = read(host, body);
        d.urls
            .iter()
            .flat_map(|u| d.agents.iter().map(|a| (a.clone(), u.url.clone())))
            .take(MAX_QUERIES)
            .collect()
    }

    fn hundred_rules() -> String {
        let mut body = String::from("User-agent: *\n");
        for i in 0..100 {
            body.push_str(&format!("Disallow: /r{i}/\n"));
        }
        body
    }

    #[test]
    fn every_rule_is_asked_past_the_budget() {
        let body = hundred_rules();
        let a = derive("a.test", body.as_bytes());
        let has = |agent: &str, url: &str, kind: Kind| {
            a.iter()
                .any(|q| q.query.agent == agent && q.query.url == url && q.kind == kind)
        };
        for i in 0..100 {
            let m = format!("https://a.test/r{i}/");
            assert!(has("ExampleBot", &m, Kind::RuleMatch), "{m}");
            let q = format!("https://a.test/r{i}/?q=1");
            assert!(has("ExampleBot", &q, Kind::QueryString), "{q}");
        }
        // Rules past the budget get no near miss nor probe.
        assert!(!a.iter().any(|q| q.query.url == "https://a.test/r99"));
        assert!(!a.iter().any(|q| q.query.url.contains("%7299")));
        assert!(a.len() > MAX_QUERIES);
    }

    #[test]
    fn the_first_questions_are_the_old_crossing() {
        let body = hundred_rules();
        let a = derive("a.test", body.as_bytes());
        let first: Vec<(String, String)> = a[..MAX_QUERIES]
            .iter()
            .map(|q| (q.query.agent.clone(), q.query.url.clone()))
            .collect();
        assert_eq!(first, budgeted("a.test", body.as_bytes()));
        // Path-major: both agents ask `/`, then the first common path; the
        // first rule's near miss comes right after the common paths.
        let at = |i: usize| (a[i].query.agent.as_str(), a[i].query.url.as_str());
        assert_eq!(at(0), ("ExampleBot", "https://a.test/"));
        assert_eq!(at(1), ("Googlebot", "https://a.test/"));
        assert_eq!(at(2), ("ExampleBot", "https://a.test/index.html"));
        assert_eq!(at(22), ("ExampleBot", "https://a.test/r0"));
        assert_eq!(a[22].kind, Kind::NearMiss);
        assert_eq!(at(24), ("ExampleBot", "https://a.test/r0/?q=1"));
        // The 161st question is the first rule the budget left out.
        assert_eq!(at(MAX_QUERIES).0, "ExampleBot");
        assert!(!first.iter().any(|(_, u)| u == at(MAX_QUERIES).1));
    }

    #[test]
    fn a_rule_past_the_budget_is_asked_by_its_group() {
        let mut body = hundred_rules();
        body.push_str("\nUser-agent: FooBot/1.0\nUser-agent: *\nDisallow: /foo-only\n");
        let a = derive("a.test", body.as_bytes());
        let agents = |url: &str| -> Vec<&str> {
            a.iter()
                .filter(|q| q.query.url == url)
                .map(|q| q.query.agent.as_str())
                .collect()
        };
        // FooBot is a file agent, so it is in the budget's crossing too,
        // but `/foo-only` is rule 101: only its group asks it.
        assert_eq!(
            agents("https://a.test/foo-only"),
            vec!["FooBot", "ExampleBot"]
        );
        assert_eq!(
            agents("https://a.test/foo-only?q=1"),
            vec!["FooBot", "ExampleBot"]
        );
        // A group of agents past MAX_FILE_AGENTS still asks its rules.
        let mut body = String::new();
        for i in 0..10 {
            body.push_str(&format!("User-agent: bot{i}\nDisallow: /b{i}\n"));
        }
        let a = derive("a.test", body.as_bytes());
        assert!(a
            .iter()
            .any(|q| q.query.agent == "bot9" && q.query.url == "https://a.test/b9"));
        // A rule before any user-agent line is ExampleBot's.
        let a = derive("a.test", b"Disallow: /early\n");
        assert!(a
            .iter()
            .any(|q| q.query.agent == "ExampleBot" && q.query.url == "https://a.test/early"));
    }

    #[test]
    fn no_question_is_asked_twice() {
        let mut body = hundred_rules();
        // Rule 1 again in another group, and a rule whose match is another
        // rule's query-string variant.
        body.push_str("User-agent: *\nDisallow: /r1/\nDisallow: /r98/?q=1\n");
        let a = derive("a.test", body.as_bytes());
        let mut seen = HashSet::new();
        for q in &a {
            assert!(
                seen.insert((q.query.agent.clone(), q.query.url.clone())),
                "{q:?} twice"
            );
        }
        let asked = a
            .iter()
            .find(|q| q.query.url == "https://a.test/r98/?q=1")
            .map(|q| q.kind);
        assert_eq!(asked, Some(Kind::RuleMatch));
    }

    #[test]
    fn each_kind_says_its_origin() {
        let a = derive("a.test", b"User-agent: *\nDisallow: /x.pdf\n");
        let kind = |url: &str| {
            a.iter()
                .find(|q| q.query.url == url)
                .map(|q| (q.kind, q.kind.origin()))
        };
        assert_eq!(
            kind("https://a.test/x.pd"),
            Some((Kind::NearMiss, Origin::NearMiss))
        );
        assert_eq!(
            kind("https://a.test/x.pdf"),
            Some((Kind::RuleMatch, Origin::Written))
        );
        assert_eq!(
            kind("https://a.test/%78.pdf"),
            Some((Kind::Escaped, Origin::Probe))
        );
        assert_eq!(
            serde_json::to_string(&Origin::NearMiss).ok().as_deref(),
            Some("\"near-miss\"")
        );
    }

    #[test]
    fn urls_no_crawler_requests_are_marked() {
        let a = derive(
            "a.test",
            b"User-agent: *\nDisallow: /robots.txt\nDisallow: /search?\n",
        );
        let marked = |url: &str| a.iter().find(|q| q.query.url == url).map(|q| q.unrequested);
        assert_eq!(marked("https://a.test/robots.txt"), Some(true));
        assert_eq!(marked("https://a.test/robots.txt?q=1"), Some(true));
        assert_eq!(marked("https://a.test/search?"), Some(true));
        // `/search?`'s near miss and query-string variant are requested.
        assert_eq!(marked("https://a.test/search"), Some(false));
        assert_eq!(marked("https://a.test/search?&q=1"), Some(false));
        assert_eq!(marked("https://a.test/"), Some(false));
        let lines = FileQueries::new("n", "a.test", b"", &a);
        let json = serde_json::to_string(&lines).unwrap_or_default();
        assert!(json.contains("\"origin\":\"written\""), "{json}");
        assert!(json.contains("\"unrequested\":true"), "{json}");
    }

    #[test]
    fn a_huge_file_asks_its_first_rules_within_the_work_bound() {
        let mut body = String::from("User-agent: *\n");
        for i in 0..10_000 {
            body.push_str(&format!("Disallow: /p{i}\n"));
        }
        let a = derive("a.test", body.as_bytes());
        let most = MAX_WORK / 10_000;
        // The last rule let in starts below the bound, so its two
        // questions may end just past it.
        assert!((most..most + 2).contains(&a.len()), "{}", a.len());
        assert!(a.iter().any(|q| q.query.url == "https://a.test/p100"));
        assert!(!a.iter().any(|q| q.query.url.ends_with("/p9999")));
        // A file of 1,000 rules asks every one.
        let mut body = String::from("User-agent: *\n");
        for i in 0..1_000 {
            body.push_str(&format!("Disallow: /p{i}\n"));
        }
        let a = derive("a.test", body.as_bytes());
        for i in 0..1_000 {
            let url = format!("https://a.test/p{i}");
            assert!(a.iter().any(|q| q.query.url == url), "{url}");
        }
    }
}
