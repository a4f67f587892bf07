//! Reading the file to lint, and refusing what no parser reads as rules.
//!
//! A robots.txt is plain text: a file above [`MAX_BYTES`], a binary file
//! or a UTF-16 one is refused with a sentence saying why (exit status 2),
//! before any oracle starts. A file that is text but not valid UTF-8 is
//! linted (real files often carry a Latin-1 byte in a comment, and parsers
//! do read such files, differently) with a note naming the first bad byte.

use std::io::Read;

/// The largest file lint reads: 10 MiB. Google's parser reads the first
/// 500 KiB and most others read everything; above 10 MiB a file is no
/// robots.txt anyone serves, and asking every parser about it costs minutes.
pub const MAX_BYTES: u64 = 10 * 1024 * 1024;

/// Google's documented limit ("Content after 500 KiB is ignored", Google's
/// robots.txt documentation) and RFC 9309 §2.5's least parsing limit
/// ("MUST be at least 500 kibibytes").
pub const PARSE_LIMIT: usize = 500 * 1024;

/// A file past [`PARSE_LIMIT`]: what a crawler that stops there ignores.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct Oversize {
    pub bytes: usize,
    pub limit: usize,
    /// The first line not whole within the limit (1-based).
    pub first_ignored_line: usize,
    /// `allow`/`disallow` lines from there on.
    pub rules_ignored: usize,
}

impl Oversize {
    pub fn of(body: &[u8]) -> Option<Oversize> {
        if body.len() <= PARSE_LIMIT {
            return None;
        }
        let kept = &body[..PARSE_LIMIT];
        // A line cut by the limit counts as ignored: a rule cut short is another rule.
        let whole = kept.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
        let first_ignored_line = position(body, whole).line;
        let rules_ignored = body[whole..]
            .split(|&b| b == b'\n' || b == b'\r')
            .filter(|l| {
                let key = l.split(|&b| b == b':').next().unwrap_or_default();
                let key = String::from_utf8_lossy(key).trim().to_ascii_lowercase();
                l.contains(&b':') && (key == "allow" || key == "disallow")
            })
            .count();
        Some(Oversize {
            bytes: body.len(),
            limit: PARSE_LIMIT,
            first_ignored_line,
            rules_ignored,
        })
    }
}

/// Bytes sniffed for binary content.
const SNIFF: usize = 8192;

/// Why a file is not linted, in one sentence for the user.
#[derive(Debug, PartialEq, Eq)]
pub struct Refusal(pub String);

/// The file, read whole and checked.
#[derive(Debug)]
pub struct File {
    /// How the user named it (`standard input` for `-`).
    pub name: String,
    pub body: Vec<u8>,
    /// Set when the body is not valid UTF-8: where the first bad byte is.
    pub not_utf8: Option<Position>,
    /// Set when the body is past [`PARSE_LIMIT`].
    pub oversize: Option<Oversize>,
    /// Set when the file was fetched (`lint URL`): the status, the
    /// redirects, the final URL.
    pub fetched: Option<String>,
}

/// A place in the file, 1-based, as an editor shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct Position {
    pub line: usize,
    pub column: usize,
}

/// Read `name` (`-`: stdin) and check it; never reads more than
/// [`MAX_BYTES`] + 1 bytes.
pub fn read(name: &str) -> Result<File, Refusal> {
    let mut body = Vec::new();
    let read = if name == "-" {
        std::io::stdin().take(MAX_BYTES + 1).read_to_end(&mut body)
    } else {
        std::fs::File::open(name).and_then(|f| f.take(MAX_BYTES + 1).read_to_end(&mut body))
    };
    let name = if name == "-" { "standard input" } else { name };
    read.map_err(|e| Refusal(format!("cannot read {name}: {e}")))?;
    check(name, body)
}

/// The checks on bytes already read.
pub fn check(name: &str, body: Vec<u8>) -> Result<File, Refusal> {
    if body.len() as u64 > MAX_BYTES {
        return Err(Refusal(format!(
            "{name} is larger than 10 MiB ({MAX_BYTES} bytes), lint's limit: no crawler \
             reads a robots.txt that large (Google stops at 500 KiB); refused"
        )));
    }
    if let Some(why) = binary(&body) {
        return Err(Refusal(format!(
            "{name} is not a text file ({why}): a robots.txt is plain UTF-8 text, \
             and no parser reads rules from it; refused"
        )));
    }
    let not_utf8 = std::str::from_utf8(&body)
        .err()
        .map(|e| position(&body, e.valid_up_to()));
    Ok(File {
        name: name.to_string(),
        oversize: Oversize::of(&body),
        fetched: None,
        body,
        not_utf8,
    })
}

/// Why `body` looks binary, or `None` for text: a UTF-16 byte-order mark,
/// a known compressed or image format, or a NUL or many control bytes at
/// the start.
fn binary(body: &[u8]) -> Option<String> {
    let magic: &[(&[u8], &str)] = &[
        (b"\xFF\xFE", "UTF-16 encoded; save it as UTF-8"),
        (b"\xFE\xFF", "UTF-16 encoded; save it as UTF-8"),
        (b"\x1F\x8B", "gzip-compressed; serve it uncompressed"),
        (b"PK\x03\x04", "a zip archive"),
        (b"\x89PNG", "a PNG image"),
        (b"%PDF", "a PDF document"),
    ];
    if let Some((_, what)) = magic.iter().find(|(m, _)| body.starts_with(m)) {
        return Some(what.to_string());
    }
    let head = &body[..body.len().min(SNIFF)];
    if let Some(at) = head.iter().position(|&b| b == 0) {
        return Some(format!("a NUL byte at offset {at}"));
    }
    let control = head
        .iter()
        .filter(|&&b| b < 0x20 && !matches!(b, b'\t' | b'\n' | b'\r' | 0x0C))
        .count();
    (control * 10 > head.len())
        .then(|| format!("{control} control bytes in its first {} bytes", head.len()))
}

/// Line and column (in bytes) of byte `at`.
fn position(body: &[u8], at: usize) -> Position {
    let before = &body[..at];
    let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
    let start = before
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    Position {
        line,
        column: at - start + 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_passes_and_bad_utf8_is_located() {
        let f = check("r", b"User-agent: *\nDisallow: /\xE9t\xE9\n".to_vec()).expect("text");
        assert_eq!(
            f.not_utf8,
            Some(Position {
                line: 2,
                column: 12
            })
        );
        let f = check("r", b"User-agent: *\n".to_vec()).expect("text");
        assert_eq!(f.not_utf8, None);
    }

    #[test]
    fn binary_and_huge_files_are_refused() {
        for body in [
            b"\x1F\x8B\x08\x00rest".to_vec(),
            b"\xFF\xFEU\x00s\x00".to_vec(),
            b"User-agent: *\x00\n".to_vec(),
            vec![1u8; 100],
        ] {
            assert!(check("r", body).is_err());
        }
        let huge = vec![b'#'; MAX_BYTES as usize + 1];
        let Err(Refusal(why)) = check("r", huge) else {
            panic!("a file over the limit is refused");
        };
        assert!(why.contains("10 MiB"), "{why}");
    }
}
