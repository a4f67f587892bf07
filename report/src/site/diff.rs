//! `report diff OLD NEW`: what changed between two runs — every cell whose
//! answer, status or triage changed, the divergences that appeared or went
//! away (ledger entries and untriaged cells), oracle versions, the corpus and
//! the scores — as text for a terminal and as markdown for a CI summary.

use crate::compat::{CellRec, Report, Status};
use crate::score::{cards, Score};
use engine::oracle::Identity;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

/// What one cell was in one run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CellView {
    pub label: String,
    pub status: Status,
    pub triaged_by: Option<String>,
    pub expected: String,
}

impl CellView {
    fn of(cell: &CellRec, report: &Report) -> CellView {
        CellView {
            label: cell.label(),
            status: cell.status,
            triaged_by: cell.triaged_by.clone(),
            expected: report
                .case(&cell.case)
                .and_then(|c| c.queries.get(cell.query))
                .map(|q| q.expect.to_string())
                .unwrap_or_default(),
        }
    }

    fn triage(&self) -> String {
        match (&self.triaged_by, self.status.needs_triage()) {
            (Some(e), _) => e.clone(),
            (None, true) => "UNTRIAGED".into(),
            (None, false) => "-".into(),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Kind {
    /// The oracle's answer changed.
    Flipped,
    /// Same answer, another status (the expectation changed).
    Status,
    /// Same answer and status, another ledger entry (or none).
    Triage,
    /// The cell exists only in the new run (a new case or query).
    Added,
    /// The cell exists only in the old run.
    Removed,
}

impl Kind {
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Flipped => "flipped",
            Kind::Status => "status",
            Kind::Triage => "triage",
            Kind::Added => "added",
            Kind::Removed => "removed",
        }
    }
    fn heading(self) -> &'static str {
        match self {
            Kind::Flipped => "verdict flipped",
            Kind::Status => "status changed (same answer, expectation changed)",
            Kind::Triage => "triage changed (same answer and status)",
            Kind::Added => "new cells (new case or query)",
            Kind::Removed => "cells gone (case or query removed)",
        }
    }
}

#[derive(Debug, Clone)]
pub struct CellChange {
    pub case: String,
    /// 0-based.
    pub query: usize,
    pub oracle: String,
    pub kind: Kind,
    pub old: Option<CellView>,
    pub new: Option<CellView>,
}

impl CellChange {
    /// The query that changed (written `case#N`, 1-based).
    pub fn query_ref(&self) -> engine::query_ref::QueryRef {
        engine::query_ref::QueryRef::one(&self.case, self.query)
    }

    fn describe(&self) -> String {
        let side = |v: &CellView| format!("{} ({}, {})", v.label, v.status.as_str(), v.triage());
        let expect = |v: &CellView| v.expected.clone();
        match (&self.old, &self.new) {
            (Some(o), Some(n)) => {
                let exp = if o.expected == n.expected {
                    format!("expected {}", o.expected)
                } else {
                    format!("expected {} -> {}", o.expected, n.expected)
                };
                format!("{} -> {}; {exp}", side(o), side(n))
            }
            (None, Some(n)) => format!("new: {}; expected {}", side(n), expect(n)),
            (Some(o), None) => format!("gone: was {}; expected {}", side(o), expect(o)),
            (None, None) => String::new(),
        }
    }
}

#[derive(Debug, Clone, Default)]
pub struct Diff {
    pub old_corpus: String,
    pub new_corpus: String,
    pub old_when: u64,
    pub new_when: u64,
    pub cases_added: Vec<String>,
    pub cases_removed: Vec<String>,
    pub queries: (usize, usize),
    pub oracles_added: Vec<(String, String)>,
    pub oracles_removed: Vec<(String, String)>,
    /// name, old version, new version.
    pub versions_changed: Vec<(String, String, String)>,
    pub cells: Vec<CellChange>,
    /// Cells of added or removed oracles, not listed one by one.
    pub oracle_cells: BTreeMap<String, usize>,
    /// Ledger entry -> (cells explained before, after), for entries whose set changed.
    pub entries: BTreeMap<String, (usize, usize)>,
    pub untriaged_new: Vec<String>,
    pub untriaged_gone: Vec<String>,
    /// Cells that needed explaining and now match, and the reverse.
    pub divergences_fixed: Vec<String>,
    pub divergences_new: Vec<String>,
    pub stale_new: Vec<String>,
    pub stale_gone: Vec<String>,
    /// oracle -> (old percent, new percent) where it changed.
    pub scores: BTreeMap<String, (Option<f64>, Option<f64>)>,
}

