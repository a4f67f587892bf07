//! The published report as a static site, rendered from a run's
//! `compat.json` (plus the ledger and the version history): an index with the
//! oracle x tag and oracle x RFC-section matrices, one page per oracle and
//! per case, the ledger, the versions page, and shields.io badge endpoints.
//!
//! Self-contained: inline CSS, no script, no external resource, relative
//! links only, so it works from `file://`. Every string from the corpus or an
//! oracle is HTML-escaped. Written into a temporary directory and swapped in,
//! so a failed render leaves the previous site whole.
//!
//! Like the engine it names no oracle: what an oracle is and how
//! it was obtained come from each oracle's own announcement in the run.

pub mod diff;
pub mod html;
mod pages;

use crate::compat::Report;
use crate::history;
use crate::score::Score;
use engine::ledger::Ledger;
pub use pages::summary_markdown;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// What a site is rendered from.
pub struct Inputs<'a> {
    pub report: &'a Report,
    pub ledger: &'a Ledger,
    /// Earlier runs (`reports/history.jsonl`); the report's own records are
    /// added in memory.
    pub history: &'a [history::Record],
    /// The published census, if any (its page says how to make one).
    pub census: Option<&'a ::census::Census>,
    /// The published adoption and AI-crawler censuses, if any: the census
    /// page leads with them.
    pub ai_era: AiEra<'a>,
    /// The published suites scoreboard, if any.
    pub suites: Option<&'a crate::suites::SuitesReport>,
    /// Per case whose body has a `Content-Usage` rule, the usage
    /// preference the aipref draft gives each query (the case pages show
    /// it beside the verdicts).
    pub usage: &'a BTreeMap<String, CaseUsage>,
    /// The write-ups of kind `slow` (`slow:` in cases/findings.yaml): they
    /// have no ledger entry, so the findings page lists them apart.
    pub slow: &'a [SlowFinding],
}

/// The usage preference a draft gives each query of one case: the RFC 9309
/// reference's second stage (`oracles::profiles::aipref`), computed by
/// the caller, who holds the reference.
#[derive(Debug, Clone, Default)]
pub struct CaseUsage {
    /// The draft that defines the answer.
    pub draft: String,
    /// By query index; `None` for a query that is not a can_fetch.
    pub answers: Vec<Option<String>>,
}

/// The AI era's two censuses (`census adoption`, `census ai-crawlers`).
#[derive(Default, Clone, Copy)]
pub struct AiEra<'a> {
    pub adoption: Option<&'a ::census::adoption::Adoption>,
    pub ai_crawlers: Option<&'a ::census::ai_crawlers::AiCrawlers>,
}

/// One slow input written up by `repdiff findings`: what the findings
/// page needs of its `slow:` entry in cases/findings.yaml.
#[derive(Debug, Clone, serde::Deserialize)]
pub struct SlowFinding {
    pub id: String,
    pub title: String,
    pub oracle: String,
}

/// Every file of the site: relative path and bytes.
pub fn render(inp: &Inputs<'_>) -> Vec<(String, Vec<u8>)> {
    let cx = pages::Ctx::new(inp);
    let mut files: Vec<(String, Vec<u8>)> = vec![
        ("index.html".into(), pages::index(&cx).into_bytes()),
        ("cases.html".into(), pages::cases(&cx).into_bytes()),
        ("ledger.html".into(), pages::ledger(&cx).into_bytes()),
        ("history.html".into(), pages::history_page(&cx).into_bytes()),
        ("census.html".into(), pages::census_page(&cx).into_bytes()),
        ("suites.html".into(), pages::suites_page(&cx).into_bytes()),
        (
            "findings.html".into(),
            pages::findings_page(&cx).into_bytes(),
        ),
    ];
    for o in &inp.report.oracles {
        files.push((
            format!("oracles/{}.html", html::slug(&o.name)),
            pages::oracle(&cx, &o.name).into_bytes(),
        ));
        files.push((
            format!("badges/{}.json", html::slug(&o.name)),
            badge(&cx.cards.get(&o.name).cloned().unwrap_or_default().all).into_bytes(),
        ));
    }
    files.push((
        "badges/untriaged.json".into(),
        untriaged_badge(inp.report.untriaged().count()).into_bytes(),
    ));
    files.push((
        "summary.md".into(),
        summary_markdown(inp.report).into_bytes(),
    ));
    for c in &inp.report.cases {
        files.push((
            format!("cases/{}.html", html::slug(&c.id)),
            pages::case(&cx, c).into_bytes(),
        ));
    }
    files
}

/// Replace the text between `<!-- BEGIN -->` and `<!-- END -->` markers
/// (the markers stay); `None` when the markers are not both there.
pub fn splice(doc: &str, begin: &str, end: &str, body: &str) -> Option<String> {
    let b = doc.find(begin)? + begin.len();
    let e = b + doc[b..].find(end)?;
    Some(format!("{}\n{}\n{}", &doc[..b], body.trim_end(), &doc[e..]))
}

