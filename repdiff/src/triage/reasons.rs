//! `cases/unnamed-causes.yaml`: why an (oracle, cause) pair the sweep finds
//! has no ledger entry. The sweep's aim is no unnamed pair; a pair that
//! stays unnamed on purpose (a question the reference answers alone, a
//! shape no crawler sends) carries its reason here, and the sweep report
//! prints it beside the pair, so what is left is either work or explained.

use crate::shared::Usage;
use cause::Diagnosis;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::Path;

/// The file, relative to the checkout.
pub const FILE: &str = "cases/unnamed-causes.yaml";

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    pairs: Vec<Reason>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Reason {
    /// An oracle name, or `*` for every oracle the cause appears for.
    oracle: String,
    cause: String,
    reason: String,
}

/// The reasons by (oracle or `*`, cause).
#[derive(Debug, Default)]
pub struct Reasons(BTreeMap<(String, Diagnosis), String>);

impl Reasons {
    /// The file under `root`; absent is no reasons. A malformed file or a
    /// pair given twice is an error naming the file (and the line, as
    /// serde_yaml reports it).
    pub fn load(root: &Path) -> Result<Self, Usage> {
        let path = root.join(FILE);
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Self::default()),
            Err(e) => return Err(Usage(format!("{}: {e}", path.display()))),
        };
        Self::parse(&text).map_err(|e| Usage(format!("{}: {e}", path.display())))
    }

    // String error: the caller adds the file name; the message is the contract.
    fn parse(text: &str) -> Result<Self, String> {
        let file: File = serde_yaml::from_str(text).map_err(|e| e.to_string())?;
        let mut out = BTreeMap::new();
        for r in file.pairs {
            if r.reason.trim().is_empty() {
                return Err(format!("({}, {}): empty reason", r.oracle, r.cause));
            }
            let cause: Diagnosis = r
                .cause
                .parse()
                .map_err(|e| format!("({}, {}): {e}", r.oracle, r.cause))?;
            let key = (r.oracle, cause);
            if out.insert(key.clone(), r.reason).is_some() {
                return Err(format!("({}, {}) is given twice", key.0, key.1));
            }
        }
        Ok(Self(out))
    }

    /// The reason for `oracle`'s `cause`: its own, else the cause's `*` one.
    pub fn get(&self, oracle: &str, cause: Diagnosis) -> Option<&str> {
        let mine = (oracle.to_string(), cause);
        let any = ("*".to_string(), cause);
        self.0
            .get(&mine)
            .or_else(|| self.0.get(&any))
            .map(String::as_str)
    }

    /// Reasons no pair of `unnamed` used: stale once the pair is named.
    pub fn unused<'a>(
        &'a self,
        unnamed: &[(&str, Diagnosis)],
    ) -> impl Iterator<Item = (&'a str, Diagnosis)> + 'a {
        let used: Vec<(String, Diagnosis)> =
            unnamed.iter().map(|(o, c)| (o.to_string(), *c)).collect();
        self.0.keys().filter_map(move |(o, c)| {
            let hit = used.iter().any(|(uo, uc)| uc == c && (o == "*" || uo == o));
            (!hit).then_some((o.as_str(), *c))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_oracles_own_reason_wins_over_the_causes_and_stale_ones_are_listed() {
        let r = Reasons::parse(
            "pairs:\n  - {oracle: '*', cause: new, reason: generic}\n  - {oracle: spider, cause: new, reason: own}\n  - {oracle: google, cause: strip-bom, reason: gone}\n",
        )
        .expect("parses");
        let (new, bom) = (Diagnosis::New, Diagnosis::Catalogued("strip-bom"));
        assert_eq!(r.get("spider", new), Some("own"));
        assert_eq!(r.get("heritrix", new), Some("generic"));
        assert_eq!(r.get("heritrix", bom), None);
        let stale: Vec<_> = r.unused(&[("heritrix", new)]).collect();
        assert_eq!(stale, vec![("google", bom), ("spider", new)]);
        let typo = Reasons::parse("pairs:\n  - {oracle: '*', cause: strip-bmo, reason: x}\n");
        assert!(typo.is_err_and(|e| e.contains("strip-bmo")));
    }

    /// The committed file loads, and every ledger entry a reason names
    /// exists (a renamed entry would leave the reason pointing nowhere).
    #[test]
    fn the_committed_reasons_load_and_name_real_ledger_entries() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let reasons = Reasons::load(&root).expect("cases/unnamed-causes.yaml loads");
        assert!(!reasons.0.is_empty(), "no reasons read");
        let mut ids = String::new();
        for f in oracles::ledger_files(&root).expect("ledger files") {
            ids += &std::fs::read_to_string(&f).expect("ledger file reads");
        }
        for ((o, c), text) in &reasons.0 {
            // A reason names its entries in parentheses, `(entry-id)`.
            let named: Vec<&str> = text
                .split('(')
                .skip(1)
                .filter_map(|rest| rest.split_once(')').map(|(inside, _)| inside))
                .filter(|id| {
                    id.contains('-')
                        && id
                            .chars()
                            .all(|ch| ch.is_ascii_lowercase() || ch.is_ascii_digit() || ch == '-')
                })
                .collect();
            assert!(!named.is_empty(), "({o}, {c}) names no ledger entry");
            for id in named {
                assert!(
                    ids.contains(&format!("  - id: {id}\n")),
                    "({o}, {c}) names ledger entry {id}, which does not exist"
                );
            }
        }
    }

    #[test]
    fn bad_files_are_refused_with_what_is_wrong() {
        let twice = "pairs:\n  - {oracle: a, cause: new, reason: x}\n  - {oracle: a, cause: new, reason: y}\n";
        assert!(Reasons::parse(twice).unwrap_err().contains("twice"));
        let unknown = "pairs:\n  - {oracle: a, cause: new, reason: x, extra: 1}\n";
        let e = Reasons::parse(unknown).unwrap_err();
        assert!(e.contains("line 2"), "{e}");
        let empty = "pairs:\n  - {oracle: a, cause: new, reason: ' '}\n";
        assert!(Reasons::parse(empty).unwrap_err().contains("empty reason"));
    }
}
