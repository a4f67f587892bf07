//! The workspaces beside the main one that build our crates by path (the
//! fuzz targets, Google's worker) have lock files of their own, which setup
//! and CI build with `--locked`. A dependency added to one of our crates
//! makes such a lock stale, and only a fresh clone's first run found it
//! (stop 62: Google's worker did not build). This test finds it at once.

#[cfg(test)]
mod tests {
    use std::path::Path;
    use std::process::Command;

    /// The nested manifests whose lock files pin our path crates' deps.
    const NESTED: &[&str] = &["fuzz/Cargo.toml", "oracles/harness/google/Cargo.toml"];

    #[test]
    fn every_nested_lock_file_is_current() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        for manifest in NESTED {
            let out = Command::new(env!("CARGO"))
                .args([
                    "metadata",
                    "--locked",
                    "--format-version",
                    "1",
                    "--manifest-path",
                ])
                .arg(root.join(manifest))
                .output()
                .expect("cargo metadata runs");
            assert!(
                out.status.success(),
                "{manifest}: its Cargo.lock is stale (run `cargo metadata --manifest-path \
                 {manifest}` and commit the lock):\n{}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
    }
}
