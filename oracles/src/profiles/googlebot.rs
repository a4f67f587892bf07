//! `googlebot`: Google's published description of how Google interprets
//! robots.txt (Search Central, "How Google interprets the robots.txt
//! specification"), run as Google's open-source robotstxt library (the
//! `google` oracle: the library Google's README calls the one used in
//! production) plus what the page says that the library does not decide:
//! the status rules and the 500 KiB limit (`status::google`).
//!
//! Reading for callers carrying several tokens (Googlebot-News also obeys
//! `googlebot` when it has no group of its own): one query is one token,
//! the agent as given; a caller with several tokens asks once per token.

use super::status::{self, GOOGLE_LIMIT};
use super::{apply, profile_about};
use crate::rfc9309::fetch::fetch;
use engine::oracle::{About, Answer, Capabilities, Oracle, Query, Unavailable};

pub const NAME: &str = "googlebot";

pub struct Googlebot {
    library: Box<dyn Oracle>,
}

/// Unavailable exactly when the `google` oracle is (its setup step).
pub fn make() -> Result<Box<dyn Oracle>, Unavailable> {
    let library = crate::google::make().map_err(|u| Unavailable {
        oracle: NAME.into(),
        ..u
    })?;
    Ok(Box::new(Googlebot { library }))
}

impl Oracle for Googlebot {
    fn name(&self) -> &str {
        NAME
    }

    fn about(&self) -> About {
        let lib = self.library.about();
        let mut about = profile_about(
            NAME,
            "search-central",
            "How Google interprets the robots.txt specification (Google Search Central)",
        );
        about.feeding = format!(
            "the first 500 KiB of the body to {} {}",
            lib.library, lib.version
        );
        about
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities {
            http_fetch: true,
            ..self.library.capabilities()
        }
    }

    fn run(&mut self, body: &[u8], queries: &[Query]) -> Vec<Answer> {
        let cut = &body[..body.len().min(GOOGLE_LIMIT)];
        let note = if cut.len() < body.len() {
            "Google, File format: content after 500 KiB ignored; "
        } else {
            ""
        };
        self.library
            .run(cut, queries)
            .into_iter()
            .map(|mut a| {
                a.explain = format!(
                    "{note}Google's robotstxt library decides{}",
                    suffix(&a.explain)
                );
                a
            })
            .collect()
    }

    fn run_fetch(&mut self, robots_url: &str, queries: &[Query]) -> Vec<Answer> {
        let access = status::google(&fetch(robots_url));
        apply(access, queries, |body| self.run(body, queries))
    }
}

fn suffix(explain: &str) -> String {
    if explain.is_empty() {
        String::new()
    } else {
        format!(": {explain}")
    }
}
