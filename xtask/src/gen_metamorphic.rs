//! `cargo xtask gen-metamorphic [--check]`: writes `cases/corpus/metamorphic.yaml`.
//!
//! Each base robots.txt is written once, with its queries and their RFC 9309
//! expectations; every variant is a rewrite that RFC 9309 treats as the same
//! file (line ends, comments, record-name case, whitespace around the colon,
//! empty lines between rules, group order, a BOM before a comment line). All
//! variants of one base share a `family:` and the same queries, so any oracle
//! whose verdict changes across a family has shown a sensitivity the RFC does
//! not allow. `--check` fails when the file on disk is not what the generator
//! writes (a hand edit, or a generator change not regenerated).

use crate::paths;
use engine::case::{BodyPart, BodySpec, RawCase, RawFile, RawQuery};
use repdiff::cli::Usage;

pub const HELP: &str = "\
Writes cases/corpus/metamorphic.yaml: every base file of
xtask/src/gen_metamorphic.rs in every equivalent variant, one family per base.
--check compares instead of writing; exit 1 when the file is out of date.";

/// What a query's expectation rests on: every base here is decided by an
/// RFC 9309 section.
enum Basis {
    Rfc(&'static str),
}

struct Q {
    agent: &'static str,
    path: &'static str,
    allowed: bool,
    basis: Basis,
}

struct Base {
    name: &'static str,
    title: &'static str,
    /// The file, one line per entry, `""` for an empty line.
    lines: &'static [&'static str],
    queries: &'static [Q],
}

const fn a(agent: &'static str, path: &'static str, rfc: &'static str) -> Q {
    Q {
        agent,
        path,
        allowed: true,
        basis: Basis::Rfc(rfc),
    }
}
const fn d(agent: &'static str, path: &'static str, rfc: &'static str) -> Q {
    Q {
        agent,
        path,
        allowed: false,
        basis: Basis::Rfc(rfc),
    }
}

const MOST_SPECIFIC: &str = "§2.2.2 MUST (most specific match)";
const NO_MATCH: &str = "§2.2.2 (no rule matches: allowed)";
const STAR: &str = "§2.2.1 MUST (no matching group: obey *)";
const OWN_GROUP: &str = "§2.2.1 MUST (the agent's own group)";
const NO_GROUP: &str = "§2.2.1 (no matching group and no *: no rules apply)";
const PREFIX: &str = "§2.2.2 MUST (match from the first octet of the path)";
const WILDCARD: &str = "§2.2.3 MUST (* matches 0 or more characters)";
const DOLLAR: &str = "§2.2.3 MUST ($ ends the pattern)";

