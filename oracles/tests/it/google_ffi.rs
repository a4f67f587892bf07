//! Behaviours that Google's own robots_test.cc pins down, re-expressed here
//! and run through our FFI path (`oracles::google` -> shim.cc -> robots.cc),
//! as the product runs it: inside the harness binary setup builds
//! (`oracles/harness/google/`), over the worker protocol, so the bytes also
//! cross the protocol intact.
//! `cargo xtask verify-google` runs upstream's tests themselves; this checks
//! that our shim hands the library its inputs intact.
//!
//! These tests FAIL, never skip, when the oracle is unavailable: a missing
//! oracle must be noticed.

use engine::oracle::{Answer, Ask, Oracle, Outcome, Query};

fn google() -> Box<dyn Oracle> {
    match oracles::google::make() {
        Ok(oracle) => oracle,
        Err(u) => panic!(
            "{u}\nthe google oracle is required here: run `repdiff setup`, then rerun the tests"
        ),
    }
}

fn can_fetch(agent: &str, url: &str) -> Query {
    Query {
        ask: Ask::CanFetch,
        agent: agent.into(),
        url: url.into(),
    }
}

/// Ask `agent` about each URL against `body`; true means allowed.
fn allowed(body: &[u8], agent: &str, urls: &[&str]) -> Vec<bool> {
    let queries: Vec<Query> = urls.iter().map(|u| can_fetch(agent, u)).collect();
    google()
        .run(body, &queries)
        .into_iter()
        .map(|a| match a.outcome {
            Outcome::Allowed => true,
            Outcome::Disallowed => false,
            other => panic!("google answered {other:?} to a can_fetch query"),
        })
        .collect()
}

#[test]
fn registered_with_its_family() {
    let entry = oracles::registry()
        .into_iter()
        .find(|e| e.name == "google")
        .expect("google is in the registry");
    assert_eq!(entry.runtime, oracles::Runtime::Google);
}

#[test]
fn version_names_the_pinned_source_and_provenance_the_toolchain() {
    let g = google();
    assert_eq!(g.identity().to_string(), "google/robotstxt a732377");
    let p = g.about().provenance;
    assert_eq!(
        (p.registry.as_str(), p.package.as_str(), p.version.as_str()),
        ("pypi", "jwm-robotstxt", "1.0.8")
    );
    assert!(p.build.contains("built with"), "{}", p.build);
    assert!(
        !p.build.contains("/work") && !p.build.contains(".cache"),
        "{}",
        p.build
    );
}

#[test]
fn answers_only_can_fetch() {
    let mut g = google();
    let caps = g.capabilities();
    assert!(caps.can_fetch);
    assert!(!caps.crawl_delay && !caps.request_rate && !caps.sitemaps && !caps.http_fetch);
    let body = b"User-agent: *\nCrawl-delay: 5\nSitemap: http://a.example/s.xml\n";
    let asks = [Ask::CrawlDelay, Ask::RequestRate, Ask::Sitemaps];
    let queries: Vec<Query> = asks
        .iter()
        .map(|&ask| Query {
            ask,
            agent: "FooBot".into(),
            url: String::new(),
        })
        .collect();
    for Answer { outcome, .. } in g.run(body, &queries) {
        assert!(
            matches!(outcome, Outcome::Unsupported { .. }),
            "{outcome:?}"
        );
    }
}

#[test]
fn longest_match_wins_and_allow_wins_ties() {
    // The more specific rule decides, whichever comes first in the group.
    let body = b"User-agent: FooBot\nDisallow: /docs/private\nAllow: /docs/\n";
    assert_eq!(
        allowed(
            body,
            "FooBot",
            &[
                "http://a.example/docs/readme",
                "http://a.example/docs/private/x"
            ]
        ),
        [true, false]
    );
    let body = b"User-agent: FooBot\nAllow: /docs/\nDisallow: /docs/private\n";
    assert_eq!(
        allowed(body, "FooBot", &["http://a.example/docs/private/x"]),
        [false]
    );
    // Same length: allow wins.
    let body = b"User-agent: FooBot\nDisallow: /shop\nAllow: /shop\n";
    assert_eq!(allowed(body, "FooBot", &["http://a.example/shop"]), [true]);
    // A wildcard rule counts by its pattern length, not by what it matched.
    let body = b"User-agent: FooBot\nAllow: /shop/item.\nDisallow: /*.php\n";
    assert_eq!(
        allowed(body, "FooBot", &["http://a.example/shop/item.php"]),
        [true]
    );
}

