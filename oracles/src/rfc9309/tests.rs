//! The RFC's own examples (§5.1, §5.2) with every stated result, and the
//! minimal repros of the research notes' divergence table, RFC column.

use super::*;

const SECTION_5_1: &str = "User-Agent: *
Disallow: *.gif$
Disallow: /example/
Allow: /publications/

User-Agent: foobot
Disallow:/
Allow:/example/page.html
Allow:/example/allowed.gif

User-Agent: barbot
User-Agent: bazbot
Disallow: /example/page.html

User-Agent: quxbot

EOF
";

fn robots(body: &str) -> Robots {
    Robots::parse(body.as_bytes(), &Readings::default())
}

fn check(body: &str, agent: &str, path: &str) -> bool {
    robots(body).allowed(agent, &format!("http://example.com{path}"))
}

fn check_with(readings: Readings, body: &str, agent: &str, path: &str) -> bool {
    Robots::parse(body.as_bytes(), &readings).allowed(agent, &format!("http://example.com{path}"))
}

fn explain_of(body: &str, agent: &str, path: &str) -> String {
    let r = robots(body);
    let mut scratch = Vec::new();
    let v = r.decide(agent, &format!("http://example.com{path}"), &mut scratch);
    explain::explain(&r, &v, agent, &scratch)
}

/// §5.1 "*: ... It allows access to the URLs with the /publications/ path
/// prefix, and it restricts access to the URLs with the /example/ path
/// prefix and to all URLs with a .gif suffix."
#[test]
fn section_5_1_star() {
    for agent in ["otherbot", "Mozilla/5.0", ""] {
        assert!(check(SECTION_5_1, agent, "/publications/"));
        assert!(check(SECTION_5_1, agent, "/publications/a.html"));
        assert!(!check(SECTION_5_1, agent, "/example/"));
        assert!(!check(SECTION_5_1, agent, "/example/page.html"));
        assert!(!check(SECTION_5_1, agent, "/a.gif"));
        assert!(!check(SECTION_5_1, agent, "/images/x/y.gif"));
        // ".gif suffix": `$` anchors the end.
        assert!(check(SECTION_5_1, agent, "/a.gif.html"));
        assert!(check(SECTION_5_1, agent, "/"));
        assert!(check(SECTION_5_1, agent, "/other/page"));
    }
}

/// §5.1 "foobot: ... The crawler only has access to two URL path prefixes on
/// the site -- /example/page.html and /example/allowed.gif."
#[test]
fn section_5_1_foobot() {
    for agent in ["foobot", "FooBot", "FOOBOT/2.1"] {
        assert!(check(SECTION_5_1, agent, "/example/page.html"));
        assert!(check(SECTION_5_1, agent, "/example/page.html?x=1"));
        assert!(check(SECTION_5_1, agent, "/example/allowed.gif"));
        assert!(!check(SECTION_5_1, agent, "/"));
        assert!(!check(SECTION_5_1, agent, "/example/"));
        assert!(!check(SECTION_5_1, agent, "/example/other.gif"));
        assert!(!check(SECTION_5_1, agent, "/publications/"));
    }
}

/// §5.1 "barbot and bazbot: ... The crawlers are not allowed to access the
/// URLs with the /example/page.html path prefix but otherwise have
/// unrestricted access to the rest of the URLs on the site."
#[test]
fn section_5_1_barbot_bazbot() {
    for agent in ["barbot", "bazbot", "BazBot/1.0"] {
        assert!(!check(SECTION_5_1, agent, "/example/page.html"));
        assert!(!check(SECTION_5_1, agent, "/example/page.html5"));
        assert!(check(SECTION_5_1, agent, "/example/"));
        assert!(check(SECTION_5_1, agent, "/example/other.html"));
        assert!(check(SECTION_5_1, agent, "/a.gif"));
        assert!(check(SECTION_5_1, agent, "/"));
    }
}

