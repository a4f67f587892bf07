//! Reading every manifest of a checkout, each file read and parsed once:
//! its kind (built-in or external) is told from the parsed document, not
//! from a first pass over the file.

use super::checkout::Checkout;
use super::manifest::{Builtin, External, Reproducer};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Every manifest under a checkout, read and checked.
pub struct Manifests {
    /// The external oracles, in name order (the report's).
    pub externals: Vec<External>,
    /// The built-ins' manifests, in name order.
    pub builtins: Vec<Builtin>,
}

impl Manifests {
    /// Who runs each oracle, by name ([`Builtin::runs_in`]).
    pub fn runs_in(&self) -> BTreeMap<String, String> {
        let builtin = self.builtins.iter().map(|b| (&b.name, &b.runs_in));
        let external = self.externals.iter().map(|e| (&e.name, &e.runs_in));
        builtin
            .chain(external)
            .map(|(n, r)| (n.clone(), r.clone()))
            .collect()
    }

    /// Every reproducer, built-in and external, by oracle name; each
    /// template's text read already.
    pub fn reproducers(&self) -> BTreeMap<String, Reproducer> {
        let builtin = self.builtins.iter().map(|b| (&b.name, &b.reproducer));
        let external = self.externals.iter().map(|e| (&e.name, &e.reproducer));
        builtin
            .chain(external)
            .filter_map(|(n, r)| r.clone().map(|r| (n.clone(), r)))
            .collect()
    }
}

/// One manifest, parsed (boxed: an external one is twice a built-in's size).
enum Read {
    Builtin(Box<Builtin>),
    External(Box<External>),
}

impl Read {
    fn name(&self) -> &str {
        match self {
            Read::Builtin(b) => &b.name,
            Read::External(e) => &e.name,
        }
    }
}

/// Read every manifest of `checkout`. A malformed one, one whose name is
/// not its directory's, an external one that is also a built-in or has no
/// command, and a built-in without a manifest (or with the wrong runtime)
/// are errors naming the file (and line).
pub fn manifests(
    checkout: &Checkout,
    registry: &[crate::Entry],
) -> Result<Manifests, ManifestError> {
    let root = &checkout.root;
    let paths = checkout.manifests().map_err(|source| ManifestError::List {
        dir: root.join("oracles/harness"),
        root: root.clone(),
        source,
    })?;
    let mut builtins: Vec<Builtin> = Vec::new();
    let mut externals: Vec<External> = Vec::new();
    for path in paths {
        let read = read(&path)?;
        let dir = path
            .parent()
            .and_then(|d| d.file_name())
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        if read.name() != dir {
            let message = format!(
                "names oracle `{}` but its directory is `{dir}`",
                read.name()
            );
            return Err(ManifestError::invalid(&path, message));
        }
        match read {
            Read::Builtin(mut b) => {
                check_builtin(&b, registry).map_err(|m| ManifestError::invalid(&path, m))?;
                if let Some(r) = b.reproducer.as_mut() {
                    read_template(&path, r)?;
                }
                builtins.push(*b);
            }
            Read::External(mut o) => {
                if let Some(r) = o.reproducer.as_mut() {
                    read_template(&path, r)?;
                }
                check_external(&o, registry).map_err(|m| ManifestError::invalid(&path, m))?;
                externals.push(*o);
            }
        }
    }
    if let Some(e) = registry
        .iter()
        .find(|e| !builtins.iter().any(|b| b.name == e.name))
    {
        let path = root
            .join("oracles/harness")
            .join(e.name)
            .join("oracle.yaml");
        let message = format!(
            "the built-in oracle `{}` has no manifest (one directory per oracle)",
            e.name
        );
        return Err(ManifestError::invalid(&path, message));
    }
    Ok(Manifests {
        externals,
        builtins,
    })
}

/// An external oracle is not a built-in too, and has a command. (String:
/// the message alone; the caller adds the file as [`ManifestError::Invalid`].)
fn check_external(o: &External, registry: &[crate::Entry]) -> Result<(), String> {
    if registry.iter().any(|e| e.name == o.name) {
        Err(format!(
            "oracle `{}` is also a built-in (a built-in's manifest says `builtin:`)",
            o.name
        ))
    } else if o.command.is_empty() {
        Err(format!("oracle `{}` has an empty command", o.name))
    } else {
        Ok(())
    }
}

/// Read a manifest's reproducer template (its placeholders are the
/// product's to check).
fn read_template(manifest: &Path, r: &mut Reproducer) -> Result<(), ManifestError> {
    let path = manifest.with_file_name(&r.template);
    r.source =
        std::fs::read_to_string(&path).map_err(|source| ManifestError::Read { path, source })?;
    Ok(())
}

/// A built-in's manifest names an adapter of this build, with its runtime.
/// (String: the message alone, as [`check_external`]'s.)
fn check_builtin(b: &Builtin, registry: &[crate::Entry]) -> Result<(), String> {
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

/// One manifest, read and parsed once: a `builtin:` key makes it a
/// built-in's. A malformed one is an error with its file and line.
fn read(path: &Path) -> Result<Read, ManifestError> {
    let text = std::fs::read_to_string(path).map_err(|source| ManifestError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    let doc: serde_yaml::Value = serde_yaml::from_str(&text).map_err(|e| located(path, &e))?;
    let builtin = doc.get("builtin").is_some();
    let typed = if builtin {
        serde_yaml::from_value(doc).map(|b| Read::Builtin(Box::new(b)))
    } else {
        serde_yaml::from_value(doc).map(|e| Read::External(Box::new(e)))
    };
    // A value carries no line numbers: only on failure is the text parsed
    // again as its kind, for the error with its line.
    typed.map_err(|e| {
        let again = if builtin {
            serde_yaml::from_str::<Builtin>(&text).err()
        } else {
            serde_yaml::from_str::<External>(&text).err()
        };
        located(path, &again.unwrap_or(e))
    })
}

/// A YAML error with its file and, where known, its line.
fn located(path: &Path, e: &serde_yaml::Error) -> ManifestError {
    ManifestError::Invalid {
        path: path.to_path_buf(),
        line: e.location().map(|l| l.line()),
        message: e.to_string(),
    }
}

/// Why the checkout's oracles could not be read: the library says what
/// failed and where; the binary decides what it costs (its exit status).
#[derive(Debug, thiserror::Error)]
pub enum ManifestError {
    /// The folder of manifests cannot be listed: most likely `root` is not
    /// a repdiff checkout.
    #[error("{}: cannot list the oracles: {source} (is {} a repdiff checkout? see --root)", dir.display(), root.display())]
    List {
        dir: PathBuf,
        root: PathBuf,
        source: std::io::Error,
    },
    /// A manifest, or the reproducer template it names, cannot be read.
    #[error("{}: {source}", path.display())]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    /// A manifest that is malformed or says something this build cannot
    /// honour: its file, the line where the YAML parser knows it, and what.
    #[error("{}{}: {message}", path.display(), line.map_or(String::new(), |l| format!(":{l}")))]
    Invalid {
        path: PathBuf,
        line: Option<usize>,
        message: String,
    },
}

impl ManifestError {
    fn invalid(path: &Path, message: String) -> ManifestError {
        ManifestError::Invalid {
            path: path.to_path_buf(),
            line: None,
            message,
        }
    }
}
