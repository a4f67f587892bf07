//! `cargo xtask doc-paths`: every repository path the Markdown docs name
//! exists (issue 50). A doc that cites `xtask/tests/harness_fidelity.rs`
//! when the test lives in `repdiff/tests/` sends a newcomer nowhere, and
//! nothing else notices when a file moves.
//!
//! Two kinds of reference are checked in every tracked-looking `.md` (the
//! generated `reports/` and the caches left out): a Markdown link's target
//! (relative to the doc, as a renderer reads it; URLs and `#anchors` are
//! not paths), and a backquoted path whose first piece is a top-level entry
//! of the checkout (`repdiff/src/lint/`, `docs/serve.md`), read from the
//! root or, failing that, from the doc's own folder. Spans with
//! placeholders (`<name>`, `*`, `{a,b}`, `...`) name families, not files,
//! and are left alone, as are paths a run writes (`reports/run/`).
//! A named path that is missing but git-ignored (`fuzz/artifacts/...`,
//! `fuzz/known-signatures.json`) is a build or run output the doc
//! describes: it exists on a used checkout and not on a fresh clone, so
//! it is not a broken reference (CI of stop 60 failed on exactly that).

use std::path::{Path, PathBuf};

/// Paths a doc names that are not the checkout's, each with why.
const NOT_OURS: &[(&str, &str)] = &[(
    ".github/workflows/robots-lint.yml",
    "where a site owner copies docs/examples/robots-lint.yml in their own repository",
)];

/// Folders never read: build output, caches, generated reports, VCS data.
const SKIP: &[&str] = &["target", "reports", "node_modules", "testdata"];

/// One reference that leads nowhere.
#[derive(Debug, PartialEq, Eq)]
pub struct Broken {
    pub doc: PathBuf,
    pub line: usize,
    pub target: String,
}

/// Run the check; 0 when every path exists.
pub fn main(root: &Path) -> i32 {
    let broken = find(root);
    for b in &broken {
        log::error!(
            "doc-paths: {}:{}: `{}` does not exist",
            b.doc.display(),
            b.line,
            b.target
        );
    }
    i32::from(!broken.is_empty())
}

/// Every broken reference of every doc under `root`.
pub fn find(root: &Path) -> Vec<Broken> {
    let mut docs = Vec::new();
    collect(root, root, &mut docs);
    docs.sort();
    let tops: Vec<String> = std::fs::read_dir(root)
        .map(|d| {
            d.filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n != "target" && n != ".cache" && n != ".git")
                .collect()
        })
        .unwrap_or_default();
    let mut out = Vec::new();
    let mut missing = Vec::new();
    for doc in docs {
        let Ok(text) = std::fs::read_to_string(root.join(&doc)) else {
            continue;
        };
        let dir = root.join(&doc).parent().map(Path::to_path_buf);
        let dir = dir.unwrap_or_else(|| root.to_path_buf());
        for (i, line) in text.lines().enumerate() {
            for target in links(line) {
                let path = dir.join(&target);
                if !path.exists() {
                    missing.push(path);
                    out.push(Broken {
                        doc: doc.clone(),
                        line: i + 1,
                        target,
                    });
                }
            }
            for target in quoted_paths(line, &tops) {
                if !root.join(&target).exists() && !dir.join(&target).exists() {
                    missing.push(root.join(&target));
                    out.push(Broken {
                        doc: doc.clone(),
                        line: i + 1,
                        target,
                    });
                }
            }
        }
    }
    let ignored = git_ignored(root, &missing);
    out.into_iter()
        .zip(missing)
        .filter(|(_, path)| !ignored.contains(path))
        .map(|(b, _)| b)
        .collect()
}

