//! `cargo xtask circles`: import circles between the modules of each
//! crate (issue 50). A module that imports one that imports it back is a
//! house with no floor: neither can be read, tested or moved without the
//! other. Sibling modules are compared: a reference from `a::x` to
//! `b::y` is an edge `a -> b` between the children of their common
//! parent, and a module's reference to its own parent or child is none (a
//! directory module and its files are one piece). Paths are read with
//! `syn` from every `use` and every path in the code (`crate::`, `super::`,
//! `self::`); a reference through a re-export counts where it points.
//! Circles still to be broken would be pinned in [`PINNED`] (none are): the
//! check fails on a new one and on a pinned one that is gone, so the list
//! only shrinks.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use syn::visit::Visit;

/// Circles not yet broken, as `crate: a, b, c` with the members sorted
/// (issue 50): none. Before the shared vocabulary left `repdiff::cli`, the
/// product's circle held 16 of its 23 top-level modules, and seven
/// smaller circles stood in `repdiff`, `report`, `fuzzcore` and `xtask`.
pub const PINNED: &[&str] = &[];

/// The crates of the workspace, by directory, with their root file.
const CRATES: &[(&str, &str)] = &[
    ("engine", "src/lib.rs"),
    ("oracles", "src/lib.rs"),
    ("cause", "src/lib.rs"),
    ("census", "src/lib.rs"),
    ("fuzzcore", "src/lib.rs"),
    ("report", "src/lib.rs"),
    ("repdiff", "src/lib.rs"),
    ("xtask", "src/main.rs"),
];

/// A module path inside its crate (`["lint", "group"]`; empty: the root).
type Module = Vec<String>;

/// Every circle of every crate, as `crate: a, b, c` (members sorted).
pub fn find(workspace: &Path) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    for (dir, root) in CRATES {
        let files = modules(&workspace.join(dir), root)?;
        for circle in circles(&edges(&files)?) {
            out.push(format!("{dir}: {}", circle.join(", ")));
        }
    }
    Ok(out)
}

/// `cargo xtask circles`: print each circle and fail on any not pinned,
/// or a pinned one that is gone.
pub fn main(workspace: &Path) -> i32 {
    let found = match find(workspace) {
        Ok(f) => f,
        Err(e) => {
            log::error!("circles: {e}");
            return 2;
        }
    };
    for c in &found {
        crate::output::line(format_args!("{c}"));
    }
    let new: Vec<&String> = found
        .iter()
        .filter(|c| !PINNED.contains(&c.as_str()))
        .collect();
    let gone: Vec<&&str> = PINNED
        .iter()
        .filter(|p| !found.iter().any(|c| c == *p))
        .collect();
    for c in &new {
        log::error!("circles: a new import circle: {c}");
    }
    for c in &gone {
        log::error!("circles: pinned but gone (take it out of circles::PINNED): {c}");
    }
    i32::from(!new.is_empty() || !gone.is_empty())
}

/// Every module file of the crate at `dir`, from its root file: the
/// module path of each.
fn modules(dir: &Path, root: &str) -> Result<BTreeMap<Module, PathBuf>, String> {
    let src = dir.join("src");
    let mut out = BTreeMap::new();
    out.insert(Vec::new(), dir.join(root));
    let mut stack = vec![(src.clone(), Vec::<String>::new())];
    while let Some((at, prefix)) = stack.pop() {
        let list = std::fs::read_dir(&at).map_err(|e| format!("{}: {e}", at.display()))?;
        for entry in list.flatten() {
            let path = entry.path();
            let name = entry.file_name().to_string_lossy().into_owned();
            if path.is_dir() {
                let mut m = prefix.clone();
                m.push(name);
                stack.push((path, m));
            } else if let Some(stem) = name.strip_suffix(".rs") {
                let mut m = prefix.clone();
                match stem {
                    "mod" => {}
                    "lib" | "main" if prefix.is_empty() => continue,
                    _ => m.push(stem.to_string()),
                }
                out.insert(m, path);
            }
        }
    }
    // Files no `mod` reaches (a directory of test data, a bin) are still
    // read: an edge from them is harmless, to them impossible.
    Ok(out)
}

