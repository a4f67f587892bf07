//! Every oracle repdiff can run, as data: one directory each under
//! `oracles/harness/`, whose `oracle.yaml` is its manifest (the fields are
//! documented in oracles/harness/README.md). A built-in's manifest says
//! `builtin: <runtime>` and holds its pins (the adapter is in
//! `oracles::registry()`, served by this binary's `worker NAME`, or by its
//! harness binary where the entry names one: Google's); an external one
//! says how to start it (any program speaking docs/protocol.md). Plus
//! `--oracle-cmd NAME='COMMAND'` for a run. Reports, the ledger's known
//! names, setup and the contract test all read this one list.

use crate::cli::Usage;
use crate::findings::repro::{self, Lang};
use crate::paths;
use engine::oracle::Ask;
use serde::Deserialize;
use std::collections::BTreeMap;

/// A built-in's manifest: its adapter is Rust code of the oracles crate,
/// so the manifest names it, says its runtime, and holds the pins the
/// build turns into constants (`oracles/build/pins.rs`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Builtin {
    pub name: String,
    /// The runtime of its adapter (`rust`, `google`, `python`): the
    /// registry entry's.
    pub builtin: String,
    #[serde(default)]
    pub pins: serde_yaml::Mapping,
    #[serde(default)]
    pub reproducer: Option<Reproducer>,
}

/// How the direct reproducer of a write-up is made for this oracle: a
/// program in the library's own language, kept as a template beside the
/// manifest and filled in by `findings::repro`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Reproducer {
    /// The template's language: how the input is written in it, and the
    /// runtime `findings --verify` runs it in.
    pub lang: Lang,
    /// The template's file, in the oracle's directory.
    pub template: String,
    /// The library call that answers each ask (`{{agent}}` and `{{url}}`
    /// stand for the query's, as literals); an ask missing here has no
    /// direct reproducer. Empty when the template asks the question itself.
    pub calls: BTreeMap<Ask, String>,
    /// The URL to ask with when a query other than `can_fetch` has none
    /// (a library that wants a URL for every question).
    #[serde(default)]
    pub default_url: Option<String>,
    /// How `findings --verify` runs it, where its language alone does not say.
    #[serde(default)]
    pub run: ReproRun,
    /// The template's text, read when the manifest is loaded.
    #[serde(skip)]
    pub source: String,
}

/// What `findings --verify` needs to run one oracle's reproducers in the
/// oracle's own runtime (`{root}` and `{cache}` are substituted).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReproRun {
    /// Python: the interpreter the oracle itself runs in.
    #[serde(default)]
    pub python: Option<String>,
    /// Python: bind `urllib.robotparser` to CPython 3.15.0rc1's module
    /// before the program starts, as the `cpython-3.15` oracle runs it on
    /// the 3.11 runtime.
    #[serde(default)]
    pub robotparser_315: bool,
    /// Rust: the dependency line of the programs' Cargo.toml (the
    /// workspace's Cargo.lock pins the rest).
    #[serde(default)]
    pub cargo_dependency: Option<String>,
    /// Rust: build in a copy of the harness crate of this directory
    /// instead (its Cargo.toml, Cargo.lock and this target folder under
    /// the cache), so nothing but the programs compiles.
    #[serde(default)]
    pub cargo_target: Option<String>,
}

impl ReproRun {
    /// The Python interpreter, substituted.
    pub fn python(&self) -> Option<std::path::PathBuf> {
        self.python.as_deref().map(|p| expand(p).into())
    }
}

/// One external oracle: how to start it and what setup installs for it.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct External {
    pub name: String,
    /// argv; `{root}` and `{cache}` are substituted.
    pub command: Vec<String>,
    /// argv of the direct-call program of the fidelity test (the library
    /// called with no protocol in between, in its own runtime), same
    /// substitutions; every registered oracle has one.
    #[serde(default)]
    pub direct: Vec<String>,
    /// argv of the speed loop (`loop:`): the library over a census's exact
    /// files and questions with no protocol between, timed on its own CPU
    /// clock (oracles/harness/README.md); the queries file is appended.
    #[serde(default, rename = "loop")]
    pub speed_loop: Vec<String>,
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    #[serde(default)]
    pub install: Install,
    /// Instances `repdiff census` runs of it (default 1): more for a
    /// parser slow enough to set the census's wall time alone.
    #[serde(default = "one")]
    pub census_workers: usize,
    #[serde(default)]
    pub reproducer: Option<Reproducer>,
}

fn one() -> usize {
    1
}

/// What `repdiff setup` fetches for an external oracle, pinned.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Install {
    pub npm: Option<NpmPin>,
    pub pip: Option<PipPin>,
    #[serde(default)]
    pub apt: Vec<AptPin>,
    pub cargo: Option<CargoPin>,
    pub maven: Option<MavenPin>,
    pub go: Option<GoPin>,
}