/// §5.1 "quxbot: An empty group at the end of the file. The crawler has
/// unrestricted access to the URLs on the site."
#[test]
fn section_5_1_quxbot() {
    for path in [
        "/",
        "/example/",
        "/example/page.html",
        "/a.gif",
        "/publications/",
    ] {
        assert!(check(SECTION_5_1, "quxbot", path), "{path}");
    }
    let e = explain_of(SECTION_5_1, "quxbot", "/a.gif");
    assert!(e.contains("the group has no rules"), "{e}");
}

/// The trailing `EOF` line has no `:`: not a record, skipped (§2.3.1.5).
#[test]
fn section_5_1_eof_line_is_skipped() {
    let r = robots(SECTION_5_1);
    assert_eq!(r.notes().other_lines, 1);
    assert_eq!(r.groups().len(), 4);
}

/// §5.2 "/example/page/disallowed.gif MUST be used for the URI
/// example.com/example/page/disallow.gif" — the RFC's URI is misspelt; for
/// the URI the rule names, the longer disallow decides.
#[test]
fn section_5_2_longest_match() {
    let body =
        "User-Agent: foobot\nAllow: /example/page/\nDisallow: /example/page/disallowed.gif\n";
    assert!(!check(body, "foobot", "/example/page/disallowed.gif"));
    let e = explain_of(body, "foobot", "/example/page/disallowed.gif");
    assert!(
        e.contains("line 3 disallow \"/example/page/disallowed.gif\" (28 octets of pattern"),
        "{e}"
    );
    // The URI as printed matches only the allow rule.
    assert!(check(body, "foobot", "/example/page/disallow.gif"));
    assert!(check(body, "foobot", "/example/page/"));
}

/// §2.2.2 Figure 4: each row's path and its encoded form are the same URI,
/// whichever side (rule or URI) uses which spelling.
#[test]
fn figure_4_rows_match_across_spellings() {
    let rows = [
        ("/foo/bar?baz=quz", "/foo/bar?baz=quz"),
        (
            "/foo/bar?baz=https://foo.bar",
            "/foo/bar?baz=https%3A%2F%2Ffoo.bar",
        ),
        ("/foo/bar/ツ", "/foo/bar/%E3%83%84"),
        ("/foo/bar/%E3%83%84", "/foo/bar/%E3%83%84"),
        ("/foo/bar/%62%61%7A", "/foo/bar/baz"),
    ];
    for (a, b) in rows {
        for (rule, uri) in [(a, b), (b, a), (a, a), (b, b)] {
            let body = format!("User-agent: *\nDisallow: {rule}$\n");
            assert!(!check(&body, "x", uri), "rule {rule} vs URI {uri}");
        }
    }
    // Under the other query reading only row 2 changes.
    let as_written = Readings {
        query_reserved: QueryReserved::AsWritten,
        ..Readings::default()
    };
    let body = "User-agent: *\nDisallow: /foo/bar?baz=https://foo.bar$\n";
    assert!(!check_with(
        as_written,
        body,
        "x",
        "/foo/bar?baz=https://foo.bar"
    ));
    assert!(!check(body, "x", "/foo/bar?baz=https%3A%2F%2Ffoo.bar"));
    assert!(check_with(
        as_written,
        body,
        "x",
        "/foo/bar?baz=https%3A%2F%2Ffoo.bar"
    ));
}

/// §2.2.3 Figure 6.
#[test]
fn figure_6_literal_special_characters() {
    let body = "User-agent: *\nDisallow: /path/file-with-a-%2A.html\nDisallow: /path/foo-%24\n";
    assert!(!check(body, "x", "/path/file-with-a-*.html"));
    assert!(!check(body, "x", "/path/file-with-a-%2A.html"));
    assert!(check(body, "x", "/path/file-with-a-b.html"));
    assert!(!check(body, "x", "/path/foo-$"));
    assert!(check(body, "x", "/path/foo-"));
}

