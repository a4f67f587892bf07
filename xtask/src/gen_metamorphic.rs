//! `cargo xtask gen-metamorphic [--check]`: writes `cases/corpus/metamorphic.yaml`.
//!
//! Each base robots.txt is written once, with its queries and their RFC 9309
//! expectations, in `cases/metamorphic/bases.yaml` (data, read at run time
//! from the checkout root); every variant is a rewrite that RFC 9309 treats
//! as the same file (line ends, comments, record-name case, whitespace
//! around the colon, empty lines between rules, group order, a BOM before a
//! comment line). All variants of one base share a `family:` and the same
//! queries, so any oracle whose verdict changes across a family has shown a
//! sensitivity the RFC does not allow. `--check` fails when the file on disk
//! is not what the generator writes (a hand edit, or a change to the bases
//! or the generator not regenerated).

use engine::case::{BodyPart, BodySpec, RawCase, RawFile, RawQuery};
use repdiff::cli::Usage;
use repdiff::paths;
use serde::Deserialize;
use std::path::Path;

pub const HELP: &str = "\
Writes cases/corpus/metamorphic.yaml: every base file of
cases/metamorphic/bases.yaml in every equivalent variant, one family per base.
--check compares instead of writing; exit 1 when the file is out of date.";

/// The bases file, relative to the checkout root.
const BASES_FILE: &str = "cases/metamorphic/bases.yaml";

/// `cases/metamorphic/bases.yaml`: the base files, in family order.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct BasesFile {
    bases: Vec<Base>,
}

/// One query of a base and its expectation: every base here is decided by
/// an RFC 9309 section, cited in `rfc`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Q {
    agent: String,
    /// Asked about `http://example.test` + this path.
    path: String,
    allowed: bool,
    rfc: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Base {
    name: String,
    title: String,
    /// The file, one line per entry, `""` for an empty line.
    lines: Vec<String>,
    queries: Vec<Q>,
}

/// The bases as written in `text`; `file` only names it in errors
/// (`FILE:LINE: message`, serde_yaml's message carrying the column).
fn parse_bases(file: &Path, text: &str) -> Result<Vec<Base>, String> {
    let parsed: BasesFile = serde_yaml::from_str(text).map_err(|e| match e.location() {
        Some(l) => format!("{}:{}: {e}", file.display(), l.line()),
        None => format!("{}: {e}", file.display()),
    })?;
    Ok(parsed.bases)
}

/// The bases in `file`; a missing or unreadable file is an error naming it.
fn read_bases(file: &Path) -> Result<Vec<Base>, String> {
    let text = std::fs::read_to_string(file)
        .map_err(|e| format!("{}: cannot read the metamorphic bases: {e}", file.display()))?;
    parse_bases(file, &text)
}

/// The checkout's bases (`cases/metamorphic/bases.yaml` under the root).
fn load_bases() -> Result<Vec<Base>, String> {
    read_bases(&paths::root().join(BASES_FILE))
}

/// A line's record name and value, when it has a colon.
fn split_record(line: &str) -> Option<(&str, &str)> {
    let (k, v) = line.split_once(':')?;
    Some((k.trim(), v.trim()))
}

fn is_group_record(line: &str) -> bool {
    matches!(
        split_record(line).map(|(k, _)| k.to_ascii_lowercase()),
        Some(k) if k == "user-agent" || k == "allow" || k == "disallow"
    )
}

fn is_rule(line: &str) -> bool {
    matches!(
        split_record(line).map(|(k, _)| k.to_ascii_lowercase()),
        Some(k) if k == "allow" || k == "disallow"
    )
}

fn is_user_agent(line: &str) -> bool {
    split_record(line).is_some_and(|(k, _)| k.eq_ignore_ascii_case("user-agent"))
}

/// Blocks separated by empty lines; the first one is a preamble when it does
/// not start with a user-agent line.
fn blocks(lines: &[String]) -> Vec<Vec<&str>> {
    let mut out: Vec<Vec<&str>> = vec![Vec::new()];
    for l in lines {
        if l.is_empty() {
            if !out.last().is_some_and(Vec::is_empty) {
                out.push(Vec::new());
            }
        } else {
            if let Some(b) = out.last_mut() {
                b.push(l);
            }
        }
    }
    out.retain(|b| !b.is_empty());
    out
}