/// A Java harness: its Maven project resolves the runtime jars from Maven
/// Central into `<cache>/<out>/lib`, each checked against the project's
/// `jars.sha256` (the exact set); its `src/*.java` are compiled into
/// `<cache>/<out>/classes`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MavenPin {
    /// The harness directory (pom.xml, jars.sha256, src/), relative to the checkout.
    pub project: String,
    /// The build's folder under the cache.
    pub out: String,
    /// A JDK to compile and run with instead of the one on PATH.
    #[serde(default)]
    pub java_home: Option<String>,
}

/// A Go harness: a module whose committed go.mod and go.sum pin every
/// dependency; `.` is built to `<cache>/<out>/harness` and `./direct` to
/// `<cache>/<out>/direct`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GoPin {
    /// The module's directory, relative to the checkout.
    pub module: String,
    /// The build's folder under the cache.
    pub out: String,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NpmPin {
    pub package: String,
    pub version: String,
    /// The tarball's Subresource Integrity string, as the npm registry lists it.
    pub integrity: String,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PipPin {
    /// Folder under the cache.
    pub venv: String,
    pub package: String,
    pub version: String,
    /// sha256 of the wheel, or of the sdist when `sdist_build` is given
    /// (pip --require-hashes).
    pub sha256: String,
    /// The package has no wheel: its sdist is built with this pinned build
    /// dependency (a wheel, installed first; no build isolation, so pip
    /// downloads nothing unpinned).
    #[serde(default)]
    pub sdist_build: Option<BuildPin>,
}

/// A pinned wheel needed to build an sdist.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BuildPin {
    pub package: String,
    pub version: String,
    pub sha256: String,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AptPin {
    pub package: String,
    pub version: String,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CargoPin {
    /// Cargo.toml of the harness, relative to the checkout.
    pub manifest: String,
    /// The binary's path under the cache once built.
    pub binary: String,
}

impl External {
    /// argv with `{root}` and `{cache}` filled in.
    pub fn argv(&self) -> Vec<String> {
        self.command.iter().map(|a| expand(a)).collect()
    }

    /// The direct-call argv, substituted; empty when the manifest gives none.
    pub fn direct_argv(&self) -> Vec<String> {
        self.direct.iter().map(|a| expand(a)).collect()
    }

    /// The speed loop's argv, substituted; empty when the manifest gives none.
    pub fn loop_argv(&self) -> Vec<String> {
        self.speed_loop.iter().map(|a| expand(a)).collect()
    }

    pub fn envs(&self) -> Vec<(String, String)> {
        self.env
            .iter()
            .map(|(k, v)| (k.clone(), expand(v)))
            .collect()
    }
}

fn expand(s: &str) -> String {
    s.replace("{root}", &paths::root().display().to_string())
        .replace("{cache}", &oracles::cache_dir().display().to_string())
}

/// The external oracles, in report order. A malformed registry is an error
/// with the file and line. Read once per process: validation, selection,
/// the ledger's known names and setup all ask.
pub fn externals() -> Result<Vec<External>, Usage> {
    loaded().map(|l| l.externals.clone())
}

/// Every oracle's reproducer, built-in and external, by oracle name.
pub fn reproducers() -> Result<&'static BTreeMap<String, Reproducer>, Usage> {
    loaded().map(|l| &l.reproducers)
}

/// What the manifests say, read once.
struct Loaded {
    externals: Vec<External>,
    reproducers: BTreeMap<String, Reproducer>,
}

fn loaded() -> Result<&'static Loaded, Usage> {
    static LOADED: std::sync::OnceLock<Result<Loaded, String>> = std::sync::OnceLock::new();
    LOADED
        .get_or_init(|| load().map_err(|Usage(m)| m))
        .as_ref()
        .map_err(|m| Usage(m.clone()))
}

/// Read a manifest's reproducer template and check its placeholders.
fn read_template(manifest: &std::path::Path, r: &mut Reproducer) -> Result<(), Usage> {
    let path = manifest.with_file_name(&r.template);
    r.source = std::fs::read_to_string(&path)
        .map_err(|e| Usage(format!("{}: the reproducer template: {e}", path.display())))?;
    let known_in =
        |names: &'static [&'static str]| move |n: &str| names.contains(&n).then(String::new);
    repro::fill(&r.source, &known_in(repro::PLACEHOLDERS)).map_err(|e| {
        Usage(format!(
            "{}: the reproducer's template: {e}",
            path.display()
        ))
    })?;
    for call in r.calls.values() {
        repro::fill(call, &known_in(repro::CALL_PLACEHOLDERS)).map_err(|e| {
            Usage(format!(
                "{}: a call in its reproducer: {e}",
                manifest.display()
            ))
        })?;
    }
    Ok(())
}

