//! The pre-RFC texts as one parser with two editions.
//!
//! - 1994: "A Standard for Robot Exclusion" (robots mailing list consensus,
//!   30 June 1994), cited by its parts: *The Format*, *The Method*.
//! - 1996: draft-koster-robots-00, "A Method for Web Robots Control"
//!   (4 December 1996), cited by section (§3.1 access method, §3.2 file
//!   format, §3.2.1 User-agent, §3.2.2 Allow and Disallow, §3.3 syntax).
//!
//! Where a text is silent the choice is a named field of [`Readings`] with
//! its default, and every answer's explanation names the text it applied.

/// Which text is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Edition {
    Y1994,
    Y1996,
}

/// Which string is searched inside which when a `User-agent` value is
/// compared with the robot's name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    /// The robot's name token inside the line's value: §3.2.1 of the 1996
    /// draft ("a User-Agent line whose value contains the name token of the
    /// robot as a substring"). `User-agent: MyBotPro` applies to MyBot,
    /// `User-agent: bot` does not.
    TokenInValue,
    /// The line's value inside the robot's name, as CPython's
    /// `urllib.robotparser` and Perl's WWW::RobotRules search:
    /// `User-agent: bot` applies to MyBot.
    ValueInToken,
}

/// Choices the texts leave open, each with the default a profile takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Readings {
    /// 1994 *The Format* recommends "a case insensitive substring match of
    /// the name without version information" without saying which string
    /// holds the other. Default: the 1996 draft's direction.
    pub direction: Direction,
    /// Is the query string part of what a rule is matched against? 1994:
    /// "any URL that starts with this value" (default: yes, the URL after
    /// the host). 1996 §3.2.2: "the path portion of the URL" (default: no).
    pub match_query: bool,
    /// 1996 §3.2.2 decodes `%xx` before comparing, except `%2F`. 1994 says
    /// nothing: default no decoding, octets as written.
    pub decode_percent: bool,
    /// 1996 §3.2.2 "The /robots.txt URL is always allowed". 1994 is silent:
    /// default not exempt.
    pub robots_txt_allowed: bool,
}

