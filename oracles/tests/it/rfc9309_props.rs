//! Property tests of the `rfc9309` oracle: what RFC 9309 says cannot change a
//! verdict, checked on generated files under every combination of readings.
//!
//! - Presentation (§2.2 ABNF): line ends LF / CRLF / CR (`NL`), comments
//!   (`EOL = *WS [comment] NL`), the case of directive names (ABNF strings are
//!   case-insensitive), blank lines (`emptyline` anywhere in a group), spaces
//!   around `:` (`*WS`).
//! - Group order (§2.2.1: matching groups are merged; order is no part of
//!   the rule).
//! - Percent-encoding of unreserved characters in the URL (§2.2.2).
//! - `/robots.txt` is always allowed (§2.2.2), whatever the body.
//! - A strictly longer matching allow wins over any disallow (§2.2.2).
//! - The wildcard matcher agrees with a reference dynamic program (§2.2.3).

use engine::oracle::{Ask, Oracle, Outcome, Query};
use oracles::rfc9309::matching::match_end;
use oracles::rfc9309::{
    AuthStatus, ByteOrderMark, CallerToken, EmptyPattern, InnerDollar, InvalidUtf8, NoColon,
    OrphanRules, PatternJunk, PatternStart, ProductTokenChars, QueryReserved, Readings, Rfc9309,
    Robots, RobotsTxtQuery, Specificity,
};
use proptest::collection::vec;
use proptest::prelude::*;
use proptest::sample::select;

// ---------------------------------------------------------------- model

/// A group as the generator sees it: user-agent values and (allow, path) rules.
/// Every group has at least one rule, so rendering groups one after another
/// never joins two of them (§2.2: a user-agent line after a rule starts a
/// new group; one before any rule joins the current group).
#[derive(Debug, Clone)]
struct Group {
    agents: Vec<&'static str>,
    rules: Vec<(bool, String)>,
}

const GROUP_AGENTS: &[&str] = &[
    "foobot",
    "BarBot",
    "baz-bot",
    "*",
    "qux_bot",
    "FooBot/1.0",
    "Foo2Bot",
];

const CALLERS: &[&str] = &[
    "FooBot",
    "foobot/2.1",
    "barbot",
    "BAZ-BOT",
    "qux_bot (x)",
    "other",
    "Mozilla/5.0 (compatible; FooBot/1.0)",
    "Foo2Bot",
    "",
];

fn pattern() -> impl Strategy<Value = String> {
    let piece = select(vec![
        "a", "b", "/", ".", "-", "*", "%2F", "%61", "?", "=", "ツ", "x.html", "~", ":", "$",
    ]);
    (
        prop::bool::weighted(0.9),
        vec(piece, 0..6),
        any::<bool>(),
        prop::bool::weighted(0.05),
    )
        .prop_map(|(slash, pieces, anchored, empty)| {
            if empty {
                return String::new();
            }
            let mut p = String::from(if slash { "/" } else { "" });
            for piece in pieces {
                p.push_str(piece);
            }
            if anchored {
                p.push('$');
            }
            if p.is_empty() {
                p.push('*');
            }
            p
        })
}

fn path() -> impl Strategy<Value = String> {
    let piece = select(vec![
        "a", "b", "/", ".", "-", "x.html", "?", "=", "%2F", "%2f", "ツ", "~", "*", "$", ":",
    ]);
    vec(piece, 0..8).prop_map(|pieces| {
        let mut p = String::from("/");
        for piece in pieces {
            p.push_str(piece);
        }
        p
    })
}

fn group() -> impl Strategy<Value = Group> {
    (
        vec(select(GROUP_AGENTS), 1..3),
        vec((any::<bool>(), pattern()), 1..5),
    )
        .prop_map(|(agents, rules)| Group { agents, rules })
}

fn groups() -> impl Strategy<Value = Vec<Group>> {
    vec(group(), 0..5)
}

fn queries() -> impl Strategy<Value = Vec<(&'static str, String)>> {
    vec((select(CALLERS), path()), 1..8)
}

