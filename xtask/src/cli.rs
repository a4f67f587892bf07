//! Hand-rolled argument parsing: a handful of flags does not justify a
//! command-line framework's compile time in every `cargo xtask` build.

use std::collections::BTreeMap;

/// Flags of one subcommand: repeated flags keep every value, bare switches
/// map to an empty list.
#[derive(Debug, Default)]
pub struct Args {
    pub values: BTreeMap<String, Vec<String>>,
    pub positional: Vec<String>,
}

/// A bad command line: exit status 2.
#[derive(Debug)]
pub struct Usage(pub String);

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

    pub fn has(&self, flag: &str) -> bool {
        self.values.contains_key(flag)
    }

    pub fn all(&self, flag: &str) -> Vec<String> {
        self.values.get(flag).cloned().unwrap_or_default()
    }

    pub fn one(&self, flag: &str) -> Result<Option<String>, Usage> {
        match self.values.get(flag).map(Vec::as_slice) {
            None | Some([]) => Ok(None),
            Some([v]) => Ok(Some(v.clone())),
            Some(_) => Err(Usage(format!("--{flag} given more than once"))),
        }
    }

    pub fn required(&self, flag: &str) -> Result<String, Usage> {
        self.one(flag)?
            .ok_or_else(|| Usage(format!("--{flag} is required")))
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

/// Glob over case ids: `*` any run, `?` one character.
pub fn glob_match(pattern: &str, text: &str) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let t: Vec<char> = text.chars().collect();
    // Iterative wildcard match with one backtrack point: linear-ish, no blow-up.
    let (mut pi, mut ti) = (0, 0);
    let (mut star, mut mark) = (None, 0);
    while ti < t.len() {
        if pi < p.len() && (p[pi] == '?' || p[pi] == t[ti]) {
            pi += 1;
            ti += 1;
        } else if pi < p.len() && p[pi] == '*' {
            star = Some(pi);
            mark = ti;
            pi += 1;
        } else if let Some(s) = star {
            pi = s + 1;
            mark += 1;
            ti = mark;
        } else {
            return false;
        }
    }
    p[pi..].iter().all(|&c| c == '*')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs() {
        assert!(glob_match("seed-*", "seed-18"));
        assert!(glob_match("*18", "seed-18"));
        assert!(glob_match("seed-1?", "seed-18"));
        assert!(!glob_match("seed-1?", "seed-1"));
        assert!(!glob_match("rfc-*", "seed-18"));
        assert!(glob_match("*", ""));
    }

    #[test]
    fn flags() {
        let raw: Vec<String> = ["--oracle", "a", "--oracle=b", "--json", "x"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let a = Args::parse(&raw, &["json"], &["oracle"]).unwrap();
        assert_eq!(a.all("oracle"), vec!["a", "b"]);
        assert!(a.has("json"));
        assert_eq!(a.positional, vec!["x"]);
        assert!(Args::parse(&["--nope".to_string()], &[], &[]).is_err());
        assert!(Args::parse(&["--oracle".to_string()], &[], &["oracle"]).is_err());
    }
}