fn join_blocks(blocks: &[Vec<String>]) -> Vec<String> {
    let mut out = Vec::new();
    for (i, b) in blocks.iter().enumerate() {
        if i > 0 {
            out.push(String::new());
        }
        out.extend(b.iter().cloned());
    }
    out
}

/// Whether reversing the group order is an RFC 9309 equivalence here: every
/// group must have a rule (an empty group absorbs the next group's
/// user-agent lines once moved before it), and there must be two groups.
fn reorderable(base: &Base) -> bool {
    let bs = blocks(&base.lines);
    let groups: Vec<_> = bs.iter().filter(|b| is_user_agent(b[0])).collect();
    groups.len() >= 2 && groups.iter().all(|g| g.iter().any(|l| is_rule(l)))
}

struct Variant {
    name: &'static str,
    what: &'static str,
}

const VARIANTS: &[Variant] = &[
    Variant { name: "lf", what: "the base file, LF line ends" },
    Variant { name: "crlf", what: "every line ends in CRLF (§2.2 NL = CR / LF / CRLF)" },
    Variant { name: "cr", what: "every line ends in CR alone (§2.2 NL)" },
    Variant { name: "mixed-eol", what: "line ends cycle LF, CRLF, CR (§2.2 NL)" },
    Variant {
        name: "comments",
        what: "comment lines before and inside every block, and a comment after every user-agent, allow and disallow line (§2.2 EOL, §2.2.3 #)",
    },
    Variant {
        name: "keycase",
        what: "record names in other letter cases: USER-AGENT, dIsAlLoW, aLLOW, SITEMAP (§2.2 ABNF literals are case-insensitive)",
    },
    Variant {
        name: "ws",
        what: "spaces and tabs before the record name, around the colon and after the value of user-agent, allow and disallow lines (§2.2 *WS)",
    },
    Variant {
        name: "blank",
        what: "an empty line after every allow and disallow rule (§2.2 group = ... *(rule / emptyline))",
    },
    Variant {
        name: "order",
        what: "the groups in reverse order (§2.2.1: the matching group is chosen by name, and groups for one agent are combined)",
    },
    Variant {
        name: "bom",
        what: "a UTF-8 BOM and a comment line before the file: read with the BOM stripped (RFC 3629 §6) the first line is a comment, kept it is an unparseable line (§2.3.1.5); either way no rule changes. RFC 9309 itself does not bless a BOM: see google-bom-full for a BOM right before a user-agent line",
    },
    Variant {
        name: "combo",
        what: "comments, keycase, ws and blank together, with CRLF line ends",
    },
];

fn keycase(line: &str) -> String {
    let Some((k, _)) = line.split_once(':') else {
        return line.to_string();
    };
    let rest = &line[k.len()..];
    let new_key = match k.trim().to_ascii_lowercase().as_str() {
        "user-agent" => "USER-AGENT".to_string(),
        "disallow" => "dIsAlLoW".to_string(),
        "allow" => "aLLOW".to_string(),
        "sitemap" => "SITEMAP".to_string(),
        other => other.to_string(),
    };
    format!("{new_key}{rest}")
}

fn ws(line: &str) -> String {
    if !is_group_record(line) {
        return line.to_string();
    }
    let (k, v) = split_record(line).unwrap_or((line, ""));
    if is_user_agent(line) {
        format!("  {k} :\t{v} ")
    } else if v.is_empty() {
        format!("\t{k}\t:  ")
    } else {
        format!("\t{k}\t:   {v} \t")
    }
}

fn comments(blocks: &[Vec<String>]) -> Vec<Vec<String>> {
    blocks
        .iter()
        .enumerate()
        .map(|(i, b)| {
            let mut out = vec![format!("# block {}", i + 1)];
            for (j, l) in b.iter().enumerate() {
                if is_group_record(l) {
                    out.push(format!("{l} # note {}", j + 1));
                } else {
                    out.push(l.clone());
                }
                if j == 0 {
                    out.push("   # an indented comment line".to_string());
                }
            }
            out
        })
        .collect()
}

fn blank(blocks: &[Vec<String>]) -> Vec<Vec<String>> {
    blocks
        .iter()
        .map(|b| {
            let mut out = Vec::new();
            for (j, l) in b.iter().enumerate() {
                out.push(l.clone());
                if is_rule(l) && j + 1 < b.len() {
                    out.push(String::new());
                }
            }
            out
        })
        .collect()
}

fn map_lines(blocks: &[Vec<String>], f: fn(&str) -> String) -> Vec<Vec<String>> {
    blocks
        .iter()
        .map(|b| b.iter().map(|l| f(l)).collect())
        .collect()
}