pub fn diff(old: &Report, new: &Report) -> Diff {
    let mut d = Diff {
        old_corpus: old.corpus_hash.clone(),
        new_corpus: new.corpus_hash.clone(),
        old_when: old.generated_unix,
        new_when: new.generated_unix,
        queries: (old.queries(), new.queries()),
        ..Diff::default()
    };
    d.cases_added = added(&case_ids(old), &case_ids(new));
    d.cases_removed = added(&case_ids(new), &case_ids(old));
    oracles(&mut d, old, new);
    cells(&mut d, old, new);
    entries(&mut d, old, new);
    let so: BTreeSet<&String> = old.stale.iter().collect();
    let sn: BTreeSet<&String> = new.stale.iter().collect();
    d.stale_new = sn.difference(&so).map(|s| s.to_string()).collect();
    d.stale_gone = so.difference(&sn).map(|s| s.to_string()).collect();

    let (co, cn) = (cards(old), cards(new));
    for (name, card) in &cn {
        if let Some(oc) = co.get(name) {
            let (a, b) = (oc.all.share(), card.all.share());
            let counts = |t: &Score| (t.matched, t.deviated, t.failed, t.split, t.unsupported);
            if counts(&oc.all) != counts(&card.all) {
                d.scores.insert(name.clone(), (a, b));
            }
        }
    }
    d
}

fn case_ids(r: &Report) -> BTreeSet<&str> {
    r.cases.iter().map(|c| c.id.as_str()).collect()
}

/// What `b` has that `a` has not.
fn added(a: &BTreeSet<&str>, b: &BTreeSet<&str>) -> Vec<String> {
    b.difference(a).map(|s| s.to_string()).collect()
}

/// Oracles added, removed, or at another version.
fn oracles(d: &mut Diff, old: &Report, new: &Report) {
    let old_oracles: BTreeMap<&str, &Identity> = old
        .oracles
        .iter()
        .map(|o| (o.name.as_str(), &o.identity))
        .collect();
    let new_oracles: BTreeMap<&str, &Identity> = new
        .oracles
        .iter()
        .map(|o| (o.name.as_str(), &o.identity))
        .collect();
    for (name, v) in &new_oracles {
        match old_oracles.get(name) {
            None => d.oracles_added.push((name.to_string(), v.to_string())),
            Some(ov) if ov != v => {
                d.versions_changed
                    .push((name.to_string(), ov.to_string(), v.to_string()))
            }
            _ => {}
        }
    }
    for (name, v) in &old_oracles {
        if !new_oracles.contains_key(name) {
            d.oracles_removed.push((name.to_string(), v.to_string()));
        }
    }
}

/// Every cell whose answer, status or triage changed, and what that did to
/// the divergences.
fn cells(d: &mut Diff, old: &Report, new: &Report) {
    let om = old.cell_map();
    let nm = new.cell_map();
    let keys: BTreeSet<&(String, usize, String)> = om.keys().chain(nm.keys()).collect();
    for key in keys {
        let (case, query, oracle) = key;
        let in_both_runs = old.oracle(oracle).is_some() && new.oracle(oracle).is_some();
        let o = om.get(key).map(|c| CellView::of(c, old));
        let n = nm.get(key).map(|c| CellView::of(c, new));
        let kind = match (&o, &n) {
            (None, Some(_)) => Kind::Added,
            (Some(_), None) => Kind::Removed,
            (Some(a), Some(b)) if a.label != b.label => Kind::Flipped,
            (Some(a), Some(b)) if a.status != b.status => Kind::Status,
            (Some(a), Some(b)) if a.triaged_by != b.triaged_by => Kind::Triage,
            _ => continue,
        };
        if !in_both_runs {
            *d.oracle_cells.entry(oracle.clone()).or_default() += 1;
            continue;
        }
        divergence_moves(
            d,
            &format!(
                "{} {}",
                engine::query_ref::QueryRef::one(case, *query),
                oracle
            ),
            o.as_ref(),
            n.as_ref(),
        );
        d.cells.push(CellChange {
            case: case.clone(),
            query: *query,
            oracle: oracle.clone(),
            kind,
            old: o,
            new: n,
        });
    }
    d.cells.sort_by(|a, b| {
        (a.kind, &a.case, a.query, &a.oracle).cmp(&(b.kind, &b.case, b.query, &b.oracle))
    });
}

