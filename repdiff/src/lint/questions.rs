//! The questions lint asks about a file: those a crawler would really put.
//!
//! They are the census's derived queries (`census::queries::read`, every
//! path for every agent, not cut at the census's per-file budget) minus
//! its probes (the %-encoded variants no link on a site contains), the
//! agents the file names as the product tokens a crawler sends
//! (`census::queries::product_token`: `Mediapartners-Google*` asks
//! `Mediapartners-Google`), then the same
//! paths for each `--agent`, then each `--url` for every agent.

use engine::oracle::{Ask, Query};

/// The host lint puts in the derived URLs: the file alone does not say
/// which site it serves.
pub const HOST: &str = "example.com";

/// Where a question comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Source {
    /// Derived from the file: an agent it names (or a generic one) and a
    /// path it names or most sites have.
    File,
    /// A path of the file, asked for an agent given with `--agent`.
    Agent,
    /// A URL given with `--url`.
    Url,
    /// `/` for an AI crawler of the pinned list (`--ai-crawlers`).
    AiCrawler,
}

/// One question: may this agent fetch this URL?
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Question {
    pub agent: String,
    pub url: String,
    pub source: Source,
}

impl Question {
    pub fn query(&self) -> Query {
        Query {
            ask: Ask::CanFetch,
            agent: self.agent.clone(),
            url: self.url.clone(),
        }
    }
}

/// What lint did not ask, said to the user rather than dropped silently.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct Skipped {
    /// Agents the file names past `--max-agents`, in file order.
    pub agents: Vec<String>,
    /// Questions past [`MAX_QUESTIONS`].
    pub questions: usize,
}

/// Every question for `body`, deduplicated, in a stable order, with the
/// file's first `max_agents` agents, then `/` for each of `ai_crawlers`;
/// and what was left out.
pub fn questions(
    body: &[u8],
    agents: &[String],
    urls: &[String],
    max_agents: usize,
    ai_crawlers: &[String],
) -> (Vec<Question>, Skipped) {
    let derived = census::queries::read_with(HOST, body, max_agents);
    let mut file_agents: Vec<String> = Vec::new();
    for a in &derived.agents {
        push_new(&mut file_agents, a.clone());
    }
    let paths: Vec<&String> = derived
        .urls
        .iter()
        .filter(|u| !u.kind.probe())
        .map(|u| &u.url)
        .collect();
    let mut out: Vec<Question> = Vec::new();
    let mut add = |agent: &str, url: &str, source: Source| {
        let q = Question {
            agent: agent.to_string(),
            url: url.to_string(),
            source,
        };
        if !out.iter().any(|o| o.agent == q.agent && o.url == q.url) {
            out.push(q);
        }
    };
    for path in paths {
        for agent in &file_agents {
            add(agent, path, Source::File);
        }
        for agent in agents {
            add(agent, path, Source::Agent);
        }
    }
    for url in urls {
        for agent in file_agents.iter().chain(agents) {
            add(agent, url, Source::Url);
        }
    }
    let root = format!("https://{HOST}/");
    for token in ai_crawlers {
        add(token, &root, Source::AiCrawler);
    }
    let skipped = Skipped {
        agents: derived.skipped_agents,
        questions: out.len().saturating_sub(MAX_QUESTIONS),
    };
    out.truncate(MAX_QUESTIONS);
    (out, skipped)
}

/// Agents taken from a file by default: every AI crawler group of a
/// Cloudflare-style file (about 20) fits; the few files naming hundreds
/// of bots would cost minutes.
pub const DEFAULT_MAX_AGENTS: usize = 40;

/// Questions per file: a file naming many agents and rules would
/// otherwise cost minutes of minimisation.
pub const MAX_QUESTIONS: usize = 2000;

fn push_new(list: &mut Vec<String>, item: String) {
    if !item.is_empty() && !list.contains(&item) {
        list.push(item);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn as_written_only_with_product_tokens_and_flags() {
        let body = b"User-agent: Mediapartners-Google*\nDisallow: /admin\n";
        let (qs, skipped) = questions(
            body,
            &["MyBot".into()],
            &["https://example.com/x".into()],
            DEFAULT_MAX_AGENTS,
            &["GPTBot".into()],
        );
        assert_eq!(skipped, Skipped::default());
        assert!(qs.iter().any(|q| q.agent == "GPTBot"
            && q.url == "https://example.com/"
            && q.source == Source::AiCrawler));
        assert!(qs.iter().all(|q| !q.url.contains("%61")), "no probe");
        assert!(qs.iter().any(|q| q.agent == "Mediapartners-Google"));
        assert!(!qs.iter().any(|q| q.agent.contains('*')));
        assert!(qs
            .iter()
            .any(|q| q.agent == "MyBot" && q.url.ends_with("/admin") && q.source == Source::Agent));
        assert!(qs
            .iter()
            .any(|q| q.agent == "Googlebot" && q.url == "https://example.com/x"));
    }

    /// Past the limit an agent is listed as skipped, never dropped silently.
    #[test]
    fn agents_past_the_limit_are_listed() {
        let body = b"User-agent: GPTBot\nUser-agent: CCBot\nUser-agent: ClaudeBot\nDisallow: /\n";
        let (qs, skipped) = questions(body, &[], &[], 2, &[]);
        assert_eq!(skipped.agents, ["ClaudeBot"]);
        assert!(qs.iter().any(|q| q.agent == "CCBot"));
        assert!(!qs.iter().any(|q| q.agent == "ClaudeBot"));
    }
}
