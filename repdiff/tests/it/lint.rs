//! `repdiff lint`, driven as a user runs it: the seed's substring split
//! traced to line 1 with its cause, a file every parser reads alike, the
//! files it refuses, and the JSON shape of docs/lint.md. Every test names
//! the oracles it relies on and asserts that they were asked, so none
//! passes when an oracle is missing.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

fn root() -> String {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
        .canonicalize()
        .expect("checkout")
        .to_str()
        .expect("utf-8 path")
        .to_string()
}

/// The oracles these tests ask: the RFC 9309 reference, a parser that
/// applies `bot` to `MyBot` and keeps a BOM (CPython 3.11), and Google's.
const ORACLES: &[&str] = &["rfc9309", "cpython-3.11", "google"];

/// `repdiff lint ARGS -` with `body` on stdin, run from outside the
/// checkout, asking [`ORACLES`].
fn lint(args: &[&str], body: &[u8]) -> Output {
    lint_with(ORACLES, args, body)
}

/// `repdiff lint ARGS -` asking `oracles`.
fn lint_with(oracles: &[&str], args: &[&str], body: &[u8]) -> Output {
    let root = root();
    let mut argv: Vec<&str> = vec!["lint", "--root", &root, "--no-setup"];
    for o in oracles {
        argv.extend(["--oracle", o]);
    }
    argv.extend(args);
    let mut child = Command::new(env!("CARGO_BIN_EXE_repdiff"))
        .args(&argv)
        .current_dir(std::env::temp_dir())
        .env_remove("REPDIFF_ROOT")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("repdiff starts");
    if let Some(mut input) = child.stdin.take() {
        // A refused file may be refused before it is read whole.
        let _ = input.write_all(body);
    }
    child.wait_with_output().expect("repdiff runs")
}

fn json(out: &Output) -> serde_json::Value {
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "one JSON object ({e}): {}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    let asked: Vec<&str> = doc["oracles"]
        .as_array()
        .expect("oracles")
        .iter()
        .filter_map(|o| o["name"].as_str())
        .collect();
    assert_eq!(asked, ORACLES, "every oracle relied on was asked: {doc}");
    assert_eq!(doc["unavailable"], serde_json::json!([]), "{doc}");
    doc
}

const SEED: &[u8] = b"User-agent: bot\nDisallow: /\n";

#[test]
fn the_seed_splits_on_line_1_with_its_cause() {
    let out = lint(&["--agent", "MyBot", "-"], SEED);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains("line 1: User-agent: bot"), "{text}");
    assert!(text.contains("(rename-substring-groups)"), "{text}");
    assert!(
        text.contains("agent \"MyBot\", https://example.com/"),
        "{text}"
    );

    let out = lint(&["--agent", "MyBot", "--json", "-"], SEED);
    assert_eq!(out.status.code(), Some(1));
    let doc = json(&out);
    let group = doc["groups"]
        .as_array()
        .expect("groups")
        .iter()
        .find(|g| g["cause"]["name"] == "rename-substring-groups")
        .unwrap_or_else(|| panic!("no substring group: {doc}"));
    assert_eq!(group["lines"][0]["number"], 1, "{group}");
    assert_eq!(group["lines"].as_array().map(Vec::len), Some(1), "{group}");
    let mybot = group["questions"]
        .as_array()
        .expect("questions")
        .iter()
        .find(|q| q["agent"] == "MyBot" && q["source"] == "agent")
        .unwrap_or_else(|| panic!("MyBot's question: {group}"));
    assert_eq!(mybot["disallowed"], serde_json::json!(["cpython-3.11"]));
    assert_eq!(mybot["allowed"], serde_json::json!(["rfc9309", "google"]));
    // Renaming the group reunites the parsers but changes who is disallowed.
    assert!(group["rewrite"].is_null(), "{group}");
}