/// The lists a cell `r` moves between: divergences fixed or new, untriaged
/// cells new or gone.
fn divergence_moves(d: &mut Diff, r: &str, o: Option<&CellView>, n: Option<&CellView>) {
    let was_div = o.is_some_and(|v| v.status.needs_triage());
    let is_div = n.is_some_and(|v| v.status.needs_triage());
    let was_untri = o.is_some_and(|v| v.status.needs_triage() && v.triaged_by.is_none());
    let is_untri = n.is_some_and(|v| v.status.needs_triage() && v.triaged_by.is_none());
    let r = r.to_string();
    if was_div && !is_div {
        d.divergences_fixed.push(r.clone());
    }
    if is_div && !was_div {
        d.divergences_new.push(r.clone());
    }
    if is_untri && !was_untri {
        d.untriaged_new.push(r.clone());
    }
    if was_untri && !is_untri {
        d.untriaged_gone.push(r);
    }
}

/// Ledger entries whose set of explained cells changed.
fn entries(d: &mut Diff, old: &Report, new: &Report) {
    let explained = |r: &Report| -> BTreeMap<String, BTreeSet<(String, usize, String)>> {
        let mut m: BTreeMap<String, BTreeSet<(String, usize, String)>> = BTreeMap::new();
        for c in &r.cells {
            if let Some(e) = &c.triaged_by {
                m.entry(e.clone())
                    .or_default()
                    .insert((c.case.clone(), c.query, c.oracle.clone()));
            }
        }
        m
    };
    let (eo, en) = (explained(old), explained(new));
    let ids: BTreeSet<&String> = eo.keys().chain(en.keys()).collect();
    let empty = BTreeSet::new();
    for id in ids {
        let a = eo.get(id).unwrap_or(&empty);
        let b = en.get(id).unwrap_or(&empty);
        if a != b {
            d.entries.insert(id.clone(), (a.len(), b.len()));
        }
    }
}

fn pct(p: Option<f64>) -> String {
    p.map(|p| super::pages::pct(Some(p)))
        .unwrap_or_else(|| "–".into())
}

/// The first 16 characters of a hash (by characters: a hand-edited report
/// may hold anything there).
fn short(hash: &str) -> &str {
    match hash.char_indices().nth(16) {
        Some((i, _)) => &hash[..i],
        None => hash,
    }
}

impl Diff {
    /// Nothing changed at all.
    pub fn is_empty(&self) -> bool {
        self.cells.is_empty()
            && self.oracle_cells.is_empty()
            && self.versions_changed.is_empty()
            && self.oracles_added.is_empty()
            && self.oracles_removed.is_empty()
            && self.cases_added.is_empty()
            && self.cases_removed.is_empty()
            && self.old_corpus == self.new_corpus
            && self.entries.is_empty()
            && self.stale_new.is_empty()
            && self.stale_gone.is_empty()
    }

    fn kinds(&self) -> BTreeMap<Kind, Vec<&CellChange>> {
        let mut m: BTreeMap<Kind, Vec<&CellChange>> = BTreeMap::new();
        for c in &self.cells {
            m.entry(c.kind).or_default().push(c);
        }
        m
    }

    fn headline(&self) -> String {
        let k = self.kinds();
        let n = |kind| k.get(&kind).map_or(0, Vec::len);
        format!(
            "{} cell(s) changed: {} flipped, {} status, {} triage, {} new, {} gone; \
             divergences {} new, {} fixed; untriaged {} new, {} gone; {} oracle version(s) changed",
            self.cells.len(),
            n(Kind::Flipped),
            n(Kind::Status),
            n(Kind::Triage),
            n(Kind::Added),
            n(Kind::Removed),
            self.divergences_new.len(),
            self.divergences_fixed.len(),
            self.untriaged_new.len(),
            self.untriaged_gone.len(),
            self.versions_changed.len()
        )
    }