fn readings() -> impl Strategy<Value = Readings> {
    (
        select(vec![Specificity::PatternOctets, Specificity::MatchedSpan]),
        select(vec![
            QueryReserved::EncodeGenDelims,
            QueryReserved::AsWritten,
        ]),
        select(vec![ProductTokenChars::Strict, ProductTokenChars::Lenient]),
        select(vec![CallerToken::UpToSlashOrSpace, CallerToken::Verbatim]),
        select(vec![
            EmptyPattern::MatchesNothing,
            EmptyPattern::MatchesEverything,
        ]),
        select(vec![OrphanRules::Ignore, OrphanRules::AsStarGroup]),
        select(vec![ByteOrderMark::Skip, ByteOrderMark::Literal]),
        grammar_gaps(),
    )
        .prop_map(|(s, q, p, c, e, o, b, gaps)| Readings {
            specificity: s,
            query_reserved: q,
            product_token: p,
            caller_token: c,
            empty_pattern: e,
            orphan_rules: o,
            auth_status: AuthStatus::Unavailable,
            parse_limit: Some(oracles::rfc9309::PARSE_LIMIT_500_KIB),
            byte_order_mark: b,
            ..gaps
        })
}

/// The readings of the §2.2 grammar's gaps, drawn together.
fn grammar_gaps() -> impl Strategy<Value = Readings> {
    (
        select(vec![PatternJunk::EncodeAsData, PatternJunk::RuleIgnored]),
        select(vec![InnerDollar::Literal, InnerDollar::MatchesNothing]),
        select(vec![InvalidUtf8::PercentEncode, InvalidUtf8::Replacement]),
        select(vec![NoColon::Ignored, NoColon::WhitespaceSeparator]),
        select(vec![
            RobotsTxtQuery::PathComponent,
            RobotsTxtQuery::ExactPath,
        ]),
        select(vec![PatternStart::AsWritten, PatternStart::RuleIgnored]),
    )
        .prop_map(|(j, d, u, n, r, p)| Readings {
            pattern_junk: j,
            inner_dollar: d,
            invalid_utf8: u,
            no_colon: n,
            robots_txt_query: r,
            pattern_start: p,
            ..Readings::default()
        })
}

// ---------------------------------------------------------------- rendering

/// How a model is written out. Per-line choices are indexed by line number,
/// cyclically.
#[derive(Debug, Clone)]
struct Style {
    eol: &'static str,
    /// 0 as written, 1 UPPER, 2 lower, 3 aLtErNaTiNg.
    key_case: Vec<u8>,
    /// Own-line comment before the line; trailing comment after it.
    comment_before: Vec<bool>,
    comment_after: Vec<bool>,
    /// Blank lines (empty, or whitespace only) before the line.
    blanks_before: Vec<u8>,
    /// 0 `key: value`, 1 `key:value`, 2 `  key :\tvalue  `.
    spacing: Vec<u8>,
}

impl Style {
    fn plain() -> Style {
        Style {
            eol: "\n",
            key_case: vec![0],
            comment_before: vec![false],
            comment_after: vec![false],
            blanks_before: vec![0],
            spacing: vec![0],
        }
    }
}

fn eol() -> impl Strategy<Value = &'static str> {
    select(vec!["\n", "\r\n", "\r"])
}

fn style() -> impl Strategy<Value = Style> {
    (
        eol(),
        vec(0u8..4, 1..8),
        vec(any::<bool>(), 1..8),
        vec(any::<bool>(), 1..8),
        vec(0u8..3, 1..8),
        vec(0u8..3, 1..8),
    )
        .prop_map(|(eol, key_case, before, after, blanks, spacing)| Style {
            eol,
            key_case,
            comment_before: before,
            comment_after: after,
            blanks_before: blanks,
            spacing,
        })
}

fn cyc<T: Copy>(v: &[T], i: usize) -> T {
    v[i % v.len()]
}

fn recase(key: &str, how: u8) -> String {
    match how {
        1 => key.to_ascii_uppercase(),
        2 => key.to_ascii_lowercase(),
        3 => key
            .chars()
            .enumerate()
            .map(|(i, c)| {
                if i % 2 == 0 {
                    c.to_ascii_uppercase()
                } else {
                    c.to_ascii_lowercase()
                }
            })
            .collect(),
        _ => key.to_string(),
    }
}

