//! One way to speak (issue 50): the libraries never print. What a crate
//! says about its work (progress, notes, warnings, errors) goes through
//! the `log` facade, so the binary's logger and its `-q`/`-v` govern all
//! of it; what a command was asked for (a report, a table, a list) is
//! printed, but only from an output module, so a grep tells output from
//! chatter.
//!
//! [`find`] reads every `.rs` file under [`SCANNED`] with `syn` and names
//! each `println!`, `eprintln!`, `print!` and `eprint!` (nested in another
//! macro's arguments too) outside the files of [`OUTPUT`] and [`PENDING`],
//! each of which lists the macros it may use. Test code is not the
//! library: an item under `#[cfg(test)]` or `#[test]`, and a module file
//! such an item declares (`#[cfg(test)] mod tests;`), are not read.
//! Not read at all: the oracles' harness binaries (`oracles/harness/`,
//! worker programs whose stdout is the protocol), the libFuzzer targets
//! (`fuzz/`, whose logger is fuzzcore's `stderr_log.rs`), build scripts,
//! and `tests/` folders. A listed file that no longer uses a macro it
//! lists fails too, so the lists stay true and [`PENDING`] only shrinks.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use syn::visit::Visit;

/// The macros that write to stdout or stderr.
const PRINTS: &[&str] = &["println", "eprintln", "print", "eprint"];

/// The folders read, from the workspace root: every library crate's
/// sources, the product's and xtask's.
pub const SCANNED: &[&str] = &[
    "engine/src",
    "oracles/src",
    "cause/src",
    "census/src",
    "report/src",
    "fuzzcore/src",
    "repdiff/src",
    "xtask/src",
];

/// A file allowed to print: its path from the root, the macros it may
/// use, and why.
pub type Allowed = (&'static str, &'static [&'static str], &'static str);

/// The output modules and the loggers: the files whose job is to print.
pub const OUTPUT: &[Allowed] = &[
    (
        "xtask/src/output.rs",
        &["println", "print"],
        "xtask's output module: what a command was asked for, on stdout",
    ),
    (
        "repdiff/src/output.rs",
        // No macro: it writes to a locked stdout itself, so a closed pipe
        // (`repdiff check … | head -1`) ends the process quietly where
        // `println!` would panic.
        &[],
        "the `repdiff` binary's output module: what a command was asked for, on stdout",
    ),
    (
        "repdiff/src/logging.rs",
        &["eprintln"],
        "the product's logger (xtask's too): the `log` facade's lines on stderr",
    ),
    (
        "fuzzcore/src/stderr_log.rs",
        &["eprintln"],
        "the libFuzzer targets' logger: the `log` facade's lines on stderr",
    ),
];

/// Prints of the product not yet where they belong: none left (the list
/// may only shrink; issue 50's "one way to speak" is done when it is
/// empty). An entry names a file, the macros it still uses and what they
/// print; the check fails on an entry that no longer prints.
pub const PENDING: &[Allowed] = &[];

/// Every print outside the allowed files under `dirs` of `root`, and
/// every allowed macro no longer used, as one line each (sorted).
pub fn find(root: &Path, dirs: &[&str], allowed: &[Allowed]) -> Result<Vec<String>, String> {
    let mut files = Vec::new();
    for dir in dirs {
        collect(&root.join(dir), &mut files)?;
    }
    files.sort();
    let mut parsed = Vec::new();
    let mut test_modules = BTreeSet::new();
    for path in files {
        let text =
            std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        let file = syn::parse_file(&text).map_err(|e| format!("{}: {e}", path.display()))?;
        let mut finder = Finder::default();
        finder.visit_file(&file);
        for name in &finder.test_modules {
            test_modules.extend(module_files(&path, name));
        }
        parsed.push((path, finder.found));
    }
    let mut used = BTreeSet::new();
    let mut out = Vec::new();
    for (path, found) in parsed {
        if test_modules.iter().any(|t| path.starts_with(t)) {
            continue;
        }
        let rel = path.strip_prefix(root).unwrap_or(&path);
        let rel = rel.to_string_lossy().replace('\\', "/");
        let listed = allowed.iter().find(|(p, _, _)| *p == rel);
        for (mac, at) in found {
            if listed.is_some_and(|(_, macros, _)| macros.contains(&mac.as_str())) {
                used.insert((rel.clone(), mac));
                continue;
            }
            out.push(format!(
                "{rel}: `{mac}!` in {at}: a library never prints; say it through `log` \
                 (or print a command's output from an output module, listed in prints::OUTPUT)"
            ));
        }
    }
    for (path, macros, _) in allowed {
        for mac in *macros {
            if !used.contains(&(path.to_string(), mac.to_string())) {
                out.push(format!(
                    "{path}: listed for `{mac}!` but uses none (take it out of the list)"
                ));
            }
        }
    }
    out.sort();
    Ok(out)
}

/// Every `.rs` file under `dir`.
fn collect(dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), String> {
    let list = std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    for entry in list.flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect(&path, out)?;
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
    Ok(())
}

/// Where the module `name` declared without a body in `file` lives: its
/// file and its folder (the folder holds its own children).
fn module_files(file: &Path, name: &str) -> Vec<PathBuf> {
    let dir = file.parent().unwrap_or(Path::new("."));
    let stem = file.file_stem().and_then(|s| s.to_str()).unwrap_or("");
    let base = match stem {
        "mod" | "lib" | "main" => dir.to_path_buf(),
        _ => dir.join(stem),
    };
    vec![base.join(format!("{name}.rs")), base.join(name)]
}

/// Is an item test code (`#[test]`, `#[cfg(test)]`, `#[cfg(all(test, …))]`)?
fn is_test(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| {
        if a.path().is_ident("test") {
            return true;
        }
        match &a.meta {
            syn::Meta::List(l) if l.path.is_ident("cfg") => {
                let t = l.tokens.to_string();
                !t.contains("not") && t.split(|c: char| !c.is_alphanumeric()).any(|w| w == "test")
            }
            _ => false,
        }
    })
}

