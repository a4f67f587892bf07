//! `repdiff findings`: the committed write-ups are current (`--check`
//! passes), each has every section a maintainer needs, and the site's
//! findings page and ledger page link every write-up to a file that exists.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

fn repdiff() -> Command {
    Command::new(env!("CARGO_BIN_EXE_repdiff"))
}

fn ok(out: &Output, what: &str) {
    assert!(
        out.status.success(),
        "{what} failed ({}):\n{}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The write-ups of ledger entries in reports/findings/, without the index
/// and without the write-ups of kind `slow` (no ledger entry, so neither a
/// `--case` line nor a ledger link; the findings module's own tests check
/// their sections and the index's link).
fn write_ups() -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(root().join("reports/findings"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "md") && !p.ends_with("README.md"))
        .filter(|p| {
            !std::fs::read_to_string(p)
                .unwrap()
                .contains("\nKind `slow` (super-linear time)")
        })
        .collect();
    out.sort();
    out
}

#[test]
fn check_passes_on_the_committed_write_ups() {
    let out = repdiff().args(["findings", "--check"]).output().unwrap();
    ok(&out, "findings --check");
}

#[test]
fn each_write_up_has_every_required_section() {
    let files = write_ups();
    assert!(files.len() >= 70, "only {} write-ups", files.len());
    let index = std::fs::read_to_string(root().join("reports/findings/README.md")).unwrap();
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        let name = f.file_name().unwrap().to_string_lossy();
        for h in [
            "\n# ",
            "\n## Upstream\n",
            "\n## Affected versions\n",
            "\n## Minimal input\n",
            "robots.txt body",
            "b\"",
            "\n## Expected behaviour (RFC 9309)\n",
            "\n## Actual behaviour\n",
            "\n## Reproducer\n",
            "repdiff check --case ",
            "\n## Suggested fix\n",
            "\n## Appendix: where this comes from in repdiff\n",
        ] {
            assert!(text.contains(h), "{name}: no `{}`", h.trim());
        }
        assert!(
            index.contains(&format!("]({name})")),
            "the index does not link {name}"
        );
    }
}

#[test]
fn the_site_links_every_write_up() {
    let dir = std::env::temp_dir().join(format!("repdiff-findings-site-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let out = repdiff()
        .args(["report", "--no-screenshot", "--json"])
        .arg(root().join("reports/latest/compat.json"))
        .arg("--out")
        .arg(dir.join("site"))
        .arg("--history")
        .arg(dir.join("none.jsonl"))
        .output()
        .unwrap();
    ok(&out, "report");
    let page = std::fs::read_to_string(dir.join("site/findings.html")).unwrap();
    let ledger = std::fs::read_to_string(dir.join("site/ledger.html")).unwrap();
    for f in write_ups() {
        let href = format!(
            "href=\"../findings/{}\"",
            f.file_name().unwrap().to_string_lossy()
        );
        assert!(page.contains(&href), "findings.html lacks {href}");
        assert!(ledger.contains(&href), "ledger.html lacks {href}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
