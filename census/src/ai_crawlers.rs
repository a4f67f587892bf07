//! The AI-crawler census: on how many real sites is each AI crawler kept
//! out of `/`, by which parser?
//!
//! The crawlers are not typed by hand: they are the AI categories
//! (`ai-training`, `ai-search`, `user-fetch`, `dataset`) of a list
//! published on PyPI (`ai-crawler-index`, pinned by version and hash at
//! setup, `repdiff setup` step `ai-crawlers`), each asked by its robots.txt
//! token. Every file is asked, for every crawler, `https://HOST/` — what a
//! crawler asks first — whether or not the file names it: a parser that
//! applies a `bot` group to `GPTBot` (a substring match) blocks it on a
//! site that never named it, and that is what this census counts.

use crate::error::ReadError;
use crate::input::{InputError, Record};
use crate::pipeline::{self, Work};
use crate::{queries, OracleId, Progress};
use engine::oracle::{Answer, Ask, Oracle, Outcome, Query};
use serde::{Deserialize, Serialize};
use std::collections::HashSet;
use std::path::Path;

/// `ai-crawlers.json`'s format.
pub const FORMAT: &str = "repdiff-ai-crawlers/1";

/// The pinned list: PyPI `ai-crawler-index` (code MIT, data CC0-1.0), its
/// wheel and the member holding the data.
pub const PACKAGE: &str = "ai-crawler-index";
pub const VERSION: &str = "1.3.0";
pub const WHEEL: &str = "ai_crawler_index-1.3.0-py3-none-any.whl";
pub const WHEEL_SHA256: &str = "79561305b5c0b1ed07bf62edf9af656faa3b80ed549fe0ae8b4e0ce274a5db3f";
pub const MEMBER: &str = "ai_crawler_index/data.json";

/// Files asked per batch.
const BATCH_FILES: usize = 8;

/// One AI crawler of the list.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Crawler {
    /// The token a robots.txt names it by (`robots_token`).
    pub token: String,
    pub operator: String,
    pub category: String,
}

/// The list as loaded: its own version and its AI crawlers.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct List {
    pub version: String,
    pub crawlers: Vec<Crawler>,
}

#[derive(Deserialize)]
struct IndexFile {
    version: String,
    ai_categories: Vec<String>,
    crawlers: Vec<IndexEntry>,
}

#[derive(Deserialize)]
struct IndexEntry {
    robots_token: String,
    operator: String,
    category: String,
}

/// The list's AI crawlers, one per token (compared ignoring ASCII case,
/// as RFC 9309 §2.2.1 matches them), in the list's order.
pub fn load(path: &Path) -> Result<List, ReadError> {
    let text = std::fs::read_to_string(path).map_err(|e| ReadError::read(path, e))?;
    let index: IndexFile = serde_json::from_str(&text)
        .map_err(|e| ReadError::invalid(path, format!("not ai-crawler-index's data.json: {e}")))?;
    let mut seen = HashSet::new();
    let crawlers: Vec<Crawler> = index
        .crawlers
        .into_iter()
        .filter(|c| index.ai_categories.contains(&c.category))
        .filter(|c| !c.robots_token.trim().is_empty())
        .filter(|c| seen.insert(c.robots_token.to_ascii_lowercase()))
        .map(|c| Crawler {
            token: c.robots_token,
            operator: c.operator,
            category: c.category,
        })
        .collect();
    if crawlers.is_empty() {
        return Err(ReadError::invalid(path, "no AI crawler in the list"));
    }
    Ok(List {
        version: index.version,
        crawlers,
    })
}

/// One crawler over every site.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Row {
    #[serde(flatten)]
    pub crawler: Crawler,
    /// Sites whose file has a `user-agent` line naming it.
    pub named: u64,
    /// Per oracle (in [`AiCrawlers::oracles`] order): sites where it may not
    /// fetch `/`.
    pub disallowed: Vec<u64>,
    /// Per oracle: sites where the answer was no verdict (error, timeout).
    pub unjudged: Vec<u64>,
    /// Sites where the parsers split on `/` for it.
    pub split: u64,
    /// Up to three of those sites.
    pub split_hosts: Vec<String>,
}

/// The whole run: what `ai-crawlers.json` holds.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct AiCrawlers {
    pub format: String,
    pub input: String,
    /// `ai-crawler-index <version>`.
    pub list: String,
    pub files: u64,
    pub oracles: Vec<OracleId>,
    pub rows: Vec<Row>,
}

