//! Each profile against verdicts its own text states. Every table below is
//! quoted from the text it tests, so a failure is a misreading of that text.

use super::classic::{self, Direction, Edition, Readings};
use super::status::{self, Access};
use super::Classic;
use crate::rfc9309::fetch::Fetched;
use engine::oracle::{Ask, Oracle, Outcome, Query};

fn ask(o: &mut dyn Oracle, body: &str, agent: &str, url: &str) -> Outcome {
    let q = Query {
        ask: Ask::CanFetch,
        agent: agent.into(),
        url: url.into(),
    };
    o.run(body.as_bytes(), &[q]).remove(0).outcome
}

/// draft-koster-robots-00 §4: the example file and its matrix.
const FICT: &str = "# /robots.txt for http://www.fict.org/\n# comments to webmaster@fict.org\n\nUser-agent: unhipbot\nDisallow: /\n\nUser-agent: webcrawler\nUser-agent: excite\nDisallow: \n\nUser-agent: *\nDisallow: /org/plans.html\nAllow: /org/\nAllow: /serv\nAllow: /~mak\nDisallow: /\n";

#[test]
fn draft_1996_section_4_matrix() {
    // (path, unhipbot, webcrawler & excite, other), as §4 prints it.
    let matrix: &[(&str, bool, bool, bool)] = &[
        ("/", false, true, false),
        ("/index.html", false, true, false),
        ("/robots.txt", true, true, true),
        ("/server.html", false, true, true),
        ("/services/fast.html", false, true, true),
        ("/services/slow.html", false, true, true),
        ("/orgo.gif", false, true, false),
        ("/org/about.html", false, true, true),
        ("/org/plans.html", false, true, false),
        ("/%7Ejim/jim.html", false, true, false),
        ("/%7Emak/mak.html", false, true, true),
    ];
    let mut o = Classic::new(Edition::Y1996);
    for &(path, unhip, crawler, other) in matrix {
        let url = format!("http://www.fict.org{path}");
        for (agent, want) in [
            ("UnhipBot/0.1", unhip),
            ("WebCrawler/3.0", crawler),
            ("Excite/1.0", crawler),
            ("OtherBot/1.0", other),
        ] {
            let got = ask(&mut o, FICT, agent, &url);
            let want = if want {
                Outcome::Allowed
            } else {
                Outcome::Disallowed
            };
            assert_eq!(got, want, "{agent} {path}");
        }
    }
}

#[test]
fn draft_1996_section_3_2_2_match_table() {
    let table: &[(&str, &str, bool)] = &[
        ("/tmp", "/tmp", true),
        ("/tmp", "/tmp.html", true),
        ("/tmp", "/tmp/a.html", true),
        ("/tmp/", "/tmp", false),
        ("/tmp/", "/tmp/", true),
        ("/tmp/", "/tmp/a.html", true),
        ("/a%3cd.html", "/a%3cd.html", true),
        ("/a%3Cd.html", "/a%3cd.html", true),
        ("/a%3cd.html", "/a%3Cd.html", true),
        ("/a%3Cd.html", "/a%3Cd.html", true),
        ("/a%2fb.html", "/a%2fb.html", true),
        ("/a%2fb.html", "/a/b.html", false),
        ("/a/b.html", "/a%2fb.html", false),
        ("/a/b.html", "/a/b.html", true),
        ("/%7ejoe/index.html", "/~joe/index.html", true),
        ("/~joe/index.html", "/%7Ejoe/index.html", true),
    ];
    let r = Readings::of(Edition::Y1996);
    for &(rule, path, want) in table {
        let url = format!("http://example.test{path}");
        let got = classic::matches(rule.as_bytes(), &classic::url_path(&url, &r), &r);
        assert_eq!(got, want, "rule {rule} vs {path}");
    }
}

#[test]
fn the_name_token_is_searched_inside_the_value_in_1996() {
    let mut o = Classic::new(Edition::Y1996);
    let url = "http://example.test/x";
    // §3.2.1: the robot's name token inside the line's value.
    assert_eq!(
        ask(&mut o, "User-agent: MyBotPro\nDisallow: /\n", "MyBot", url),
        Outcome::Disallowed
    );
    assert_eq!(
        ask(&mut o, "User-agent: bot\nDisallow: /\n", "MyBot", url),
        Outcome::Allowed
    );
    // Case-insensitive, and the version is not part of the name.
    assert_eq!(
        ask(&mut o, "User-agent: MYBOT\nDisallow: /\n", "mybot/2.1", url),
        Outcome::Disallowed
    );
    // The first matching record, not the best one.
    let two = "User-agent: mybotpro\nDisallow: /a\n\nUser-agent: mybot\nDisallow: /b\n";
    assert_eq!(
        ask(&mut o, two, "MyBot", "http://e.test/a"),
        Outcome::Disallowed
    );
    assert_eq!(
        ask(&mut o, two, "MyBot", "http://e.test/b"),
        Outcome::Allowed
    );
}

#[test]
fn the_other_direction_is_a_named_reading() {
    let r = Readings {
        direction: Direction::ValueInToken,
        ..Readings::of(Edition::Y1994)
    };
    let mut o = Classic::with(Edition::Y1994, r);
    let url = "http://example.test/x";
    assert_eq!(
        ask(&mut o, "User-agent: bot\nDisallow: /\n", "MyBot", url),
        Outcome::Disallowed
    );
    assert_eq!(
        ask(&mut o, "User-agent: MyBotPro\nDisallow: /\n", "MyBot", url),
        Outcome::Allowed
    );
}