/// §2.2.3 Figure 5 examples: `#`, `$`, `*`.
#[test]
fn figure_5_special_characters() {
    let body =
        "User-agent: *\nDisallow: /\nallow: / # comment in line\n# comment on its own line\n";
    assert!(check(body, "x", "/any"));
    let body = "User-agent: *\nDisallow: /\nallow: /this/path/exactly$\n";
    assert!(check(body, "x", "/this/path/exactly"));
    assert!(!check(body, "x", "/this/path/exactly/not"));
    let body = "User-agent: *\nDisallow: /\nallow: /this/*/exactly\n";
    assert!(check(body, "x", "/this/a/b/exactly"));
    assert!(!check(body, "x", "/this/exactly"));
}

/// §2.2.1 Figures 2 and 3.
#[test]
fn section_2_2_1_figures() {
    let merged = "user-agent: ExampleBot\ndisallow: /foo\ndisallow: /bar\n\nuser-agent: ExampleBot\ndisallow: /baz\n";
    for p in ["/foo", "/bar", "/baz"] {
        assert!(!check(merged, "ExampleBot", p));
    }
    let e = explain_of(merged, "examplebot/0.1", "/baz");
    assert!(e.contains("2 groups merged (§2.2.1) at lines 1, 5"), "{e}");
    assert!(e.contains("line 6 disallow \"/baz\""), "{e}");
    let star =
        "user-agent: *\ndisallow: /foo\ndisallow: /bar\n\nuser-agent: BazBot\ndisallow: /baz\n";
    assert!(!check(star, "ExampleBot", "/foo"));
    assert!(check(star, "ExampleBot", "/baz"));
    let e = explain_of(star, "ExampleBot", "/foo");
    assert!(
        e.contains("group \"*\": fallback, no group names \"ExampleBot\""),
        "{e}"
    );
    // No group and no `*`: no rules apply.
    assert!(check(
        "user-agent: BazBot\ndisallow: /\n",
        "ExampleBot",
        "/x"
    ));
    assert!(check("", "ExampleBot", "/x"));
    let e = explain_of("user-agent: BazBot\ndisallow: /\n", "ExampleBot", "/x");
    assert!(e.starts_with("allowed: no group applies"), "{e}");
}