fn render(groups: &[Group], order: &[usize], style: &Style) -> String {
    let mut out = String::new();
    let mut line = 0usize;
    let mut emit = |key: &str, value: &str| {
        let i = line;
        line += 1;
        for b in 0..cyc(&style.blanks_before, i) {
            out.push_str(if b % 2 == 0 { "" } else { " \t" });
            out.push_str(style.eol);
        }
        if cyc(&style.comment_before, i) {
            out.push_str("# a comment: Disallow: /");
            out.push_str(style.eol);
        }
        let key = recase(key, cyc(&style.key_case, i));
        match cyc(&style.spacing, i) {
            1 => out.push_str(&format!("{key}:{value}")),
            2 => out.push_str(&format!("  {key} :\t{value}  ")),
            _ => out.push_str(&format!("{key}: {value}")),
        }
        if cyc(&style.comment_after, i) {
            out.push_str(" # trailing: Allow: /");
        }
        out.push_str(style.eol);
    };
    for &g in order {
        let g = &groups[g];
        for a in &g.agents {
            emit("User-agent", a);
        }
        for (allow, p) in &g.rules {
            emit(if *allow { "Allow" } else { "Disallow" }, p);
        }
    }
    out
}

fn identity(n: usize) -> Vec<usize> {
    (0..n).collect()
}

fn verdicts(body: &str, readings: &Readings, queries: &[(&str, String)]) -> Vec<bool> {
    let robots = Robots::parse(body.as_bytes(), readings);
    let mut scratch = Vec::new();
    queries
        .iter()
        .map(|(agent, path)| {
            robots
                .decide(agent, &format!("http://example.test{path}"), &mut scratch)
                .allowed
        })
        .collect()
}

/// Percent-encode the unreserved ASCII characters of `path` chosen by
/// `mask`, in upper or lower hex, leaving existing escapes alone.
fn encode_unreserved(path: &str, mask: &[bool], upper: bool) -> String {
    let bytes = path.as_bytes();
    let mut out = String::new();
    let (mut i, mut k) = (0, 0);
    while i < bytes.len() {
        let b = bytes[i];
        let len = if b == b'%' {
            // An existing escape is copied as it is.
            (bytes.len() - i).min(3)
        } else {
            utf8_len(b)
        };
        let unreserved = b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~');
        if unreserved && cyc(mask, k) {
            if upper {
                out.push_str(&format!("%{b:02X}"));
            } else {
                out.push_str(&format!("%{b:02x}"));
            }
        } else {
            out.push_str(&path[i..i + len]);
        }
        i += len;
        k += 1;
    }
    out
}

fn utf8_len(first: u8) -> usize {
    match first {
        0xF0..=0xFF => 4,
        0xE0..=0xEF => 3,
        0xC0..=0xDF => 2,
        _ => 1,
    }
}