fn with_eol(lines: &[String], eol: &str) -> String {
    lines.iter().map(|l| format!("{l}{eol}")).collect()
}

fn mixed_eol(lines: &[String]) -> String {
    const EOLS: [&str; 3] = ["\n", "\r\n", "\r"];
    let mut out = String::new();
    let mut prev = "\n";
    for (i, l) in lines.iter().enumerate() {
        // An empty line ended by LF right after a CR would merge into one
        // CRLF and vanish; keep it a line of its own.
        let eol = if l.is_empty() && prev == "\r" {
            "\r"
        } else {
            EOLS[i % 3]
        };
        out.push_str(l);
        out.push_str(eol);
        prev = eol;
    }
    out
}

/// The body of one variant: (optional leading raw bytes in hex, text).
fn render(base: &Base, variant: &str) -> Option<(Option<&'static str>, String)> {
    let bs: Vec<Vec<String>> = blocks(&base.lines)
        .into_iter()
        .map(|b| b.into_iter().map(String::from).collect())
        .collect();
    let lf = |b: &[Vec<String>]| with_eol(&join_blocks(b), "\n");
    Some(match variant {
        "lf" => (None, lf(&bs)),
        "crlf" => (None, with_eol(&join_blocks(&bs), "\r\n")),
        "cr" => (None, with_eol(&join_blocks(&bs), "\r")),
        "mixed-eol" => (None, mixed_eol(&join_blocks(&bs))),
        "comments" => (None, lf(&comments(&bs))),
        "keycase" => (None, lf(&map_lines(&bs, keycase))),
        "ws" => (None, lf(&map_lines(&bs, ws))),
        "blank" => (None, lf(&blank(&bs))),
        "order" => {
            if !reorderable(base) {
                return None;
            }
            let (pre, groups): (Vec<_>, Vec<_>) =
                bs.into_iter().partition(|b| !is_user_agent(&b[0]));
            let mut v = pre;
            v.extend(groups.into_iter().rev());
            (None, lf(&v))
        }
        "bom" => (
            Some("ef bb bf"),
            format!(
                "# metamorphic variant: a BOM precedes this comment\n{}",
                lf(&bs)
            ),
        ),
        "combo" => {
            let v = blank(&map_lines(&map_lines(&comments(&bs), keycase), ws));
            (None, with_eol(&join_blocks(&v), "\r\n"))
        }
        _ => return None,
    })
}

/// The header above the cases: what the file is and how it is made.
fn header() -> String {
    let mut y = String::from(
        "# GENERATED by `cargo xtask gen-metamorphic` from cases/metamorphic/bases.yaml.\n\
         # Do not edit by hand: change the bases (or the generator) and rerun; `cargo xtask\n\
         # gen-metamorphic --check` fails when this file is out of date.\n\
         #\n\
         # Metamorphic families: each base robots.txt in variants that RFC 9309\n\
         # treats as the same file. All variants of a base share its `family` and\n\
         # its queries with their expectations; the first case of a family is the\n\
         # base. Variants:\n",
    );
    for v in VARIANTS {
        y.push_str(&format!("#   {:<10} {}\n", v.name, v.what));
    }
    y
}

/// Every variant of every base, as the loader's own case type.
fn cases(bases: &[Base]) -> Vec<RawCase> {
    let mut out = Vec::new();
    for base in bases {
        for v in VARIANTS {
            let Some((hex, text)) = render(base, v.name) else {
                continue;
            };
            let robots = match hex {
                None => BodySpec::Text(text),
                Some(h) => BodySpec::Parts(vec![
                    BodyPart {
                        hex: Some(h.to_string()),
                        ..BodyPart::default()
                    },
                    BodyPart {
                        text: Some(text),
                        ..BodyPart::default()
                    },
                ]),
            };
            let queries = base
                .queries
                .iter()
                .map(|q| RawQuery {
                    agent: Some(q.agent.clone()),
                    url: Some(format!("http://example.test{}", q.path)),
                    expect: serde_yaml::Value::from(if q.allowed {
                        "allowed"
                    } else {
                        "disallowed"
                    }),
                    rfc: Some(q.rfc.clone()),
                    ..RawQuery::default()
                })
                .collect();
            out.push(RawCase {
                id: format!("meta-{}-{}", base.name, v.name),
                title: format!("{} [{}]", base.title, v.name),
                tags: vec!["metamorphic".into()],
                source: format!(
                    "metamorphic variant `{}` of base `{}` (generated)",
                    v.name, base.name
                ),
                robots,
                queries,
                http: None,
                family: Some(format!("meta-{}", base.name)),
                notes: Some(v.what.to_string()),
            });
        }
    }
    out
}