impl Readings {
    pub fn of(edition: Edition) -> Readings {
        match edition {
            Edition::Y1994 => Readings {
                direction: Direction::TokenInValue,
                match_query: true,
                decode_percent: false,
                robots_txt_allowed: false,
            },
            Edition::Y1996 => Readings {
                direction: Direction::TokenInValue,
                match_query: false,
                decode_percent: true,
                robots_txt_allowed: true,
            },
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rule {
    pub allow: bool,
    pub path: Vec<u8>,
    pub line: usize,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Record {
    /// The `User-agent` values as written (trimmed), with their lines.
    pub agents: Vec<(Vec<u8>, usize)>,
    pub rules: Vec<Rule>,
}

/// A parsed file: its records in file order.
#[derive(Debug, Clone, Default)]
pub struct Parsed {
    pub records: Vec<Record>,
}

/// Lines end at CR, LF or CRLF (1994 *The Format*: "terminated by CR,
/// CR/NL, or NL"; 1996 §3.3 writes CRLF and every robot of the time read
/// all three).
fn lines(body: &[u8]) -> impl Iterator<Item = &[u8]> {
    let mut rest = body;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let end = rest
            .iter()
            .position(|&b| b == b'\r' || b == b'\n')
            .unwrap_or(rest.len());
        let line = &rest[..end];
        let skip = match rest.get(end..end + 2) {
            Some(b"\r\n") => 2,
            _ if end < rest.len() => 1,
            _ => 0,
        };
        rest = &rest[end + skip..];
        Some(line)
    })
}

fn trim(s: &[u8]) -> &[u8] {
    let start = s
        .iter()
        .position(|b| !b" \t".contains(b))
        .unwrap_or(s.len());
    let end = s
        .iter()
        .rposition(|b| !b" \t".contains(b))
        .map_or(start, |i| i + 1);
    &s[start..end]
}

impl Parsed {
    /// Records are separated by blank lines (1994 *The Format*: "one or more
    /// records separated by one or more blank lines"; 1996 §3.2 "separated
    /// by blank lines"). A line holding only a comment is discarded and is
    /// no boundary (1994: "Lines containing only a comment are discarded
    /// completely, and therefore do not indicate a record boundary"; 1996
    /// §3.3 `commentline`). A record starts with its `User-agent` lines; a
    /// `User-agent` line after rules without a blank line starts a new
    /// record (the §3.3 grammar has no such record; this is the lenient
    /// reading every parser of the time took). Rule lines outside a record
    /// and unknown fields are ignored (1994: "Unrecognised headers are
    /// ignored"; 1996 §3.2 extensions). 1994 knows no `Allow`.
    pub fn parse(body: &[u8], edition: Edition) -> Parsed {
        let mut records: Vec<Record> = Vec::new();
        let mut open = false;
        for (i, raw) in lines(body).enumerate() {
            let no_comment = raw.split(|&b| b == b'#').next().unwrap_or(b"");
            if trim(raw).is_empty() {
                open = false;
                continue;
            }
            let Some(colon) = no_comment.iter().position(|&b| b == b':') else {
                continue;
            };
            let field = trim(&no_comment[..colon]).to_ascii_lowercase();
            let value = trim(&no_comment[colon + 1..]).to_vec();
            match field.as_slice() {
                b"user-agent" => {
                    let continues = open && records.last().is_some_and(|r| r.rules.is_empty());
                    if !continues {
                        records.push(Record::default());
                        open = true;
                    }
                    if let Some(r) = records.last_mut() {
                        r.agents.push((value, i + 1));
                    }
                }
                b"disallow" | b"allow" => {
                    let allow = field == b"allow";
                    if allow && edition == Edition::Y1994 {
                        continue;
                    }
                    if let (true, Some(r)) = (open, records.last_mut()) {
                        r.rules.push(Rule {
                            allow,
                            path: value,
                            line: i + 1,
                        });
                    }
                }
                _ => {}
            }
        }
        Parsed { records }
    }
}

/// The robot's name without version information: the caller's product
/// token (up to `/` or a space), lowercased (both texts: comparisons are
/// case-insensitive).
pub fn name_token(agent: &str) -> Vec<u8> {
    let token = agent
        .trim()
        .split(['/', ' ', '\t'])
        .next()
        .unwrap_or_default();
    token.to_ascii_lowercase().into_bytes()
}

fn contains(hay: &[u8], needle: &[u8]) -> bool {
    needle.is_empty() || hay.windows(needle.len()).any(|w| w == needle)
}

/// Which record applies, and why.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Chosen {
    /// The first record with a `User-agent` line naming the robot; the line.
    Named { record: usize, line: usize },
    /// The first `*` record; its line.
    Star { record: usize, line: usize },
    /// No record applies: access is unlimited.
    None,
}

/// 1996 §3.2.1: "the first record ... that contains a User-Agent line whose
/// value contains the name token of the robot as a substring", else "the
/// first record with a User-agent line with a "*" value", else unlimited.
/// 1994 *The Format*: the `*` record is for "any robot that has not matched
/// any of the other records"; taking the first match is this reading.
pub fn choose(parsed: &Parsed, token: &[u8], r: &Readings) -> Chosen {
    let named = |value: &[u8]| {
        let value = value.to_ascii_lowercase();
        match r.direction {
            Direction::TokenInValue => contains(&value, token),
            Direction::ValueInToken => !value.is_empty() && contains(token, &value),
        }
    };
    let mut star = Chosen::None;
    for (i, rec) in parsed.records.iter().enumerate() {
        for (value, line) in &rec.agents {
            if value.as_slice() == b"*" {
                if star == Chosen::None {
                    star = Chosen::Star {
                        record: i,
                        line: *line,
                    };
                }
            } else if named(value) {
                return Chosen::Named {
                    record: i,
                    line: *line,
                };
            }
        }
    }
    star
}

/// 1996 §3.2.2: "If a %xx encoded octet is encountered it is unencoded
/// prior to comparison, unless it is the "/" character". `%2F` stays
/// encoded (hex uppercased so `%2f` and `%2F` compare equal); a `%` not
/// followed by two hex digits stays as written.
pub fn decode(s: &[u8]) -> Vec<u8> {
    let hex = |b: u8| (b as char).to_digit(16).map(|d| d as u8);
    let mut out = Vec::with_capacity(s.len());
    let mut i = 0;
    while i < s.len() {
        if s[i] == b'%' && i + 2 < s.len() {
            if let (Some(h), Some(l)) = (hex(s[i + 1]), hex(s[i + 2])) {
                let octet = h << 4 | l;
                if octet == b'/' {
                    out.extend_from_slice(b"%2F");
                } else {
                    out.push(octet);
                }
                i += 3;
                continue;
            }
        }
        out.push(s[i]);
        i += 1;
    }
    out
}

/// What of the URL the rules are matched against: the part after the
/// authority (`/` when empty), the fragment dropped, the query kept or not
/// per [`Readings::match_query`].
pub fn url_path(url: &str, r: &Readings) -> Vec<u8> {
    let no_fragment = url.split('#').next().unwrap_or_default();
    let after_scheme = no_fragment
        .find("://")
        .map_or(no_fragment, |i| &no_fragment[i + 3..]);
    let path = after_scheme
        .find('/')
        .map_or("", |i| &after_scheme[i..])
        .to_string();
    let path = if r.match_query {
        path
    } else {
        path.split('?').next().unwrap_or_default().to_string()
    };
    let path = if path.is_empty() { "/".into() } else { path };
    if r.decode_percent {
        decode(path.as_bytes())
    } else {
        path.into_bytes()
    }
}

/// 1996 §3.2.2: "The match evaluates positively if and only if the end of
/// the path from the record is reached before a difference in octets is
/// encountered"; 1994 *The Format*: "any URL that starts with this value".
/// An empty value matches nothing (1994: "Any empty value, indicates that
/// all URLs can be retrieved"; 1996 §4's `Disallow:` for webcrawler).
pub fn matches(rule: &[u8], path: &[u8], r: &Readings) -> bool {
    if rule.is_empty() {
        return false;
    }
    let rule = if r.decode_percent {
        decode(rule)
    } else {
        rule.to_vec()
    };
    path.starts_with(&rule)
}