#[test]
fn the_1994_text_has_no_allow_and_blank_lines_end_records() {
    let mut o = Classic::new(Edition::Y1994);
    // "Disallow: /a then Allow: /a/b": Allow is an unknown field in 1994.
    let body = "User-agent: *\nDisallow: /a\nAllow: /a/b\n";
    assert_eq!(
        ask(&mut o, body, "x", "http://e.test/a/b/c"),
        Outcome::Disallowed
    );
    // In 1996 the first match in file order decides: Disallow: /a.
    let mut d = Classic::new(Edition::Y1996);
    assert_eq!(
        ask(&mut d, body, "x", "http://e.test/a/b/c"),
        Outcome::Disallowed
    );
    // A blank line ends the record: the rule after it belongs to none.
    let split = "User-agent: *\n\nDisallow: /\n";
    assert_eq!(ask(&mut o, split, "x", "http://e.test/"), Outcome::Allowed);
    // A comment-only line is no boundary (1994 The Format).
    let comment = "User-agent: *\n# note\nDisallow: /\n";
    assert_eq!(
        ask(&mut o, comment, "x", "http://e.test/"),
        Outcome::Disallowed
    );
    // "Any empty value, indicates that all URLs can be retrieved."
    assert_eq!(
        ask(&mut o, "User-agent: *\nDisallow:\n", "x", "http://e.test/"),
        Outcome::Allowed
    );
    // No wildcards in either text: `*` and `$` are octets.
    let wild = "User-agent: *\nDisallow: /*.gif$\n";
    assert_eq!(
        ask(&mut o, wild, "x", "http://e.test/a.gif"),
        Outcome::Allowed
    );
    assert_eq!(
        ask(&mut d, wild, "x", "http://e.test/a.gif"),
        Outcome::Allowed
    );
}

#[test]
fn the_1994_example_file() {
    // 1994 Examples: "no robots are allowed to visit any URL starting with
    // /cyberworld/map/ or /tmp/, or /foo.html", and cybermapper may go
    // anywhere.
    let body = "# robots.txt for http://www.example.com/\n\nUser-agent: *\nDisallow: /cyberworld/map/ # This is an infinite virtual URL space\n\n# Cybermapper knows where to go.\nUser-agent: cybermapper\nDisallow:\n";
    let mut o = Classic::new(Edition::Y1994);
    let at = |p: &str| format!("http://www.example.com{p}");
    assert_eq!(
        ask(&mut o, body, "Other/1.0", &at("/cyberworld/map/x")),
        Outcome::Disallowed
    );
    assert_eq!(
        ask(&mut o, body, "Other/1.0", &at("/cyberworld/")),
        Outcome::Allowed
    );
    assert_eq!(
        ask(&mut o, body, "cybermapper/2.0", &at("/cyberworld/map/x")),
        Outcome::Allowed
    );
}

fn response(status: u16, body: &str) -> Fetched {
    Fetched::Response {
        status,
        hops: 0,
        body: body.as_bytes().to_vec(),
    }
}

fn whole(a: &Access) -> Option<bool> {
    match a {
        Access::Whole { allowed, .. } => Some(*allowed),
        Access::Parse { .. } => None,
    }
}

#[test]
fn status_rules_of_each_text() {
    // (status or None for a network error, 1996, 1994, Google); None in a
    // column = the body is parsed.
    type Row = (Option<u16>, Option<bool>, Option<bool>, Option<bool>);
    let rows: &[Row] = &[
        (Some(200), None, None, None),
        (Some(404), Some(true), Some(true), Some(true)),
        (Some(401), Some(false), Some(true), Some(true)),
        (Some(403), Some(false), Some(true), Some(true)),
        (Some(410), Some(true), Some(true), Some(true)),
        (Some(429), Some(false), Some(true), Some(false)),
        (Some(500), Some(false), Some(true), Some(false)),
        (Some(503), Some(false), Some(true), Some(false)),
        (None, Some(false), Some(true), Some(false)),
    ];
    for &(code, d96, d94, g) in rows {
        let f = match code {
            Some(c) => response(c, "User-agent: *\nDisallow: /\n"),
            None => Fetched::NetworkError {
                hops: 0,
                detail: "refused".into(),
            },
        };
        assert_eq!(whole(&status::draft_1996(&f)), d96, "1996 {code:?}");
        assert_eq!(whole(&status::classic_1994(&f)), d94, "1994 {code:?}");
        assert_eq!(whole(&status::google(&f)), g, "google {code:?}");
    }
}

#[test]
fn google_stops_after_five_redirect_hops() {
    let six = Fetched::Response {
        status: 200,
        hops: 6,
        body: b"User-agent: *\nDisallow: /\n".to_vec(),
    };
    assert_eq!(whole(&status::google(&six)), Some(true));
    // The 1996 draft follows "until a resource can be found".
    assert_eq!(whole(&status::draft_1996(&six)), None);
}

#[test]
fn google_ignores_content_after_500_kib() {
    let mut body = String::from("User-agent: *\nAllow: /\n");
    body.push_str(&"#".repeat(status::GOOGLE_LIMIT));
    body.push_str("\nDisallow: /late\n");
    match status::google(&response(200, &body)) {
        Access::Parse { body: cut, .. } => assert_eq!(cut.len(), status::GOOGLE_LIMIT),
        Access::Whole { .. } => panic!("a 200 is parsed"),
    }
}

#[test]
fn explanations_cite_the_text() {
    let mut o = Classic::new(Edition::Y1996);
    let q = Query {
        ask: Ask::CanFetch,
        agent: "MyBot".into(),
        url: "http://e.test/x".into(),
    };
    let a = o
        .run(b"User-agent: MyBotPro\nDisallow: /\n", &[q])
        .remove(0);
    assert!(a.explain.contains("1996 §3.2.1"), "{}", a.explain);
    assert!(a.explain.contains("line 2 `Disallow: /`"), "{}", a.explain);
}
