//! `aipref`: RFC 9309 as draft-ietf-aipref-attach-05 would update it
//! ("Updates: 9309 (if approved)"): the reference with one reading changed,
//! [`ContentUsage::Rule`]. A `Content-Usage` line is then a rule of its
//! group (`rule =/ content-usage`, §3), so a user-agent line after it
//! starts a new group, where RFC 9309 §2.2.4 says an other record "MUST
//! NOT interfere". The oracle x profile matrix shows which parsers already
//! read the new line as the draft does and which as the published RFC
//! does; on a file without `Content-Usage` the two profiles agree.

use super::profile_about;
use crate::rfc9309::{ContentUsage, Readings, Rfc9309, Robots, UsageOutcome};
use engine::oracle::{About, Answer, Ask, Capabilities, Oracle, Query};

pub const NAME: &str = "aipref";

/// The keys of the records written for AI use, lower-cased: aipref's
/// `Content-Usage`, Cloudflare's `Content-Signal`, RSL's `License`, and
/// draft-canel-robots-ai-control-00's two (cases/corpus/ai-preferences.yaml
/// cites each). One list for the fuzz classes and lint's hazards.
pub const AI_RECORD_KEYS: &[&str] = &[
    "content-usage",
    "content-signal",
    "license",
    "disallowaitraining",
    "allowaitraining",
];

/// The draft whose second stage [`usage_preferences`] answers.
pub const DRAFT: &str = "draft-ietf-aipref-attach-05";

/// The usage preference the draft gives each can_fetch query on `body`
/// (`None` for another ask), or `None` when the body has no
/// `Content-Usage` rule (so a tool shows the question only where the file
/// asks it).
pub fn usage_preferences(body: &[u8], queries: &[Query]) -> Option<Vec<Option<UsageOutcome>>> {
    let robots = Robots::parse(body, &readings());
    if robots.usage_rules().is_empty() {
        return None;
    }
    Some(
        queries
            .iter()
            .map(|q| (q.ask == Ask::CanFetch).then(|| robots.usage(&q.agent, &q.url).1))
            .collect(),
    )
}

fn readings() -> Readings {
    Readings {
        content_usage: ContentUsage::Rule,
        ..Readings::default()
    }
}

/// The reference under the draft's reading.
pub struct Aipref {
    reference: Rfc9309,
}

impl Aipref {
    pub fn new() -> Aipref {
        Aipref {
            reference: Rfc9309::new(readings()),
        }
    }
}

impl Default for Aipref {
    fn default() -> Self {
        Aipref::new()
    }
}

impl Oracle for Aipref {
    fn name(&self) -> &str {
        NAME
    }

    fn about(&self) -> About {
        profile_about(
            NAME,
            DRAFT,
            "RFC 9309 with Content-Usage as a rule (draft-ietf-aipref-attach-05, 19 August 2026)",
        )
    }

    fn capabilities(&self) -> Capabilities {
        self.reference.capabilities()
    }

    fn skip_explanations(&mut self) {
        self.reference.skip_explanations();
    }

    fn run(&mut self, body: &[u8], queries: &[Query]) -> Vec<Answer> {
        self.reference.run(body, queries)
    }

    fn run_fetch(&mut self, robots_url: &str, queries: &[Query]) -> Vec<Answer> {
        self.reference.run_fetch(robots_url, queries)
    }
}
