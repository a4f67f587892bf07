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
//! - Agents: the product token (see [`product_token`]) of every distinct
//!   `user-agent` value except `*`, in order of first appearance, at most
//!   [`MAX_FILE_AGENTS`]; then `ExampleBot` (a crawler no file names, so it
//!   meets the `*` group) and `Googlebot`.
//! - Paths: `/`, then [`COMMON_PATHS`], then for each distinct `allow` or
//!   `disallow` value (at most [`MAX_RULES`] of them, empty values skipped):
//!   a path the rule matches (`*` becomes `x`, a final `$` is dropped, a
//!   leading `/` is added when missing), a near miss (that path minus its
//!   last character, when that still leaves a path), the match with a query
//!   string (`?q=1`, or `&q=1` when it has one), and the match with its first
//!   letter or digit %-encoded (`/admin` -> `/%61dmin`). Each says its
//!   [`Kind`]: the last is a *probe*, a URL no link on the site contains,
//!   reported apart from the as-written questions. Bytes outside printable
//!   ASCII are %-encoded so every URL is a valid one. Duplicates are
//!   dropped, first occurrence kept.
//! - Queries: every path for every agent, path-major (all agents ask `/`
//!   first), cut at [`MAX_QUERIES`].
//! - URLs are `https://HOST/PATH` with the file's host when it looks like a
//!   host name, `example.com` otherwise.

use engine::oracle::{Ask, Query};
use std::collections::HashSet;

/// Agents taken from the file. Most files name fewer; the few naming
/// hundreds of bots would otherwise swamp the per-file budget.
pub const MAX_FILE_AGENTS: usize = 6;
/// Rules turned into paths.
pub const MAX_RULES: usize = 24;
/// Queries per file, whatever the file.
pub const MAX_QUERIES: usize = 160;

pub const GENERIC_AGENTS: &[&str] = &["ExampleBot", "Googlebot"];

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

/// What kind of question a query is. The first five are *as written*:
/// questions a crawler following the site's own links asks; [`Kind::Escaped`]
/// is a *probe*, a rewriting we invent (add a probe kind when you add one).
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

impl Kind {
    /// A question we made up, not one a crawler following the site's own
    /// links would ask.
    pub fn probe(self) -> bool {
        self == Kind::Escaped
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
}

#[derive(Debug, Clone)]
pub struct Asked {
    pub query: Query,
    pub kind: Kind,
    pub whole_site: bool,
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

/// The agents and URLs of [`derive()`], not yet crossed nor cut.
pub fn read(host: &str, body: &[u8]) -> Derived {
    read_with(host, body, MAX_FILE_AGENTS)
}

/// [`read`] taking at most `max_agents` of the file's agents.
pub fn read_with(host: &str, body: &[u8], max_agents: usize) -> Derived {
    let text = String::from_utf8_lossy(body);
    let mut agents: Vec<String> = Vec::new();
    let mut skipped_agents: Vec<String> = Vec::new();
    let mut rules: Vec<String> = Vec::new();
    // Sets beside the lists: a real file can hold tens of thousands of
    // rules, and a linear duplicate check made deriving quadratic.
    let mut seen_agents = HashSet::new();
    let mut seen_rules = HashSet::new();
    for line in text.split(['\n', '\r']) {
        let line = line.split('#').next().unwrap_or("");
        let Some((key, value)) = line.split_once(':') else {
            continue;
        };
        let (key, value) = (key.trim().to_ascii_lowercase(), value.trim());
        if key == "user-agent" {
            let token = product_token(value);
            if !token.is_empty() && seen_agents.insert(token) {
                if agents.len() < max_agents {
                    agents.push(token.to_string());
                } else {
                    skipped_agents.push(token.to_string());
                }
            }
        } else if (key == "allow" || key == "disallow")
            && !value.is_empty()
            && rules.len() < MAX_RULES
            && seen_rules.insert(value)
        {
            rules.push(value.to_string());
        }
    }
    for g in GENERIC_AGENTS {
        if !agents.iter().any(|a| a == g) {
            agents.push(g.to_string());
        }
    }
    let base = url_base(host);
    let urls = paths(&rules)
        .into_iter()
        .map(|(path, kind, whole_site)| Url {
            url: format!("{base}{path}"),
            kind,
            whole_site,
        })
        .collect();
    Derived {
        agents,
        skipped_agents,
        urls,
    }
}

pub fn derive(host: &str, body: &[u8]) -> Vec<Asked> {
    let Derived { agents, urls, .. } = read(host, body);
    let mut out = Vec::new();
    'outer: for u in &urls {
        for agent in &agents {
            if out.len() == MAX_QUERIES {
                break 'outer;
            }
            out.push(Asked {
                query: Query {
                    ask: Ask::CanFetch,
                    agent: agent.clone(),
                    url: u.url.clone(),
                },
                kind: u.kind,
                whole_site: u.whole_site,
            });
        }
    }
    out
}

/// Each path with its kind and whether a whole-site rule built it. A path
/// reached twice keeps its first place and the kind that comes first in
/// [`Kind`]'s order (a probe of one rule that is another rule's path as
/// written counts as written; a near miss that another rule names counts
/// as named): the set of queries is the same either way.
fn paths(rules: &[String]) -> Vec<(String, Kind, bool)> {
    let mut out: Vec<(String, Kind, bool)> = vec![("/".into(), Kind::Root, false)];
    let mut push = |p: String, k: Kind, whole: bool| match out.iter_mut().find(|(q, _, _)| *q == p)
    {
        Some(seen) => {
            seen.1 = seen.1.min(k);
            seen.2 |= whole;
        }
        None => out.push((p, k, whole)),
    };
    for p in COMMON_PATHS {
        push(p.to_string(), Kind::Common, false);
    }
    for rule in rules {
        let whole = matches!(rule.as_str(), "/" | "/*" | "*" | "/$");
        let mut m = rule.replace('*', "x");
        if m.ends_with('$') {
            m.pop();
        }
        let m = encode(&if m.starts_with('/') {
            m
        } else {
            format!("/{m}")
        });
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
        let sep = if m.contains('?') { '&' } else { '?' };
        push(format!("{m}{sep}q=1"), Kind::QueryString, whole);
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

/// One file's questions as `census queries` writes them: the input a
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
    pub probe: bool,
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
                    probe: a.kind.probe(),
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
    fn capped_and_deterministic() {
        let mut body = String::new();
        for i in 0..100 {
            body.push_str(&format!("User-agent: bot{i}\nDisallow: /p{i}/ä\n"));
        }
        let a = derive("bad host!", body.as_bytes());
        let b = derive("bad host!", body.as_bytes());
        assert_eq!(a.len(), MAX_QUERIES);
        assert!(a.iter().zip(&b).all(|(x, y)| x.query == y.query));
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
}
