//! Name the causes behind the census's top signatures.
//!
//! A signature says which oracles answered what, not why. Here every oracle
//! outside the reference's class is triaged exactly as a fuzz finding is
//! (`cause::name_cause`): the signature's example is minimised for
//! the pair (reference, oracle) alone, then the catalogue's first
//! neutralising transformation names the cause. The ledger entries carrying
//! that cause for that oracle are linked; none means unexplained.
//!
//! It runs after the tally (and after `census merge`), on the merged top
//! list, so a sharded census names the same causes as one run.

use cause::{escape_bytes, name_cause, Input, OraclePair};
use census::render::{SignatureCause, Triage};
use census::Census;
use engine::ledger::Ledger;
use engine::oracle::Oracle;

/// The example's body is the file lossily decoded and cut: only an exact
/// copy can be asked again.
fn exact_body(e: &census::tally::Example) -> Option<Vec<u8>> {
    (e.body_bytes as usize == e.body.len() && !e.body.contains('\u{FFFD}'))
        .then(|| e.body.as_bytes().to_vec())
}

/// Fill `causes` of every top signature of every section, and the cause
/// of every headline example. `oracles` must hold the reference and the
/// oracles of the census (those missing are reported as such).
pub fn triage(census: &mut Census, oracles: &mut [Box<dyn Oracle>], ledger: &Ledger) {
    let reference = census.reference.clone();
    for section in [
        &mut census.written,
        &mut census.near_misses,
        &mut census.probes,
    ] {
        signatures(
            &mut section.summary.top_signatures,
            &reference,
            oracles,
            ledger,
        );
    }
    headline(&mut census.written.summary.headline, oracles, ledger);
}

fn signatures(
    top: &mut [census::render::SignatureSummary],
    reference: &str,
    oracles: &mut [Box<dyn Oracle>],
    ledger: &Ledger,
) {
    let total = top.len();
    let mut every = crate::progress::Every::new();
    for (i, sig) in top.iter_mut().enumerate() {
        let names: Vec<String> = sig
            .signature
            .departing(reference)
            .into_iter()
            .map(str::to_string)
            .collect();
        if every.due() {
            log::info!(
                "  naming causes: signature {}/{total}, {} oracle(s)",
                i + 1,
                names.len()
            );
        }
        let input = input(&sig.example);
        sig.causes = names
            .iter()
            .map(|name| one(reference, name, &[name], input.clone(), oracles, ledger))
            .collect();
    }
}

/// Each headline example's cause, triaged for the pair itself (its first
/// oracle in the reference's place).
fn headline(
    pairs: &mut [census::render::HeadlinePair],
    oracles: &mut [Box<dyn Oracle>],
    ledger: &Ledger,
) {
    let mut every = crate::progress::Every::new();
    for p in pairs.iter_mut() {
        if every.due() {
            log::info!("  naming causes: headline {} vs {}", p.a, p.b);
        }
        for e in &mut p.examples {
            let either = [p.a.as_str(), p.b.as_str()];
            e.cause = Some(one(&p.a, &p.b, &either, input(&e.example), oracles, ledger));
        }
    }
}

/// The example as a triage input, when it is an exact copy of the file.
fn input(e: &census::tally::Example) -> Option<Input> {
    exact_body(e).map(|body| Input {
        body,
        agent: e.agent.clone(),
        url: e.url.clone(),
    })
}

/// `linked` are the oracles whose ledger entries naming the cause are
/// linked: the departing one for a signature, either of a headline pair
/// (the cause may be either's behaviour).
pub(crate) fn one(
    reference: &str,
    name: &str,
    linked: &[&str],
    input: Option<Input>,
    oracles: &mut [Box<dyn Oracle>],
    ledger: &Ledger,
) -> SignatureCause {
    let unnamed = |why: &str| SignatureCause {
        oracle: name.to_string(),
        cause: Triage::NotTriaged {
            why: why.to_string(),
        },
        ..SignatureCause::default()
    };
    let Some(input) = input else {
        return unnamed("the example is cut or not UTF-8");
    };
    let Some(mut pair) = OraclePair::of(oracles, reference, name) else {
        return unnamed("oracle not running");
    };
    let Some(named) = name_cause(&mut pair, &input) else {
        return unnamed("the pair agrees when asked again");
    };
    // Entries whose main cause it is first, then those naming it for some
    // of their cells.
    let mut ledger: Vec<(bool, String)> = ledger
        .entries
        .iter()
        .filter(|e| {
            names_cause(e, named.cause) && e.oracles.iter().any(|o| linked.contains(&o.as_str()))
        })
        .map(|e| (!names_main_cause(e, named.cause), e.id.clone()))
        .collect();
    ledger.sort_by_key(|(also, _)| *also);
    let ledger = ledger.into_iter().map(|(_, id)| id).collect();
    SignatureCause {
        oracle: name.to_string(),
        reference_answer: Some(named.answers.0),
        answer: Some(named.answers.1),
        cause: Triage::Named(named.cause.to_string()),
        body: escape_bytes(&named.minimised.body),
        agent: named.minimised.agent,
        url: named.minimised.url,
        ledger,
    }
}

/// Is `cause` the entry's main `cause:`?
fn names_main_cause(e: &engine::ledger::Entry, cause: cause::Diagnosis) -> bool {
    let main = e.cause.as_ref().and_then(|c| c.name());
    main.zip(cause.name()).is_some_and(|(n, c)| *n == *c)
}

/// Does the entry name `cause` for (some of) its cells?
fn names_cause(e: &engine::ledger::Entry, cause: cause::Diagnosis) -> bool {
    names_main_cause(e, cause)
        || cause
            .name()
            .is_some_and(|c| e.also_causes.iter().any(|a| *a == *c))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_an_exact_example_is_asked_again() {
        let mut e = census::tally::Example {
            body: "User-agent: *\n".into(),
            body_bytes: 14,
            ..Default::default()
        };
        assert_eq!(exact_body(&e).as_deref(), Some(&b"User-agent: *\n"[..]));
        e.body_bytes = 4000;
        assert!(exact_body(&e).is_none());
        e.body = "a\u{FFFD}".into();
        e.body_bytes = e.body.len() as u64;
        assert!(exact_body(&e).is_none());
    }
}
