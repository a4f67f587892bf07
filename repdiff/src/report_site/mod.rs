//! `repdiff report`: the published site from a run's compat.json, and
//! `repdiff report diff OLD NEW`: what changed between two runs.

pub mod browser;

use crate::paths;
use crate::shared::Usage;
use clap::Subcommand;
use report::compat::Report;
use report::history;
use report::site::{self, diff};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

const AFTER_HELP: &str = "\
report: renders the static site (index with the oracle x tag and oracle x RFC
section matrices, one page per oracle and per case, the ledger, versions)
and a shields.io badge endpoint per oracle from FILE (default
reports/run/latest/compat.json, the last full conformance run), the ledger
(cases/divergences.yaml) and the history (reports/history.jsonl) into DIR
(default reports/run/site, ignored by git), atomically: a failed render
leaves the old site. With Debian's chromium it also saves a screenshot of
the index as DIR/screenshot.png (`repdiff setup` installs it).

--publish: the one step that changes the published snapshot. It refuses a
run in which an oracle could not start; otherwise it copies the run to
reports/latest/, appends its records to reports/history.jsonl, renders the
site into reports/site/ and rewrites reports/RESULTS.md (the run's summary
and the census headline, the page the README links to).";

// The help text is the doc comment of the `Product` variant (cli.rs).
#[derive(Debug, clap::Args)]
#[command(after_long_help = AFTER_HELP, args_conflicts_with_subcommands = true)]
pub struct Opts {
    #[command(subcommand)]
    pub diff: Option<Sub>,
    /// Copy the run to reports/latest/, append the history, render reports/site/
    /// and reports/RESULTS.md (refuses a run an oracle missed)
    #[arg(long)]
    pub publish: bool,
    /// The run's compat.json [default: reports/run/latest/compat.json]
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// Where the site goes [default: reports/run/site]
    #[arg(long, value_name = "DIR", conflicts_with = "publish")]
    pub out: Option<PathBuf>,
    /// One ledger file instead of the checkout's ledger [default:
    /// cases/divergences.yaml, cases/divergences/*.yaml and each external
    /// oracle's oracles/harness/NAME/divergences.yaml]
    #[arg(long, value_name = "FILE")]
    pub ledger: Option<PathBuf>,
    /// The history [default: reports/history.jsonl]
    #[arg(long, value_name = "FILE")]
    pub history: Option<PathBuf>,
    /// Skip the screenshot of the index
    #[arg(long)]
    pub no_screenshot: bool,
}

#[derive(Debug, Subcommand)]
pub enum Sub {
    /// What changed between two runs
    ///
    /// Every cell whose answer, status or triage changed between two
    /// compat.json files, the divergences new and fixed (ledger entries and
    /// untriaged cells), oracle versions and scores that changed. Exit status
    /// 0, 2 on unreadable input.
    Diff {
        /// The older run's compat.json
        #[arg(value_name = "OLD.json")]
        old: PathBuf,
        /// The newer run's compat.json
        #[arg(value_name = "NEW.json")]
        new: PathBuf,
        /// Markdown, for a CI summary
        #[arg(long)]
        markdown: bool,
    },
}

