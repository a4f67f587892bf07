//! Every oracle repdiff can run, as data: one directory each under
//! `oracles/harness/`, whose `oracle.yaml` is its manifest (the model and
//! its reading are `oracles::roster`, shared with the fuzz loop and the
//! bench). A
//! built-in's manifest says `builtin: <runtime>` and holds its pins (the
//! adapter is in `oracles::registry()`, served by this binary's `worker
//! NAME`, or by its harness binary where the entry names one: Google's); an
//! external one says how to start it (any program speaking
//! docs/protocol.md). Plus `--oracle-cmd NAME='COMMAND'` for a run.
//! Reports, the ledger's known names, setup and the contract test all read
//! this one list, loaded once per process; what only the product checks
//! (a reproducer's placeholders) is checked here.

use crate::shared::Usage;
use crate::template;
pub use oracles::manifest::{
    AptPin, BuildPin, Builtin, CargoPin, External, GoPin, Install, MavenPin, NpmPin, PipPin,
    ReproRun, Reproducer,
};
use oracles::{Checkout, Roster};
use std::collections::BTreeMap;

/// The external oracles, in report order. A malformed registry is an error
/// with the file and line. Read once per process: validation, selection,
/// the ledger's known names and setup all ask.
pub fn externals() -> Result<Vec<External>, Usage> {
    loaded().map(|l| l.roster.externals().to_vec())
}

/// The checkout's roster; a malformed registry is an error with the file
/// and line.
pub fn roster() -> Result<&'static Roster, Usage> {
    loaded().map(|l| &l.roster)
}

/// The checkout's roster, or its built-ins alone when the manifests cannot
/// be read (the caller has said why already, or will: [`roster`]).
pub fn roster_or_builtins() -> &'static Roster {
    static BUILTINS: std::sync::OnceLock<Roster> = std::sync::OnceLock::new();
    match loaded() {
        Ok(l) => &l.roster,
        Err(_) => BUILTINS.get_or_init(|| Roster::builtins_only(Checkout::current())),
    }
}

/// Every oracle's reproducer, built-in and external, by oracle name.
pub fn reproducers() -> Result<&'static BTreeMap<String, Reproducer>, Usage> {
    loaded().map(|l| &l.reproducers)
}

/// Who runs each oracle, by name (the manifests' `runs_in`): serve's page
/// groups its columns by it.
pub fn runs_in() -> Result<&'static BTreeMap<String, String>, Usage> {
    loaded().map(|l| &l.runs_in)
}

/// What the manifests say, read once.
struct Loaded {
    roster: Roster,
    reproducers: BTreeMap<String, Reproducer>,
    runs_in: BTreeMap<String, String>,
}

fn loaded() -> Result<&'static Loaded, Usage> {
    // String: a failure cached once and cloned into each caller's Usage.
    static LOADED: std::sync::OnceLock<Result<Loaded, String>> = std::sync::OnceLock::new();
    LOADED
        .get_or_init(|| load().map_err(|Usage(m)| m))
        .as_ref()
        .map_err(|m| Usage(m.clone()))
}

fn load() -> Result<Loaded, Usage> {
    let roster = Roster::load(Checkout::current()).map_err(|e| Usage(e.to_string()))?;
    let reproducers = roster.manifests().reproducers();
    for (name, r) in &reproducers {
        let manifest = (roster.checkout().root)
            .join("oracles/harness")
            .join(name)
            .join("oracle.yaml");
        check_template(&manifest, r)?;
    }
    Ok(Loaded {
        runs_in: roster.manifests().runs_in(),
        roster,
        reproducers,
    })
}

/// A reproducer's template and calls name only placeholders
/// `findings::repro` fills in ([`crate::template`]).
fn check_template(manifest: &std::path::Path, r: &Reproducer) -> Result<(), Usage> {
    let path = manifest.with_file_name(&r.template);
    let known_in =
        |names: &'static [&'static str]| move |n: &str| names.contains(&n).then(String::new);
    template::fill(&r.source, &known_in(template::PLACEHOLDERS)).map_err(|e| {
        Usage(format!(
            "{}: the reproducer's template: {e}",
            path.display()
        ))
    })?;
    for call in r.calls.values() {
        template::fill(call, &known_in(template::CALL_PLACEHOLDERS)).map_err(|e| {
            Usage(format!(
                "{}: a call in its reproducer: {e}",
                manifest.display()
            ))
        })?;
    }
    Ok(())
}