const BASES: &[Base] = &[
    Base {
        name: "allow-beats-disallow",
        title: "a longer Allow inside a Disallowed directory",
        lines: &["User-agent: *", "Disallow: /shop", "Allow: /shop/public"],
        queries: &[
            a("FooBot", "/shop/public/item", MOST_SPECIFIC),
            d("FooBot", "/shop/cart", PREFIX),
            a("FooBot", "/other", NO_MATCH),
        ],
    },
    Base {
        name: "disallow-beats-allow",
        title: "a longer Disallow inside an Allowed directory",
        lines: &[
            "User-agent: FooBot",
            "Allow: /docs",
            "Disallow: /docs/internal",
        ],
        queries: &[
            d("FooBot", "/docs/internal/a", MOST_SPECIFIC),
            a("FooBot", "/docs/a", MOST_SPECIFIC),
            a("BarBot", "/docs/internal/a", NO_GROUP),
        ],
    },
    Base {
        name: "tie-goes-to-allow",
        title: "an Allow and a Disallow of the same pattern",
        lines: &["User-agent: FooBot", "Disallow: /same", "Allow: /same"],
        queries: &[
            a(
                "FooBot",
                "/same/x",
                "§2.2.2 SHOULD (equivalent allow and disallow: allow)",
            ),
            a(
                "FooBot",
                "/samex",
                "§2.2.2 SHOULD (equivalent allow and disallow: allow)",
            ),
        ],
    },
    Base {
        name: "specific-over-star",
        title: "an agent's own group instead of the * group",
        lines: &[
            "User-agent: *",
            "Disallow: /",
            "",
            "User-agent: FooBot",
            "Disallow: /private",
        ],
        queries: &[
            a("FooBot", "/public", OWN_GROUP),
            d("FooBot", "/private", OWN_GROUP),
            d("BarBot", "/public", STAR),
        ],
    },
    Base {
        name: "shared-group",
        title: "two user-agent lines sharing one group",
        lines: &[
            "User-agent: FooBot",
            "User-agent: BarBot",
            "Disallow: /shared",
            "",
            "User-agent: *",
            "Allow: /",
        ],
        queries: &[
            d(
                "FooBot",
                "/shared",
                "§2.1 (a group starts with one or more user-agent lines)",
            ),
            d(
                "BarBot",
                "/shared/x",
                "§2.1 (a group starts with one or more user-agent lines)",
            ),
            a("BazBot", "/shared", STAR),
        ],
    },
    Base {
        name: "merged-groups",
        title: "two groups for one agent with another group between them",
        lines: &[
            "User-agent: FooBot",
            "Disallow: /a",
            "",
            "User-agent: BarBot",
            "Disallow: /",
            "",
            "User-agent: FooBot",
            "Disallow: /b",
        ],
        queries: &[
            d("FooBot", "/a", "§2.2.1 MUST (matching groups combined)"),
            d("FooBot", "/b", "§2.2.1 MUST (matching groups combined)"),
            a("FooBot", "/c", NO_MATCH),
            d("BarBot", "/c", OWN_GROUP),
        ],
    },
    Base {
        name: "wildcard-middle",
        title: "a * between two path segments",
        lines: &["User-agent: *", "Disallow: /*/private/"],
        queries: &[
            d("FooBot", "/a/private/b", WILDCARD),
            a("FooBot", "/private/b", WILDCARD),
            d("FooBot", "/a/b/private/", WILDCARD),
        ],
    },
    Base {
        name: "dollar-anchor",
        title: "$ at the end of a wildcard and of a literal pattern",
        lines: &["User-agent: *", "Disallow: /*.pdf$", "Disallow: /exact$"],
        queries: &[
            d("FooBot", "/a.pdf", DOLLAR),
            a("FooBot", "/a.pdf?x=1", DOLLAR),
            d("FooBot", "/exact", DOLLAR),
            a("FooBot", "/exact/", DOLLAR),
            a("FooBot", "/exactly", DOLLAR),
        ],
    },
    Base {
        name: "trailing-star",
        title: "a trailing * that changes nothing",
        lines: &["User-agent: *", "Disallow: /tmp*"],
        queries: &[
            d("FooBot", "/tmp", WILDCARD),
            d("FooBot", "/tmpfile", WILDCARD),
            a("FooBot", "/tm", PREFIX),
        ],
    },
    Base {
        name: "empty-disallow",
        title: "an empty Disallow: in the agent's group, Disallow: / for the others",
        lines: &[
            "User-agent: FooBot",
            "Disallow:",
            "",
            "User-agent: *",
            "Disallow: /",
        ],
        queries: &[
            a(
                "FooBot",
                "/x",
                "§2.2 empty-pattern, reading empty-rule=matches-nothing (the RFC admits an empty pattern but does not say what it matches): allowed",
            ),
            d("BarBot", "/x", STAR),
        ],
    },
    Base {
        name: "ua-case",
        title: "an upper-case group name",
        lines: &["User-agent: FOOBOT", "Disallow: /x"],
        queries: &[
            d(
                "FooBot",
                "/x",
                "§2.2.1 MUST (case-insensitive product token)",
            ),
            d(
                "foobot",
                "/x",
                "§2.2.1 MUST (case-insensitive product token)",
            ),
            a("BarBot", "/x", NO_GROUP),
        ],
    },
    Base {
        name: "percent-unreserved",
        title: "percent-encoded unreserved and non-ASCII characters in rules",
        lines: &[
            "User-agent: *",
            "Disallow: /%7Euser/",
            "Disallow: /caf%C3%A9",
        ],
        queries: &[
            d(
                "FooBot",
                "/~user/a",
                "§2.2.2 MUST (%7E is the unreserved ~)",
            ),
            d("FooBot", "/%7Euser/a", "§2.2.2 MUST"),
            d("FooBot", "/caf%C3%A9", "§2.2.2 MUST (same octets)"),
            a("FooBot", "/cafe", PREFIX),
        ],
    },
    Base {
        name: "query-rules",
        title: "rules that reach into the query",
        lines: &[
            "User-agent: *",
            "Disallow: /search?",
            "Allow: /search?public=",
        ],
        queries: &[
            d(
                "FooBot",
                "/search?q=1",
                "§2.2.2 MUST (the query is part of what is matched)",
            ),
            a("FooBot", "/search?public=1", MOST_SPECIFIC),
            a("FooBot", "/search", PREFIX),
        ],
    },
    Base {
        name: "robots-txt-implicit",
        title: "Disallow: / and the robots.txt URI",
        lines: &["User-agent: *", "Disallow: /"],
        queries: &[
            a(
                "FooBot",
                "/robots.txt",
                "§2.2.2 (the /robots.txt URI is implicitly allowed)",
            ),
            d("FooBot", "/x", PREFIX),
        ],
    },
    Base {
        name: "sitemap-in-group",
        title: "a Sitemap record between two user-agent lines",
        lines: &[
            "User-agent: FooBot",
            "Sitemap: http://example.test/sm.xml",
            "User-agent: BarBot",
            "Disallow: /",
        ],
        queries: &[
            d(
                "FooBot",
                "/x",
                "§2.2.4 MUST NOT (a Sitemaps record does not terminate a group)",
            ),
            d("BarBot", "/x", OWN_GROUP),
            a("BazBot", "/x", NO_GROUP),
        ],
    },
    Base {
        name: "unknown-record-in-group",
        title: "an unknown record between two user-agent lines",
        lines: &[
            "User-agent: FooBot",
            "X-Robots-Extra: yes",
            "User-agent: BarBot",
            "Disallow: /p",
        ],
        queries: &[
            d(
                "FooBot",
                "/p",
                "§2.2.4 MUST NOT (other records do not interfere with groups)",
            ),
            d("BarBot", "/p", OWN_GROUP),
        ],
    },
    Base {
        name: "rules-before-user-agent",
        title: "a rule before the first user-agent line",
        lines: &[
            "Disallow: /orphan",
            "",
            "User-agent: FooBot",
            "Disallow: /mine",
        ],
        queries: &[
            a(
                "FooBot",
                "/orphan",
                "§2.2.2 SHOULD (rules outside any group are ignored)",
            ),
            d("FooBot", "/mine", OWN_GROUP),
            a(
                "BarBot",
                "/orphan",
                "§2.2.2 SHOULD (rules outside any group are ignored)",
            ),
        ],
    },
    Base {
        name: "index-html-not-directory",
        title: "Allow: /dir/index.html inside Disallow: /dir/",
        lines: &["User-agent: *", "Allow: /dir/index.html", "Disallow: /dir/"],
        queries: &[
            a("FooBot", "/dir/index.html", MOST_SPECIFIC),
            d(
                "FooBot",
                "/dir/",
                "§2.2.2 MUST (/dir/index.html does not match /dir/)",
            ),
            d("FooBot", "/dir/other", PREFIX),
        ],
    },
    Base {
        name: "case-sensitive-path",
        title: "a rule path with capitals",
        lines: &["User-agent: *", "Disallow: /Admin"],
        queries: &[
            d("FooBot", "/Admin", PREFIX),
            a("FooBot", "/admin", "§2.2.2 SHOULD (case-sensitive)"),
            a("FooBot", "/ADMIN/x", "§2.2.2 SHOULD (case-sensitive)"),
        ],
    },
    Base {
        name: "multi-wildcards",
        title: "three * and a $ in one pattern",
        lines: &["User-agent: *", "Disallow: /*a*b*c$"],
        queries: &[
            d("FooBot", "/xaybzc", WILDCARD),
            d("FooBot", "/abc", WILDCARD),
            a("FooBot", "/abcd", DOLLAR),
            a("FooBot", "/acb", WILDCARD),
        ],
    },
    Base {
        name: "allow-root-disallow-sub",
        title: "Allow: / with a Disallow below it",
        lines: &["User-agent: FooBot", "Allow: /", "Disallow: /priv"],
        queries: &[
            d("FooBot", "/priv/x", MOST_SPECIFIC),
            a("FooBot", "/pub", MOST_SPECIFIC),
            a("FooBot", "/", MOST_SPECIFIC),
        ],
    },
    Base {
        name: "three-groups",
        title: "two named groups and a * group",
        lines: &[
            "User-agent: AlphaBot",
            "Disallow: /a",
            "",
            "User-agent: BetaBot",
            "Disallow: /b",
            "",
            "User-agent: *",
            "Disallow: /c",
        ],
        queries: &[
            d("AlphaBot", "/a", OWN_GROUP),
            a("AlphaBot", "/c", OWN_GROUP),
            d("BetaBot", "/b", OWN_GROUP),
            a("BetaBot", "/a", OWN_GROUP),
            d("GammaBot", "/c", STAR),
            a("GammaBot", "/a", STAR),
        ],
    },
    Base {
        name: "encoded-star-literal",
        title: "%2A as a literal * in a rule",
        lines: &["User-agent: *", "Disallow: /file-%2A.html"],
        queries: &[
            d(
                "FooBot",
                "/file-*.html",
                "§2.2.3 (%2A matches a literal *; the RFC's own example)",
            ),
            a("FooBot", "/file-x.html", "§2.2.3 (%2A is not a wildcard)"),
        ],
    },
    Base {
        name: "star-groups-merged",
        title: "two * groups around a named one",
        lines: &[
            "User-agent: *",
            "Disallow: /a",
            "",
            "User-agent: FooBot",
            "Disallow: /f",
            "",
            "User-agent: *",
            "Disallow: /b",
        ],
        queries: &[
            d("BarBot", "/a", "§2.2.1 MUST (the * groups are combined)"),
            d("BarBot", "/b", "§2.2.1 MUST (the * groups are combined)"),
            a("FooBot", "/a", OWN_GROUP),
            d("FooBot", "/f", OWN_GROUP),
        ],
    },
    Base {
        name: "empty-last-group",
        title: "a final group without rules",
        lines: &["User-agent: *", "Disallow: /", "", "User-agent: FooBot"],
        queries: &[
            a(
                "FooBot",
                "/x",
                "§2.1 (the last group may have no rules: it allows everything)",
            ),
            d("BarBot", "/x", STAR),
        ],
    },
    Base {
        name: "wildcard-longest",
        title: "a wildcard Allow longer than a wildcard Disallow",
        lines: &["User-agent: *", "Disallow: /*.js", "Allow: /static/*.js"],
        queries: &[
            a("FooBot", "/static/app.js", MOST_SPECIFIC),
            d("FooBot", "/lib/app.js", WILDCARD),
        ],
    },
];

