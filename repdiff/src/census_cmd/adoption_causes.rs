//! Why each adoption example flipped, told with the oracles still up.
//!
//! The reference's reading of the edited file is what the edit means under
//! RFC 9309. A flip the reference makes too is the edit's own doing
//! (intended when the edit names the agent, as Cloudflare's block names
//! GPTBot); one it does not make is the oracle's reading, and the census's
//! own triage (`census_causes::one`) minimises the file for the pair and
//! names the cause, on the edited file when the oracle departs there, on
//! the original when the edit only brings it back to the reference.

use cause::{ask_one, Input};
use census::adoption::{Edit, Flip, FlipCause, Ran};
use census::render::{SignatureCause, Triage};
use engine::ledger::Ledger;
use engine::oracle::Oracle;

/// Fill the cause of every example of `ran` whose original body is known.
pub fn name(ran: &mut Ran, edits: &[Edit], oracles: &mut [Box<dyn Oracle>], ledger: &Ledger) {
    let reference = ran.adoption.reference.clone();
    let total: usize = ran.adoption.rows.iter().map(|r| r.examples.len()).sum();
    let mut done = 0;
    let mut every = crate::progress::Every::new();
    for row in &mut ran.adoption.rows {
        let Some(edit) = edits.iter().find(|e| e.id == row.edit) else {
            continue;
        };
        for flip in &mut row.examples {
            done += 1;
            if every.due() {
                log::info!("  naming causes: adoption example {done}/{total}");
            }
            let Some(body) = ran.bodies.get(&flip.host) else {
                continue;
            };
            let asked = Asked {
                flip,
                edit,
                body,
                reference: &reference,
                oracle: &row.oracle,
            };
            let cause = asked.cause(oracles, ledger);
            flip.cause = Some(cause);
        }
    }
}

/// One example and what it needs to be asked again.
struct Asked<'a> {
    flip: &'a Flip,
    edit: &'a Edit,
    body: &'a [u8],
    reference: &'a str,
    oracle: &'a str,
}

impl Asked<'_> {
    fn input(&self, body: Vec<u8>) -> Input {
        Input {
            body,
            agent: self.flip.agent.clone(),
            url: self.flip.url.clone(),
        }
    }

    fn cause(&self, oracles: &mut [Box<dyn Oracle>], ledger: &Ledger) -> FlipCause {
        let before = self.input(self.body.to_vec());
        let after = self.input(self.edit.apply(self.body));
        let Some(r) = oracles.iter().position(|o| o.name() == self.reference) else {
            return not_triaged(self.oracle, "the reference is not running");
        };
        let ref_before = ask_one(oracles[r].as_mut(), &before).to_string();
        let ref_after = ask_one(oracles[r].as_mut(), &after).to_string();
        if ref_before == self.flip.before && ref_after == self.flip.after {
            return if names_agent(self.edit, &self.flip.agent) {
                FlipCause::Intended
            } else {
                FlipCause::Standard
            };
        }
        if self.oracle == self.reference {
            return not_triaged(
                self.oracle,
                "the reference answered otherwise when asked again",
            );
        }
        let linked = [self.oracle];
        if ref_after != self.flip.after {
            let c = crate::census_causes::one(
                self.reference,
                self.oracle,
                &linked,
                Some(after),
                oracles,
                ledger,
            );
            FlipCause::Departs(c)
        } else {
            let c = crate::census_causes::one(
                self.reference,
                self.oracle,
                &linked,
                Some(before),
                oracles,
                ledger,
            );
            FlipCause::Mended(c)
        }
    }
}

/// Does one of the edit's own `User-agent` lines name the agent's product
/// token (case-insensitively, as RFC 9309 §2.2.1 matches)?
fn names_agent(edit: &Edit, agent: &str) -> bool {
    let token = agent.split('/').next().unwrap_or_default().trim();
    edit.text.lines().any(|l| {
        l.split_once(':').is_some_and(|(k, v)| {
            k.trim().eq_ignore_ascii_case("user-agent") && v.trim().eq_ignore_ascii_case(token)
        })
    })
}

fn not_triaged(oracle: &str, why: &str) -> FlipCause {
    FlipCause::Departs(SignatureCause {
        oracle: oracle.to_string(),
        cause: Triage::NotTriaged {
            why: why.to_string(),
        },
        ..SignatureCause::default()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_edit_names_an_agent_by_its_product_token_in_any_case() {
        let edit = Edit {
            id: "e".into(),
            title: "t".into(),
            source: "s".into(),
            placement: census::adoption::Placement::Prepend,
            text: "User-Agent: *\nAllow: /\n\nUser-agent: GPTBot\nDisallow: /\n".into(),
        };
        assert!(names_agent(&edit, "gptbot"));
        assert!(names_agent(&edit, "GPTBot/1.2"));
        assert!(!names_agent(&edit, "ExampleBot"));
        assert!(!names_agent(&edit, "GPT"));
    }
}