pub fn main(opts: Opts, program: &str) -> Result<i32, crate::error::Error> {
    if let Some(Sub::Diff { old, new, markdown }) = &opts.diff {
        return diff_main(old, new, *markdown, program);
    }
    let root = paths::root();
    let publish = opts.publish;
    let json = opts
        .json
        .clone()
        .unwrap_or_else(|| paths::run_dir().join("latest/compat.json"));
    let out = match &opts.out {
        Some(d) => d.clone(),
        None if publish => root.join("reports/site"),
        None => paths::run_dir().join("site"),
    };
    let history_path = opts
        .history
        .clone()
        .unwrap_or_else(|| root.join("reports/history.jsonl"));
    // Two publishes at once would interleave their renames.
    let _lock = match publish {
        true => Some(paths::lock_dir(&root.join("reports"))?),
        false => None,
    };
    let plan = Publish {
        from: json.parent().unwrap_or(Path::new(".")).to_path_buf(),
        latest: paths::published_dir(),
        history: history_path.clone(),
        results: root.join(RESULTS_PAGE),
    };
    let _pending = engine::output::pending(match publish {
        true => plan.describe(&out),
        false => format!("the site in {}", out.display()),
    });

    let report = load_report(&json, program)?;
    if publish {
        check_publishable(&json, &report, program)?;
    }
    let ledger = site_ledger(&report, opts.ledger.as_deref())?;
    let mut history = history::read(&history_path)?;
    let mut added = 0;
    if publish {
        (history, added) = history::merge(&history, &history::records(&report));
    }
    let census = load_census(publish)?;
    let (adoption, ai_crawlers) = load_ai_era()?;
    let suites = load_suites(publish)?;
    let slow = load_slow(&root.join("cases/findings.yaml"))?;
    let usage = usage_preferences(&report);
    let inputs = site::Inputs {
        report: &report,
        ledger: &ledger,
        history: &history,
        census: census.as_ref(),
        ai_era: site::AiEra {
            adoption: adoption.as_ref(),
            ai_crawlers: ai_crawlers.as_ref(),
        },
        suites: suites.as_ref(),
        usage: &usage,
        slow: &slow,
    };
    let Some((staged, said)) = stage_site(&inputs, &out, !opts.no_screenshot) else {
        return Ok(1);
    };
    if publish {
        let history_text = (added > 0).then(|| history::to_jsonl(&history));
        // The results page: the run's summary and the census's headline,
        // both from the snapshots the site was rendered from.
        let page = results_page(&report, census.as_ref());
        let results = changed(&plan.results, page);
        let set = plan.stage(staged, history_text, results.as_deref())?;
        set.commit()
            .map_err(|e| Usage(format!("not published (nothing was changed): {e}")))?;
        log::info!(
            "publish: {} -> {}",
            plan.from.display(),
            plan.latest.display()
        );
        log::info!(
            "publish: {added} new record(s) in {}",
            plan.history.display()
        );
        if results.is_some() {
            log::info!("report: {} updated", plan.results.display());
        }
    } else if let Err(e) = staged.commit() {
        log::error!("cannot swap the new site into {}: {e}", out.display());
        return Ok(1);
    }
    crate::out!("{said}");
    Ok(0)
}

/// Render the site and stage it beside `out` (with the screenshot); the
/// line to print once it is swapped in, or None (said why) on failure.
fn stage_site(
    inputs: &site::Inputs<'_>,
    out: &Path,
    screenshot: bool,
) -> Option<(site::Staged, String)> {
    let started = std::time::Instant::now();
    let files = site::render(inputs);
    let bytes: usize = files.iter().map(|(_, b)| b.len()).sum();
    let staged = match site::stage(out, &files) {
        Ok(s) => s,
        Err(e) => {
            log::error!("cannot write the site next to {}: {e}", out.display());
            return None;
        }
    };
    if screenshot {
        let index = staged.path().join("index.html");
        let png = staged.path().join("screenshot.png");
        match browser::screenshot(&index, &png) {
            Ok(()) => log::info!("report: screenshot of the index saved"),
            Err(e) => log::warn!("no screenshot: {e}"),
        }
    }
    let said = format!(
        "report: {} files ({} KiB) in {} ({} ms): {}",
        files.len(),
        bytes / 1024,
        out.display(),
        started.elapsed().as_millis(),
        out.join("index.html").display()
    );
    Some((staged, said))
}

/// The published results page, relative to the checkout: written whole by
/// `report --publish`, linked from the README.
pub const RESULTS_PAGE: &str = "reports/RESULTS.md";