/// The research notes' minimal repros (section 5), RFC column, under the
/// default readings. `true` = allowed.
#[test]
fn divergence_table_rfc_column() {
    #[rustfmt::skip]
    let cases: &[(u32, &str, &str, &str, bool)] = &[
        (1, "User-agent: bot\nDisallow: /", "MyBot", "/x", true),
        (2, "User-agent: googlebot\nDisallow: /", "Googlebot-News", "/x", true),
        (3, "User-agent: FooBot/1.0\nDisallow: /", "FooBot", "/x", true),
        (5, "User-agent: Foo2Bot\nDisallow: /", "Foo", "/x", true),
        (6, "User-agent: foobot\nDisallow: /", "Mozilla/5.0 (compatible; FooBot/1.0)", "/x", true),
        (7, "User-agent: bot\nDisallow: /a\n\nUser-agent: mybot\nDisallow: /b", "MyBot/2.0", "/a", true),
        (8, "User-agent:\nDisallow: /", "FooBot", "/x", true),
        (9, "User-agent: foo*\nDisallow: /", "foo", "/x", true),
        (10, "User-agent: BarBot\nSitemap: https://foo.bar/s\nUser-agent: *\nDisallow: /", "BarBot", "/", false),
        (11, "User-agent: FooBot\nInvalid-Unknown-Line: x\nUser-agent: *\nDisallow: /", "FooBot", "/", false),
        (12, "User-agent: FooBot\nCrawl-delay: 5\nUser-agent: *\nDisallow: /", "FooBot", "/x", false),
        (13, "User-agent: FooBot\n\nDisallow: /", "FooBot", "/x", false),
        (14, "User-agent: FooBot\nDisallow: /\nAllow: /x/", "FooBot", "/x/y", true),
        (15, "User-agent: FooBot\nDisallow: /x\nAllow: /x", "FooBot", "/x", true),
        (16, "User-agent: FooBot\nDisallow:\nDisallow: /", "FooBot", "/x", false),
        (17, "User-agent: FooBot\nDisallow: /*.php", "FooBot", "/a/b.php", false),
        (18, "User-agent: FooBot\nDisallow: /a$b", "FooBot", "/a$b", false),
        (19, "User-agent: *\nDisallow: *.gif$", "FooBot", "/x/y.gif", false),
        (20, SECTION_5_1, "quxbot", "/example/a", true),
        (21, "User-agent: *\nDisallow: /", "FooBot", "/robots.txt", true),
        (22, "User-agent: *\nDisallowed: /", "FooBot", "/x", true),
        (23, "User-agent: *\nDissallow: /", "FooBot", "/x", true),
        (24, "User-agent FooBot\nDisallow /", "FooBot", "/x", true),
        (25, "User-agent: *\nDisallow: /a%2Fb", "FooBot", "/a/b", true),
        (26, "User-agent: *\nDisallow: /foo/bar/%62%61%7A", "FooBot", "/foo/bar/baz", false),
        (27, "User-agent: *\nDisallow: /foo/bar/ツ", "FooBot", "/foo/bar/ツ", false),
        (28, "User-agent: *\nDisallow: /path/file-with-a-%2A.html", "FooBot", "/path/file-with-a-*.html", false),
        (29, "User-agent: *\nDisallow: /p?q=a%3Db", "FooBot", "/p?q=a=b", true),
        (30, "User-agent: *\nDisallow: /?", "FooBot", "/search", true),
        (31, "User-agent: *\nAllow: /d/index.html\nDisallow: /", "FooBot", "/d/", false),
        (32, "User-agent: *\nDisallow: /a\n\nUser-agent: *\nDisallow: /b", "FooBot", "/b", false),
        (33, "User-agent: FooBot\nDisallow: /a\n\nUser-agent: FooBot\nDisallow: /b", "FooBot", "/b", false),
        (34, "\u{FEFF}User-agent: FooBot\nDisallow: /", "FooBot", "/x", false),
        (35, "User-agent: FooBot\u{2028}Disallow: /", "FooBot", "/x", true),
        (35, "User-agent: FooBot\u{0B}Disallow: /", "FooBot", "/x", true),
        (35, "User-agent: FooBot\u{0C}Disallow: /", "FooBot", "/x", true),
        (35, "User-agent: FooBot\u{85}Disallow: /", "FooBot", "/x", true),
        (36, "User-agent: FooBot\0Disallow: /", "FooBot", "/x", true),
        (37, "User-agent: *\nDisallow: /a/", "FooBot", "/b/../a/x", true),
        (38, "User-agent: FooBot\nAllow: /x/page.\nDisallow: /*.html", "FooBot", "/x/page.html", true),
        (39, "User-agent: FooBot\nDisallow: /fish*\nAllow: /fish/salmon", "FooBot", "/fish/salmon.html", true),
        (40, "Disallow: /", "FooBot", "/y", true),
        (41, "User-agent: *\nDisallow: /a%2fb", "FooBot", "/a%2Fb", false),
    ];
    for &(row, body, agent, path, allowed) in cases {
        assert_eq!(
            check(body, agent, path),
            allowed,
            "row {row}: {}",
            explain_of(body, agent, path)
        );
    }
}