#[test]
fn each_verdict_carries_its_deciding_line_told_or_derived() {
    // Google's matcher and the reference tell their line (none matched for
    // MyBot); CPython 3.11 cannot, so lint derives it: without line 2 it
    // allows, so line 2 decided.
    let out = lint(&["--agent", "MyBot", "--json", "-"], SEED);
    assert_eq!(out.status.code(), Some(1));
    let doc = json(&out);
    let mybot = doc["groups"]
        .as_array()
        .expect("groups")
        .iter()
        .flat_map(|g| g["questions"].as_array().expect("questions"))
        .find(|q| q["agent"] == "MyBot" && q["url"] == "https://example.com/")
        .unwrap_or_else(|| panic!("MyBot's question: {doc}"));
    let of = |o: &str| {
        mybot["deciding"]
            .as_array()
            .expect("deciding")
            .iter()
            .find(|d| d["oracle"] == o)
            .unwrap_or_else(|| panic!("no deciding line for {o}: {mybot}"))
            .clone()
    };
    assert_eq!(
        of("cpython-3.11"),
        serde_json::json!({"oracle": "cpython-3.11", "how": "derived", "lines": [2], "text": "Disallow: /"})
    );
    for told in ["google", "rfc9309"] {
        assert_eq!(
            of(told),
            serde_json::json!({"oracle": told, "how": "told", "lines": []}),
            "{mybot}"
        );
    }

    let out = lint(&["--agent", "MyBot", "-"], SEED);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("decided by line 2 `Disallow: /`: cpython-3.11*"),
        "{text}"
    );
    assert!(
        text.contains("decided by no rule matched: rfc9309, google"),
        "{text}"
    );
}

#[test]
fn a_file_every_parser_reads_alike_exits_0() {
    let body = b"User-agent: *\nDisallow: /private/\n";
    let out = lint(&["--agent", "MyBot", "-"], body);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(
        text.contains("Every parser agrees on every question."),
        "{text}"
    );
    let doc = json(&lint(&["--json", "-"], body));
    assert_eq!(doc["agree"], true);
    assert_eq!(doc["disagreements"], 0);
    assert!(doc["questions"].as_u64().is_some_and(|n| n >= 20), "{doc}");
}

#[test]
fn a_bom_gets_its_rewrite_as_a_diff() {
    let out = lint(
        &["--json", "-"],
        b"\xEF\xBB\xBFUser-agent: *\nDisallow: /a\n",
    );
    assert_eq!(out.status.code(), Some(1));
    let doc = json(&out);
    let group = &doc["groups"][0];
    assert_eq!(group["cause"]["name"], "strip-bom", "{doc}");
    let rewrite = &group["rewrite"];
    assert_eq!(rewrite["transformation"], "strip-bom", "{doc}");
    assert_eq!(
        rewrite["hunks"],
        serde_json::json!([{"line": 1, "old": ["\\u{FEFF}User-agent: *"], "new": ["User-agent: *"]}])
    );
}

#[test]
fn a_file_above_10_mib_is_refused() {
    let body = vec![b'#'; 10 * 1024 * 1024 + 1];
    let out = lint(&["-"], &body);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("larger than 10 MiB"), "{err}");
    assert!(out.stdout.is_empty());
}

/// A 2 MiB file is linted, warned about with the line where Google's
/// 500 KiB stops, and never passes (exit 1) even where the parsers agree.
#[test]
fn a_file_past_500_kib_is_warned_about_and_does_not_pass() {
    let mut body = b"User-agent: *\nDisallow: /private/\n".to_vec();
    let mut n = 0;
    while body.len() < 2 << 20 {
        n += 1;
        body.extend_from_slice(
            format!("# padding comment line number {n:08} .........................\n").as_bytes(),
        );
    }
    body.extend_from_slice(b"Disallow: /late/\n");
    let out = lint(&["--json", "-"], &body);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc = json(&out);
    let big = &doc["file"]["oversize"];
    assert_eq!(big["limit"], 512_000, "{big}");
    assert_eq!(big["rules_ignored"], 1, "{big}");
    let first = big["first_ignored_line"].as_u64().expect("a line");
    assert!(first > 3 && first < (n as u64), "{big}");
    // The text says it too (a file just past the limit, to keep this quick).
    let mut just_past = body[..530_000].to_vec();
    just_past.push(b'\n');
    let text = lint(&["-"], &just_past);
    assert!(String::from_utf8_lossy(&text.stdout).contains("past 500 KiB"));
    // Under the limit: no warning.
    let small = lint(&["--json", "-"], b"User-agent: *\nDisallow: /x\n");
    assert!(json(&small)["file"]["oversize"].is_null());
}