/// A shields.io endpoint badge: `{"schemaVersion":1,"label":"RFC 9309","message":"96.8%","color":...}`.
pub fn badge(t: &Score) -> String {
    let (message, color) = match t.share() {
        None => ("n/a".to_string(), "lightgrey"),
        Some(p) => (
            pages::pct(Some(p)),
            if p >= 99.0 {
                "brightgreen"
            } else if p >= 95.0 {
                "green"
            } else if p >= 90.0 {
                "yellowgreen"
            } else if p >= 80.0 {
                "yellow"
            } else if p >= 70.0 {
                "orange"
            } else {
                "red"
            },
        ),
    };
    serde_json::json!({
        "schemaVersion": 1,
        "label": "RFC 9309",
        "message": message,
        "color": color,
    })
    .to_string()
}

fn untriaged_badge(n: usize) -> String {
    serde_json::json!({
        "schemaVersion": 1,
        "label": "untriaged divergences",
        "message": n.to_string(),
        "color": if n == 0 { "brightgreen" } else { "red" },
    })
    .to_string()
}

/// `YYYY-MM-DD HH:MM UTC` from a Unix time.
pub fn utc(ts: u64) -> String {
    engine::calendar::utc_minutes(i64::try_from(ts).unwrap_or(i64::MAX))
}

/// A site written next to its destination, not yet visible there: one
/// directory of an [`engine::output::Switch`], so `report --publish` can
/// swap it in together with the snapshot, the history and the results page (a
/// signal or a failure leaves all of them as they were).
pub struct Staged {
    switch: engine::output::Switch,
    tmp: PathBuf,
}

/// Write every file into a fresh temporary directory beside `dest`.
pub fn stage(dest: &Path, files: &[(String, Vec<u8>)]) -> std::io::Result<Staged> {
    if let Some((rel, _)) = files.iter().find(|(rel, _)| {
        rel.split('/')
            .any(|p| p.is_empty() || p == ".." || p == ".")
    }) {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!("refusing to write outside the site: {rel:?}"),
        ));
    }
    let mut switch = engine::output::Switch::new();
    let tmp = switch.dir(dest)?;
    for (rel, bytes) in files {
        // A signal stops the staging here, so the directory it removes is
        // not refilled behind it.
        engine::output::checkpoint();
        let path = tmp.join(rel);
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        std::fs::write(&path, bytes)?;
    }
    Ok(Staged { switch, tmp })
}

impl Staged {
    /// The temporary directory, for steps that add files (a screenshot).
    pub fn path(&self) -> &Path {
        &self.tmp
    }

    /// Swap the staged site in: the old one is moved aside, the new one
    /// renamed into place, the old one removed.
    pub fn commit(self) -> std::io::Result<()> {
        self.switch.commit()
    }

    /// The switch holding the staged site, for more outputs to join it.
    pub fn into_switch(self) -> engine::output::Switch {
        self.switch
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splices_between_markers() {
        let doc = "a\n<!-- b -->\nold\n<!-- e -->\nz\n";
        assert_eq!(
            splice(doc, "<!-- b -->", "<!-- e -->", "new\n").unwrap(),
            "a\n<!-- b -->\nnew\n<!-- e -->\nz\n"
        );
        assert!(splice("no markers", "<!-- b -->", "<!-- e -->", "x").is_none());
    }

    #[test]
    fn dates() {
        assert_eq!(utc(0), "1970-01-01 00:00 UTC");
        assert_eq!(utc(951_782_400), "2000-02-29 00:00 UTC");
        assert_eq!(utc(1_764_446_000), "2025-11-29 19:53 UTC");
    }

    #[test]
    fn badge_is_a_shields_endpoint() {
        let t = Score {
            matched: 87,
            deviated: 13,
            ..Default::default()
        };
        let v: serde_json::Value = serde_json::from_str(&badge(&t)).unwrap();
        assert_eq!(v["schemaVersion"], 1);
        assert_eq!(v["label"], "RFC 9309");
        assert_eq!(v["message"], "87.0%");
        assert_eq!(v["color"], "yellow");
    }

    #[test]
    fn a_failed_stage_leaves_the_old_site() {
        let root = std::env::temp_dir().join(format!("repdiff-site-unit-{}", std::process::id()));
        let dest = root.join("site");
        std::fs::create_dir_all(&dest).unwrap();
        std::fs::write(dest.join("index.html"), "old").unwrap();
        let bad = vec![
            ("index.html".to_string(), b"new".to_vec()),
            ("../escape.html".to_string(), b"x".to_vec()),
        ];
        assert!(stage(&dest, &bad).is_err());
        assert_eq!(
            std::fs::read_to_string(dest.join("index.html")).unwrap(),
            "old"
        );
        let good = vec![("index.html".to_string(), b"new".to_vec())];
        stage(&dest, &good).unwrap().commit().unwrap();
        assert_eq!(
            std::fs::read_to_string(dest.join("index.html")).unwrap(),
            "new"
        );
        let leftovers: Vec<_> = std::fs::read_dir(&root).unwrap().collect();
        assert_eq!(leftovers.len(), 1, "{leftovers:?}");
        let _ = std::fs::remove_dir_all(&root);
    }
}