/// Ask every oracle, for every file, whether each AI crawler may fetch `/`.
pub fn run(
    records: impl Iterator<Item = Result<Record, InputError>>,
    oracles: &mut [Box<dyn Oracle>],
    list: &List,
    input: String,
    limit: Option<u64>,
    expected: Option<u64>,
) -> Result<AiCrawlers, InputError> {
    let ids: Vec<OracleId> = oracles
        .iter()
        .map(|o| OracleId {
            name: o.name().to_string(),
            version: o.identity().to_string(),
        })
        .collect();
    let n = oracles.len();
    let mut rows: Vec<Row> = list
        .crawlers
        .iter()
        .map(|c| Row {
            crawler: c.clone(),
            named: 0,
            disallowed: vec![0; n],
            unjudged: vec![0; n],
            split: 0,
            split_hosts: Vec::new(),
        })
        .collect();
    for o in oracles.iter_mut() {
        o.skip_explanations();
    }
    let mut files = 0u64;
    let lanes: Vec<(usize, &mut Box<dyn Oracle>)> = oracles.iter_mut().enumerate().collect();
    let mut progress = Progress::new(expected);
    let records = records
        .take(usize::try_from(limit.unwrap_or(u64::MAX)).unwrap_or(usize::MAX))
        .filter(|r| {
            r.as_ref()
                .map_or(true, |r| r.status.is_none_or(|s| (200..300).contains(&s)))
        });
    let work = Batches {
        records,
        crawlers: &list.crawlers,
    };
    pipeline::run(work, n, lanes, |w, answered| {
        for (f, file) in w.files.iter().enumerate() {
            files += 1;
            let named = named_tokens(&file.body);
            for (c, row) in rows.iter_mut().enumerate() {
                if named.contains(&row.crawler.token.to_ascii_lowercase()) {
                    row.named += 1;
                }
                let answers: Vec<&Answer> = (0..n).map(|k| &answered.answers[k][f][c]).collect();
                tally(row, &file.host, &answers);
            }
        }
        progress.tick(w.files.len() as u64);
    })?;
    progress.finish();
    Ok(AiCrawlers {
        format: FORMAT.into(),
        input,
        list: format!("{PACKAGE} {}", list.version),
        files,
        oracles: ids,
        rows,
    })
}

/// One site's answers for one crawler, one per oracle.
fn tally(row: &mut Row, host: &str, answers: &[&Answer]) {
    let (mut allowed, mut disallowed) = (false, false);
    for (k, a) in answers.iter().enumerate() {
        match a.outcome {
            Outcome::Allowed => allowed = true,
            Outcome::Disallowed => {
                disallowed = true;
                row.disallowed[k] += 1;
            }
            _ => row.unjudged[k] += 1,
        }
    }
    if allowed && disallowed {
        row.split += 1;
        if row.split_hosts.len() < 3 {
            row.split_hosts.push(host.to_string());
        }
    }
}

/// The product tokens the file's `user-agent` lines name, lower-cased.
fn named_tokens(body: &[u8]) -> HashSet<String> {
    String::from_utf8_lossy(body)
        .split(['\n', '\r'])
        .filter_map(|line| {
            let line = line.split('#').next().unwrap_or("");
            let (key, value) = line.split_once(':')?;
            key.trim()
                .eq_ignore_ascii_case("user-agent")
                .then(|| value.trim().to_ascii_lowercase())
        })
        .collect()
}

/// Batches of files, each asked `/` for every crawler.
struct Batches<'c, I> {
    records: I,
    crawlers: &'c [Crawler],
}

impl<I: Iterator<Item = Result<Record, InputError>>> Iterator for Batches<'_, I> {
    type Item = Result<Work, InputError>;

    fn next(&mut self) -> Option<Self::Item> {
        let mut files = Vec::new();
        let mut asked = Vec::new();
        while files.len() < BATCH_FILES {
            let r = match self.records.next() {
                None => break,
                Some(Ok(r)) => r,
                Some(Err(e)) => return Some(Err(e)),
            };
            let url = format!("{}/", queries::url_base(&r.host));
            asked.push(
                self.crawlers
                    .iter()
                    .map(|c| queries::Asked {
                        query: Query {
                            ask: Ask::CanFetch,
                            agent: c.token.clone(),
                            url: url.clone(),
                        },
                        kind: queries::Kind::Root,
                        whole_site: true,
                        unrequested: false,
                    })
                    .collect(),
            );
            files.push(r);
        }
        (!files.is_empty()).then_some(Ok(Work {
            files,
            asked,
            skipped: 0,
        }))
    }
}