#[test]
fn readings_change_what_they_say() {
    // Row 34 under the other BOM reading.
    let bom = "\u{FEFF}User-agent: FooBot\nDisallow: /";
    let literal = Readings {
        byte_order_mark: ByteOrderMark::Literal,
        ..Readings::default()
    };
    assert!(check_with(literal, bom, "FooBot", "/x"));
    assert!(explain_of(bom, "FooBot", "/x").contains("bom=skip"));

    // Rows 38/39 under the matched-span reading (CPython 3.15's ranking).
    let span = Readings {
        specificity: Specificity::MatchedSpan,
        ..Readings::default()
    };
    let row38 = "User-agent: FooBot\nAllow: /x/page.\nDisallow: /*.html";
    assert!(!check_with(span, row38, "FooBot", "/x/page.html"));
    let row39 = "User-agent: FooBot\nDisallow: /fish*\nAllow: /fish/salmon";
    assert!(!check_with(span, row39, "FooBot", "/fish/salmon.html"));
    // Without wildcards both readings agree.
    let plain = "User-agent: FooBot\nAllow: /x\nDisallow: /x/y";
    assert!(!check_with(span, plain, "FooBot", "/x/y/z"));
    // §5.1: under pattern octets a .gif under /publications/ is allowed (14 >
    // 6 octets); under matched span `*.gif$` covers the whole URI and wins.
    assert!(check(SECTION_5_1, "x", "/publications/a.gif"));
    assert!(!check_with(span, SECTION_5_1, "x", "/publications/a.gif"));

    // Rows 3 and 5 under lenient product tokens.
    let lenient = Readings {
        product_token: ProductTokenChars::Lenient,
        ..Readings::default()
    };
    let row3 = "User-agent: FooBot/1.0\nDisallow: /";
    assert!(!check_with(lenient, row3, "FooBot", "/x"));
    let row5 = "User-agent: Foo2Bot\nDisallow: /";
    assert!(check_with(lenient, row5, "Foo", "/x"));
    assert!(!check_with(lenient, row5, "foo2bot/3", "/x"));

    // Verbatim caller agent.
    let verbatim = Readings {
        caller_token: CallerToken::Verbatim,
        ..Readings::default()
    };
    let foobot = "User-agent: FooBot\nDisallow: /";
    assert!(check_with(verbatim, foobot, "FooBot/1.0", "/x"));
    assert!(!check_with(verbatim, foobot, "foobot", "/x"));

    // Empty rules, literally.
    let literal_empty = Readings {
        empty_pattern: EmptyPattern::MatchesEverything,
        ..Readings::default()
    };
    assert!(check("User-agent: *\nDisallow:", "x", "/a"));
    assert!(!check_with(
        literal_empty,
        "User-agent: *\nDisallow:",
        "x",
        "/a"
    ));
    assert!(check_with(
        literal_empty,
        "User-agent: *\nDisallow:\nAllow:",
        "x",
        "/a"
    ));

    // Orphan rules.
    let orphans = Readings {
        orphan_rules: OrphanRules::AsStarGroup,
        ..Readings::default()
    };
    assert!(!check_with(orphans, "Disallow: /", "FooBot", "/y"));
    let named = "Disallow: /\nUser-agent: FooBot\nAllow: /";
    assert!(check_with(orphans, named, "FooBot", "/y"));
    let merged = "Disallow: /a\nUser-agent: *\nDisallow: /b";
    assert!(!check_with(orphans, merged, "FooBot", "/a"));
    let e = explain_of("Disallow: /\nUser-agent: x\nAllow: /", "FooBot", "/y");
    assert!(
        e.contains("orphans=ignored (1 rules before any user-agent)"),
        "{e}"
    );
}

#[test]
fn parse_limit_applies_to_run() {
    let mut body = String::from("User-agent: *\n");
    while body.len() < PARSE_LIMIT_500_KIB {
        body.push_str("Disallow: /filler/path/segment\n");
    }
    body.push_str("Disallow: /late\n");
    assert!(check(&body, "x", "/late"));
    let e = explain_of(&body, "x", "/late");
    assert!(e.contains("parse-limit=512000"), "{e}");
    let unlimited = Readings {
        parse_limit: None,
        ..Readings::default()
    };
    assert!(!check_with(unlimited, &body, "x", "/late"));
}