#[test]
fn user_agent_value_is_case_insensitive_and_cut_at_first_space() {
    for line in [
        "USER-AGENT: QUUX ZAP",
        "user-agent: quux zap",
        "User-Agent: QuUx zAp",
    ] {
        let body = format!("{line}\nAllow: /open/\nDisallow: /\n");
        for agent in ["quux", "QUUX", "Quux"] {
            assert_eq!(
                allowed(
                    body.as_bytes(),
                    agent,
                    &["http://a.example/open/x", "http://a.example/closed"]
                ),
                [true, false],
                "{line:?} with agent {agent:?}"
            );
        }
    }
}

#[test]
fn agent_is_passed_verbatim() {
    // The library compares the caller's whole agent string with the group's
    // token: a product/version string does not match the bare product.
    let body = b"User-agent: FooBot\nDisallow: /\n";
    assert_eq!(allowed(body, "FooBot", &["http://a.example/x"]), [false]);
    assert_eq!(allowed(body, "FooBot/1.0", &["http://a.example/x"]), [true]);
}

#[test]
fn utf8_bom_is_skipped_at_the_start_even_when_partial() {
    let url = ["http://a.example/x"];
    let rules = "User-agent: FooBot\nDisallow: /\n";
    // The whole BOM, or any leading part of it, is skipped.
    for bom in [&b"\xEF\xBB\xBF"[..], b"\xEF\xBB", b"\xEF"] {
        let body = [bom, rules.as_bytes()].concat();
        assert_eq!(allowed(&body, "FooBot", &url), [false], "{bom:x?}");
    }
    // A wrong sequence is not: the first line is garbage and no group forms.
    let broken = [&b"\xEF\x11\xBF"[..], rules.as_bytes()].concat();
    assert_eq!(allowed(&broken, "FooBot", &url), [true]);
    // Nor is a BOM later in the file: it spoils the line it starts.
    let later = b"User-agent: FooBot\n\xEF\xBB\xBFDisallow: /\n";
    assert_eq!(allowed(later, "FooBot", &url), [true]);
}

#[test]
fn overlong_line_is_cut_and_the_cut_rule_applies() {
    // Lines are cut at 2083 * 8 bytes; the rule keeps what came before the cut.
    let long = format!("/deep/{}", "b".repeat(20_000));
    let body = format!("User-agent: FooBot\nDisallow: {long}/tail\n");
    assert_eq!(
        allowed(
            body.as_bytes(),
            "FooBot",
            &[
                "http://a.example/other",
                &format!("http://a.example{long}/different"),
            ]
        ),
        [true, false]
    );
}

#[test]
fn index_html_allows_its_directory() {
    let body = b"User-agent: *\nAllow: /dir/index.html\nDisallow: /\n";
    assert_eq!(
        allowed(
            body,
            "FooBot",
            &[
                "http://a.example/dir/",
                "http://a.example/dir/index.html",
                "http://a.example/dir/index.htm",
                "http://a.example/elsewhere",
            ]
        ),
        [true, true, false, false]
    );
}

#[test]
fn body_bytes_pass_through_undecoded() {
    // Invalid UTF-8 in a comment must not stop the rules after it.
    let body = b"# \xff\xfe not utf-8\nUser-agent: FooBot\nDisallow: /no\n";
    assert_eq!(
        allowed(
            body,
            "FooBot",
            &["http://a.example/no", "http://a.example/yes"]
        ),
        [false, true]
    );
    // An embedded NUL is a byte like any other, not the end of the body.
    let body = b"User-agent: Other\nDisallow: /\x00\nUser-agent: FooBot\nDisallow: /no\n";
    assert_eq!(allowed(body, "FooBot", &["http://a.example/no"]), [false]);
}