/// `ai-crawlers.md`: per crawler, the sites naming it, the parsers keeping
/// it out of `/` and on how many sites, and the splits.
pub fn markdown(a: &AiCrawlers, not_tokens: &[String]) -> String {
    let mut out = format!(
        "# AI crawlers: kept out of `/` on how many real sites, by which parser?\n\n\
         {} real robots.txt files ({}), each asked by {} parsers whether each of the {} AI \
         crawlers of {} (its AI categories: ai-training, ai-search, user-fetch, dataset) may \
         fetch `https://HOST/`, whether or not the file names it. A crawler the file does not \
         name is governed by its `*` group, so most rows differ only there; \
         \"sites naming it\" counts the files with a `user-agent` line for it (a sample \
         gathered before most of these crawlers existed names few of them).\n\n",
        a.files,
        a.input,
        a.oracles.len(),
        a.rows.len(),
        a.list
    );
    out.push_str(
        "| crawler | operator | category | sites naming it | kept out of `/` (sites, by parser: most … fewest) | sites where the parsers split |\n\
         |---|---|---|---:|---|---:|\n",
    );
    let mut rows: Vec<&Row> = a.rows.iter().collect();
    rows.sort_by(|x, y| {
        let most = |r: &Row| r.disallowed.iter().copied().max().unwrap_or(0);
        most(y)
            .cmp(&most(x))
            .then(x.crawler.token.cmp(&y.crawler.token))
    });
    for r in rows {
        out.push_str(&format!(
            "| `{}`{} | {} | {} | {} | {} | {} |\n",
            r.crawler.token,
            if not_tokens.contains(&r.crawler.token) {
                " ¹"
            } else {
                ""
            },
            r.crawler.operator,
            r.crawler.category,
            r.named,
            spread(a, r),
            r.split
        ));
    }
    if !not_tokens.is_empty() {
        out.push_str(&format!(
            "\n¹ Not an RFC 9309 product token (§2.2.1: `identifier = 1*(%x2D / %x41-5A / \
             %x5F / %x61-7A)`, letters, `-` and `_` only): {}. A group naming one is read \
             differently by different parsers; the corpus case \
             `ai-crawler-token-not-a-product-token` shows how.\n",
            not_tokens
                .iter()
                .map(|t| format!("`{t}`"))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    out
}

/// `google 812 … spider 790`: the parsers with the most and the fewest
/// sites, or the one figure when they all agree.
fn spread(a: &AiCrawlers, r: &Row) -> String {
    let mut by: Vec<(u64, &str)> = r
        .disallowed
        .iter()
        .zip(&a.oracles)
        .map(|(&d, o)| (d, o.name.as_str()))
        .collect();
    by.sort_by(|x, y| y.0.cmp(&x.0).then(x.1.cmp(y.1)));
    match (by.first(), by.last()) {
        (Some(hi), Some(lo)) if hi.0 == lo.0 => format!("{} (every parser)", hi.0),
        (Some(hi), Some(lo)) => {
            let at = |v: u64| {
                by.iter()
                    .filter(|(d, _)| *d == v)
                    .map(|(_, n)| *n)
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            format!("{} ({}) … {} ({})", hi.0, at(hi.0), lo.0, at(lo.0))
        }
        _ => "-".into(),
    }
}

/// Read an `ai-crawlers.json` back.
pub fn read(path: &Path) -> Result<AiCrawlers, ReadError> {
    let text = std::fs::read_to_string(path).map_err(|e| ReadError::read(path, e))?;
    let a: AiCrawlers = serde_json::from_str(&text)
        .map_err(|e| ReadError::invalid(path, format!("not an ai-crawlers.json: {e}")))?;
    if a.format != FORMAT {
        let message = format!("format {:?}, expected {FORMAT:?}", a.format);
        return Err(ReadError::invalid(path, message));
    }
    Ok(a)
}

/// Write `ai-crawlers.json` and `ai-crawlers.md` into `dir` as one set.
pub fn write_outputs(dir: &Path, a: &AiCrawlers, not_tokens: &[String]) -> std::io::Result<()> {
    let mut json = serde_json::to_string_pretty(a).map_err(std::io::Error::other)?;
    json.push('\n');
    let mut set = engine::output::Switch::new();
    set.file(&dir.join("ai-crawlers.json"), json.as_bytes())?;
    set.file(
        &dir.join("ai-crawlers.md"),
        markdown(a, not_tokens).as_bytes(),
    )?;
    set.commit()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lists_ai_categories_one_per_token() {
        let dir = std::env::temp_dir().join(format!("repdiff-aicl-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("data.json");
        std::fs::write(
            &path,
            r#"{"version": "9", "ai_categories": ["ai-training"], "crawlers": [
                {"robots_token": "GPTBot", "operator": "OpenAI", "category": "ai-training"},
                {"robots_token": "gptbot", "operator": "OpenAI", "category": "ai-training"},
                {"robots_token": "Googlebot", "operator": "Google", "category": "search"}]}"#,
        )
        .unwrap();
        let list = load(&path).unwrap();
        assert_eq!(list.crawlers.len(), 1);
        assert_eq!(list.crawlers[0].token, "GPTBot");
        std::fs::write(&path, "{}").unwrap();
        assert!(load(&path)
            .unwrap_err()
            .to_string()
            .contains("not ai-crawler-index"));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn named_tokens_are_the_user_agent_values() {
        let named = named_tokens(b"User-agent: GPTBot\nuser-agent : CCBot # c\nDisallow: /\n");
        assert!(named.contains("gptbot") && named.contains("ccbot"));
        assert_eq!(named.len(), 2);
    }
}
