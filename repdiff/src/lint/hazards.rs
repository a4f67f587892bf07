//! The lines written for AI use (aipref's `Content-Usage`, Cloudflare's
//! `Content-Signal`, RSL's `License`, `DisallowAITraining`, a leading
//! `Allow: /llms.txt`) read off the file itself, each with what it does to
//! the parsers in plain words and a rewrite that keeps the preference.
//!
//! The parsers' verdicts on the file are lint's own questions; a hazard
//! says why a split is there before anyone asks, names the mechanism as
//! measured on `cases/corpus/ai-preferences.yaml` (its ledger entry) and is
//! shown even when the file's questions happen not to reach it.

use oracles::profiles::aipref::AI_RECORD_KEYS as AI_KEYS;
use serde::Serialize;

/// One line and what it does.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Hazard {
    /// 1-based.
    pub line: usize,
    /// The key as written.
    pub key: String,
    pub what: String,
    /// A change that keeps the preference and that every parser reads the
    /// same way, where one is known.
    pub rewrite: Option<String>,
}

/// A record line: 1-based number, key as written, lower-cased key, value.
struct Rec {
    line: usize,
    key: String,
    lower: String,
    value: String,
}

/// A line's key and value, comment cut, both trimmed (a BOM before the
/// key is no part of it).
fn record(line: &str) -> Option<(&str, &str)> {
    let line = line.split('#').next().unwrap_or_default();
    let (k, v) = line.split_once(':')?;
    Some((k.trim().trim_start_matches('\u{feff}'), v.trim()))
}

/// Whether `line` is a record written for AI use ([`AI_KEYS`]): rewrites
/// may move such a line, never drop it.
pub fn is_ai_record(line: &[u8]) -> bool {
    record(&String::from_utf8_lossy(line))
        .is_some_and(|(k, _)| AI_KEYS.contains(&k.to_ascii_lowercase().as_str()))
}

fn records(body: &[u8]) -> Vec<Rec> {
    let text = String::from_utf8_lossy(body);
    text.split('\n')
        .enumerate()
        .filter_map(|(i, l)| {
            let (k, v) = record(l)?;
            Some(Rec {
                line: i + 1,
                lower: k.to_ascii_lowercase(),
                key: k.to_string(),
                value: v.to_string(),
            })
        })
        .collect()
}

/// Every hazard of the file, in line order.
pub fn hazards(body: &[u8]) -> Vec<Hazard> {
    let recs = records(body);
    let text = String::from_utf8_lossy(body);
    let blank: Vec<bool> = text.split('\n').map(|l| l.trim().is_empty()).collect();
    let mut out = Vec::new();
    let first_agent = recs.iter().position(|r| r.lower == "user-agent");
    for (i, r) in recs.iter().enumerate() {
        let ai = AI_KEYS.contains(&r.lower.as_str());
        let before_groups = first_agent.is_none_or(|f| i < f);
        if (ai || r.lower == "allow") && before_groups && first_agent.is_some() {
            out.push(before_any_group(r));
        } else if ai {
            if let Some(h) =
                inside_agent_run(&recs, i).or_else(|| glued_to_next_group(&recs, i, &blank))
            {
                out.push(h);
            }
        }
        match r.lower.as_str() {
            "disallowaitraining" | "allowaitraining" => out.push(prefix_key(r)),
            "content-usage" => out.extend(vocabulary(r)),
            _ => {}
        }
    }
    out.extend(star_groups(&recs));
    out.sort_by_key(|h| h.line);
    out
}

fn before_any_group(r: &Rec) -> Hazard {
    let (what, rewrite) = if r.lower == "allow" {
        (
            format!(
                "`{}: {}` comes before any User-agent line: RFC 9309 §2.2.2 says to ignore a rule in no group, so it opens nothing; webrobots rejects the whole file (then allows everything) and temoto/robotstxt refuses it (ledger: webrobots-rule-before-first-user-agent-is-parse-error, orphan-rule-rejects-file-temoto)",
                r.key, r.value
            ),
            "put the line in the group it is meant for, after its User-agent lines".to_string(),
        )
    } else {
        (
            format!(
                "`{}:` comes before any User-agent line: webrobots then rejects the whole file and allows everything (ledger: webrobots-rule-before-first-user-agent-is-parse-error)",
                r.key
            ),
            "move it to the end of the file, after a blank line: it still applies to the whole site (RSL: License is global) and no group is disturbed".to_string(),
        )
    };
    Hazard {
        line: r.line,
        key: r.key.clone(),
        what,
        rewrite: Some(rewrite),
    }
}