/// The sibling edges `a -> b` (as full module paths) of a crate.
fn edges(files: &BTreeMap<Module, PathBuf>) -> Result<BTreeSet<(Module, Module)>, String> {
    let mut out = BTreeSet::new();
    for (module, path) in files {
        let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let file = syn::parse_file(&text).map_err(|e| format!("{}: {e}", path.display()))?;
        let mut refs = Refs {
            at: module.clone(),
            found: Vec::new(),
        };
        refs.visit_file(&file);
        for target in refs.found {
            let Some(to) = longest_module(files, &target) else {
                continue;
            };
            if let Some(edge) = sibling_edge(module, &to) {
                out.insert(edge);
            }
        }
    }
    Ok(out)
}

/// The longest prefix of `path` that is a module file of the crate.
fn longest_module(files: &BTreeMap<Module, PathBuf>, path: &[String]) -> Option<Module> {
    (0..=path.len())
        .rev()
        .map(|n| path[..n].to_vec())
        .find(|m| files.contains_key(m))
}

/// The edge between the children of `from` and `to`'s common parent that
/// hold them, or none when one holds the other.
fn sibling_edge(from: &[String], to: &[String]) -> Option<(Module, Module)> {
    let common = from.iter().zip(to).take_while(|(a, b)| a == b).count();
    if common == from.len() || common == to.len() {
        return None;
    }
    Some((from[..=common].to_vec(), to[..=common].to_vec()))
}

/// The paths a file refers to through `crate::`, `super::` and `self::`,
/// resolved to paths from the crate root.
struct Refs {
    /// The module the code being read is in (inline modules included).
    at: Module,
    found: Vec<Vec<String>>,
}

impl Refs {
    fn resolve(&mut self, segments: &[String]) {
        let mut base = self.at.clone();
        let mut rest = segments;
        match rest.first().map(String::as_str) {
            Some("crate") => {
                base.clear();
                rest = &rest[1..];
            }
            Some("super") => {
                while rest.first().map(String::as_str) == Some("super") {
                    base.pop();
                    rest = &rest[1..];
                }
            }
            Some("self") => rest = &rest[1..],
            _ => return,
        }
        base.extend(rest.iter().cloned());
        self.found.push(base);
    }

    fn use_tree(&mut self, prefix: &mut Vec<String>, tree: &syn::UseTree) {
        match tree {
            syn::UseTree::Path(p) => {
                prefix.push(p.ident.to_string());
                self.use_tree(prefix, &p.tree);
                prefix.pop();
            }
            syn::UseTree::Name(n) => {
                prefix.push(n.ident.to_string());
                self.resolve(&prefix.clone());
                prefix.pop();
            }
            syn::UseTree::Rename(r) => {
                prefix.push(r.ident.to_string());
                self.resolve(&prefix.clone());
                prefix.pop();
            }
            syn::UseTree::Glob(_) => self.resolve(&prefix.clone()),
            syn::UseTree::Group(g) => {
                for t in &g.items {
                    self.use_tree(prefix, t);
                }
            }
        }
    }
}

impl<'ast> Visit<'ast> for Refs {
    fn visit_item_use(&mut self, u: &'ast syn::ItemUse) {
        self.use_tree(&mut Vec::new(), &u.tree);
    }

    fn visit_path(&mut self, p: &'ast syn::Path) {
        let segments: Vec<String> = p.segments.iter().map(|s| s.ident.to_string()).collect();
        self.resolve(&segments);
        syn::visit::visit_path(self, p);
    }

    fn visit_item_mod(&mut self, m: &'ast syn::ItemMod) {
        if m.content.is_some() {
            self.at.push(m.ident.to_string());
            syn::visit::visit_item_mod(self, m);
            self.at.pop();
        }
    }
}

