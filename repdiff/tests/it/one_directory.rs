//! Adding a parser is one directory (issue 26): a throwaway oracle is added
//! to a copy of the checkout as `oracles/harness/<name>/` alone (manifest,
//! harness, ledger file) and nothing else is edited. The copy's `repdiff`
//! lists it, runs it, leaves its deviation untriaged until its own
//! `divergences.yaml` explains it, and then reads that ledger file.
//!
//! The harness is `oracles/harness/example.py` (urllib.robotparser of the
//! python3 on PATH) under another name: a fake of nothing, only a parser
//! that is not registered, to prove the registration.

use std::path::Path;
use std::process::Command;

const NAME: &str = "throwaway-example";

fn repdiff() -> Command {
    Command::new(env!("CARGO_BIN_EXE_repdiff"))
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for entry in std::fs::read_dir(from).expect("read_dir") {
        let entry = entry.expect("entry");
        let target = to.join(entry.file_name());
        let kind = entry.file_type().expect("file type");
        if kind.is_symlink() {
            let link = std::fs::read_link(entry.path()).expect("read_link");
            std::os::unix::fs::symlink(link, &target).expect("symlink");
        } else if kind.is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).expect("copy");
        }
    }
}

/// The checkout's corpus, ledger and oracle directories, in a new folder.
/// `tag` keeps each test's copy its own (the tests run in parallel).
fn checkout_copy(tag: &str) -> std::path::PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let copy = std::env::temp_dir().join(format!("repdiff-one-dir-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&copy);
    copy_tree(&root.join("cases"), &copy.join("cases"));
    copy_tree(&root.join("oracles/harness"), &copy.join("oracles/harness"));
    copy
}

/// The one directory: a manifest and a harness.
fn add_parser(copy: &Path) -> std::path::PathBuf {
    let dir = copy.join("oracles/harness").join(NAME);
    std::fs::create_dir_all(&dir).expect("mkdir");
    let example =
        std::fs::read_to_string(copy.join("oracles/harness/example.py")).expect("example.py");
    let renamed = example.replace("\"name\": \"example\"", &format!("\"name\": \"{NAME}\""));
    assert_ne!(
        renamed, example,
        "example.py no longer names itself `example`"
    );
    std::fs::write(dir.join("harness.py"), renamed).expect("harness");
    std::fs::write(
        dir.join("oracle.yaml"),
        format!(
            "name: {NAME}\nruns_in: \"Python\"\ncommand: [\"python3\", \"{{root}}/oracles/harness/{NAME}/harness.py\"]\n\
             direct: [\"python3\", \"{{root}}/oracles/harness/{NAME}/harness.py\"]\n"
        ),
    )
    .expect("manifest");
    dir
}

/// `conformance` over seed-18 (`User-agent: bot` asked for another agent):
/// exit status and this oracle's cell of query 1.
fn run(copy: &Path, out: &str) -> (i32, serde_json::Value) {
    let out = copy.join(out);
    let result = repdiff()
        .arg("--root")
        .arg(copy)
        .args([
            "conformance",
            "--no-setup",
            "--oracle",
            NAME,
            "--case",
            "seed-18",
            "--out",
        ])
        .arg(&out)
        .output()
        .expect("run repdiff");
    let stderr = String::from_utf8_lossy(&result.stderr);
    let compat: serde_json::Value = serde_json::from_slice(
        &std::fs::read(out.join("compat.json"))
            .unwrap_or_else(|e| panic!("no compat.json ({e}): {stderr}")),
    )
    .expect("compat.json");
    let cell = compat["cells"]
        .as_array()
        .expect("cells")
        .iter()
        .find(|c| c["oracle"] == NAME && c["query"] == 0)
        .unwrap_or_else(|| panic!("no cell of {NAME} in {compat}\n{stderr}"))
        .clone();
    (result.status.code().unwrap_or(-1), cell)
}

#[test]
fn a_parser_added_as_one_directory_is_listed_run_and_triaged_by_its_own_ledger() {
    let copy = checkout_copy("added");
    let dir = add_parser(&copy);

    let listed = repdiff()
        .arg("--root")
        .arg(&copy)
        .args(["oracles", "--json"])
        .output()
        .expect("oracles");
    let listed = String::from_utf8_lossy(&listed.stdout);
    assert!(
        listed.contains(&format!("\"{NAME}\"")),
        "{NAME} not listed: {listed}"
    );

    // urllib.robotparser reads `User-agent: bot` as matching `MyBot`: a
    // deviation that nothing explains yet.
    let (code, cell) = run(&copy, "before");
    assert_eq!(cell["status"], "deviate", "{cell}");
    assert!(cell["triaged_by"].is_null(), "{cell}");
    assert_eq!(code, 1, "an untriaged cell must fail the run: {cell}");

    let outcome = cell["answer"]["outcome"].as_str().expect("verdict");
    std::fs::write(
        dir.join("divergences.yaml"),
        format!(
            "entries:\n  - id: substring-agent-{NAME}\n    title: \"the agent matches a group named by a substring of it\"\n    \
             oracles: [{NAME}]\n    outcomes:\n      {NAME}: \"{outcome}\"\n    classification: bug\n    \
             rfc: \"§2.2.1\"\n    upstream: \"none known\"\n    cases: [\"seed-18#1\"]\n    \
             explanation: \"urllib.robotparser tests whether the group's name is a substring of the agent.\"\n"
        ),
    )
    .expect("ledger");
    let (code, cell) = run(&copy, "after");
    assert_eq!(
        cell["triaged_by"],
        format!("substring-agent-{NAME}"),
        "{cell}"
    );
    assert_eq!(code, 0, "every cell is triaged now: {cell}");
    let _ = std::fs::remove_dir_all(&copy);
}

/// `repdiff --root COPY oracles` in a copy: exit status and stderr.
fn list(copy: &Path) -> (i32, String) {
    let out = repdiff()
        .arg("--root")
        .arg(copy)
        .arg("oracles")
        .output()
        .expect("oracles");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The built-ins live in the same house: each has its directory and
/// manifest (`builtin: <runtime>`, its pins, its own ledger file), and the
/// registry is the set of manifests, so a built-in without one, or one
/// whose manifest says another runtime, stops the command naming the file.
#[test]
fn every_builtin_has_its_manifest_and_the_registry_checks_it() {
    let copy = checkout_copy("builtins");
    assert_eq!(
        list(&copy).0,
        0,
        "the checkout's own manifests are accepted"
    );

    let manifest = copy.join("oracles/harness/texting-robots/oracle.yaml");
    let text = std::fs::read_to_string(&manifest).expect("texting-robots has a manifest");
    assert!(text.contains("builtin: rust"), "{text}");

    std::fs::write(&manifest, text.replace("builtin: rust", "builtin: python")).expect("edit");
    let (code, stderr) = list(&copy);
    assert_ne!(code, 0, "a wrong runtime is refused");
    assert!(
        stderr.contains("texting-robots/oracle.yaml") && stderr.contains("runs on `rust`"),
        "{stderr}"
    );

    std::fs::remove_file(&manifest).expect("remove");
    let (code, stderr) = list(&copy);
    assert_ne!(code, 0, "a built-in without a manifest is refused");
    assert!(
        stderr.contains("built-in oracle `texting-robots` has no manifest"),
        "{stderr}"
    );
    let _ = std::fs::remove_dir_all(&copy);
}

/// A parser's reproducer template lives in its directory; one that names a
/// placeholder the renderer does not know stops the command with the file.
#[test]
fn a_reproducer_template_with_an_unknown_placeholder_is_refused() {
    let copy = checkout_copy("template");
    let template = copy.join("oracles/harness/robotspy/repro.py.tmpl");
    let text = std::fs::read_to_string(&template).expect("robotspy has a template");
    std::fs::write(&template, text.replace("{{call}}", "{{cal}}")).expect("edit");
    let (code, stderr) = list(&copy);
    assert_ne!(code, 0, "an unknown placeholder is refused");
    assert!(
        stderr.contains("robotspy/repro.py.tmpl") && stderr.contains("`{{cal}}`"),
        "{stderr}"
    );

    // A call may name only the query's agent and URL.
    std::fs::write(&template, text).expect("restore");
    let manifest = copy.join("oracles/harness/robotspy/oracle.yaml");
    let m = std::fs::read_to_string(&manifest).expect("manifest");
    let bad = m.replace("parser.sitemaps", "parser.sitemaps({{body}})");
    assert_ne!(bad, m, "robotspy's sitemaps call moved");
    std::fs::write(&manifest, bad).expect("edit");
    let (code, stderr) = list(&copy);
    assert_ne!(code, 0, "a call naming the body is refused");
    assert!(
        stderr.contains("robotspy/oracle.yaml") && stderr.contains("`{{body}}`"),
        "{stderr}"
    );
    let _ = std::fs::remove_dir_all(&copy);
}