/// An AI line after a user-agent line and before another, with no rule
/// between: RFC 9309 keeps the agents one group, aipref and several
/// parsers start a new group at the second user-agent line.
fn inside_agent_run(recs: &[Rec], i: usize) -> Option<Hazard> {
    let prev = recs[..i]
        .iter()
        .rev()
        .find(|r| !AI_KEYS.contains(&r.lower.as_str()))?;
    let next = recs[i + 1..]
        .iter()
        .find(|r| !AI_KEYS.contains(&r.lower.as_str()))?;
    if prev.lower != "user-agent" || next.lower != "user-agent" {
        return None;
    }
    let rule = recs[i + 1..]
        .iter()
        .find(|r| r.lower == "allow" || r.lower == "disallow");
    Some(Hazard {
        line: recs[i].line,
        key: recs[i].key.clone(),
        what: format!(
            "`{}:` stands between the User-agent lines {} and {}: to RFC 9309 (§2.2.4: other records MUST NOT interfere), Google and most parsers they are one group sharing the rules below, but aipref-attach reads Content-Usage as a rule that ends the group, and protego, robots-parser and the robotstxt crate end it at any such line, so `User-agent: {}` gets no rules there (ledger: unknown-record-ends-user-agent-list-protego and its peers; webrobots rejects the file)",
            recs[i].key, prev.line, next.line, prev.value
        ),
        rewrite: Some(match rule {
            Some(r) => format!(
                "move line {} below the group's rules (after line {}), so every User-agent line comes first",
                recs[i].line, r.line
            ),
            None => format!("move line {} below the group's rules", recs[i].line),
        }),
    })
}

/// An AI line at the end of a group with the next group's user-agent line
/// after it and no blank line between: webrobots reads the line as a
/// rule-like record and wants a blank line before the next User-agent.
fn glued_to_next_group(recs: &[Rec], i: usize, blank: &[bool]) -> Option<Hazard> {
    let next = recs.get(i + 1).filter(|r| r.lower == "user-agent")?;
    let (from, to) = (recs[i].line, next.line - 1);
    if (from..to).any(|l| blank.get(l).copied().unwrap_or(false)) {
        return None;
    }
    Some(Hazard {
        line: recs[i].line,
        key: recs[i].key.clone(),
        what: format!(
            "`{}:` ends a group and `User-agent` follows on line {} with no blank line between: webrobots then rejects the whole file and allows everything (ledger: webrobots-user-agent-after-rule-needs-blank-line; measured on real files in reports/census/adoption.md)",
            recs[i].key, next.line
        ),
        rewrite: Some(format!("add a blank line after line {}", recs[i].line)),
    })
}

fn prefix_key(r: &Rec) -> Hazard {
    let (what_key, meaning) = if r.lower == "disallowaitraining" {
        ("Disallow", "blocked from")
    } else {
        ("Allow", "opened")
    };
    Hazard {
        line: r.line,
        key: r.key.clone(),
        what: format!(
            "`{}: {}` is `{what_key}: {}` to Google's parser, the robotstxt crate and grobotstxt, which match keys by prefix: Googlebot is {meaning} `{}`, not only AI training (ledger: ai-training-keys-read-by-prefix)",
            r.key, r.value, r.value, r.value
        ),
        rewrite: Some(if r.lower == "disallowaitraining" {
            let path = if r.value.is_empty() || r.value == "/" {
                String::new()
            } else {
                format!("{} ", r.value)
            };
            format!(
                "write `Content-Usage: {path}train-ai=n` (draft-ietf-aipref-attach-05) at the end of the group instead"
            )
        } else {
            "write `Content-Usage: <path> train-ai=y` at the end of the group instead".into()
        }),
    }
}

/// draft-ietf-aipref-vocab-08: labels `train-ai` and `search`, values `y`
/// and `n` (case-sensitive); anything else is an unknown preference, and
/// unknown labels are ignored.
fn vocabulary(r: &Rec) -> Vec<Hazard> {
    let prefs = match r.value.strip_prefix('/') {
        Some(rest) => rest.split_once([' ', '\t']).map(|(_, p)| p).unwrap_or(""),
        None => r.value.as_str(),
    };
    let mut out = Vec::new();
    for item in prefs.split(',') {
        let (label, value) = item.split_once('=').unwrap_or((item, ""));
        let (label, value) = (label.trim(), value.split(';').next().unwrap_or("").trim());
        let what = match label {
            "train-ai" | "search" if value == "y" || value == "n" => continue,
            "train-ai" | "search" => format!(
                "`{label}={value}` is no preference to draft-ietf-aipref-vocab-08: the values are `y` and `n`, case-sensitive, and anything else leaves the preference unknown"
            ),
            "" => continue,
            _ => format!(
                "`{label}` is no label of draft-ietf-aipref-vocab-08 (only `train-ai` and `search`): it is ignored"
            ),
        };
        out.push(Hazard {
            line: r.line,
            key: r.key.clone(),
            what,
            rewrite: matches!(label, "train-ai" | "search").then(|| {
                let v = if value.eq_ignore_ascii_case("no") || value.eq_ignore_ascii_case("n") {
                    "n"
                } else {
                    "y"
                };
                format!("write `{label}={v}`")
            }),
        });
    }
    out
}