/// `--ai-crawlers` asks `/` for every AI crawler of the pinned list
/// (setup's ai-crawlers step): a `GPTBot` group keeps GPTBot out for every
/// parser, and a `bot` group keeps the others out for CPython 3.11 alone
/// (its substring match), which is a split lint reports.
#[test]
fn ai_crawlers_are_asked_from_the_pinned_list() {
    let body = b"User-agent: GPTBot\nDisallow: /\n\nUser-agent: bot\nDisallow: /\n\nUser-agent: *\nAllow: /\n";
    let out = lint(&["--ai-crawlers", "--json", "-"], body);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc = json(&out);
    let verdicts = doc["ai_crawlers"].as_array().expect("ai_crawlers");
    assert!(
        verdicts.len() >= 50,
        "the list's AI crawlers: {}",
        verdicts.len()
    );
    let of = |token: &str| {
        verdicts
            .iter()
            .find(|v| v["token"] == token)
            .unwrap_or_else(|| panic!("{token} asked"))["disallowed_by"]
            .clone()
    };
    assert_eq!(
        of("GPTBot"),
        serde_json::json!(["rfc9309", "cpython-3.11", "google"])
    );
    assert_eq!(of("CCBot"), serde_json::json!(["cpython-3.11"]));
}

/// Change review: a new `Disallow: /tmp/` moves the `/tmp/` questions for
/// every parser asked (exit 1), an `--expect-change` naming them makes it
/// pass, and a file compared with itself changes nothing.
#[test]
fn before_lists_the_verdicts_a_change_moves() {
    let dir = std::env::temp_dir().join(format!("repdiff-review-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let old = dir.join("old.txt");
    std::fs::write(&old, "User-agent: *\nDisallow: /private/\n").unwrap();
    let old = old.to_str().unwrap();
    let new = b"User-agent: *\nDisallow: /private/\nDisallow: /tmp/\n";
    let out = lint(&["--before", old, "--json", "-"], new);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one object");
    assert_eq!(doc["oracles"], serde_json::json!(ORACLES), "{doc}");
    assert!(
        doc["diff"]
            .as_str()
            .unwrap_or_default()
            .contains("+   3 Disallow: /tmp/"),
        "{doc}"
    );
    let changes = doc["changes"].as_array().expect("changes");
    assert!(!changes.is_empty());
    for c in changes {
        assert!(
            c["url"].as_str().unwrap_or_default().contains("/tmp"),
            "{c}"
        );
        assert_eq!(
            c["moved"].as_array().map(Vec::len),
            Some(ORACLES.len()),
            "{c}"
        );
        assert_eq!(c["moved"][0]["after"], "disallowed", "{c}");
    }
    let out = lint(
        &[
            "--before",
            old,
            "--expect-change",
            "* https://example.com/tmp*",
            "-",
        ],
        new,
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let same = lint(
        &["--before", old, "-"],
        b"User-agent: *\nDisallow: /private/\n",
    );
    assert_eq!(same.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&same.stdout).contains("No verdict changes"));
    let _ = std::fs::remove_dir_all(&dir);
}

/// The most common WordPress file: `Allow` after `Disallow` splits the
/// first-match parsers from the longest-match ones; moving it first brings
/// them together except WWW::RobotRules, which has no `Allow`. That partial
/// rewrite is offered, naming the parser it leaves apart.
#[test]
fn the_wordpress_file_gets_a_partial_rewrite_naming_who_stays_apart() {
    let body = b"User-agent: *\nDisallow: /wp-admin/\nAllow: /wp-admin/admin-ajax.php\n";
    let out = lint(&["--oracle", "www-robotrules", "--json", "-"], body);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one object");
    let rewrite = &doc["groups"][0]["rewrite"];
    assert_eq!(rewrite["transformation"], "reverse-rule-order", "{doc}");
    assert_eq!(
        rewrite["remaining"],
        serde_json::json!(["www-robotrules"]),
        "{doc}"
    );
    // Why it stays apart: WWW::RobotRules has no Allow (its ledger says so).
    assert_eq!(rewrite["apart"][0]["oracle"], "www-robotrules", "{doc}");
    assert_eq!(rewrite["apart"][0]["cause"], "drop-allow-rules", "{doc}");
    assert_eq!(rewrite["apart"][0]["measured"], true, "{doc}");
    // A move, not a copy: the Allow line leaves line 3 and arrives before line 2.
    let hunks = rewrite["hunks"].as_array().expect("hunks");
    assert_eq!(hunks.len(), 2, "{rewrite}");
}

/// A rule with a byte that is not UTF-8 splits the parsers; dropping the
/// byte would reunite them but make `/caf\xE9/` name `/caf/`, another path,
/// so no rewrite may do it (percent-encoding the byte would keep the path).
#[test]
fn a_rewrite_never_makes_a_rule_name_another_path() {
    let body = b"User-agent: *\nDisallow: /caf\xE9/\n";
    let mut args = vec!["--json"];
    for o in ["google", "protego", "heritrix", "texting-robots", "spider"] {
        args.extend(["--oracle", o]);
    }
    args.push("-");
    let out = lint(&args, body);
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one object");
    assert!(
        doc["disagreements"].as_u64().unwrap_or(0) > 0,
        "the byte splits them: {doc}"
    );
    for g in doc["groups"].as_array().expect("groups") {
        for h in g["rewrite"]["hunks"].as_array().into_iter().flatten() {
            assert!(
                !h["new"].to_string().contains("/caf/"),
                "a rewrite renames the path: {g}"
            );
        }
    }
}

/// A `License:` line before the groups splits webrobots off; lint offers
/// to move it (its hazard), never a rewrite that deletes the preference.
#[test]
fn a_licence_line_is_moved_never_deleted() {
    let body = b"License: https://example.com/license.xml\nUser-agent: *\nDisallow: /private/\n";
    let out = lint(&["--oracle", "webrobots", "--json", "-"], body);
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one object");
    assert!(
        doc["disagreements"].as_u64().unwrap_or(0) > 0,
        "webrobots splits: {doc}"
    );
    for g in doc["groups"].as_array().expect("groups") {
        for h in g["rewrite"]["hunks"].as_array().into_iter().flatten() {
            let removed = h["old"].to_string();
            assert!(
                !removed.contains("License"),
                "a rewrite deletes the licence: {g}"
            );
        }
    }
    let hazard = &doc["hazards"][0];
    assert_eq!(hazard["key"], "License", "{doc}");
    assert!(
        hazard["rewrite"]
            .as_str()
            .unwrap_or_default()
            .contains("move it"),
        "{hazard}"
    );
}

#[test]
fn binary_files_are_refused_with_a_reason() {
    for (body, why) in [
        (&b"\x1F\x8B\x08\x00\x00\x00\x00\x00"[..], "gzip-compressed"),
        (
            &b"User-agent: *\x00\x00\x01\x02"[..],
            "a NUL byte at offset 13",
        ),
        (&b"\xFF\xFEU\x00s\x00"[..], "UTF-16"),
    ] {
        let out = lint(&["-"], body);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(
            err.contains("is not a text file") && err.contains(why),
            "{err}"
        );
    }
}

#[test]
fn bad_arguments_exit_2() {
    for args in [
        &["--no-such-flag", "-"][..],
        &["--timeout", "soon", "-"][..],
    ] {
        assert_eq!(lint(args, SEED).status.code(), Some(2), "{args:?}");
    }
    let out = Command::new(env!("CARGO_BIN_EXE_repdiff"))
        .args(["lint", "--root", &root(), "--oracle", "rfc9309", "-"])
        .stdin(Stdio::null())
        .output()
        .expect("repdiff runs");
    assert_eq!(
        out.status.code(),
        Some(2),
        "one oracle has nothing to compare"
    );
}

/// Issue 52 (and the site-owner tools' "never a false pass"): a parser
/// that never greets makes lint exit 3, naming it, even on a file every
/// parser that did start reads alike; `--skip-oracle` leaves it out on
/// purpose, and the run then passes and says it was not asked.
#[test]
fn a_parser_that_never_greets_is_exit_3_never_a_pass() {
    let never = "never=sleep 1000";
    let body = b"User-agent: *\nDisallow: /private/\n";
    let base = ["--oracle-cmd", never, "--greeting-timeout", "0.5"];
    let mut args = base.to_vec();
    args.extend(["--oracle", "never", "-"]);
    let out = lint(&args, body);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{err}");
    assert!(
        err.contains("never") && err.contains("did not greet"),
        "{err}"
    );
    let mut args = base.to_vec();
    args.extend(["--oracle", "never", "--skip-oracle", "never", "-"]);
    let out = lint(&args, body);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(err.contains("not asked (--skip-oracle): never"), "{err}");
}

#[test]
fn cloudflare_s_prepended_block_and_disallow_ai_training_are_named_with_lines_and_rewrites() {
    // Cloudflare's managed block prepended to a site's own file (two `*`
    // groups), and DisallowAITraining in the site's group: the hazards
    // come from the file; Google's parser then splits from the reference
    // on the DisallowAITraining line, as the hazard says.
    let body = b"User-Agent: *\nContent-signal: search=yes, ai-train=no\nAllow: /\n\nUser-agent: GPTBot\nDisallow: /\n\n# END Cloudflare Managed Content\nUser-agent: *\nDisallowAITraining: /\nDisallow: /lp\n";
    let out = lint(&["--json", "-"], body);
    let v = json(&out);
    let hazards = v["hazards"].as_array().expect("hazards");
    let at = |line: u64| {
        hazards
            .iter()
            .find(|h| h["line"] == line)
            .unwrap_or_else(|| panic!("no hazard at line {line}: {hazards:?}"))
    };
    assert!(
        at(9)["what"].as_str().unwrap().contains("lines 1, 9"),
        "{hazards:?}"
    );
    assert_eq!(
        at(9)["rewrite"],
        "merge the `*` groups into the one at line 1"
    );
    assert!(at(10)["what"]
        .as_str()
        .unwrap()
        .contains("`Disallow: /` to Google's parser"));
    assert_eq!(hazards.len(), 2, "{hazards:?}");
    assert_eq!(
        out.status.code(),
        Some(1),
        "google and rfc9309 split on line 10"
    );
}

#[test]
fn each_parser_apart_gets_its_own_cause_and_an_unmeasured_one_is_not_claimed() {
    // Cloudflare's prepended `Allow: /` before a site's own AI-crawler
    // group: Heritrix and spider both allow Amazonbot. The catalogue's
    // order names drop-allow-rules for Heritrix (dropping `Allow: /`
    // merges the `*` line into Amazonbot's group), though its ledger
    // measured lower-cased group names; spider reads Allow lines, and a
    // denying group falls through to `*` for it.
    let oracles = ["rfc9309", "heritrix", "spider", "google"];
    let body = b"User-agent: *\nAllow: /\n\nUser-agent: Amazonbot\nDisallow: /\n";
    let out = lint_with(&oracles, &["--json", "-"], body);
    assert_eq!(out.status.code(), Some(1));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
    let asked: Vec<&str> = doc["oracles"]
        .as_array()
        .expect("oracles")
        .iter()
        .filter_map(|o| o["name"].as_str())
        .collect();
    assert_eq!(asked, oracles, "{doc}");
    let apart: Vec<&serde_json::Value> = doc["groups"]
        .as_array()
        .expect("groups")
        .iter()
        .flat_map(|g| g["apart"].as_array().expect("apart"))
        .collect();
    let heritrix = apart
        .iter()
        .find(|a| a["oracle"] == "heritrix")
        .unwrap_or_else(|| panic!("heritrix is apart: {doc}"));
    assert_eq!(heritrix["cause"], "lowercase-agent", "{doc}");
    assert_eq!(heritrix["measured"], true, "{doc}");
    assert!(apart.iter().any(|a| a["oracle"] == "spider"), "{doc}");
    for a in &apart {
        assert!(
            !(a["cause"] == "drop-allow-rules" && a["measured"] == true),
            "no parser here is measured to ignore Allow: {doc}"
        );
    }
}