#[test]
fn url_shapes() {
    let body = "User-agent: *\nDisallow: /$\nDisallow: /a$ # comment\nDisallow: /?q\n";
    assert!(!check(body, "x", ""));
    // No path: the empty path is `/` (RFC 3986 §6.2.3).
    assert!(!robots(body).allowed("x", "http://example.com"));
    assert!(!robots(body).allowed("x", "http://example.com?q"));
    assert!(robots(body).allowed("x", "http://example.com?r"));
    // The fragment is dropped.
    assert!(!robots(body).allowed("x", "http://example.com/#top"));
    assert!(!robots(body).allowed("x", "http://example.com/a#top"));
    assert!(robots(body).allowed("x", "http://example.com/ab#top"));
}

#[test]
fn explanations() {
    let body = "User-agent: FooBot\nDisallow: /\nAllow: /x/\n";
    let e = explain_of(body, "FooBot/1.0", "/x/y?q=1");
    assert_eq!(
        e,
        "allowed by line 3 allow \"/x/\" (3 octets of pattern, §2.2.2 most specific); \
         group \"foobot\": exact token, line 1; path \"/x/y?q=1\"; \
         readings: agent=up-to-slash-or-space, token=strict, specificity=pattern-octets, \
         query=encode-gen-delims"
    );
    let e = explain_of(body, "FooBot", "/robots.txt");
    assert!(
        e.starts_with("allowed: /robots.txt is implicitly allowed (§2.2.2)"),
        "{e}"
    );
    let e = explain_of(body, "FooBot", "/y");
    assert!(
        e.starts_with("disallowed by line 2 disallow \"/\" (1 octets of pattern"),
        "{e}"
    );
    let e = explain_of("User-agent: *\nDisallow: /a\n", "FooBot", "/b");
    assert!(
        e.starts_with("allowed: none of the group's 1 rules matches (§2.2.2)"),
        "{e}"
    );
}

#[test]
fn oracle_answers_every_query() {
    let mut oracle = Rfc9309::default();
    let q = |ask, agent: &str, url: &str| Query {
        ask,
        agent: agent.into(),
        url: url.into(),
    };
    let body = b"Sitemap: https://a.test/s1.xml\nUser-agent: *\nDisallow: /p\nCrawl-delay: 3\nsitemap: https://a.test/s2.xml # c\n";
    let answers = oracle.run(
        body,
        &[
            q(Ask::CanFetch, "Bot", "http://a.test/p"),
            q(Ask::CanFetch, "Bot", "http://a.test/q"),
            q(Ask::Sitemaps, "", ""),
            q(Ask::CrawlDelay, "Bot", ""),
            q(Ask::RequestRate, "Bot", ""),
        ],
    );
    assert_eq!(answers.len(), 5);
    assert_eq!(answers[0].outcome, Outcome::Disallowed);
    assert_eq!(answers[1].outcome, Outcome::Allowed);
    assert!(!answers[0].explain.is_empty());
    assert_eq!(
        answers[2].outcome,
        Outcome::Value {
            value: Value::List(vec![
                "https://a.test/s1.xml".into(),
                "https://a.test/s2.xml".into()
            ])
        }
    );
    assert!(matches!(answers[3].outcome, Outcome::Unsupported { .. }));
    assert!(matches!(answers[4].outcome, Outcome::Unsupported { .. }));
    assert!(oracle.capabilities().can_fetch && oracle.capabilities().sitemaps);
}

#[test]
fn registered_first() {
    let registry = crate::registry();
    assert_eq!(registry[0].name, NAME);
    assert_eq!(registry[0].runtime, crate::Runtime::Rust);
    assert!((registry[0].make)().is_ok());
}

