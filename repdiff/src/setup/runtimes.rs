//! Setup's first step: the runtime programs the registered oracles run on
//! (`java`, `node`, `ruby`, `perl`: an external manifest's bare `command`
//! program) and the ones setup itself builds their harnesses with (`mvn`
//! and `javac` for the JVM jars, `npm`, `go`), found on PATH. A missing one
//! is installed from Debian's packages when running as root; otherwise the
//! step fails naming each missing program and the package that provides it,
//! and the rest of setup goes on (the oracles that need it then say they
//! are unavailable). `repdiff doctor` reads the same table.

use super::{Ctx, Result};
use crate::registry::External;
use std::path::{Path, PathBuf};
use std::process::Command;

const PIECE: &str = "runtimes";

/// A runtime program and the Debian package that provides it.
pub struct Runtime {
    pub program: &'static str,
    pub package: &'static str,
}

/// Every runtime program repdiff knows a Debian package for.
pub const KNOWN: &[Runtime] = &[
    Runtime {
        program: "java",
        package: "openjdk-17-jre-headless",
    },
    Runtime {
        program: "javac",
        package: "openjdk-17-jdk-headless",
    },
    Runtime {
        program: "mvn",
        package: "maven",
    },
    Runtime {
        program: "node",
        package: "nodejs",
    },
    Runtime {
        program: "npm",
        package: "npm",
    },
    Runtime {
        program: "ruby",
        package: "ruby",
    },
    Runtime {
        program: "perl",
        package: "perl",
    },
    Runtime {
        program: "go",
        package: "golang-go",
    },
];

/// The Debian package that provides `program`, if repdiff knows one.
pub fn package(program: &str) -> Option<&'static str> {
    KNOWN
        .iter()
        .find(|r| r.program == program)
        .map(|r| r.package)
}

/// A program that is a bare name (`java`), looked up on PATH when run,
/// rather than a path (`{cache}/go/grobotstxt/harness`).
pub fn is_bare(program: &str) -> bool {
    !program.is_empty() && !program.contains('/')
}

/// Where PATH finds `program`, as a shell would (an executable file).
pub fn which(program: &str) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .filter(|d| !d.as_os_str().is_empty())
        .map(|d| d.join(program))
        .find(|p| {
            std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        })
}

/// One runtime program and who needs it.
pub struct Need {
    pub program: String,
    /// The oracles whose worker runs it or whose harness setup builds with it.
    pub oracles: Vec<String>,
}

/// Every runtime program the registered external oracles need, in the
/// order first needed: each manifest's bare `command` program, and the
/// tools setup builds its harness with (`mvn` and `javac` for `install:
/// maven`, unless the pin names its own JDK; `go`; `npm`).
pub fn needed(externals: &[External]) -> Vec<Need> {
    let mut needs: Vec<Need> = Vec::new();
    let mut add =
        |program: &str, oracle: &str| match needs.iter_mut().find(|n| n.program == program) {
            Some(n) => {
                if !n.oracles.iter().any(|o| o == oracle) {
                    n.oracles.push(oracle.to_string());
                }
            }
            None => needs.push(Need {
                program: program.to_string(),
                oracles: vec![oracle.to_string()],
            }),
        };
    for e in externals {
        if let Some(program) = e.command.first().filter(|p| is_bare(p)) {
            add(program, &e.name);
        }
        let i = &e.install;
        if let Some(maven) = &i.maven {
            add("mvn", &e.name);
            if maven.java_home.is_none() {
                add("javac", &e.name);
            }
        }
        if i.go.is_some() {
            add("go", &e.name);
        }
        if i.npm.is_some() {
            add("npm", &e.name);
        }
    }
    needs
}

/// A dotted version's numbers (`1.24.0`, `go1.26.8`, `2:1.19~1`), up to
/// the first character that is neither a digit nor a dot, trailing zeros
/// dropped so that `1.24` and `1.24.0` compare equal.
pub fn version_numbers(text: &str) -> Vec<u32> {
    let text = text.trim();
    let text = text.strip_prefix("go").unwrap_or(text);
    let text = text.split_once(':').map_or(text, |(_, v)| v);
    let end = text
        .find(|c: char| !c.is_ascii_digit() && c != '.')
        .unwrap_or(text.len());
    let mut numbers: Vec<u32> = text[..end]
        .split('.')
        .map_while(|n| n.parse().ok())
        .collect();
    while numbers.last() == Some(&0) {
        numbers.pop();
    }
    numbers
}

