//! The fuzz and census commands' own argument parsing: clap routes `cargo
//! xtask fuzz ...` and `cargo xtask census ...` here untouched (census moves
//! to the repdiff crate and clap next; see its issue note).

use std::collections::BTreeMap;

/// Flags of one subcommand: repeated flags keep every value, bare switches
/// map to an empty list.
#[derive(Debug, Default)]
pub struct Args {
    pub values: BTreeMap<String, Vec<String>>,
    pub positional: Vec<String>,
}

pub use repdiff::cli::Usage;

impl Args {
    /// `switches` are flags without a value; every other `--flag` takes one.
    pub fn parse(raw: &[String], switches: &[&str], valued: &[&str]) -> Result<Args, Usage> {
        let mut args = Args::default();
        let mut it = raw.iter();
        while let Some(a) = it.next() {
            if let Some(flag) = a.strip_prefix("--") {
                let (flag, inline) = match flag.split_once('=') {
                    Some((f, v)) => (f, Some(v.to_string())),
                    None => (flag, None),
                };
                if switches.contains(&flag) {
                    args.values.entry(flag.to_string()).or_default();
                } else if valued.contains(&flag) {
                    let v = match inline {
                        Some(v) => v,
                        None => it
                            .next()
                            .cloned()
                            .ok_or_else(|| Usage(format!("--{flag} needs a value")))?,
                    };
                    args.values.entry(flag.to_string()).or_default().push(v);
                } else {
                    return Err(Usage(format!("unknown flag --{flag}")));
                }
            } else {
                args.positional.push(a.clone());
            }
        }
        Ok(args)
    }

    /// Every value of a repeatable flag, in order.
    pub fn all(&self, flag: &str) -> Vec<String> {
        self.values.get(flag).cloned().unwrap_or_default()
    }

    pub fn has(&self, flag: &str) -> bool {
        self.values.contains_key(flag)
    }

    pub fn one(&self, flag: &str) -> Result<Option<String>, Usage> {
        match self.values.get(flag).map(Vec::as_slice) {
            None | Some([]) => Ok(None),
            Some([v]) => Ok(Some(v.clone())),
            Some(_) => Err(Usage(format!("--{flag} given more than once"))),
        }
    }

    pub fn number<T: std::str::FromStr>(&self, flag: &str, default: T) -> Result<T, Usage> {
        match self.one(flag)? {
            None => Ok(default),
            Some(v) => v
                .parse()
                .map_err(|_| Usage(format!("--{flag}: not a number: {v:?}"))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags() {
        let raw: Vec<String> = ["--oracle", "a", "--oracle=b", "--json", "x"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let a = Args::parse(&raw, &["json"], &["oracle"]).unwrap();
        assert_eq!(a.values["oracle"], vec!["a", "b"]);
        assert!(a.has("json"));
        assert_eq!(a.positional, vec!["x"]);
        assert!(Args::parse(&["--nope".to_string()], &[], &[]).is_err());
        assert!(Args::parse(&["--oracle".to_string()], &[], &["oracle"]).is_err());
    }
}