/// The prints of one file (outside test code), with the function each is
/// in, and the test modules it declares in other files.
#[derive(Default)]
struct Finder {
    /// The modules and functions the code being read is in.
    at: Vec<String>,
    found: Vec<(String, String)>,
    test_modules: Vec<String>,
}

impl Finder {
    fn here(&self) -> String {
        if self.at.is_empty() {
            "the file's top level".into()
        } else {
            self.at.join("::")
        }
    }

    /// Prints among a macro's arguments (not parsed by syn).
    fn tokens(&mut self, tokens: proc_macro2::TokenStream) {
        let mut last: Option<String> = None;
        for tree in tokens {
            match tree {
                proc_macro2::TokenTree::Group(g) => {
                    self.tokens(g.stream());
                    last = None;
                }
                proc_macro2::TokenTree::Ident(i) => last = Some(i.to_string()),
                proc_macro2::TokenTree::Punct(p) if p.as_char() == '!' => {
                    if let Some(name) = last.take().filter(|n| PRINTS.contains(&n.as_str())) {
                        self.found.push((name, self.here()));
                    }
                }
                _ => last = None,
            }
        }
    }
}

impl<'a> Visit<'a> for Finder {
    fn visit_item_mod(&mut self, m: &'a syn::ItemMod) {
        if is_test(&m.attrs) {
            if m.content.is_none() {
                self.test_modules.push(m.ident.to_string());
            }
            return;
        }
        self.at.push(m.ident.to_string());
        syn::visit::visit_item_mod(self, m);
        self.at.pop();
    }

    fn visit_item_fn(&mut self, f: &'a syn::ItemFn) {
        if is_test(&f.attrs) {
            return;
        }
        self.at.push(f.sig.ident.to_string());
        syn::visit::visit_item_fn(self, f);
        self.at.pop();
    }

    fn visit_impl_item_fn(&mut self, f: &'a syn::ImplItemFn) {
        if is_test(&f.attrs) {
            return;
        }
        self.at.push(f.sig.ident.to_string());
        syn::visit::visit_impl_item_fn(self, f);
        self.at.pop();
    }

    fn visit_item_impl(&mut self, i: &'a syn::ItemImpl) {
        if !is_test(&i.attrs) {
            syn::visit::visit_item_impl(self, i);
        }
    }

    fn visit_macro(&mut self, m: &'a syn::Macro) {
        if let Some(last) = m.path.segments.last() {
            let name = last.ident.to_string();
            if PRINTS.contains(&name.as_str()) {
                self.found.push((name, self.here()));
            }
        }
        self.tokens(m.tokens.clone());
        syn::visit::visit_macro(self, m);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_print_outside_the_output_modules() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let allowed: Vec<Allowed> = OUTPUT.iter().chain(PENDING).copied().collect();
        let found = find(&root, SCANNED, &allowed).expect("every source file parses");
        assert_eq!(
            found,
            Vec::<String>::new(),
            "a print outside the output modules, or a listed one gone"
        );
    }

    /// A crate in a temporary folder: `files` as (path under src/, text).
    fn planted(name: &str, files: &[(&str, &str)]) -> PathBuf {
        let root = std::env::temp_dir().join(format!("prints-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        for (path, text) in files {
            let path = root.join("lib/src").join(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        root
    }

    #[test]
    fn a_planted_print_is_found_and_test_code_and_output_modules_are_not() {
        let root = planted(
            "planted",
            &[
                (
                    "lib.rs",
                    "mod out;\n#[cfg(test)]\nmod tests;\n\
                     /// `println!` in a comment is no print.\n\
                     pub fn f() { let s = \"eprintln!(x)\"; log::info!(\"{s}\"); eprintln!(\"chatter\"); }\n\
                     fn g() -> String { format!(\"{}\", { print!(\"nested\"); 1 }) }\n\
                     #[cfg(test)]\nmod inline { #[test] fn t() { println!(\"a test may\"); } }\n",
                ),
                ("out.rs", "pub fn line(s: &str) { println!(\"{s}\"); }\n"),
                ("tests.rs", "fn t() { eprintln!(\"a test module may\"); }\n"),
            ],
        );
        let allowed: &[Allowed] = &[("lib/src/out.rs", &["println"], "the output module")];
        let found = find(&root, &["lib/src"], allowed).unwrap();
        assert_eq!(found.len(), 2, "{found:#?}");
        assert!(
            found[0].starts_with("lib/src/lib.rs: `eprintln!` in f:"),
            "{found:#?}"
        );
        assert!(
            found[1].starts_with("lib/src/lib.rs: `print!` in g:"),
            "{found:#?}"
        );
        let _ = std::fs::remove_dir_all(&root);
    }

    #[test]
    fn an_output_module_may_not_use_a_macro_it_does_not_list_and_a_stale_entry_fails() {
        let root = planted(
            "stale",
            &[("out.rs", "pub fn line(s: &str) { eprintln!(\"{s}\"); }\n")],
        );
        let allowed: &[Allowed] = &[("lib/src/out.rs", &["println"], "the output module")];
        let found = find(&root, &["lib/src"], allowed).unwrap();
        assert_eq!(found.len(), 2, "{found:#?}");
        assert!(
            found[0].starts_with("lib/src/out.rs: `eprintln!` in line:"),
            "{found:#?}"
        );
        assert!(
            found[1].contains("listed for `println!` but uses none"),
            "{found:#?}"
        );
        let _ = std::fs::remove_dir_all(&root);
    }
}
