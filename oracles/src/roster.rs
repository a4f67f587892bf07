//! Which oracles this checkout has, and the one code path that starts them.
//!
//! Every caller that runs oracles (the product's commands, the fuzz loop,
//! xtask's bench) asks a [`Roster`]: it is loaded once from the checkout
//! (the built-in adapters of [`crate::registry`] and [`crate::profiles()`],
//! every manifest under `oracles/harness/`), and [`Roster::start`] starts
//! a selection of it, built-ins in process or as workers, externals and
//! `--oracle-cmd`s as workers, side by side. One starter, so a fix line, a
//! placement rule or a limit is decided in one place for every command.
//!
//! The roster knows no caller: the product's fake `chaos` oracles reach it
//! as [`Request::makers`], the program name that runs setup as
//! [`Request::program`].

mod checkout;
mod load;
pub mod manifest;
mod start;

pub(crate) use checkout::manifests_under as checkout_manifests;
pub use checkout::Checkout;
pub use load::{ManifestError, Manifests};
pub use manifest::{External, Runtime};
pub use start::{Builtins, Makers, Place, Request, Started};

use crate::Entry;

/// Every oracle of one checkout, read once.
pub struct Roster {
    checkout: Checkout,
    /// The built-in parsers, in report order.
    parsers: Vec<Entry>,
    /// The expectation profiles ([`crate::profiles()`]).
    profiles: Vec<Entry>,
    manifests: Manifests,
}

impl Roster {
    /// The roster of `checkout`: its built-ins and every manifest, checked
    /// ([`Manifests`]); an unreadable or inconsistent manifest is an error
    /// naming its file (and line).
    pub fn load(checkout: Checkout) -> Result<Roster, ManifestError> {
        let parsers = crate::registry();
        let manifests = load::manifests(&checkout, &parsers)?;
        Ok(Roster {
            checkout,
            parsers,
            profiles: crate::profiles(),
            manifests,
        })
    }

    /// The built-ins alone, no manifest read: what a caller still has when
    /// [`Roster::load`] failed (a packaged fuzz run with no checkout, a
    /// command that reports the broken manifest and goes on).
    pub fn builtins_only(checkout: Checkout) -> Roster {
        Roster {
            checkout,
            parsers: crate::registry(),
            profiles: crate::profiles(),
            manifests: Manifests {
                externals: Vec::new(),
                builtins: Vec::new(),
            },
        }
    }

    pub fn checkout(&self) -> &Checkout {
        &self.checkout
    }

    pub fn manifests(&self) -> &Manifests {
        &self.manifests
    }

    /// The built-in parsers, in report order.
    pub fn parsers(&self) -> &[Entry] {
        &self.parsers
    }

    /// The external oracles, in name order.
    pub fn externals(&self) -> &[External] {
        &self.manifests.externals
    }

    /// Every registered oracle name, in report order: the built-in
    /// parsers, then the external oracles (what a ledger entry may name,
    /// and the default selection).
    pub fn names(&self) -> Vec<String> {
        let builtins = self.parsers.iter().map(|e| e.name.to_string());
        builtins
            .chain(self.externals().iter().map(|e| e.name.clone()))
            .collect()
    }

    /// The expectation profiles' names: references, not parsers, so never
    /// in the default selection.
    pub fn profile_names(&self) -> Vec<String> {
        self.profiles.iter().map(|e| e.name.to_string()).collect()
    }

    /// The built-in (parser or profile) called `name`.
    pub fn builtin(&self, name: &str) -> Option<&Entry> {
        self.parsers
            .iter()
            .chain(&self.profiles)
            .find(|e| e.name == name)
    }

    /// The external oracle called `name`.
    pub fn external(&self, name: &str) -> Option<&External> {
        self.externals().iter().find(|e| e.name == name)
    }

    /// `--oracle-cmd NAME='COMMAND'` specs, parsed: every caller's (the
    /// command line's, the fuzz loop's environment variable), so a spec
    /// means the same wherever it is given. A name already registered or
    /// given twice is refused.
    pub fn oracle_cmds<S: AsRef<str>>(&self, specs: &[S]) -> Result<Vec<External>, String> {
        let known = self.names();
        let mut out: Vec<External> = Vec::new();
        for spec in specs {
            let e = manifest::oracle_cmd(spec.as_ref())?;
            if known.contains(&e.name) || out.iter().any(|o| o.name == e.name) {
                return Err(format!(
                    "--oracle-cmd: `{}` is already an oracle name; pick another",
                    e.name
                ));
            }
            out.push(e);
        }
        Ok(out)
    }

    /// The argv that serves built-in `name` as a worker: its harness binary
    /// where it has one (Google's C++ is linked only there), else `exe
    /// worker NAME`.
    pub fn worker_command(&self, name: &str, exe: &str) -> Vec<String> {
        match self.builtin(name).and_then(|e| e.harness) {
            Some(harness) => vec![harness().display().to_string()],
            None => vec![exe.to_string(), "worker".into(), name.to_string()],
        }
    }
}