/// Two or more groups naming `*` (Cloudflare's managed block prepended to
/// a site's own file leaves two).
fn star_groups(recs: &[Rec]) -> Vec<Hazard> {
    let mut starts = Vec::new();
    let mut in_run = false;
    let mut run_has_star = false;
    let mut run_start = 0;
    for r in recs {
        if r.lower == "user-agent" {
            if !in_run {
                run_start = r.line;
                run_has_star = false;
            }
            in_run = true;
            run_has_star |= r.value == "*";
        } else if in_run {
            if run_has_star {
                starts.push(run_start);
            }
            in_run = false;
        }
    }
    if in_run && run_has_star {
        starts.push(run_start);
    }
    if starts.len() < 2 {
        return Vec::new();
    }
    let lines = starts
        .iter()
        .map(|l| l.to_string())
        .collect::<Vec<_>>()
        .join(", ");
    vec![Hazard {
        line: starts[1],
        key: "User-agent".into(),
        what: format!(
            "groups naming `*` start at lines {lines}: RFC 9309 §2.2.1 and Google combine them, but CPython 3.11, robotexclusionrulesparser, spider and webrobots use only the first, so the rules of the later ones do not exist for them (ledger: group-first-match-only-cpython-3-11 and its peers; a CDN's prepended block makes such a file)"
        ),
        rewrite: Some(format!(
            "merge the `*` groups into the one at line {}",
            starts[0]
        )),
    }]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines_of(body: &str) -> Vec<(usize, String)> {
        hazards(body.as_bytes())
            .into_iter()
            .map(|h| (h.line, h.key))
            .collect()
    }

    #[test]
    fn content_usage_inside_an_agent_run_is_named_with_a_move() {
        let body = "User-agent: *\nContent-Usage: train-ai=n\nUser-agent: Googlebot\nDisallow: /private/\n";
        let h = hazards(body.as_bytes());
        assert_eq!(h.len(), 1, "{h:?}");
        assert_eq!(h[0].line, 2);
        assert!(
            h[0].what.contains("User-agent lines 1 and 3"),
            "{}",
            h[0].what
        );
        assert_eq!(
            h[0].rewrite.as_deref(),
            Some("move line 2 below the group's rules (after line 4), so every User-agent line comes first")
        );
        // At the end of a group it disturbs nothing, unless the next group
        // follows with no blank line (webrobots).
        assert!(lines_of("User-agent: *\nDisallow: /x\nContent-Usage: train-ai=n\n").is_empty());
        assert!(lines_of(
            "User-agent: *\nDisallow: /x\nContent-Usage: train-ai=n\n\nUser-agent: b\n"
        )
        .is_empty());
        let glued = hazards(
            b"User-agent: *\nDisallow: /x\nContent-Usage: train-ai=n\nUser-agent: b\nDisallow: /\n",
        );
        assert_eq!(glued.len(), 1, "{glued:?}");
        assert_eq!(
            glued[0].rewrite.as_deref(),
            Some("add a blank line after line 3")
        );
    }

    #[test]
    fn prefix_keys_vocabulary_leading_lines_and_two_star_groups() {
        assert_eq!(
            lines_of("User-agent: *\nDisallowAITraining: /\n"),
            [(2, "DisallowAITraining".to_string())]
        );
        let vocab = hazards(
            b"User-agent: *\nDisallow: /a\nContent-Usage: /d/ train-ai=no, foo=n, search=y\n",
        );
        assert_eq!(vocab.len(), 2, "{vocab:?}");
        assert_eq!(vocab[0].rewrite.as_deref(), Some("write `train-ai=n`"));
        assert_eq!(
            lines_of("License: https://x/l.xml\nAllow: /llms.txt\nUser-agent: *\nDisallow: /\n"),
            [(1, "License".to_string()), (2, "Allow".to_string())]
        );
        let cf = "User-Agent: *\nContent-signal: search=yes\nAllow: /\n\nUser-agent: GPTBot\nDisallow: /\n# END\nUser-agent: *\nDisallow: /lp\n";
        assert_eq!(lines_of(cf), [(8, "User-agent".to_string())]);
        assert!(lines_of("User-agent: *\nDisallow: /a\n").is_empty());
    }
}
