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
//! - Agents: every distinct `user-agent` value except `*`, in order of first
//!   appearance, at most [`MAX_FILE_AGENTS`]; then `ExampleBot` (a crawler
//!   no file names, so it meets the `*` group) and `Googlebot`.
//! - Paths: `/`, then [`COMMON_PATHS`], then for each distinct `allow` or
//!   `disallow` value (at most [`MAX_RULES`] of them, empty values skipped):
//!   a path the rule matches (`*` becomes `x`, a final `$` is dropped, a
//!   leading `/` is added when missing), a near miss (that path minus its
//!   last character, when that still leaves a path), the match with a query
//!   string (`?q=1`, or `&q=1` when it has one), and the match with its first
//!   letter or digit %-encoded (`/admin` -> `/%61dmin`), a *probe*: a URL
//!   no link on the site contains, marked [`Asked::probe`] so that a
//!   consumer (`repdiff lint`) can ask the as-written questions alone; the
//!   census asks both and tallies them alike. Bytes outside
//!   printable ASCII are %-encoded so every URL is a valid one. Duplicates
//!   are dropped, first occurrence kept.
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

/// Why a query was asked: the high-impact list needs to know which queries
/// are about the whole site.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    Root,
    Common,
    /// Built from a rule whose pattern covers the whole site (`/`, `/*`, `*`).
    WholeSite,
    Rule,
}

#[derive(Debug, Clone)]
pub struct Asked {
    pub query: Query,
    pub origin: Origin,
    /// A question we made up (the %-encoded variant of a rule's path), not
    /// one a crawler following the site's own links would ask: `false` for
    /// `/`, the common paths, a rule's path as written, its near miss and
    /// its query-string variant.
    pub probe: bool,
}

/// What the derivation reads off a file before crossing agents and paths:
/// for a consumer that crosses them otherwise (`repdiff lint` asks every
/// path for every agent, uncut).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Derived {
    /// The file's agents (at most [`MAX_FILE_AGENTS`]), then [`GENERIC_AGENTS`].
    pub agents: Vec<String>,
    /// `https://HOST/PATH` URLs with their origin and whether each is a probe.
    pub urls: Vec<(String, Origin, bool)>,
}

/// The agents and URLs of [`derive()`], not yet crossed nor cut.
pub fn read(host: &str, body: &[u8]) -> Derived {
    let text = String::from_utf8_lossy(body);
    let mut agents: Vec<String> = Vec::new();
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
            if value != "*"
                && !value.is_empty()
                && agents.len() < MAX_FILE_AGENTS
                && seen_agents.insert(value)
            {
                agents.push(value.to_string());
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
        .map(|(path, origin, probe)| (format!("{base}{path}"), origin, probe))
        .collect();
    Derived { agents, urls }
}

pub fn derive(host: &str, body: &[u8]) -> Vec<Asked> {
    let Derived { agents, urls } = read(host, body);
    let mut out = Vec::new();
    'outer: for (url, origin, probe) in &urls {
        for agent in &agents {
            if out.len() == MAX_QUERIES {
                break 'outer;
            }
            out.push(Asked {
                query: Query {
                    ask: Ask::CanFetch,
                    agent: agent.clone(),
                    url: url.clone(),
                },
                origin: *origin,
                probe: *probe,
            });
        }
    }
    out
}

/// Each path with its origin and whether it is a probe. A path asked both
/// ways (a probe of one rule is another rule's path as written) keeps its
/// first place and counts as written: the set of queries is the same.
fn paths(rules: &[String]) -> Vec<(String, Origin, bool)> {
    let mut out: Vec<(String, Origin, bool)> = vec![("/".into(), Origin::Root, false)];
    let mut push =
        |p: String, o: Origin, probe: bool| match out.iter_mut().find(|(q, _, _)| *q == p) {
            Some(seen) => seen.2 &= probe,
            None => out.push((p, o, probe)),
        };
    for p in COMMON_PATHS {
        push(p.to_string(), Origin::Common, false);
    }
    for rule in rules {
        let whole = matches!(rule.as_str(), "/" | "/*" | "*" | "/$");
        let origin = if whole {
            Origin::WholeSite
        } else {
            Origin::Rule
        };
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
                push(near, origin, false);
            }
        }
        let sep = if m.contains('?') { '&' } else { '?' };
        push(format!("{m}{sep}q=1"), origin, false);
        if let Some(i) = m.bytes().position(|b| b.is_ascii_alphanumeric()) {
            push(
                format!("{}%{:02X}{}", &m[..i], m.as_bytes()[i], &m[i + 1..]),
                origin,
                true,
            );
        }
        push(m, origin, false);
    }
    // The rule's own match first, then its variations, reads better in
    // reports; keep insertion order stable otherwise.
    out
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

fn url_base(host: &str) -> String {
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
            .filter(|q| q.probe && q.query.agent == "ExampleBot")
            .map(|q| q.query.url.as_str())
            .collect();
        // `/%61dmin` is the first rule's probe and the second rule as
        // written: asked once, as written; the second rule's own probe stays.
        assert_eq!(probes, vec!["https://a.test/%%361dmin"]);
        let a = derive("a.test", b"User-agent: *\nDisallow: /admin\n");
        let probes: Vec<&str> = a
            .iter()
            .filter(|q| q.probe && q.query.agent == "ExampleBot")
            .map(|q| q.query.url.as_str())
            .collect();
        assert_eq!(probes, vec!["https://a.test/%61dmin"]);
        assert!(a
            .iter()
            .any(|q| !q.probe && q.query.url == "https://a.test/admin"));
    }

    #[test]
    fn whole_site_rules_are_marked() {
        let a = derive("h.test", b"User-agent: *\nDisallow: /\n");
        assert!(a.iter().any(|q| q.origin == Origin::WholeSite));
        assert_eq!(a[0].origin, Origin::Root);
    }
}