/// Those of `paths` git ignores under `root` (none when `root` is not a
/// work tree or git cannot run: then every missing path counts).
fn git_ignored(root: &Path, paths: &[PathBuf]) -> Vec<PathBuf> {
    use std::io::Write;
    use std::process::{Command, Stdio};
    if paths.is_empty() {
        return Vec::new();
    }
    let child = Command::new("git")
        .arg("-C")
        .arg(root)
        .args(["check-ignore", "--stdin"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn();
    let Ok(mut child) = child else {
        return Vec::new();
    };
    if let Some(mut stdin) = child.stdin.take() {
        let list: String = paths.iter().map(|p| format!("{}\n", p.display())).collect();
        let _ = stdin.write_all(list.as_bytes());
    }
    let Ok(output) = child.wait_with_output() else {
        return Vec::new();
    };
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(PathBuf::from)
        .collect()
}

/// The `.md` files under `dir`, relative to `root`.
fn collect(root: &Path, dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.filter_map(|e| e.ok()) {
        let path = e.path();
        let name = e.file_name().to_string_lossy().into_owned();
        if path.is_dir() {
            if !name.starts_with('.') && !SKIP.contains(&name.as_str()) {
                collect(root, &path, out);
            }
        } else if name.ends_with(".md") {
            if let Ok(rel) = path.strip_prefix(root) {
                out.push(rel.to_path_buf());
            }
        }
    }
}

/// The local targets of a line's Markdown links, anchors cut.
fn links(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = line;
    while let Some(at) = rest.find("](") {
        rest = &rest[at + 2..];
        let Some(end) = rest.find(')') else { break };
        let target = rest[..end].split('#').next().unwrap_or("");
        let url = target.split_once(':').is_some_and(|(scheme, _)| {
            !scheme.is_empty() && scheme.chars().all(|c| c.is_ascii_alphabetic())
        });
        if !target.is_empty() && !url && !target.contains(char::is_whitespace) {
            out.push(target.to_string());
        }
        rest = &rest[end..];
    }
    out
}

/// Backquoted spans that look like a path into the checkout.
fn quoted_paths(line: &str, tops: &[String]) -> Vec<String> {
    line.split('`')
        .skip(1)
        .step_by(2)
        .filter(|s| s.contains('/') && !s.contains(char::is_whitespace))
        .filter(|s| !s.contains(['<', '>', '*', '{', '}', '$', '[', ']', '=', '|', ',', '…']))
        .filter(|s| !s.contains("...") && !s.contains("://"))
        .map(|s| {
            let s = s.split([':', '#']).next().unwrap_or(s);
            s.trim_end_matches('/').to_string()
        })
        .filter(|s| {
            let first = s.split('/').next().unwrap_or("");
            tops.iter().any(|t| t == first)
                && !s.starts_with("reports/run")
                && !NOT_OURS.iter().any(|(p, _)| p == s)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tops() -> Vec<String> {
        ["docs", "repdiff", "xtask"].map(String::from).to_vec()
    }

    #[test]
    fn links_are_local_targets_without_anchors() {
        assert_eq!(
            links("see [a](census/job.yaml#x), [b](https://e.test/x) and [c](#top)"),
            ["census/job.yaml"]
        );
    }

    #[test]
    fn quoted_paths_are_the_checkout_s_not_families_or_runs() {
        let line = "`repdiff/src/lint/` `xtask/src/x.rs:12` `repdiff/<name>/a` \
                    `reports/run/x` `MyBot/1.2` `docs/*.md` `cargo xtask`";
        assert_eq!(
            quoted_paths(line, &tops()),
            ["repdiff/src/lint", "xtask/src/x.rs"]
        );
    }

    /// The checkout's docs, read for real: every path they name exists.
    /// Not vacuous: a planted doc with a moved path is found.
    #[test]
    fn every_path_the_docs_name_exists() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        assert_eq!(find(&root), [], "a doc names a path that does not exist");

        let dir = std::env::temp_dir().join(format!("doc-paths-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("docs/examples")).unwrap();
        std::fs::create_dir_all(dir.join("repdiff/tests")).unwrap();
        std::fs::write(dir.join("repdiff/tests/a.rs"), "").unwrap();
        std::fs::write(dir.join("docs/examples/x.yml"), "").unwrap();
        std::fs::write(
            dir.join("docs/guide.md"),
            "ok `repdiff/tests/a.rs`, [ex](examples/x.yml)\n\
             moved `xtask/tests/a.rs` and [gone](examples/y.yml)\n",
        )
        .unwrap();
        std::fs::create_dir_all(dir.join("xtask")).unwrap();
        let found = find(&dir);
        let _ = std::fs::remove_dir_all(&dir);
        let targets: Vec<(usize, &str)> =
            found.iter().map(|b| (b.line, b.target.as_str())).collect();
        assert_eq!(targets, [(2, "examples/y.yml"), (2, "xtask/tests/a.rs")]);
    }

    /// A run's output the doc describes is missing on a fresh clone and
    /// is not broken there; a typo beside it still is.
    #[test]
    fn a_git_ignored_output_is_not_broken() {
        let dir = std::env::temp_dir().join(format!("doc-paths-ign-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("fuzz")).unwrap();
        let git = std::process::Command::new("git")
            .arg("init")
            .arg("-q")
            .arg(&dir)
            .status()
            .unwrap();
        assert!(git.success());
        std::fs::write(dir.join("fuzz/.gitignore"), "/artifacts\n").unwrap();
        std::fs::write(
            dir.join("fuzz/README.md"),
            "written to `fuzz/artifacts/differential/`, read `fuzz/tragets/x`\n",
        )
        .unwrap();
        let found = find(&dir);
        let _ = std::fs::remove_dir_all(&dir);
        let targets: Vec<&str> = found.iter().map(|b| b.target.as_str()).collect();
        assert_eq!(targets, ["fuzz/tragets/x"]);
    }
}