/// The file's text: the header, then the cases written by `Serialize`.
fn generate(bases: &[Base]) -> Result<String, String> {
    let file = RawFile {
        cases: cases(bases),
    };
    let body = serde_yaml::to_string(&file).map_err(|e| format!("cannot write the cases: {e}"))?;
    Ok(header() + &body)
}

#[derive(Debug, clap::Args)]
pub struct Opts {
    /// Compare instead of writing; exit 1 when the file is out of date
    #[arg(long)]
    check: bool,
}

pub fn main(opts: Opts) -> Result<i32, Usage> {
    let path = paths::corpus_dir().join("metamorphic.yaml");
    let bases = load_bases().map_err(Usage)?;
    let text = generate(&bases).map_err(Usage)?;
    if opts.check {
        let on_disk = std::fs::read_to_string(&path).unwrap_or_default();
        if on_disk == text {
            log::info!("{} is up to date", path.display());
            return Ok(0);
        }
        log::error!(
            "{} is out of date; run `cargo xtask gen-metamorphic`",
            path.display()
        );
        return Ok(1);
    }
    if let Err(e) = std::fs::write(&path, &text) {
        log::error!("cannot write {}: {e}", path.display());
        return Ok(1);
    }
    let cases = cases(&bases).len();
    log::info!(
        "wrote {} ({cases} cases, {} families)",
        path.display(),
        bases.len()
    );
    Ok(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What the generator writes loads through the corpus loader as the
    /// cases it built, and writing those again gives the same text.
    fn bases() -> Vec<Base> {
        load_bases().unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn the_file_loads_as_written() {
        let bases = bases();
        let text = generate(&bases).unwrap();
        let path = Path::new("metamorphic.yaml");
        let loaded = engine::case::parse_file(path, &text).unwrap_or_else(|e| panic!("{e}"));
        let built = cases(&bases);
        assert_eq!(loaded.len(), built.len());
        for (l, b) in loaded.iter().zip(&built) {
            assert_eq!(l.id, b.id);
            assert_eq!(l.family, b.family);
            assert_eq!(l.body, b.robots.to_bytes().unwrap(), "{}", b.id);
            assert_eq!(l.queries.len(), b.queries.len(), "{}", b.id);
        }
        let back: RawFile = serde_yaml::from_str(&text).unwrap();
        assert_eq!(header() + &serde_yaml::to_string(&back).unwrap(), text);
    }

    /// The committed corpus file is the generator's output
    /// (`cargo xtask gen-metamorphic` rewrites it).
    #[test]
    fn the_committed_file_is_current() {
        let path = paths::corpus_dir().join("metamorphic.yaml");
        let on_disk = std::fs::read_to_string(&path).unwrap();
        assert!(
            on_disk == generate(&bases()).unwrap(),
            "{} is out of date: run `cargo xtask gen-metamorphic`",
            path.display()
        );
    }

    /// A bases file the structs do not describe (here an unknown field),
    /// broken YAML or no file at all is an error naming the file (and the
    /// line, when there is one), not a panic.
    #[test]
    fn a_malformed_bases_file_names_the_file() {
        let text = "bases:\n  - name: x\n    title: t\n    lines: [\"User-agent: *\"]\n    queries: []\n    colour: red\n";
        let file = Path::new("cases/metamorphic/bases.yaml");
        let err = parse_bases(file, text)
            .err()
            .expect("an unknown field must be refused");
        assert!(err.starts_with("cases/metamorphic/bases.yaml:6: "), "{err}");
        assert!(err.contains("unknown field `colour`"), "{err}");
        assert!(err.contains("column"), "{err}");
        let err = parse_bases(file, "bases: [").err().expect("broken YAML");
        assert!(err.starts_with("cases/metamorphic/bases.yaml:"), "{err}");
        let missing = Path::new("/nonexistent/cases/metamorphic/bases.yaml");
        let err = read_bases(missing).err().expect("no file");
        assert!(
            err.starts_with("/nonexistent/cases/metamorphic/bases.yaml: cannot read"),
            "{err}"
        );
    }
}
