//! The oracles' manifests as data: one `oracle.yaml` per directory under
//! `oracles/harness/` (the fields are documented in
//! oracles/harness/README.md). Part of the roster, not of the product,
//! because more than the product starts oracles from them: the fuzz loop
//! (repdiff-fuzzcore) and xtask's bench run every external oracle too, and
//! they cannot depend on the `repdiff` binary's crate. What only the product
//! checks (a reproducer template's placeholders) stays in
//! `repdiff::registry`.

use engine::oracle::Ask;
use serde::Deserialize;
use std::collections::BTreeMap;

/// The language a direct reproducer is written in: how its literals and
/// comments are written (the product's `findings::repro`), the fence of
/// its code block and the runtime `repdiff findings --verify` runs it in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Lang {
    Python,
    Js,
    Perl,
    Ruby,
    Rust,
    Cpp,
    Java,
    Go,
}

impl Lang {
    /// The Markdown fence name.
    pub fn fence(self) -> &'static str {
        match self {
            Lang::Python => "python",
            Lang::Js => "js",
            Lang::Perl => "perl",
            Lang::Ruby => "ruby",
            Lang::Rust => "rust",
            Lang::Cpp => "cpp",
            Lang::Java => "java",
            Lang::Go => "go",
        }
    }
}

/// What a built-in's code runs on: oracles of one runtime share a setup
/// step, and the fuzz job picks its sanitizer and lane by it. (Not
/// "family": that word means a metamorphic family in the corpus.) An enum,
/// so a manifest that names another runtime is refused where it is read,
/// with its line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Runtime {
    /// Rust code of this crate.
    Rust,
    /// Google's C++, linked into the fuzz targets and its harness binary.
    Google,
    /// The embedded CPython interpreter (PyO3).
    Python,
}

impl Runtime {
    /// The word a manifest writes (`builtin: python`) and reports show.
    pub fn as_str(self) -> &'static str {
        match self {
            Runtime::Rust => "rust",
            Runtime::Google => "google",
            Runtime::Python => "python",
        }
    }
}

impl std::fmt::Display for Runtime {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A built-in's manifest: its adapter is Rust code of the oracles crate,
/// so the manifest names it, says its runtime, and holds the pins the
/// build turns into constants (`oracles/build/pins.rs`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Builtin {
    pub name: String,
    /// The runtime of its adapter: the registry entry's.
    pub builtin: Runtime,
    /// Who runs this parser: a crawler (`Googlebot`), a framework
    /// (`Scrapy`) or a language's users (`Python`). A site owner reads
    /// verdicts by who will act on them, so serve's page groups its
    /// columns by this.
    pub runs_in: String,
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
    /// Who runs this parser ([`Builtin::runs_in`]).
    pub runs_in: String,
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
    /// The other packages it runs with (a second library its users call
    /// with it, and every package of their dependency trees), each pinned
    /// the same way and installed with it at exactly that version; setup
    /// refuses a tree that needs a package not listed here.
    #[serde(default)]
    pub deps: Vec<NpmDep>,
}

/// One more npm package an external oracle needs, pinned like the main one.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NpmDep {
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
    /// The package's own dependencies, each pinned by version and sha256
    /// (a wheel, or an sdist built like the package), installed with it in
    /// the same `--no-deps --require-hashes` step, so the resolver fetches
    /// nothing else.
    #[serde(default)]
    pub deps: Vec<BuildPin>,
}

/// A pinned distribution: a wheel needed to build an sdist, or one of a
/// package's dependencies.
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

/// `{root}` and `{cache}` of the current checkout filled in: read when
/// asked, not when loaded, so a `REPDIFF_CACHE` set after the load (a
/// packaged fuzz run adopting the cache beside it) still counts.
fn expand(s: &str) -> String {
    super::Checkout::current().expand(s)
}

/// An oracle given on the command line: `NAME=COMMAND`, run by `sh -c`.
/// (String: a bad flag value; the message is the usage error the binary
/// prints.)
pub fn oracle_cmd(spec: &str) -> Result<External, String> {
    let (name, command) = spec
        .split_once('=')
        .filter(|(n, c)| !n.trim().is_empty() && !c.trim().is_empty())
        .ok_or_else(|| {
            format!(
                "--oracle-cmd wants NAME='COMMAND', got {spec:?} (e.g. --oracle-cmd mine='python3 oracles/harness/example.py')"
            )
        })?;
    let name = name.trim();
    if !name
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.')
    {
        return Err(format!(
            "--oracle-cmd: `{name}` is not a name (letters, digits, - _ .)"
        ));
    }
    Ok(External {
        name: name.to_string(),
        runs_in: "--oracle-cmd".into(),
        command: vec!["sh".into(), "-c".into(), command.to_string()],
        direct: Vec::new(),
        speed_loop: Vec::new(),
        env: BTreeMap::new(),
        install: Install::default(),
        census_workers: 1,
        reproducer: None,
    })
}