/// The strongly connected components of more than one module (Tarjan's
/// algorithm), each sorted, as `a::b` names.
fn circles(edges: &BTreeSet<(Module, Module)>) -> Vec<Vec<String>> {
    let nodes: BTreeSet<&Module> = edges.iter().flat_map(|(a, b)| [a, b]).collect();
    let index: BTreeMap<&Module, usize> = nodes.iter().enumerate().map(|(i, m)| (*m, i)).collect();
    let names: Vec<String> = nodes.iter().map(|m| m.join("::")).collect();
    let mut next: Vec<Vec<usize>> = vec![Vec::new(); nodes.len()];
    for (a, b) in edges {
        next[index[a]].push(index[b]);
    }
    let mut t = Tarjan {
        next: &next,
        index: vec![None; nodes.len()],
        low: vec![0; nodes.len()],
        on_stack: vec![false; nodes.len()],
        stack: Vec::new(),
        counter: 0,
        out: Vec::new(),
    };
    for v in 0..nodes.len() {
        if t.index[v].is_none() {
            t.connect(v);
        }
    }
    let mut out: Vec<Vec<String>> = t
        .out
        .into_iter()
        .filter(|c| c.len() > 1)
        .map(|c| {
            let mut c: Vec<String> = c.into_iter().map(|i| names[i].clone()).collect();
            c.sort();
            c
        })
        .collect();
    out.sort();
    out
}

struct Tarjan<'g> {
    next: &'g [Vec<usize>],
    index: Vec<Option<usize>>,
    low: Vec<usize>,
    on_stack: Vec<bool>,
    stack: Vec<usize>,
    counter: usize,
    out: Vec<Vec<usize>>,
}

impl Tarjan<'_> {
    fn connect(&mut self, v: usize) {
        self.index[v] = Some(self.counter);
        self.low[v] = self.counter;
        self.counter += 1;
        self.stack.push(v);
        self.on_stack[v] = true;
        for &w in &self.next[v] {
            match self.index[w] {
                None => {
                    self.connect(w);
                    self.low[v] = self.low[v].min(self.low[w]);
                }
                Some(i) if self.on_stack[w] => self.low[v] = self.low[v].min(i),
                Some(_) => {}
            }
        }
        if Some(self.low[v]) == self.index[v] {
            let mut component = Vec::new();
            while let Some(w) = self.stack.pop() {
                self.on_stack[w] = false;
                component.push(w);
                if w == v {
                    break;
                }
            }
            self.out.push(component);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(s: &str) -> Module {
        s.split("::")
            .filter(|x| !x.is_empty())
            .map(String::from)
            .collect()
    }

    #[test]
    fn the_workspace_s_circles_are_the_pinned_ones() {
        let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let found = find(&workspace).expect("every module parses");
        assert_eq!(found, PINNED, "a circle not pinned, or one pinned and gone");
    }

    #[test]
    fn a_parent_and_its_child_are_one_piece_and_cousins_meet_at_their_parents() {
        assert_eq!(sibling_edge(&m("lint"), &m("lint::group")), None);
        assert_eq!(sibling_edge(&m("lint::group"), &m("lint")), None);
        assert_eq!(
            sibling_edge(&m("lint::group"), &m("cli")),
            Some((m("lint"), m("cli")))
        );
        assert_eq!(
            sibling_edge(&m("fuzz::nightly"), &m("fuzz::report::x")),
            Some((m("fuzz::nightly"), m("fuzz::report")))
        );
    }

    #[test]
    fn a_planted_circle_is_found_and_a_line_is_not() {
        let planted: BTreeSet<(Module, Module)> = [
            (m("a"), m("b")),
            (m("b"), m("c")),
            (m("c"), m("a")),
            (m("c"), m("d")),
        ]
        .into_iter()
        .collect();
        assert_eq!(circles(&planted), vec![vec!["a", "b", "c"]]);
        let line: BTreeSet<(Module, Module)> =
            [(m("a"), m("b")), (m("b"), m("c"))].into_iter().collect();
        assert!(circles(&line).is_empty());
    }

    #[test]
    fn paths_resolve_from_the_module_they_are_in() {
        let mut r = Refs {
            at: m("lint::group"),
            found: Vec::new(),
        };
        let file: syn::File = syn::parse_str(
            "use super::{panel::Split, Question}; use crate::cli::Usage;
             fn f() { crate::select::start(); self::g(); }
             mod tests { use super::*; }",
        )
        .expect("parses");
        r.visit_file(&file);
        let found: Vec<String> = r.found.iter().map(|p| p.join("::")).collect();
        assert_eq!(
            found,
            [
                "lint::panel::Split",
                "lint::Question",
                "cli::Usage",
                "select::start",
                "lint::group::g",
                "lint::group"
            ]
        );
    }
}