    pub fn text(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(s, "repdiff report diff");
        let _ = writeln!(
            s,
            "  old: corpus {}, {}\n  new: corpus {}, {}",
            short(&self.old_corpus),
            super::utc(self.old_when),
            short(&self.new_corpus),
            super::utc(self.new_when)
        );
        let _ = writeln!(s, "{}", self.headline());
        if self.is_empty() {
            let _ = writeln!(s, "no change");
            return s;
        }
        if self.old_corpus == self.new_corpus {
            let _ = writeln!(s, "\ncorpus: unchanged");
        } else {
            let _ = writeln!(
                s,
                "\ncorpus: changed ({} -> {} queries); cases added: {}; removed: {}",
                self.queries.0,
                self.queries.1,
                list(&self.cases_added),
                list(&self.cases_removed)
            );
        }
        self.text_oracles(&mut s);
        self.text_cells(&mut s);
        self.text_divergences(&mut s);
        if !self.scores.is_empty() {
            let _ = writeln!(s, "\nscores:");
            for (n, (a, b)) in &self.scores {
                let _ = writeln!(s, "  {n}: {} -> {}", pct(*a), pct(*b));
            }
        }
        s
    }

    fn text_oracles(&self, s: &mut String) {
        let _ = writeln!(
            s,
            "\noracle versions changed: {}",
            self.versions_changed.len()
        );
        for (n, a, b) in &self.versions_changed {
            let _ = writeln!(s, "  {n}: {a}\n  {:w$}  -> {b}", "", w = n.len());
        }
        for (n, v) in &self.oracles_added {
            let _ = writeln!(
                s,
                "  + oracle {n}: {v} ({} cells)",
                self.oracle_cells.get(n).unwrap_or(&0)
            );
        }
        for (n, v) in &self.oracles_removed {
            let _ = writeln!(
                s,
                "  - oracle {n}: {v} ({} cells)",
                self.oracle_cells.get(n).unwrap_or(&0)
            );
        }
    }

    fn text_cells(&self, s: &mut String) {
        let _ = writeln!(s, "\ncells changed: {}", self.cells.len());
        for (kind, cells) in self.kinds() {
            let _ = writeln!(s, "  {} ({}):", kind.heading(), cells.len());
            for c in cells {
                let _ = writeln!(
                    s,
                    "    [{}] {} {}: {}",
                    kind.as_str(),
                    c.query_ref(),
                    c.oracle,
                    c.describe()
                );
            }
        }
    }

    fn text_divergences(&self, s: &mut String) {
        let _ = writeln!(s, "\ndivergences:");
        let _ = writeln!(
            s,
            "  new ({}): {}",
            self.divergences_new.len(),
            list(&self.divergences_new)
        );
        let _ = writeln!(
            s,
            "  fixed ({}): {}",
            self.divergences_fixed.len(),
            list(&self.divergences_fixed)
        );
        let _ = writeln!(
            s,
            "  untriaged, new ({}): {}",
            self.untriaged_new.len(),
            list(&self.untriaged_new)
        );
        let _ = writeln!(
            s,
            "  untriaged, no longer ({}): {}",
            self.untriaged_gone.len(),
            list(&self.untriaged_gone)
        );
        let _ = writeln!(
            s,
            "  ledger entries whose cells changed ({}):",
            self.entries.len()
        );
        for (id, (a, b)) in &self.entries {
            let what = entry_move(*a, *b);
            let _ = writeln!(s, "    {id}: {a} -> {b} cells, {what}");
        }
        if !self.stale_new.is_empty() || !self.stale_gone.is_empty() {
            let _ = writeln!(
                s,
                "  stale entries, new: {}; no longer stale: {}",
                list(&self.stale_new),
                list(&self.stale_gone)
            );
        }
    }

    pub fn markdown(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(s, "## repdiff report diff\n");
        let _ = writeln!(
            s,
            "Old: corpus `{}`, {} · New: corpus `{}`, {}\n",
            short(&self.old_corpus),
            super::utc(self.old_when),
            short(&self.new_corpus),
            super::utc(self.new_when)
        );
        let _ = writeln!(s, "**{}**\n", self.headline());
        if self.is_empty() {
            let _ = writeln!(s, "No change.");
            return s;
        }
        if self.old_corpus != self.new_corpus {
            let _ = writeln!(
                s,
                "Corpus changed ({} → {} queries); cases added: {}; removed: {}\n",
                self.queries.0,
                self.queries.1,
                md_list(&self.cases_added),
                md_list(&self.cases_removed)
            );
        }
        self.md_versions(&mut s);
        self.md_cells(&mut s);
        self.md_divergences(&mut s);
        if !self.scores.is_empty() {
            let _ = writeln!(s, "\n### Scores\n\n| oracle | old | new |\n|---|---|---|");
            for (n, (a, b)) in &self.scores {
                let _ = writeln!(s, "| `{n}` | {} | {} |", pct(*a), pct(*b));
            }
        }
        s
    }