/// reports/RESULTS.md: the published run's summary (scorecard, oracle x
/// profile and oracle x tag matrices) and, when a census is published, its
/// headline. Every byte comes from the two snapshots, so
/// `tests/it/results_page.rs` can check the committed page is current.
pub fn results_page(report: &Report, census: Option<&census::Census>) -> String {
    // The summary's links are written for a page at the checkout's root
    // (`reports/site/...`); this page sits in reports/.
    let summary = site::summary_markdown(report).replace("](reports/", "](");
    let mut page = String::from(
        "# Published results\n\n\
         <!-- Written by `repdiff report --publish` from reports/latest/compat.json and \
         reports/census/census.json; do not edit (the next publish rewrites the whole file). -->\n\n\
         The last published conformance run, scored against RFC 9309 and the other expectation \
         profiles. The [site](site/index.html) shows the same run case by case and oracle by \
         oracle; [latest/compat.md](latest/compat.md) is the full report.\n\n\
         ## The conformance run\n\n",
    );
    page.push_str(summary.trim_end());
    page.push('\n');
    if let Some(c) = census {
        page.push_str(&format!(
            "\n## Real sites: the census headline\n\n{} From the published census \
             ([census/census.md](census/census.md)); each host is one of the smallest such \
             files, with the cause the census's triage names.\n\n",
            census::render::HEADLINE_ABOUT
        ));
        page.push_str(census::render::headline_table(&c.written.summary.headline).trim_end());
        page.push('\n');
    }
    page
}

/// `text`, or None when the file at `path` already holds it (then it is
/// not staged at all).
fn changed(path: &Path, text: String) -> Option<String> {
    match std::fs::read_to_string(path) {
        Ok(old) if old == text => None,
        _ => Some(text),
    }
}

/// Where `report --publish` writes, beside the site.
///
/// Why one switch: the snapshot, the history, the site and the results
/// page describe one run, and a reader (or the next publish, which
/// appends to the history) must never see a new snapshot with the old
/// history or a results page that quotes a site not yet there. So every
/// file is staged first and all of them are renamed in together
/// ([`engine::output::Switch`]), the results page last; a failure after staging
/// puts every one back, and a signal waits for the renames to finish or
/// finds none begun.
struct Publish {
    /// The run's folder (compat.json and compat.md).
    from: PathBuf,
    /// The published snapshot, reports/latest/.
    latest: PathBuf,
    history: PathBuf,
    /// reports/RESULTS.md.
    results: PathBuf,
}

impl Publish {
    fn describe(&self, site: &Path) -> String {
        format!(
            "the published set ({}/compat.json and compat.md, {}, {}, {})",
            self.latest.display(),
            self.history.display(),
            site.display(),
            self.results.display()
        )
    }

    /// Join the snapshot, the history (when it gains records) and the
    /// results page (when it changes; staged last) to the staged site.
    fn stage(
        &self,
        site: site::Staged,
        history: Option<String>,
        results: Option<&str>,
    ) -> Result<engine::output::Switch, Usage> {
        let mut set = site.into_switch();
        let cannot =
            |p: &Path, e: std::io::Error| Usage(format!("cannot write {}: {e}", p.display()));
        for name in ["compat.json", "compat.md"] {
            let from = self.from.join(name);
            let bytes = std::fs::read(&from)
                .map_err(|e| Usage(format!("{}: cannot read: {e}", from.display())))?;
            let to = self.latest.join(name);
            set.file(&to, &bytes).map_err(|e| cannot(&to, e))?;
        }
        if let Some(text) = history {
            set.file(&self.history, text.as_bytes())
                .map_err(|e| cannot(&self.history, e))?;
        }
        if let Some(text) = results {
            set.file(&self.results, text.as_bytes())
                .map_err(|e| cannot(&self.results, e))?;
        }
        Ok(set)
    }
}

/// The first of `candidates` that exists; a published site uses only the
/// published snapshot, a plain render prefers this checkout's last run.
fn first_existing(candidates: Vec<PathBuf>) -> Option<PathBuf> {
    candidates.into_iter().find(|p| p.is_file())
}

/// The `slow:` entries of cases/findings.yaml (none when the file is
/// missing; its other keys are `repdiff findings`' business).
fn load_slow(path: &Path) -> Result<Vec<site::SlowFinding>, Usage> {
    #[derive(serde::Deserialize)]
    struct Notes {
        #[serde(default)]
        slow: Vec<site::SlowFinding>,
    }
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(Usage(format!("{}: {e}", path.display()))),
    };
    serde_yaml::from_str::<Notes>(&text)
        .map(|n| n.slow)
        .map_err(|e| Usage(format!("{}: {e}", path.display())))
}