fn load() -> Result<Loaded, Usage> {
    let root = paths::root();
    let manifests = oracles::harness_manifests(&root).map_err(|e| {
        Usage(format!(
            "{}: cannot list the oracles: {e} (is {} a repdiff checkout? see --root)",
            root.join("oracles/harness").display(),
            root.display()
        ))
    })?;
    let registry = oracles::registry();
    let mut builtins_seen: Vec<String> = Vec::new();
    let mut loaded: Vec<External> = Vec::new();
    let mut reproducers = BTreeMap::new();
    for path in manifests {
        let named = oracles::read_named(&path).map_err(Usage)?;
        let dir = path
            .parent()
            .and_then(|d| d.file_name())
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        if named.name != dir {
            return Err(Usage(format!(
                "{}: names oracle `{}` but its directory is `{dir}`",
                path.display(),
                named.name
            )));
        }
        if named.builtin.is_some() {
            let mut b: Builtin = read_manifest(&path)?;
            check_builtin(&b, &registry).map_err(|p| Usage(format!("{}: {p}", path.display())))?;
            if let Some(mut r) = b.reproducer.take() {
                read_template(&path, &mut r)?;
                reproducers.insert(b.name.clone(), r);
            }
            builtins_seen.push(b.name);
            continue;
        }
        let mut o: External = read_manifest(&path)?;
        if let Some(mut r) = o.reproducer.take() {
            read_template(&path, &mut r)?;
            reproducers.insert(o.name.clone(), r);
        }
        let problem = if registry.iter().any(|e| e.name == o.name) {
            Some(format!(
                "oracle `{}` is also a built-in (a built-in's manifest says `builtin:`)",
                o.name
            ))
        } else if o.command.is_empty() {
            Some(format!("oracle `{}` has an empty command", o.name))
        } else {
            None
        };
        if let Some(p) = problem {
            return Err(Usage(format!("{}: {p}", path.display())));
        }
        loaded.push(o);
    }
    if let Some(e) = registry
        .iter()
        .find(|e| !builtins_seen.iter().any(|n| n == e.name))
    {
        return Err(Usage(format!(
            "{}: the built-in oracle `{}` has no manifest (one directory per oracle)",
            root.join("oracles/harness")
                .join(e.name)
                .join("oracle.yaml")
                .display(),
            e.name
        )));
    }
    Ok(Loaded {
        externals: loaded,
        reproducers,
    })
}

/// A built-in's manifest names an adapter of this build, with its runtime.
fn check_builtin(b: &Builtin, registry: &[oracles::Entry]) -> Result<(), String> {
    match registry.iter().find(|e| e.name == b.name) {
        None => Err(format!(
            "says `builtin: {}`, but this build has no built-in oracle `{}`",
            b.builtin, b.name
        )),
        Some(e) if e.runtime != b.builtin => Err(format!(
            "says `builtin: {}`, but the built-in `{}` runs on `{}`",
            b.builtin, b.name, e.runtime
        )),
        Some(_) => Ok(()),
    }
}

/// One manifest; a malformed one is an error with its file and line.
fn read_manifest<T: serde::de::DeserializeOwned>(path: &std::path::Path) -> Result<T, Usage> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| Usage(format!("{}: cannot read: {e}", path.display())))?;
    serde_yaml::from_str(&text).map_err(|e| {
        let line = e
            .location()
            .map_or(String::new(), |l| format!(":{}", l.line()));
        Usage(format!("{}{line}: {e}", path.display()))
    })
}

/// An oracle given on the command line: `NAME=COMMAND`, run by `sh -c`.
pub fn oracle_cmd(spec: &str) -> Result<External, Usage> {
    let (name, command) = spec
        .split_once('=')
        .filter(|(n, c)| !n.trim().is_empty() && !c.trim().is_empty())
        .ok_or_else(|| {
            Usage(format!(
                "--oracle-cmd wants NAME='COMMAND', got {spec:?} (e.g. --oracle-cmd mine='python3 oracles/harness/example.py')"
            ))
        })?;
    let name = name.trim();
    if !name
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.')
    {
        return Err(Usage(format!(
            "--oracle-cmd: `{name}` is not a name (letters, digits, - _ .)"
        )));
    }
    Ok(External {
        name: name.to_string(),
        command: vec!["sh".into(), "-c".into(), command.to_string()],
        direct: Vec::new(),
        speed_loop: Vec::new(),
        env: BTreeMap::new(),
        install: Install::default(),
        census_workers: 1,
        reproducer: None,
    })
}
