//! One test per case file: the file's cases through every oracle (in their
//! supervised workers, as a real run does), triaged against the ledger.
//! Fails when a cell is untriaged or an oracle is unavailable: a missing
//! oracle is a failure, never a skip. Run `repdiff setup` first.

use std::path::Path;
use std::process::Command;

fn check_file(path: &Path) -> datatest_stable::Result<()> {
    let name = path
        .file_name()
        .and_then(|n| n.to_str())
        .ok_or("case file without a name")?;
    let out_dir = std::env::temp_dir().join(format!("repdiff-test-{}-{name}", std::process::id()));
    let out = Command::new(env!("CARGO_BIN_EXE_repdiff"))
        // The files run in parallel, beside other test binaries: a generous
        // per-call timeout keeps a slow-but-answering case from timing out
        // under that load (the datatest checks verdicts, not speed).
        .args([
            "conformance",
            "--no-setup",
            "--timeout",
            "30",
            "--file",
            name,
            "--out",
        ])
        .arg(&out_dir)
        .output()?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let report = std::fs::read_to_string(out_dir.join("compat.json"));
    let _ = std::fs::remove_dir_all(&out_dir);
    if !out.status.success() {
        return Err(format!(
            "conformance over {name} failed ({}):\n{stdout}\n{stderr}",
            out.status
        )
        .into());
    }
    // The run must really have asked every oracle: a report with no cells
    // or an unavailable oracle is not a pass.
    let report: serde_json::Value = serde_json::from_str(&report?)?;
    let cells = report["cells"].as_array().map_or(0, Vec::len);
    let oracles = report["oracles"].as_array().map_or(0, Vec::len);
    let unavailable = report["unavailable"].as_array().map_or(0, Vec::len);
    if cells == 0 || oracles == 0 || unavailable != 0 {
        return Err(
            format!("{name}: {cells} cells, {oracles} oracles, {unavailable} unavailable").into(),
        );
    }
    Ok(())
}

datatest_stable::harness! {
    { test = check_file, root = "../cases/corpus", pattern = r"^.*\.ya?ml$" },
}