/// The newest Go that the Go harnesses' go.mod files ask for (their `go`
/// line; setup builds with `GOTOOLCHAIN=local`, so an older go fails).
pub fn go_required(root: &Path, externals: &[External]) -> Option<String> {
    externals
        .iter()
        .filter_map(|e| e.install.go.as_ref())
        .filter_map(|pin| std::fs::read_to_string(root.join(&pin.module).join("go.mod")).ok())
        .filter_map(|text| {
            text.lines()
                .find_map(|l| l.trim().strip_prefix("go ").map(|v| v.trim().to_string()))
        })
        .max_by(|a, b| version_numbers(a).cmp(&version_numbers(b)))
}

/// The version `go` on PATH reports (`1.26.8`), if it runs.
pub fn go_version() -> Option<String> {
    let out = Command::new("go")
        .args(["env", "GOVERSION"])
        .output()
        .ok()
        .filter(|o| o.status.success())?;
    let text = String::from_utf8_lossy(&out.stdout);
    let v = text.trim();
    Some(v.strip_prefix("go").unwrap_or(v).to_string())
}

/// The Go version Debian's `golang-go` would install here (its candidate:
/// `1.19` on Debian 12), if apt knows one.
pub fn debian_go_version() -> Option<String> {
    let out = Command::new("apt-cache")
        .args(["policy", "golang-go"])
        .output()
        .ok()?;
    let text = String::from_utf8_lossy(&out.stdout);
    let candidate = text
        .lines()
        .find_map(|l| l.trim().strip_prefix("Candidate:"))?
        .trim();
    let numbers = version_numbers(candidate);
    (!numbers.is_empty()).then(|| {
        numbers
            .iter()
            .map(u32::to_string)
            .collect::<Vec<_>>()
            .join(".")
    })
}

/// What to do when Go is missing or older than `required`: Debian's
/// golang-go where its version is enough, else a newer Go by hand.
pub fn go_fix(required: Option<&str>, debian: Option<&str>) -> String {
    let Some(required) = required else {
        return "apt-get install -y golang-go".into();
    };
    match debian {
        Some(d) if version_numbers(d) >= version_numbers(required) => {
            "apt-get install -y golang-go".into()
        }
        Some(d) => format!(
            "install Go >= {required} (the Go harnesses' go.mod say `go {required}`; Debian's \
             golang-go here is Go {d}), e.g. golang-go from a newer Debian release or Go's own \
             release under /usr/local/go"
        ),
        None => format!(
            "install Go >= {required} (the Go harnesses' go.mod say `go {required}`; Debian \
             12's golang-go is Go 1.19), e.g. golang-go from a newer Debian release or Go's \
             own release under /usr/local/go"
        ),
    }
}

/// One runtime program found wanting, and the package that provides it.
pub struct Missing {
    pub program: String,
    /// The oracles that run it or whose harness setup builds with it.
    pub oracles: Vec<String>,
    /// What is wrong: `not on PATH`, or a go older than the harnesses want.
    pub why: String,
    /// The Debian package that fixes it, when one does here (not Debian
    /// 12's golang-go for harnesses that want a newer Go).
    pub package: Option<&'static str>,
}

impl Missing {
    /// `ruby (not on PATH; needed by webrobots; Debian package `ruby`)`.
    pub fn said(&self) -> String {
        let pkg = match self.package {
            Some(p) => format!("Debian package `{p}`"),
            None if self.program == "go" => "no Debian package here is new enough".into(),
            None => "no Debian package known".into(),
        };
        format!(
            "{} ({}; needed by {}; {pkg})",
            self.program,
            self.why,
            self.oracles.join(", ")
        )
    }
}

/// Every runtime program the registered externals need that is missing
/// now (or, for go, older than their go.mod files want).
pub fn missing(root: &Path, externals: &[External]) -> Vec<Missing> {
    let required = go_required(root, externals);
    let mut out = Vec::new();
    for need in needed(externals) {
        let present = which(&need.program).is_some();
        if need.program == "go" {
            let have = if present { go_version() } else { None };
            let old = match (&have, &required) {
                (Some(h), Some(r)) if version_numbers(h) < version_numbers(r) => {
                    Some(format!("go {h} on PATH, older than go.mod's `go {r}`"))
                }
                _ => None,
            };
            if !present || old.is_some() {
                let package = match (&required, debian_go_version()) {
                    (None, _) => Some("golang-go"),
                    (Some(r), Some(d)) if version_numbers(&d) >= version_numbers(r) => {
                        Some("golang-go")
                    }
                    _ => None,
                };
                out.push(Missing {
                    why: old.unwrap_or_else(|| "not on PATH".into()),
                    package,
                    program: need.program,
                    oracles: need.oracles,
                });
            }
            continue;
        }
        if !present {
            out.push(Missing {
                why: "not on PATH".into(),
                package: package(&need.program),
                program: need.program,
                oracles: need.oracles,
            });
        }
    }
    out
}