    fn md_versions(&self, s: &mut String) {
        if !self.versions_changed.is_empty()
            || !self.oracles_added.is_empty()
            || !self.oracles_removed.is_empty()
        {
            let _ = writeln!(
                s,
                "### Oracle versions\n\n| oracle | old | new |\n|---|---|---|"
            );
            for (n, a, b) in &self.versions_changed {
                let _ = writeln!(s, "| `{n}` | {} | {} |", cell(a), cell(b));
            }
            for (n, v) in &self.oracles_added {
                let _ = writeln!(s, "| `{n}` | (not run) | {} |", cell(v));
            }
            for (n, v) in &self.oracles_removed {
                let _ = writeln!(s, "| `{n}` | {} | (not run) |", cell(v));
            }
            s.push('\n');
        }
    }

    fn md_cells(&self, s: &mut String) {
        if !self.cells.is_empty() {
            let _ = writeln!(s, "### Cells changed ({})\n", self.cells.len());
            let long = self.cells.len() > 30;
            if long {
                let _ = writeln!(
                    s,
                    "<details><summary>{} cells</summary>\n",
                    self.cells.len()
                );
            }
            let _ = writeln!(
                s,
                "| change | cell | oracle | expected | old | new |\n|---|---|---|---|---|---|"
            );
            for c in &self.cells {
                md_cell_row(s, c);
            }
            if long {
                let _ = writeln!(s, "\n</details>");
            }
            s.push('\n');
        }
    }

    fn md_divergences(&self, s: &mut String) {
        let _ = writeln!(s, "### Divergences\n");
        let _ = writeln!(
            s,
            "- new ({}): {}",
            self.divergences_new.len(),
            md_list(&self.divergences_new)
        );
        let _ = writeln!(
            s,
            "- fixed ({}): {}",
            self.divergences_fixed.len(),
            md_list(&self.divergences_fixed)
        );
        let _ = writeln!(
            s,
            "- untriaged, new ({}): {}",
            self.untriaged_new.len(),
            md_list(&self.untriaged_new)
        );
        let _ = writeln!(
            s,
            "- untriaged, no longer ({}): {}",
            self.untriaged_gone.len(),
            md_list(&self.untriaged_gone)
        );
        for (id, (a, b)) in &self.entries {
            let what = entry_move(*a, *b);
            let _ = writeln!(s, "- ledger `{id}`: {a} → {b} cells, {what}");
        }
        if !self.stale_new.is_empty() || !self.stale_gone.is_empty() {
            let _ = writeln!(
                s,
                "- stale entries, new: {}; no longer stale: {}",
                md_list(&self.stale_new),
                md_list(&self.stale_gone)
            );
        }
    }
}

/// How an entry's explained cells moved, in words.
fn entry_move(before: usize, after: usize) -> &'static str {
    match (before, after) {
        (0, _) => "new (explains cells now, none before)",
        (_, 0) => "gone (explains no cell now: fixed, or the entry was removed)",
        _ => "changed",
    }
}

/// One row of the markdown table of changed cells.
fn md_cell_row(s: &mut String, c: &CellChange) {
    let side = |v: &Option<CellView>| match v {
        Some(v) => format!(
            "{} ({}, {})",
            cell(&v.label),
            v.status.as_str(),
            cell(&v.triage())
        ),
        None => "—".into(),
    };
    let exp = match (&c.old, &c.new) {
        (Some(o), Some(n)) if o.expected != n.expected => {
            format!("{} → {}", cell(&o.expected), cell(&n.expected))
        }
        (_, Some(v)) | (Some(v), None) => cell(&v.expected),
        _ => String::new(),
    };
    let _ = writeln!(
        s,
        "| {} | `{}` | `{}` | {} | {} | {} |",
        c.kind.as_str(),
        c.query_ref(),
        c.oracle,
        exp,
        side(&c.old),
        side(&c.new)
    );
}

fn list(items: &[String]) -> String {
    if items.is_empty() {
        "none".into()
    } else {
        items.join(", ")
    }
}

fn md_list(items: &[String]) -> String {
    if items.is_empty() {
        "none".into()
    } else {
        items
            .iter()
            .map(|i| format!("`{}`", i.replace('`', "'")))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// Text safe inside a markdown table cell.
fn cell(s: &str) -> String {
    s.replace('|', "\\|")
        .replace('\n', " ")
        .replace('<', "&lt;")
}