/// The grammar's gaps, each a named reading: the default keeps the verdict
/// the reference always gave, the alternative changes it, and the
/// explanation names the reading that decided.
#[test]
fn grammar_gaps_are_named_readings() {
    let d = Readings::default;
    // A space inside a pattern: kept and encoded, or the rule ignored.
    let junk = "User-agent: *\nDisallow: /a b\n";
    assert!(!check(junk, "x", "/a%20b"));
    assert!(check_with(
        Readings {
            pattern_junk: PatternJunk::RuleIgnored,
            ..d()
        },
        junk,
        "x",
        "/a%20b"
    ));
    assert!(explain_of(junk, "x", "/a%20b").contains("pattern-junk=encode"));

    // A `$` before the end: data, or the regex reading that never matches.
    let dollar = "User-agent: *\nDisallow: /a$b\n";
    assert!(!check(dollar, "x", "/a$b"));
    assert!(check_with(
        Readings {
            inner_dollar: InnerDollar::MatchesNothing,
            ..d()
        },
        dollar,
        "x",
        "/a$b"
    ));
    assert!(explain_of(dollar, "x", "/a$b").contains("inner-dollar=literal"));

    // Octets that are not UTF-8: encoded as they are, or replaced by U+FFFD.
    let bytes = b"User-agent: *\nDisallow: /\xE9t\xE9\n";
    let url = "http://example.com/%E9t%E9";
    assert!(!Robots::parse(bytes, &d()).allowed("x", url));
    let replaced = Readings {
        invalid_utf8: InvalidUtf8::Replacement,
        ..d()
    };
    assert!(Robots::parse(bytes, &replaced).allowed("x", url));
    assert!(!Robots::parse(bytes, &replaced).allowed("x", "http://example.com/%EF%BF%BDt%EF%BF%BD"));

    // No colon: ignored, or the whitespace stands for it.
    let no_colon = "User-agent: *\nDisallow /private\n";
    assert!(check(no_colon, "x", "/private"));
    assert!(!check_with(
        Readings {
            no_colon: NoColon::WhitespaceSeparator,
            ..d()
        },
        no_colon,
        "x",
        "/private"
    ));
    assert!(explain_of(no_colon, "x", "/private").contains("no-colon=ignored (1 rule lines"));

    // /robots.txt with a query: exempt, or only the bare path.
    let all = "User-agent: *\nDisallow: /\n";
    assert!(check(all, "x", "/robots.txt?x=1"));
    assert!(!check_with(
        Readings {
            robots_txt_query: RobotsTxtQuery::ExactPath,
            ..d()
        },
        all,
        "x",
        "/robots.txt?x=1"
    ));
    assert!(explain_of(all, "x", "/robots.txt?x=1").contains("robots-txt-query=path-component"));

    // A pattern not starting with `/`: kept (matches only through `*`), or
    // ignored.
    let star = "User-agent: *\nDisallow: *.gif$\n";
    assert!(!check(star, "x", "/a.gif"));
    assert!(check_with(
        Readings {
            pattern_start: PatternStart::RuleIgnored,
            ..d()
        },
        star,
        "x",
        "/a.gif"
    ));
    assert!(explain_of(star, "x", "/a.gif").contains("pattern-start=as-written"));
}

/// The census asks for outcomes only: after `skip_explanations` the same
/// verdicts come back without their account.
#[test]
fn skipping_explanations_keeps_every_verdict() {
    let queries: Vec<Query> = ["/example/page.html", "/x.gif", "/publications/a", "/"]
        .iter()
        .flat_map(|path| {
            ["foobot", "barbot", "otherbot"].map(|agent| Query {
                ask: Ask::CanFetch,
                agent: agent.to_string(),
                url: format!("http://www.example.com{path}"),
            })
        })
        .collect();
    let mut talking = Rfc9309::default();
    let mut quiet = Rfc9309::default();
    quiet.skip_explanations();
    let said = talking.run(SECTION_5_1.as_bytes(), &queries);
    let tallied = quiet.run(SECTION_5_1.as_bytes(), &queries);
    assert!(said.iter().all(|a| !a.explain.is_empty()));
    assert!(tallied.iter().all(|a| a.explain.is_empty()));
    let outcomes = |answers: &[Answer]| {
        answers
            .iter()
            .map(|a| a.outcome.clone())
            .collect::<Vec<_>>()
    };
    assert_eq!(outcomes(&said), outcomes(&tallied));
}