/// The apt-get command that installs what Debian provides of `missing`.
pub fn apt_command(missing: &[&Missing]) -> Option<String> {
    let mut packages: Vec<&str> = Vec::new();
    for p in missing.iter().filter_map(|m| m.package) {
        if !packages.contains(&p) {
            packages.push(p);
        }
    }
    (!packages.is_empty()).then(|| {
        format!(
            "apt-get update && apt-get install -y --no-install-recommends {}",
            packages.join(" ")
        )
    })
}

/// What fixes `missing`, setup (named as `program` runs it) last: one
/// command line when Debian's packages do it all, else the steps.
pub fn fix(missing: &[&Missing], root: &Path, externals: &[External], program: &str) -> String {
    let apt = apt_command(missing);
    let mut by_hand: Vec<String> = Vec::new();
    for m in missing.iter().filter(|m| m.package.is_none()) {
        if m.program == "go" {
            let required = go_required(root, externals);
            by_hand.push(go_fix(required.as_deref(), debian_go_version().as_deref()));
        } else {
            by_hand.push(format!("install `{}` and put it on PATH", m.program));
        }
    }
    match (apt, by_hand.is_empty()) {
        (Some(apt), true) => format!("{apt} && {program} setup"),
        (apt, _) => {
            let mut steps: Vec<String> = apt.into_iter().collect();
            steps.extend(by_hand);
            steps.push(format!("then {program} setup"));
            steps.join("; ")
        }
    }
}

/// The step: every runtime program present (a debug line), else installed
/// as root from Debian's packages, else an error naming each one missing.
pub fn ensure(ctx: &Ctx, _verbose: bool) -> Result<()> {
    let externals = crate::registry::externals()
        .map_err(|e| ctx.err(PIECE, e.0, "fix the oracle.yaml it names"))?;
    let now = missing(&ctx.root, &externals);
    if now.is_empty() {
        let names: Vec<String> = needed(&externals).into_iter().map(|n| n.program).collect();
        log::debug!("setup: runtimes: {} on PATH", names.join(", "));
        return Ok(());
    }
    let mut packages: Vec<String> = Vec::new();
    for p in now.iter().filter_map(|m| m.package) {
        if !packages.iter().any(|q| q == p) {
            packages.push(p.to_string());
        }
    }
    if !packages.is_empty() && super::is_root() {
        let all: Vec<&Missing> = now.iter().collect();
        let install = apt_command(&all).unwrap_or_default();
        log::info!(
            "setup: runtimes: apt-get install {} (for {})",
            packages.join(" "),
            now.iter()
                .filter(|m| m.package.is_some())
                .map(|m| m.program.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        );
        super::apt_install(
            ctx,
            PIECE,
            &["--no-install-recommends"],
            &packages,
            &install,
        )?;
    }
    let left = missing(&ctx.root, &externals);
    if left.is_empty() {
        return Ok(());
    }
    let refs: Vec<&Missing> = left.iter().collect();
    Err(ctx.err(
        PIECE,
        format!(
            "missing runtime programs: {}",
            left.iter()
                .map(Missing::said)
                .collect::<Vec<_>>()
                .join("; ")
        ),
        fix(&refs, &ctx.root, &externals, ctx.program),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_read_as_numbers() {
        assert_eq!(version_numbers("1.24.0"), vec![1, 24]);
        assert_eq!(version_numbers("1.24"), version_numbers("1.24.0"));
        assert_eq!(version_numbers("go1.26.8"), vec![1, 26, 8]);
        assert_eq!(version_numbers("2:1.19~1"), vec![1, 19]);
        assert_eq!(version_numbers("(none)"), Vec::<u32>::new());
        assert!(version_numbers("1.19") < version_numbers("1.24.0"));
        assert!(version_numbers("1.26.8") >= version_numbers("1.24.0"));
    }

    #[test]
    fn go_fix_names_the_package_only_when_it_is_new_enough() {
        assert_eq!(
            go_fix(Some("1.24.0"), Some("1.24")),
            "apt-get install -y golang-go"
        );
        let old = go_fix(Some("1.24.0"), Some("1.19"));
        assert!(
            old.contains("Go >= 1.24.0") && old.contains("1.19"),
            "{old}"
        );
    }

    #[test]
    fn every_runtime_has_a_package() {
        for p in ["java", "node", "npm", "ruby", "perl", "go", "mvn"] {
            assert!(package(p).is_some(), "{p}");
        }
        assert_eq!(package("ruby"), Some("ruby"));
        assert_eq!(package("java"), Some("openjdk-17-jre-headless"));
    }
}