/// A line's record name and value, when it has a colon.
fn split_record(line: &str) -> Option<(&str, &str)> {
    let (k, v) = line.split_once(':')?;
    Some((k.trim(), v.trim()))
}

fn is_group_record(line: &str) -> bool {
    matches!(
        split_record(line).map(|(k, _)| k.to_ascii_lowercase()),
        Some(k) if k == "user-agent" || k == "allow" || k == "disallow"
    )
}

fn is_rule(line: &str) -> bool {
    matches!(
        split_record(line).map(|(k, _)| k.to_ascii_lowercase()),
        Some(k) if k == "allow" || k == "disallow"
    )
}

fn is_user_agent(line: &str) -> bool {
    split_record(line).is_some_and(|(k, _)| k.eq_ignore_ascii_case("user-agent"))
}

/// Blocks separated by empty lines; the first one is a preamble when it does
/// not start with a user-agent line.
fn blocks(lines: &[&'static str]) -> Vec<Vec<&'static str>> {
    let mut out: Vec<Vec<&str>> = vec![Vec::new()];
    for &l in lines {
        if l.is_empty() {
            if !out.last().is_some_and(Vec::is_empty) {
                out.push(Vec::new());
            }
        } else {
            if let Some(b) = out.last_mut() {
                b.push(l);
            }
        }
    }
    out.retain(|b| !b.is_empty());
    out
}

fn join_blocks(blocks: &[Vec<String>]) -> Vec<String> {
    let mut out = Vec::new();
    for (i, b) in blocks.iter().enumerate() {
        if i > 0 {
            out.push(String::new());
        }
        out.extend(b.iter().cloned());
    }
    out
}

/// Whether reversing the group order is an RFC 9309 equivalence here: every
/// group must have a rule (an empty group absorbs the next group's
/// user-agent lines once moved before it), and there must be two groups.
fn reorderable(base: &Base) -> bool {
    let bs = blocks(base.lines);
    let groups: Vec<_> = bs.iter().filter(|b| is_user_agent(b[0])).collect();
    groups.len() >= 2 && groups.iter().all(|g| g.iter().any(|l| is_rule(l)))
}

struct Variant {
    name: &'static str,
    what: &'static str,
}

const VARIANTS: &[Variant] = &[
    Variant { name: "lf", what: "the base file, LF line ends" },
    Variant { name: "crlf", what: "every line ends in CRLF (§2.2 NL = CR / LF / CRLF)" },
    Variant { name: "cr", what: "every line ends in CR alone (§2.2 NL)" },
    Variant { name: "mixed-eol", what: "line ends cycle LF, CRLF, CR (§2.2 NL)" },
    Variant {
        name: "comments",
        what: "comment lines before and inside every block, and a comment after every user-agent, allow and disallow line (§2.2 EOL, §2.2.3 #)",
    },
    Variant {
        name: "keycase",
        what: "record names in other letter cases: USER-AGENT, dIsAlLoW, aLLOW, SITEMAP (§2.2 ABNF literals are case-insensitive)",
    },
    Variant {
        name: "ws",
        what: "spaces and tabs before the record name, around the colon and after the value of user-agent, allow and disallow lines (§2.2 *WS)",
    },
    Variant {
        name: "blank",
        what: "an empty line after every allow and disallow rule (§2.2 group = ... *(rule / emptyline))",
    },
    Variant {
        name: "order",
        what: "the groups in reverse order (§2.2.1: the matching group is chosen by name, and groups for one agent are combined)",
    },
    Variant {
        name: "bom",
        what: "a UTF-8 BOM and a comment line before the file: read with the BOM stripped (RFC 3629 §6) the first line is a comment, kept it is an unparseable line (§2.3.1.5); either way no rule changes. RFC 9309 itself does not bless a BOM: see google-bom-full for a BOM right before a user-agent line",
    },
    Variant {
        name: "combo",
        what: "comments, keycase, ws and blank together, with CRLF line ends",
    },
];

fn keycase(line: &str) -> String {
    let Some((k, _)) = line.split_once(':') else {
        return line.to_string();
    };
    let rest = &line[k.len()..];
    let new_key = match k.trim().to_ascii_lowercase().as_str() {
        "user-agent" => "USER-AGENT".to_string(),
        "disallow" => "dIsAlLoW".to_string(),
        "allow" => "aLLOW".to_string(),
        "sitemap" => "SITEMAP".to_string(),
        other => other.to_string(),
    };
    format!("{new_key}{rest}")
}

fn ws(line: &str) -> String {
    if !is_group_record(line) {
        return line.to_string();
    }
    let (k, v) = split_record(line).unwrap_or((line, ""));
    if is_user_agent(line) {
        format!("  {k} :\t{v} ")
    } else if v.is_empty() {
        format!("\t{k}\t:  ")
    } else {
        format!("\t{k}\t:   {v} \t")
    }
}

fn comments(blocks: &[Vec<String>]) -> Vec<Vec<String>> {
    blocks
        .iter()
        .enumerate()
        .map(|(i, b)| {
            let mut out = vec![format!("# block {}", i + 1)];
            for (j, l) in b.iter().enumerate() {
                if is_group_record(l) {
                    out.push(format!("{l} # note {}", j + 1));
                } else {
                    out.push(l.clone());
                }
                if j == 0 {
                    out.push("   # an indented comment line".to_string());
                }
            }
            out
        })
        .collect()
}

fn blank(blocks: &[Vec<String>]) -> Vec<Vec<String>> {
    blocks
        .iter()
        .map(|b| {
            let mut out = Vec::new();
            for (j, l) in b.iter().enumerate() {
                out.push(l.clone());
                if is_rule(l) && j + 1 < b.len() {
                    out.push(String::new());
                }
            }
            out
        })
        .collect()
}

fn map_lines(blocks: &[Vec<String>], f: fn(&str) -> String) -> Vec<Vec<String>> {
    blocks
        .iter()
        .map(|b| b.iter().map(|l| f(l)).collect())
        .collect()
}

fn with_eol(lines: &[String], eol: &str) -> String {
    lines.iter().map(|l| format!("{l}{eol}")).collect()
}

fn mixed_eol(lines: &[String]) -> String {
    const EOLS: [&str; 3] = ["\n", "\r\n", "\r"];
    let mut out = String::new();
    let mut prev = "\n";
    for (i, l) in lines.iter().enumerate() {
        // An empty line ended by LF right after a CR would merge into one
        // CRLF and vanish; keep it a line of its own.
        let eol = if l.is_empty() && prev == "\r" {
            "\r"
        } else {
            EOLS[i % 3]
        };
        out.push_str(l);
        out.push_str(eol);
        prev = eol;
    }
    out
}

/// The body of one variant: (optional leading raw bytes in hex, text).
fn render(base: &Base, variant: &str) -> Option<(Option<&'static str>, String)> {
    let bs: Vec<Vec<String>> = blocks(base.lines)
        .into_iter()
        .map(|b| b.into_iter().map(String::from).collect())
        .collect();
    let lf = |b: &[Vec<String>]| with_eol(&join_blocks(b), "\n");
    Some(match variant {
        "lf" => (None, lf(&bs)),
        "crlf" => (None, with_eol(&join_blocks(&bs), "\r\n")),
        "cr" => (None, with_eol(&join_blocks(&bs), "\r")),
        "mixed-eol" => (None, mixed_eol(&join_blocks(&bs))),
        "comments" => (None, lf(&comments(&bs))),
        "keycase" => (None, lf(&map_lines(&bs, keycase))),
        "ws" => (None, lf(&map_lines(&bs, ws))),
        "blank" => (None, lf(&blank(&bs))),
        "order" => {
            if !reorderable(base) {
                return None;
            }
            let (pre, groups): (Vec<_>, Vec<_>) =
                bs.into_iter().partition(|b| !is_user_agent(&b[0]));
            let mut v = pre;
            v.extend(groups.into_iter().rev());
            (None, lf(&v))
        }
        "bom" => (
            Some("ef bb bf"),
            format!(
                "# metamorphic variant: a BOM precedes this comment\n{}",
                lf(&bs)
            ),
        ),
        "combo" => {
            let v = blank(&map_lines(&map_lines(&comments(&bs), keycase), ws));
            (None, with_eol(&join_blocks(&v), "\r\n"))
        }
        _ => return None,
    })
}

/// The header above the cases: what the file is and how it is made.
fn header() -> String {
    let mut y = String::from(
        "# GENERATED by `cargo xtask gen-metamorphic` (xtask/src/gen_metamorphic.rs).\n\
         # Do not edit by hand: change the generator and rerun it; `cargo xtask\n\
         # gen-metamorphic --check` fails when this file is out of date.\n\
         #\n\
         # Metamorphic families: each base robots.txt in variants that RFC 9309\n\
         # treats as the same file. All variants of a base share its `family` and\n\
         # its queries with their expectations; the first case of a family is the\n\
         # base. Variants:\n",
    );
    for v in VARIANTS {
        y.push_str(&format!("#   {:<10} {}\n", v.name, v.what));
    }
    y
}

/// Every variant of every base, as the loader's own case type.
pub fn cases() -> Vec<RawCase> {
    let mut out = Vec::new();
    for base in BASES {
        for v in VARIANTS {
            let Some((hex, text)) = render(base, v.name) else {
                continue;
            };
            let robots = match hex {
                None => BodySpec::Text(text),
                Some(h) => BodySpec::Parts(vec![
                    BodyPart {
                        hex: Some(h.to_string()),
                        ..BodyPart::default()
                    },
                    BodyPart {
                        text: Some(text),
                        ..BodyPart::default()
                    },
                ]),
            };
            let queries = base
                .queries
                .iter()
                .map(|q| {
                    let Basis::Rfc(basis) = q.basis;
                    RawQuery {
                        agent: Some(q.agent.to_string()),
                        url: Some(format!("http://example.test{}", q.path)),
                        expect: serde_yaml::Value::from(if q.allowed {
                            "allowed"
                        } else {
                            "disallowed"
                        }),
                        rfc: Some(basis.to_string()),
                        ..RawQuery::default()
                    }
                })
                .collect();
            out.push(RawCase {
                id: format!("meta-{}-{}", base.name, v.name),
                title: format!("{} [{}]", base.title, v.name),
                tags: vec!["metamorphic".into()],
                source: format!(
                    "metamorphic variant `{}` of base `{}` (generated)",
                    v.name, base.name
                ),
                robots,
                queries,
                http: None,
                family: Some(format!("meta-{}", base.name)),
                notes: Some(v.what.to_string()),
            });
        }
    }
    out
}

/// The file's text: the header, then the cases written by `Serialize`.
pub fn generate() -> Result<String, String> {
    let file = RawFile { cases: cases() };
    let body = serde_yaml::to_string(&file).map_err(|e| format!("cannot write the cases: {e}"))?;
    Ok(header() + &body)
}

#[derive(Debug, clap::Args)]
pub struct Opts {
    /// Compare instead of writing; exit 1 when the file is out of date
    #[arg(long)]
    check: bool,
}

pub fn main(opts: Opts) -> Result<i32, Usage> {
    let path = paths::corpus_dir().join("metamorphic.yaml");
    let text = generate().map_err(Usage)?;
    if opts.check {
        let on_disk = std::fs::read_to_string(&path).unwrap_or_default();
        if on_disk == text {
            println!("{} is up to date", path.display());
            return Ok(0);
        }
        eprintln!(
            "error: {} is out of date; run `cargo xtask gen-metamorphic`",
            path.display()
        );
        return Ok(1);
    }
    if let Err(e) = std::fs::write(&path, &text) {
        eprintln!("error: cannot write {}: {e}", path.display());
        return Ok(1);
    }
    let cases = cases().len();
    println!(
        "wrote {} ({cases} cases, {} families)",
        path.display(),
        BASES.len()
    );
    Ok(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What the generator writes loads through the corpus loader as the
    /// cases it built, and writing those again gives the same text.
    #[test]
    fn the_file_loads_as_written() {
        let text = generate().unwrap();
        let path = std::path::Path::new("metamorphic.yaml");
        let loaded = engine::case::parse_file(path, &text).unwrap_or_else(|e| panic!("{e}"));
        let built = cases();
        assert_eq!(loaded.len(), built.len());
        for (l, b) in loaded.iter().zip(&built) {
            assert_eq!(l.id, b.id);
            assert_eq!(l.family, b.family);
            assert_eq!(l.body, b.robots.to_bytes().unwrap(), "{}", b.id);
            assert_eq!(l.queries.len(), b.queries.len(), "{}", b.id);
        }
        let back: RawFile = serde_yaml::from_str(&text).unwrap();
        assert_eq!(header() + &serde_yaml::to_string(&back).unwrap(), text);
    }

    /// The committed corpus file is the generator's output
    /// (`cargo xtask gen-metamorphic` rewrites it).
    #[test]
    fn the_committed_file_is_current() {
        let path = paths::corpus_dir().join("metamorphic.yaml");
        let on_disk = std::fs::read_to_string(&path).unwrap();
        assert!(
            on_disk == generate().unwrap(),
            "{} is out of date: run `cargo xtask gen-metamorphic`",
            path.display()
        );
    }
}