fn load_census(publish: bool) -> Result<Option<census::Census>, crate::error::Error> {
    let published = paths::published_census_dir().join("census.json");
    let run = paths::run_dir().join("census/census.json");
    let candidates = if publish {
        vec![published]
    } else {
        vec![run, published]
    };
    first_existing(candidates)
        .map(|p| census::read_census(&p).map_err(crate::error::Error::from))
        .transpose()
}

/// The usage preference the aipref draft gives each query of every case
/// whose body has a `Content-Usage` rule, as `check` shows it.
fn usage_preferences(report: &Report) -> BTreeMap<String, site::CaseUsage> {
    use engine::oracle::Query;
    use oracles::profiles::aipref;
    let mut out = BTreeMap::new();
    for case in &report.cases {
        let queries: Vec<Query> = case
            .queries
            .iter()
            .map(|q| Query {
                ask: q.ask,
                agent: q.agent.clone(),
                url: q.url.clone(),
            })
            .collect();
        let Some(answers) = aipref::usage_preferences(&case.body(), &queries) else {
            continue;
        };
        let answers = answers
            .into_iter()
            .map(|u| u.map(|u| u.describe()))
            .collect();
        out.insert(
            case.id.clone(),
            site::CaseUsage {
                draft: aipref::DRAFT.to_string(),
                answers,
            },
        );
    }
    out
}

/// The published adoption and AI-crawler censuses, when present.
type AiEraReports = (
    Option<census::adoption::Adoption>,
    Option<census::ai_crawlers::AiCrawlers>,
);

fn load_ai_era() -> Result<AiEraReports, crate::error::Error> {
    let dir = paths::published_census_dir();
    let adoption = dir.join("adoption.json");
    let ai = dir.join("ai-crawlers.json");
    Ok((
        adoption
            .is_file()
            .then(|| census::adoption::read(&adoption).map_err(crate::error::Error::from))
            .transpose()?,
        ai.is_file()
            .then(|| census::ai_crawlers::read(&ai).map_err(crate::error::Error::from))
            .transpose()?,
    ))
}

fn load_suites(publish: bool) -> Result<Option<report::suites::SuitesReport>, crate::error::Error> {
    let published = paths::published_suites();
    let run = paths::run_dir().join("suites.json");
    let candidates = if publish {
        vec![published]
    } else {
        vec![run, published]
    };
    first_existing(candidates)
        .map(|p| report::suites::SuitesReport::read(&p).map_err(crate::error::Error::from))
        .transpose()
}

/// The ledger the site shows: the one the run was triaged against (a `/2`
/// report carries it, so no corpus is loaded), unless `--ledger` names a
/// file; a `/1` report's site reads the checkout's, checked against its corpus.
fn site_ledger(
    report: &Report,
    file: Option<&Path>,
) -> Result<engine::ledger::Ledger, crate::error::Error> {
    if file.is_none() && !report.ledger.is_empty() {
        return Ok(engine::ledger::Ledger {
            entries: report.ledger.clone(),
        });
    }
    let corpus = paths::load_corpus()?;
    let mut known = crate::select::known_names();
    known.extend(crate::chaos::NAMES.iter().map(|n| n.to_string()));
    let known: Vec<&str> = known.iter().map(String::as_str).collect();
    match file {
        Some(path) => engine::ledger::load_files(&[path.to_path_buf()], &corpus, &known)
            .map_err(crate::error::Error::ledger),
        None => paths::load_ledger(&corpus, &known),
    }
}

fn load_report(path: &Path, program: &str) -> Result<Report, crate::error::Error> {
    if !path.exists() {
        return Err(Usage(format!(
            "{}: no such file (run `{program} conformance` first)",
            path.display(),
        ))
        .into());
    }
    Ok(Report::load(path)?)
}

fn diff_main(
    old: &Path,
    new: &Path,
    markdown: bool,
    program: &str,
) -> Result<i32, crate::error::Error> {
    let old = load_report(old, program)?;
    let new = load_report(new, program)?;
    let d = diff::diff(&old, &new);
    if markdown {
        crate::output::text(&d.markdown());
    } else {
        crate::output::text(&d.text());
    }
    Ok(0)
}