// ---------------------------------------------------------------- properties

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// §2.2 `NL = %x0D / %x0A / %x0D.0A`.
    #[test]
    fn line_ends_do_not_matter(gs in groups(), qs in queries(), r in readings(), e in eol()) {
        let order = identity(gs.len());
        let base = verdicts(&render(&gs, &order, &Style::plain()), &r, &qs);
        let style = Style { eol: e, ..Style::plain() };
        prop_assert_eq!(base, verdicts(&render(&gs, &order, &style), &r, &qs));
    }

    /// §2.2 `comment`, own-line and trailing.
    #[test]
    fn comments_do_not_matter(
        gs in groups(), qs in queries(), r in readings(),
        before in vec(any::<bool>(), 1..8), after in vec(any::<bool>(), 1..8),
    ) {
        let order = identity(gs.len());
        let base = verdicts(&render(&gs, &order, &Style::plain()), &r, &qs);
        let style = Style { comment_before: before, comment_after: after, ..Style::plain() };
        prop_assert_eq!(base, verdicts(&render(&gs, &order, &style), &r, &qs));
    }

    /// Directive names are case-insensitive (RFC 5234 §2.3 for the §2.2 ABNF).
    #[test]
    fn directive_case_does_not_matter(
        gs in groups(), qs in queries(), r in readings(), case in vec(0u8..4, 1..8),
    ) {
        let order = identity(gs.len());
        let base = verdicts(&render(&gs, &order, &Style::plain()), &r, &qs);
        let style = Style { key_case: case, ..Style::plain() };
        prop_assert_eq!(base, verdicts(&render(&gs, &order, &style), &r, &qs));
    }

    /// §2.2 `emptyline` between user-agent lines and between rules.
    #[test]
    fn blank_lines_do_not_matter(
        gs in groups(), qs in queries(), r in readings(), blanks in vec(0u8..3, 1..8),
    ) {
        let order = identity(gs.len());
        let base = verdicts(&render(&gs, &order, &Style::plain()), &r, &qs);
        let style = Style { blanks_before: blanks, ..Style::plain() };
        prop_assert_eq!(base, verdicts(&render(&gs, &order, &style), &r, &qs));
    }

    /// §2.2 `*WS` around the key, the `:` and the value.
    #[test]
    fn spacing_does_not_matter(
        gs in groups(), qs in queries(), r in readings(), spacing in vec(0u8..3, 1..8),
    ) {
        let order = identity(gs.len());
        let base = verdicts(&render(&gs, &order, &Style::plain()), &r, &qs);
        let style = Style { spacing, ..Style::plain() };
        prop_assert_eq!(base, verdicts(&render(&gs, &order, &style), &r, &qs));
    }

    /// §2.2.1: groups matching the same agent are merged; the `*` groups
    /// likewise; which comes first is no part of the rule.
    #[test]
    fn group_order_does_not_matter(
        (gs, order) in groups().prop_flat_map(|gs| {
            let n = gs.len();
            (Just(gs), Just(identity(n)).prop_shuffle())
        }),
        qs in queries(), r in readings(),
    ) {
        let base = verdicts(&render(&gs, &identity(gs.len()), &Style::plain()), &r, &qs);
        prop_assert_eq!(base, verdicts(&render(&gs, &order, &Style::plain()), &r, &qs));
    }

    /// Everything at once.
    #[test]
    fn presentation_does_not_matter(
        (gs, order) in groups().prop_flat_map(|gs| {
            let n = gs.len();
            (Just(gs), Just(identity(n)).prop_shuffle())
        }),
        qs in queries(), r in readings(), style in style(),
    ) {
        let base = verdicts(&render(&gs, &identity(gs.len()), &Style::plain()), &r, &qs);
        prop_assert_eq!(base, verdicts(&render(&gs, &order, &style), &r, &qs));
    }

    /// §2.2.2: "If a percent-encoded ASCII octet is encountered in the URI,
    /// it MUST be unencoded prior to comparison" when it is unreserved.
    #[test]
    fn encoding_unreserved_url_octets_does_not_matter(
        gs in groups(), qs in queries(), r in readings(),
        mask in vec(any::<bool>(), 1..9), upper in any::<bool>(),
    ) {
        let body = render(&gs, &identity(gs.len()), &Style::plain());
        let encoded: Vec<(&str, String)> = qs
            .iter()
            .map(|(a, p)| (*a, encode_unreserved(p, &mask, upper)))
            .collect();
        prop_assert_eq!(verdicts(&body, &r, &qs), verdicts(&body, &r, &encoded));
    }

    /// §2.2.2 "The /robots.txt URI is implicitly allowed", for any body.
    #[test]
    fn robots_txt_is_always_allowed(
        body in prop_oneof![
            vec(any::<u8>(), 0..400),
            groups().prop_map(|gs| render(&gs, &identity(gs.len()), &Style::plain()).into_bytes()),
        ],
        agent in prop_oneof![select(CALLERS).prop_map(String::from), any::<String>()],
        url in select(vec![
            "http://example.test/robots.txt",
            "https://example.test:8443/robots.txt?x=1",
            "http://example.test/%72obots.txt#top",
            "/robots.txt",
        ]),
        r in readings(),
    ) {
        let body = [b"User-agent: *\nDisallow: /\nDisallow: /robots.txt$\n".as_slice(), &body].concat();
        let robots = Robots::parse(&body, &r);
        // Under robots-txt-query=exact-path a query makes it another URI,
        // which the rules decide (the grammar_gaps unit test covers it).
        if r.robots_txt_query == RobotsTxtQuery::PathComponent || !url.contains('?') {
            prop_assert!(robots.allowed(&agent, url));
        }
    }

    /// §2.2.2 "The most specific match found MUST be used": an allow that
    /// matches with more octets than any other rule of the file wins, under
    /// either specificity reading.
    #[test]
    fn a_strictly_longer_allow_wins(
        gs in groups(), r in readings(), callers in vec(select(CALLERS), 1..4),
        p in "/[a-z0-9._/-]{0,20}",
    ) {
        let longest = gs
            .iter()
            .flat_map(|g| g.rules.iter().map(|(_, p)| p.len()))
            .max()
            .unwrap_or(0);
        // Normalisation at most triples a pattern's length.
        let winner = format!("{p}{}", "*".repeat(3 * longest + 1));
        let gs: Vec<Group> = gs
            .into_iter()
            .map(|mut g| {
                g.rules.push((true, winner.clone()));
                g
            })
            .collect();
        let body = render(&gs, &identity(gs.len()), &Style::plain());
        let robots = Robots::parse(body.as_bytes(), &r);
        for c in callers {
            let url = format!("http://example.test{p}");
            prop_assert!(robots.allowed(c, &url), "{} {} in\n{}", c, url, body);
        }
    }

    /// §2.2.2 with two literal rules on one path: the longer decides,
    /// whichever kind it is and whichever comes first.
    #[test]
    fn longer_of_two_literal_rules_decides(
        p in "/[a-z0-9._/-]{1,20}", i in 0usize..21, j in 0usize..21,
        allow_first in any::<bool>(), r in readings(),
    ) {
        let (i, j) = (1 + i % p.len(), 1 + j % p.len());
        prop_assume!(i != j);
        let allow = format!("Allow: {}", &p[..i]);
        let disallow = format!("Disallow: {}", &p[..j]);
        let body = if allow_first {
            format!("User-agent: *\n{allow}\n{disallow}\n")
        } else {
            format!("User-agent: *\n{disallow}\n{allow}\n")
        };
        let robots = Robots::parse(body.as_bytes(), &r);
        prop_assert_eq!(robots.allowed("x", &format!("http://example.test{p}")), i > j);
    }

    /// §2.2.3 `*` and `$`: the linear matcher against a reference dynamic
    /// program, earliest and latest end of the match.
    #[test]
    fn matcher_agrees_with_reference(
        pattern in "[ab*]{0,8}\\$?", path in "[ab]{0,12}",
    ) {
        let (min, max) = reference(pattern.as_bytes(), path.as_bytes());
        prop_assert_eq!(match_end(pattern.as_bytes(), path.as_bytes(), false), min);
        prop_assert_eq!(match_end(pattern.as_bytes(), path.as_bytes(), true), max);
    }

    /// §2.3.1.5: any bytes parse, and the oracle answers every query.
    #[test]
    fn any_body_gets_one_answer_per_query(
        body in vec(any::<u8>(), 0..600), qs in queries(), r in readings(),
    ) {
        let queries: Vec<Query> = qs
            .iter()
            .map(|(a, p)| Query {
                ask: Ask::CanFetch,
                agent: a.to_string(),
                url: format!("http://example.test{p}"),
            })
            .collect();
        let answers = Rfc9309::new(r).run(&body, &queries);
        prop_assert_eq!(answers.len(), queries.len());
        for a in answers {
            prop_assert!(matches!(a.outcome, Outcome::Allowed | Outcome::Disallowed));
            prop_assert!(a.explain.contains("readings: "));
        }
    }
}

/// Earliest and latest end of a prefix match of a glob over `path`.
fn reference(pattern: &[u8], path: &[u8]) -> (Option<usize>, Option<usize>) {
    let (pattern, anchored) = match pattern.split_last() {
        Some((b'$', rest)) => (rest, true),
        _ => (pattern, false),
    };
    let n = path.len();
    // reach[j]: the pattern consumed so far can end at path position j.
    let mut reach = vec![false; n + 1];
    reach[0] = true;
    for &c in pattern {
        let mut next = vec![false; n + 1];
        if c == b'*' {
            let mut any = false;
            for j in 0..=n {
                any |= reach[j];
                next[j] = any;
            }
        } else {
            for j in 0..n {
                next[j + 1] = reach[j] && path[j] == c;
            }
        }
        reach = next;
    }
    let ends: Vec<usize> = (0..=n)
        .filter(|&j| reach[j] && (!anchored || j == n))
        .collect();
    (ends.first().copied(), ends.last().copied())
}