/// The refusal of `report --publish`: only a whole run (every registered
/// oracle ran, none unavailable) becomes the published snapshot.
fn check_publishable(json: &Path, report: &Report, program: &str) -> Result<(), Usage> {
    if !report.unavailable.is_empty() {
        let names: Vec<&str> = report
            .unavailable
            .iter()
            .map(|u| u.oracle.as_str())
            .collect();
        return Err(Usage(format!(
            "{}: not published: {} oracle(s) could not run ({}); nothing was changed",
            json.display(),
            names.len(),
            names.join(", ")
        )));
    }
    let known = crate::select::known_names();
    let ran: Vec<&str> = report.oracles.iter().map(|o| o.name.as_str()).collect();
    let missing: Vec<&str> = known
        .iter()
        .map(String::as_str)
        .filter(|n| !ran.contains(n))
        .collect();
    if !missing.is_empty() {
        return Err(Usage(format!(
            "{}: not published: not a full run (missing {}); run `{program} conformance` without filters",
            json.display(),
            missing.join(", "),
        )));
    }
    Ok(())
}

#[cfg(test)]
mod publish_tests {
    use super::*;

    fn old_set(root: &Path) -> Publish {
        let plan = Publish {
            from: root.join("run"),
            latest: root.join("latest"),
            history: root.join("history.jsonl"),
            results: root.join("RESULTS.md"),
        };
        for (p, text) in [
            (plan.from.join("compat.json"), "new json"),
            (plan.from.join("compat.md"), "new md"),
            (plan.latest.join("compat.json"), "old json"),
            (plan.latest.join("compat.md"), "old md"),
            (plan.history.clone(), "old history\n"),
            (plan.results.clone(), "old results"),
            (root.join("site/index.html"), "old site"),
        ] {
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        }
        plan
    }

    fn read(p: &Path) -> String {
        std::fs::read_to_string(p).unwrap()
    }

    fn names(dir: &Path) -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }

    fn staged(plan: &Publish, root: &Path) -> engine::output::Switch {
        let files = vec![("index.html".to_string(), b"new site".to_vec())];
        let site = site::stage(&root.join("site"), &files).unwrap();
        plan.stage(site, Some("new history\n".into()), Some("new results"))
            .unwrap_or_else(|u| panic!("{}", u.0))
    }

    /// Everything staged, then the results page (the last rename) fails: the
    /// snapshot, the history and the site, already swapped in, go back.
    #[test]
    fn a_failure_after_staging_leaves_the_published_set() {
        let root =
            std::env::temp_dir().join(format!("repdiff-publish-unit-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        let plan = old_set(&root);
        let set = staged(&plan, &root);
        let results_staged = root.join(format!(".RESULTS.md.{}.tmp", std::process::id()));
        std::fs::remove_file(&results_staged).expect("the results page is staged beside it");
        assert!(set.commit().is_err());
        assert_eq!(read(&plan.latest.join("compat.json")), "old json");
        assert_eq!(read(&plan.latest.join("compat.md")), "old md");
        assert_eq!(read(&plan.history), "old history\n");
        assert_eq!(read(&plan.results), "old results");
        assert_eq!(read(&root.join("site/index.html")), "old site");
        assert_eq!(
            names(&root),
            ["RESULTS.md", "history.jsonl", "latest", "run", "site"]
        );
        assert_eq!(names(&plan.latest), ["compat.json", "compat.md"]);

        staged(&plan, &root).commit().unwrap();
        assert_eq!(read(&plan.latest.join("compat.json")), "new json");
        assert_eq!(read(&plan.latest.join("compat.md")), "new md");
        assert_eq!(read(&plan.history), "new history\n");
        assert_eq!(read(&plan.results), "new results");
        assert_eq!(read(&root.join("site/index.html")), "new site");
        assert_eq!(
            names(&root),
            ["RESULTS.md", "history.jsonl", "latest", "run", "site"]
        );
        let _ = std::fs::remove_dir_all(&root);
    }
}
