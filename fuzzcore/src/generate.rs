//! Generators: what the fuzz targets feed the oracles.
//!
//! - [`Model`]: a structured model of a robots.txt, derived with
//!   `arbitrary` — groups, agent lines (with the spellings and typos real
//!   files carry), rules with `*`, `$`, percent escapes, non-ASCII, stray
//!   bytes, comments, blank lines, other records, long lines, a BOM and the
//!   three line-end styles — rendered to bytes, plus queries whose agent and
//!   URL are drawn from the file's own groups and rules so that they hit
//!   them most of the time; half the aimed URLs are built from a rule's
//!   literal piece in a relation to it (repeated, nested, elsewhere in the
//!   path, then a query or fragment, past a sibling rule, case changed,
//!   percent-encoded or decoded: `related_path`), the other half carry
//!   its `*` filled and a suffix. Every class of [`crate::classes`] is
//!   reachable (the tests check it): a class the generator cannot produce
//!   is a disagreement the fuzzer cannot find.
//! - [`queries_for_body`]: queries for a raw body (the `differential_bytes`
//!   target and corpus seeds), aimed at the body's first group and rule.
//!
//! Knobs are plain `u8`s read by the renderer, so rare shapes (a BOM, a
//! 20 KB line, a version suffix on the agent) stay rare whatever `arbitrary`
//! does with enum variants.

use arbitrary::Arbitrary;
use engine::oracle::{Ask, Query};

/// Caps that keep one input cheap for all eight oracles.
/// Small on purpose: the Python parsers cost 10-20 us per line, and
/// divergences show in small files (and minimise faster).
const MAX_GROUPS: usize = 3;
const MAX_LINES: usize = 6;
const MAX_AGENTS: usize = 2;
const MAX_SEGS: usize = 8;
const MAX_QUERIES: usize = 2;

#[derive(Arbitrary, Debug, Clone)]
pub struct Model {
    pub style: Style,
    /// Lines before the first group (orphan rules, comments, sitemaps).
    pub preamble: Vec<Line>,
    pub groups: Vec<Group>,
    pub queries: Vec<QuerySpec>,
}

#[derive(Arbitrary, Debug, Clone, Copy)]
pub struct Style {
    /// < 14: a UTF-8 BOM; < 18: two; < 20: a BOM after the first line;
    /// < 24: a partial BOM (`EF BB`) at the start.
    pub bom: u8,
    /// < 180 LF, < 215 CRLF, < 235 CR, else each line its own.
    pub eol: u8,
    /// < 200: the last line ends with a line end.
    pub final_eol: u8,
    /// < 24: a blank line between groups.
    pub blank_between: u8,
}

#[derive(Arbitrary, Debug, Clone)]
pub struct Group {
    pub agents: Vec<AgentLine>,
    pub lines: Vec<Line>,
}

#[derive(Arbitrary, Debug, Clone, Copy)]
pub struct AgentLine {
    pub key: u8,
    pub sep: u8,
    pub name: u8,
    pub case: u8,
    pub tail: u8,
}

#[derive(Arbitrary, Debug, Clone)]
pub struct RuleLine {
    pub allow: bool,
    pub key: u8,
    pub sep: u8,
    pub pattern: Vec<Seg>,
    /// `% 16`: 0-4 something after the pattern (a comment, spaces, a
    /// word); 5 or 6 a sibling rule on the next line (see `render_rule`).
    pub tail: u8,
}

#[derive(Arbitrary, Debug, Clone, Copy)]
pub enum Seg {
    Slash,
    Word(u8),
    Star,
    Dollar,
    /// A percent escape; the URL may carry it decoded or re-cased.
    Pct(u8),
    /// Raw non-ASCII text; the URL may carry it percent-encoded.
    Utf8(u8),
    /// A stray byte (invalid UTF-8, controls, separators Python splits on).
    Byte(u8),
    /// `?`, `&`, `=`, `#` and friends.
    Punct(u8),
}

#[derive(Arbitrary, Debug, Clone)]
pub enum Line {
    Rule(RuleLine),
    Rule2(RuleLine),
    Rule3(RuleLine),
    /// A user-agent line after rules: starts a new group mid-list.
    Agent(AgentLine),
    Comment(u8),
    Blank(u8),
    Sitemap(u8),
    Other(u8, u8),
    Garbage(Vec<u8>),
    /// A long line: (kind, length knob).
    Long(u8, u8),
    /// A rule with an `ODD` octet sequence spliced in: (rule, where,
    /// which).
    Odd(RuleLine, u8, u8),
}

#[derive(Arbitrary, Debug, Clone, Copy)]
pub struct QuerySpec {
    /// Which agent: < 200 one of the file's group names, else the pool.
    pub agent: u8,
    /// < 10: add a version `/1.0`; < 40: change case; < 48: leading space;
    /// < 54: empty; < 64: a full User-Agent header around it; < 72:
    /// punctuation; < 78: non-ASCII; < 82: whitespace only.
    pub agent_tweak: u8,
    /// Which rule the URL aims at (modulo the rules rendered).
    pub target: u8,
    /// What a `*` becomes in the URL.
    pub fill: u8,
    /// What follows the matched prefix.
    pub suffix: u8,
    /// Bits: 0 decode `%XX` in the URL, 1 encode non-ASCII, 2 upper-case
    /// escapes, 3-4 scheme/host form, 5 aim at no rule.
    pub form: u8,
    /// >= 176: one of RFC 3986's rarer URL shapes (see `url_shape`).
    pub shape: u8,
    /// From 128 up: the URL is built from the aimed rule's literal piece in
    /// one of the relations of `related_path` (repeated, nested,
    /// elsewhere in the path, then a query, case changed, percent-encoded
    /// and so on). Last, so that a model cut short in it reads 0: the
    /// plain aimed URL.
    pub relate: u8,
}

impl QuerySpec {
    /// Every knob at its first choice and the agent untweaked: the query a
    /// model without queries is asked.
    pub const PLAIN: QuerySpec = QuerySpec {
        agent: 0,
        agent_tweak: 255,
        target: 0,
        fill: 0,
        suffix: 0,
        form: 0,
        shape: 0,
        relate: 0,
    };
}

fn pick<'a>(pool: &[&'a str], k: u8) -> &'a str {
    pool[k as usize % pool.len()]
}

const UA_KEYS: &[&str] = &[
    "User-agent",
    "User-agent",
    "User-agent",
    "user-agent",
    "USER-AGENT",
    "User-Agent",
    "useragent",
    "user agent",
    "User_agent",
    "user-agnet",
    " User-agent",
    "User-agent ",
    "\tUser-agent",
    "X-User-agent",
    "User-agent #c",
];
const SEPS: &[&str] = &[
    ": ", ": ", ": ", ":", ":  ", " : ", "\t:\t", " ", ":\t", "=", ": # ",
];
const AGENT_NAMES: &[&str] = &[
    "*",
    "*",
    "foobot",
    "foobot",
    "FooBot",
    "foo-bot",
    "foo_bot",
    "Foo2Bot",
    "foobot/1.0",
    "foo bot",
    "googlebot",
    "Googlebot-News",
    "bar",
    "",
    "*bot",
    "foo*",
    "mybot",
    "bot",
    "b",
    "\u{c4}bot",
    "Mozilla/5.0 (compatible; foobot/2.1)",
    "foobot;x",
    "FOOBOT",
    "foobot*",
    "* foobot",
];
const CALLER_POOL: &[&str] = &[
    "foobot",
    "FooBot",
    "bar",
    "googlebot",
    "Googlebot-News",
    "otherbot",
    "b",
    "foo-bot",
    "foo_bot",
    "Foo2Bot",
    "mybot",
    "\u{c4}bot",
];
const ALLOW_KEYS: &[&str] = &[
    "Allow", "Allow", "allow", "ALLOW", "Alow", "allow ", " Allow", "X-Allow", "Allow #c",
];
const DISALLOW_KEYS: &[&str] = &[
    "Disallow",
    "Disallow",
    "Disallow",
    "disallow",
    "DISALLOW",
    "Dissallow",
    "Disalow",
    "dissalow",
    "Diasllow",
    "disallaw",
    "Dis-allow",
    "Disallow ",
    "  Disallow",
    "\tDisallow",
    "x-Disallow",
    "Disallow#c ",
];
const WORDS: &[&str] = &[
    "a", "b", "fish", "foo", "bar", "x.html", "index", "tmp", "private", "page", "c", "A", "Fish",
    "q", "1", "~user", "a-b", "a_b", ".", "..", "cgi-bin", "x.php",
];
/// Escapes and what each decodes to, in the URL.
const PCTS: &[(&str, &str)] = &[
    ("%2F", "/"),
    ("%2f", "/"),
    ("%61", "a"),
    ("%7E", "~"),
    ("%7e", "~"),
    ("%20", " "),
    ("%25", "%"),
    ("%2A", "*"),
    ("%24", "$"),
    ("%3F", "?"),
    ("%3f", "?"),
    ("%C3%A4", "\u{e4}"),
    ("%c3%a4", "\u{e4}"),
    ("%E2%82%AC", "\u{20ac}"),
    ("%26", "&"),
    ("%3D", "="),
    ("%23", "#"),
    ("%41", "A"),
    ("%5F", "_"),
    ("%2D", "-"),
    ("%2E", "."),
    ("%FF", "\u{fffd}"),
    ("%", "%"),
    ("%G1", "%G1"),
];
/// Non-ASCII text and its percent-encoded UTF-8.
const UTF8S: &[(&str, &str)] = &[
    ("\u{e4}", "%C3%A4"),
    ("\u{e9}", "%C3%A9"),
    ("\u{65e5}\u{672c}", "%E6%97%A5%E6%9C%AC"),
    ("\u{20ac}", "%E2%82%AC"),
    ("\u{2028}", "%E2%80%A8"),
    ("\u{85}", "%C2%85"),
    ("\u{a0}", "%C2%A0"),
    ("\u{feff}", "%EF%BB%BF"),
    ("\u{1f916}", "%F0%9F%A4%96"),
    ("\u{c4}", "%C3%84"),
    ("\u{2000}", "%E2%80%80"),
    ("\u{2003}", "%E2%80%83"),
    ("\u{200a}", "%E2%80%8A"),
    ("\u{3000}", "%E3%80%80"),
    ("\u{200b}", "%E2%80%8B"),
    ("\u{200e}", "%E2%80%8E"),
    ("\u{9b}", "%C2%9B"),
];
const BYTES: &[u8] = &[
    0xFF, 0x80, 0x00, 0x0B, 0x0C, 0x1C, 0x1D, 0x1E, 0x7F, b'\t', 0xC3, 0xE2, b'\\', b'"', b' ',
    0x85, 0x01, 0x1B,
];
/// Octets spliced into a rule line's structure (before the key, around
/// the separator, at the end), where parsers disagree on what counts as
/// whitespace, a line break or a character of the key: Unicode spaces,
/// format characters, NEL both ways, C0 controls, a partial BOM and
/// invalid UTF-8 (an overlong `/`, a surrogate).
const ODD: &[&[u8]] = &[
    b"\xC2\xA0",
    b"\xE2\x80\x80",
    b"\xE2\x80\x83",
    b"\xE2\x80\x8A",
    b"\xE3\x80\x80",
    b"\xE2\x80\x8B",
    b"\xE2\x80\x8E",
    b"\xEF\xBB\xBF",
    b"\xC2\x85",
    b"\x85",
    b"\x0B",
    b"\x0C",
    b"\x00",
    b"\x1F",
    b"\xC2\x9B",
    b"\xEF\xBB",
    b"\xFF",
    b"\xC0\xAF",
    b"\xED\xA0\x80",
];
const PUNCTS: &[&str] = &[
    "?", "?a=1", "&", "=", "#", "#x", ";", ",", "+", "!", "@", ":", "'", "(", "[", "|",
];
const COMMENTS: &[&str] = &[
    "# comment",
    "#",
    "  # indented comment",
    "# User-agent: foobot",
    "# Disallow: /",
    "#\u{e4}\u{20ac}",
];
const BLANKS: &[&str] = &["", "", " ", "\t", "  \t "];
const SITEMAPS: &[&str] = &[
    "Sitemap: http://example.test/sitemap.xml",
    "sitemap: /s.xml",
    "Site-map: http://example.test/s.xml",
];
const OTHER_KEYS: &[&str] = &[
    "Crawl-delay",
    "Request-rate",
    "Host",
    "Noindex",
    "Clean-param",
    "Visit-time",
    "X-Unknown",
    "Allowed",
    "Disallowed",
    "UserAgent",
    "Agent",
    "",
    "Content-Usage",
    "Content-Signal",
    "License",
    "DisallowAITraining",
    "AllowAITraining",
];
const OTHER_VALUES: &[&str] = &[
    "5",
    "1/10",
    "example.test",
    "/",
    "/a",
    "0.5",
    "",
    "*",
    "foobot",
    "x y",
    "train-ai=n",
    "/ai-ok/ train-ai=y",
    "search=yes, ai-train=no",
    "https://example.test/license.xml",
];
const FILLS: &[&str] = &[
    "", "x", "abc", "/", "a/b", "%2F", "*", "$", "\u{e4}", "fish",
];
const SUFFIXES: &[&str] = &[
    "",
    "",
    "",
    "/",
    "x",
    ".html",
    "?q=1",
    "#frag",
    "/sub/page",
    "?",
    "%2F",
    "$",
    "\u{e4}",
    ";p",
];

struct Out {
    /// Render lines past 16 KB (robustness targets only: in the
    /// differential loop one such input costs as much as thousands of
    /// ordinary ones in the robotstxt crate's quadratic matcher).
    huge_lines: bool,
    body: Vec<u8>,
    style: Style,
    line_no: usize,
    /// Agent names rendered (for drawing callers) and rules (for URLs).
    names: Vec<String>,
    rules: Vec<Vec<Seg>>,
    /// Each rule's piece (see [`piece_of`]), as its line spells it, and
    /// whether a sibling rule follows it (see `render_rule`).
    pieces: Vec<Option<String>>,
    siblings: Vec<bool>,
}

impl Out {
    /// A rule rendered: its segments and its pattern's bytes.
    fn rule(&mut self, segs: Vec<Seg>, pattern: &[u8]) {
        self.rules.push(segs);
        self.pieces.push(piece_of(pattern));
        self.siblings.push(false);
    }

    fn eol(&self, knob: u8) -> &'static [u8] {
        let which = if self.style.eol >= 235 {
            knob
        } else {
            self.style.eol
        };
        match which {
            0..=179 => b"\n",
            180..=214 => b"\r\n",
            _ => b"\r",
        }
    }

    fn line(&mut self, text: &[u8], knob: u8) {
        if self.line_no > 0 {
            let e = self.eol(knob.wrapping_add(self.line_no as u8));
            self.body.extend_from_slice(e);
        }
        if self.line_no == 1 && (18..20).contains(&self.style.bom) {
            self.body.extend_from_slice(b"\xEF\xBB\xBF");
        }
        self.body.extend_from_slice(text);
        self.line_no += 1;
    }
}

fn case_of(name: &str, knob: u8) -> String {
    match knob % 8 {
        0 => name.to_ascii_uppercase(),
        1 => name.to_ascii_lowercase(),
        2 => {
            let mut s = String::new();
            for (i, c) in name.chars().enumerate() {
                if i % 2 == 0 {
                    s.extend(c.to_uppercase());
                } else {
                    s.push(c);
                }
            }
            s
        }
        _ => name.to_string(),
    }
}

fn render_agent(out: &mut Out, a: &AgentLine) {
    let name = case_of(pick(AGENT_NAMES, a.name), a.case);
    out.names.push(name.clone());
    let mut line = String::new();
    line.push_str(pick(UA_KEYS, a.key));
    line.push_str(pick(SEPS, a.sep));
    line.push_str(&name);
    match a.tail % 16 {
        0 => line.push_str(" # comment"),
        1 => line.push_str("#c"),
        2 => line.push(' '),
        3 => line.push('\t'),
        4 => line.push_str(" /1.0"),
        // An unusual octet in the user-agent value (RFC 9309's
        // product-token has none): a no-break space, a vertical tab.
        5 => line.push('\u{a0}'),
        6 => line.insert(line.len() - name.len(), '\u{b}'),
        _ => {}
    }
    out.line(line.as_bytes(), a.tail);
}

fn render_pattern(segs: &[Seg], out: &mut Vec<u8>) {
    for s in segs.iter().take(MAX_SEGS) {
        match *s {
            Seg::Slash => out.push(b'/'),
            Seg::Word(k) => out.extend_from_slice(pick(WORDS, k).as_bytes()),
            Seg::Star => out.push(b'*'),
            Seg::Dollar => out.push(b'$'),
            Seg::Pct(k) => out.extend_from_slice(PCTS[k as usize % PCTS.len()].0.as_bytes()),
            Seg::Utf8(k) => out.extend_from_slice(UTF8S[k as usize % UTF8S.len()].0.as_bytes()),
            Seg::Byte(k) => out.push(BYTES[k as usize % BYTES.len()]),
            Seg::Punct(k) => out.extend_from_slice(pick(PUNCTS, k).as_bytes()),
        }
    }
}

/// What a rule's literal prefix is followed by in its sibling rule: each
/// sorts between the prefix and the prefix followed by `/` or `?` (`-`,
/// `.`, `+`, `!`, `,` and digits come before both), so that a sorted map's
/// `floor()` of a URL like `/a/x` finds the sibling `/a-b` and misses
/// `/a` (Heritrix's bug).
const SIBLINGS: &[&str] = &["-b", ".b", "+b", "!", ",x", "-", "1", ".html"];

/// A rule line; with `tail % 16` 5 or 6 a sibling rule follows it (its
/// literal prefix, then one of [`SIBLINGS`]; the key flipped by the tail's
/// top bit), so the queries' `/x` relation can fall between the two.
fn render_rule(out: &mut Out, r: &RuleLine) {
    let (line, _, _) = rule_bytes(r);
    let pattern = pattern_bytes(r);
    out.rule(rule_segs(r), &pattern);
    out.line(&line, r.tail);
    if matches!(r.tail % 16, 5 | 6) {
        let prefix = pattern
            .split(|&b| b == b'*' || b == b'$')
            .next()
            .unwrap_or(&[]);
        let allow = r.allow ^ (r.tail >= 128);
        let key: &[u8] = if allow { b"Allow: " } else { b"Disallow: " };
        let mut sibling = key.to_vec();
        sibling.extend_from_slice(prefix);
        sibling.extend_from_slice(pick(SIBLINGS, r.tail / 16).as_bytes());
        out.line(&sibling, r.tail.wrapping_add(1));
        if let Some(s) = out.siblings.last_mut() {
            *s = true;
        }
    }
}

/// A rule's segments as its line renders them: at most [`MAX_SEGS`], with
/// the `/` that [`rule_bytes`] puts before a pattern lacking one, so that
/// a URL built from them carries the rule's text.
fn rule_segs(r: &RuleLine) -> Vec<Seg> {
    let mut segs = Vec::with_capacity(MAX_SEGS + 1);
    if slash_added(r) {
        segs.push(Seg::Slash);
    }
    segs.extend(r.pattern.iter().take(MAX_SEGS).copied());
    segs
}

/// The pattern as [`rule_bytes`] writes it.
fn pattern_bytes(r: &RuleLine) -> Vec<u8> {
    let mut v = Vec::with_capacity(32);
    if slash_added(r) {
        v.push(b'/');
    }
    render_pattern(&r.pattern, &mut v);
    v
}

/// A rule's *piece*, as `crate::classes` reads it from the body: the
/// pattern up to a `#`, then its first run between `*` and `$` that holds
/// more than `/`; written for a URL (controls, spaces and bytes that are
/// not UTF-8 escaped). `None` when there is none (`/`, `/*`, empty) or it
/// is past 512 bytes (a long line).
fn piece_of(pattern: &[u8]) -> Option<String> {
    let value = pattern.split(|&b| b == b'#').next()?;
    let raw = value
        .split(|&b| b == b'*' || b == b'$')
        .find(|p| p.iter().any(|&b| b != b'/'))?;
    if raw.len() > 512 {
        return None;
    }
    let mut text = String::with_capacity(raw.len());
    for chunk in raw.utf8_chunks() {
        for c in chunk.valid().chars() {
            if c.is_control() || c == ' ' {
                let mut buf = [0u8; 4];
                for b in c.encode_utf8(&mut buf).bytes() {
                    text.push_str(&format!("%{b:02X}"));
                }
            } else {
                text.push(c);
            }
        }
        for b in chunk.invalid() {
            text.push_str(&format!("%{b:02X}"));
        }
    }
    Some(text)
}

/// Whether [`rule_bytes`] writes a `/` before the pattern.
fn slash_added(r: &RuleLine) -> bool {
    r.key % 8 != 7 && !matches!(r.pattern.first(), Some(Seg::Slash)) && !r.pattern.is_empty()
}

/// A rule line, with where its key ends and its separator ends.
fn rule_bytes(r: &RuleLine) -> (Vec<u8>, usize, usize) {
    let mut line = Vec::new();
    let key = if r.allow {
        pick(ALLOW_KEYS, r.key)
    } else {
        pick(DISALLOW_KEYS, r.key)
    };
    line.extend_from_slice(key.as_bytes());
    let key_end = line.len();
    line.extend_from_slice(pick(SEPS, r.sep).as_bytes());
    let sep_end = line.len();
    // Most patterns start with `/`, as the RFC's ABNF wants.
    if slash_added(r) {
        line.push(b'/');
    }
    render_pattern(&r.pattern, &mut line);
    match r.tail % 16 {
        0 => line.extend_from_slice(b" # comment"),
        1 => line.extend_from_slice(b"#"),
        2 => line.push(b' '),
        3 => line.extend_from_slice(b" \t"),
        4 => line.extend_from_slice(b" x"),
        _ => {}
    }
    (line, key_end, sep_end)
}

/// A rule with an odd octet sequence at one of its structural places.
/// The URL is aimed at the rule as if the octets were not there: whether
/// a parser skips them, keeps them or splits the line on them is what
/// tells it apart.
fn render_odd(out: &mut Out, r: &RuleLine, at: u8, which: u8) {
    let (mut line, key_end, sep_end) = rule_bytes(r);
    let pos = match at % 5 {
        0 => 0,
        1 => key_end,
        2 => sep_end,
        3 => line.len(),
        // Mid-value: after the pattern's first byte.
        _ => (sep_end + 1).min(line.len()),
    };
    let odd = ODD[which as usize % ODD.len()];
    line.splice(pos..pos, odd.iter().copied());
    out.rule(rule_segs(r), &pattern_bytes(r));
    out.line(&line, r.tail);
}

fn render_line(out: &mut Out, l: &Line) {
    match l {
        Line::Rule(r) | Line::Rule2(r) | Line::Rule3(r) => render_rule(out, r),
        Line::Agent(a) => render_agent(out, a),
        Line::Odd(r, at, which) => render_odd(out, r, *at, *which),
        Line::Comment(k) => out.line(pick(COMMENTS, *k).as_bytes(), *k),
        Line::Blank(k) => out.line(pick(BLANKS, *k).as_bytes(), *k),
        Line::Sitemap(k) => out.line(pick(SITEMAPS, *k).as_bytes(), *k),
        Line::Other(k, v) => {
            let text = format!("{}: {}", pick(OTHER_KEYS, *k), pick(OTHER_VALUES, *v));
            out.line(text.as_bytes(), *k);
        }
        Line::Garbage(bytes) => {
            let b: Vec<u8> = bytes
                .iter()
                .take(40)
                .copied()
                .filter(|&b| b != b'\n' && b != b'\r')
                .collect();
            out.line(&b, b.first().copied().unwrap_or(0));
        }
        Line::Long(kind, len) => {
            // Rare and really long (past Google's 16,664-byte line limit),
            // otherwise up to 255 bytes; runs of `*` stay short, as long
            // runs only measure each matcher's backtracking.
            let n = if *kind < 3 && out.huge_lines {
                16_000 + *len as usize * 20
            } else if kind % 4 == 1 {
                *len as usize % 48
            } else {
                *len as usize
            };
            let line = match kind % 4 {
                0 => {
                    let mut l = b"Disallow: /".to_vec();
                    l.extend(std::iter::repeat_n(b'a', n));
                    l
                }
                1 => {
                    let mut l = b"Disallow: /".to_vec();
                    l.extend(std::iter::repeat_n(b'*', n));
                    l.extend_from_slice(b"z");
                    l
                }
                2 => {
                    let mut l = b"# ".to_vec();
                    l.extend(std::iter::repeat_n(b'c', n));
                    l
                }
                _ => {
                    let mut l = b"User-agent: ".to_vec();
                    l.extend(std::iter::repeat_n(b'b', n));
                    l
                }
            };
            if kind % 4 < 2 {
                let mut segs = vec![Seg::Slash];
                segs.extend(std::iter::repeat_n(
                    if kind % 4 == 0 {
                        Seg::Word(0)
                    } else {
                        Seg::Star
                    },
                    MAX_SEGS - 1,
                ));
                out.rule(segs, &line[b"Disallow: ".len()..]);
            }
            out.line(&line, *kind);
        }
    }
}

/// A `differential` corpus input as that target reads it: the model
/// `Arbitrary` builds from the bytes, rendered; `None` when the bytes make
/// no model (the target skips those inputs too).
pub fn decode(data: &[u8]) -> Option<(Vec<u8>, Vec<Query>)> {
    let model = Model::arbitrary_take_rest(arbitrary::Unstructured::new(data)).ok()?;
    Some(model.render())
}

impl Model {
    /// The robots.txt bytes and the queries to put to it; lines stay under
    /// 300 bytes.
    pub fn render(&self) -> (Vec<u8>, Vec<Query>) {
        self.render_with(false)
    }

    /// [`Model::render`], with a rare line past 16 KB when `huge_lines`.
    pub fn render_with(&self, huge_lines: bool) -> (Vec<u8>, Vec<Query>) {
        let mut out = Out {
            huge_lines,
            body: Vec::with_capacity(256),
            style: self.style,
            line_no: 0,
            names: Vec::new(),
            rules: Vec::new(),
            pieces: Vec::new(),
            siblings: Vec::new(),
        };
        if self.style.bom < 18 {
            out.body.extend_from_slice(b"\xEF\xBB\xBF");
            if self.style.bom >= 14 {
                out.body.extend_from_slice(b"\xEF\xBB\xBF");
            }
        } else if (20..24).contains(&self.style.bom) {
            out.body.extend_from_slice(b"\xEF\xBB");
        }
        for l in self.preamble.iter().take(2) {
            render_line(&mut out, l);
        }
        for (gi, g) in self.groups.iter().take(MAX_GROUPS).enumerate() {
            if gi > 0 && self.style.blank_between < 24 {
                out.line(b"", self.style.blank_between);
            }
            if g.agents.is_empty() {
                render_agent(
                    &mut out,
                    &AgentLine {
                        key: 0,
                        sep: 0,
                        name: gi as u8,
                        case: 7,
                        tail: 7,
                    },
                );
            }
            for a in g.agents.iter().take(MAX_AGENTS) {
                render_agent(&mut out, a);
            }
            for l in g.lines.iter().take(MAX_LINES) {
                render_line(&mut out, l);
            }
        }
        if self.style.final_eol < 200 && out.line_no > 0 {
            let e = out.eol(self.style.final_eol);
            out.body.extend_from_slice(e);
        }
        let specs: Vec<QuerySpec> = if self.queries.is_empty() {
            vec![QuerySpec::PLAIN]
        } else {
            self.queries.iter().take(MAX_QUERIES).copied().collect()
        };
        let queries = specs.iter().map(|q| query(&out, q)).collect();
        (out.body, queries)
    }
}

/// The product token part of a rendered group name, as a crawler would
/// call itself.
fn caller_from_name(name: &str) -> String {
    let t: String = name
        .trim()
        .chars()
        .take_while(|c| !matches!(c, '/' | ' ' | '\t' | ';' | '*'))
        .collect();
    if t.is_empty() {
        "foobot".to_string()
    } else {
        t
    }
}

/// Whole User-Agent headers a crawler sends; `{}` is its product token.
const HEADERS: &[&str] = &[
    "Mozilla/5.0 (compatible; {}/2.1; +http://example.test/bot.html)",
    "{}/1.0 (+http://example.test/bot)",
    "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; {}/2.1) Chrome/120.0 Safari/537.36",
    "{}/2.0 libwww-perl/6.0",
];
const AGENT_PUNCT: &[&str] = &[
    "{}.x", "{}!", "{};x", "{}:1", "{} bot", "{}*", "({})", "{},other",
];
const AGENT_NON_ASCII: &[&str] = &[
    "{}\u{e4}",
    "\u{c4}{}",
    "{}\u{fffd}",
    "{}\u{a0}x",
    "{}\u{85}",
    "\u{65e5}{}",
];

fn agent_for(out: &Out, q: &QuerySpec) -> String {
    let mut agent = if q.agent < 200 && !out.names.is_empty() {
        caller_from_name(&out.names[q.agent as usize % out.names.len()])
    } else {
        pick(CALLER_POOL, q.agent).to_string()
    };
    let around = |pool: &[&str]| pick(pool, q.agent).replace("{}", &agent);
    match q.agent_tweak {
        0..=9 => agent.push_str("/1.0"),
        10..=39 => agent = case_of(&agent, q.agent_tweak),
        40..=47 => agent.insert(0, ' '),
        48..=53 => agent.clear(),
        54..=63 => agent = around(HEADERS),
        64..=71 => agent = around(AGENT_PUNCT),
        72..=77 => agent = around(AGENT_NON_ASCII),
        // No product token at all: only whitespace.
        78..=81 => agent = pick(&[" ", "\t", "  ", " \t"], q.agent_tweak).to_string(),
        _ => {}
    }
    agent
}

/// Rewrites the URL (`base`: scheme and authority, empty for an origin-form
/// URL) into one of RFC 3986's rarer shapes; `shape` below 176 leaves it.
/// Each shape is a range of six values, the variant its position in it.
fn url_shape(base: &str, path: &str, shape: u8) -> String {
    let v = (shape % 6) as usize;
    let abs = if base.is_empty() {
        "http://example.test"
    } else {
        base
    };
    let pick6 = |pool: &[&str]| pool[v % pool.len()].to_string();
    match shape {
        0..=175 => format!("{base}{path}"),
        176..=181 => base.to_string(),
        182..=187 => format!("{base}?{}", pick6(&["q=1", "", "a=/b", "x#f", "/p", "%2F"])),
        188..=193 => {
            let user = pick6(&["user:pw@", "u@", "@", ":@", "a%40b@", "user@"]);
            let (scheme, host) = abs.split_once("://").unwrap_or(("http", abs));
            format!("{scheme}://{user}{host}{path}")
        }
        194..=199 => format!("{base}/{path}"),
        200..=205 => {
            let dot = pick6(&["/.", "/..", "/a/..", "/./.", "/%2E", "/.."]);
            format!("{base}{dot}{path}")
        }
        206..=211 => format!(
            "{base}{path}{}",
            pick6(&["#f", "#", "#/a", "#a#b", "?q#f", "#%2F"])
        ),
        212..=217 => format!(
            "{base}{path}{}",
            pick6(&["%", "%/", "%%", "%?", "%#", "%-"])
        ),
        218..=223 => format!(
            "{base}{path}{}",
            pick6(&["%4", "%zz", "%G", "%2", "%A/", "%x1"])
        ),
        224..=229 => {
            let raw = pick6(&[" ", "\"<x>", "{|}", "^`", "\\", "\t"]);
            format!("{base}{path}{raw}")
        }
        230..=235 => format!(
            "{base}{path}{}",
            pick6(&["%7e", "%7E", "%2f", "%C3%a4", "%aB", "%2F"])
        ),
        236..=241 => {
            let port = pick6(&[":80", ":", ":8080", ":0", ":443", ":65536"]);
            format!("{abs}{port}{path}")
        }
        _ => format!("{base}{path}"),
    }
}

/// `%XX` for every byte of `s` but `/` and `%` (only the first such byte
/// when `first`): the piece as a URL that escapes what the rule spells out.
fn percent_encode(s: &str, first: bool) -> String {
    let mut out = String::with_capacity(s.len() * 3);
    let mut done = false;
    for c in s.chars() {
        if c == '/' || c == '%' || done {
            out.push(c);
            continue;
        }
        let mut buf = [0u8; 4];
        for b in c.encode_utf8(&mut buf).bytes() {
            out.push_str(&format!("%{b:02X}"));
        }
        done = first;
    }
    out
}

/// The piece with each `%XX` whose octets make UTF-8 decoded: the URL
/// spells out what the rule escapes (`/%61` asked as `/a`). Escapes that
/// decode to no UTF-8 (`%FF`) stay.
fn percent_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut raw = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let hex = |x: u8| (x as char).to_digit(16);
        match (
            b[i],
            b.get(i + 1).and_then(|&x| hex(x)),
            b.get(i + 2).and_then(|&x| hex(x)),
        ) {
            (b'%', Some(h), Some(l)) => {
                raw.push((h * 16 + l) as u8);
                i += 3;
            }
            (x, _, _) => {
                raw.push(x);
                i += 1;
            }
        }
    }
    String::from_utf8(raw).unwrap_or_else(|_| s.to_string())
}

/// A URL path built from a rule's piece `P` (see [`piece_of`]) in one relation to it
/// (`relate - 128` modulo 11), the shapes where matchers that split,
/// search, sort, fold case or decode differently part ways: `P` itself,
/// repeated (`/a/a`), nested (`/a/x/a`), at the end or in the middle of
/// another path (`/x/a`, `/x/a/y`: a substring is no prefix), followed by
/// a query or a fragment, followed by `/x` (past a sibling rule like
/// `/a-b`, see [`SIBLINGS`]), case changed, percent-encoded and decoded.
fn related_path(p: &str, q: &QuerySpec) -> String {
    let p = p.to_string();
    match (q.relate - 128) % 11 {
        0 => p,
        1 => format!("{p}{p}"),
        2 => format!("{p}/x{p}"),
        3 => format!("/x{p}"),
        4 => format!("/x{p}/y"),
        5 => format!("{p}?x"),
        6 => format!("{p}#x"),
        7 => format!("{p}/x"),
        8 => p
            .chars()
            .map(|c| {
                if c.is_ascii_lowercase() {
                    c.to_ascii_uppercase()
                } else {
                    c.to_ascii_lowercase()
                }
            })
            .collect(),
        9 => percent_encode(&p, q.fill & 1 != 0),
        _ => percent_decode(&p),
    }
}

/// The piece a relation is built from: of the aimed rule or, failing
/// that, of the next rule that suits the relation (one followed by a
/// sibling for `/x`, one with a letter for the case change, one with an
/// escape for the decoded form) or else has a piece at all (`/`, `/*` and
/// empty rules have none: nothing to relate to). Without the fallback,
/// inputs whose aimed rule suits are a few in a thousand.
fn related_rule<'a>(out: &'a Out, q: &QuerySpec) -> Option<&'a str> {
    let n = out.pieces.len();
    let order = (0..n).map(|k| (q.target as usize + k) % n);
    let suits = |i: usize| {
        out.pieces[i]
            .as_deref()
            .filter(|p| match (q.relate - 128) % 11 {
                7 => out.siblings[i],
                8 => p.bytes().any(|b| b.is_ascii_alphabetic()),
                10 => p.contains('%'),
                _ => true,
            })
    };
    order
        .clone()
        .find_map(suits)
        .or_else(|| order.clone().find_map(|i| out.pieces[i].as_deref()))
}

fn query(out: &Out, q: &QuerySpec) -> Query {
    let agent = agent_for(out, q);
    let mut path = String::new();
    let aim = q.form & 0x20 == 0 && !out.rules.is_empty();
    let related = if aim && q.relate >= 128 {
        related_rule(out, q).map(|p| related_path(p, q))
    } else {
        None
    };
    if let Some(p) = related {
        path = p;
    } else if aim {
        let segs = &out.rules[q.target as usize % out.rules.len()];
        let mut ended = false;
        for s in segs {
            match *s {
                Seg::Slash => path.push('/'),
                Seg::Word(k) => path.push_str(pick(WORDS, k)),
                Seg::Star => path.push_str(pick(FILLS, q.fill)),
                Seg::Dollar => {
                    ended = true;
                    break;
                }
                Seg::Pct(k) => {
                    let (enc, dec) = PCTS[k as usize % PCTS.len()];
                    if q.form & 1 != 0 {
                        path.push_str(dec);
                    } else if q.form & 4 != 0 {
                        path.push_str(&enc.to_ascii_uppercase());
                    } else {
                        path.push_str(enc);
                    }
                }
                Seg::Utf8(k) => {
                    let (raw, enc) = UTF8S[k as usize % UTF8S.len()];
                    if q.form & 2 != 0 {
                        if q.form & 4 != 0 {
                            path.push_str(enc);
                        } else {
                            path.push_str(&enc.to_ascii_lowercase());
                        }
                    } else {
                        path.push_str(raw);
                    }
                }
                Seg::Byte(k) => {
                    let b = BYTES[k as usize % BYTES.len()];
                    if b.is_ascii() && b > 0x20 && b != 0x7F {
                        path.push(b as char);
                    } else {
                        path.push_str(&format!("%{b:02X}"));
                    }
                }
                Seg::Punct(k) => path.push_str(pick(PUNCTS, k)),
            }
        }
        if !ended {
            path.push_str(pick(SUFFIXES, q.suffix));
        }
    } else {
        path.push_str(pick(SUFFIXES, q.suffix));
        path.insert_str(0, pick(WORDS, q.target));
    }
    if !path.starts_with('/') {
        path.insert(0, '/');
    }
    let base = match (q.form >> 3) & 3 {
        0 | 1 => "http://example.test",
        2 => "https://example.test:8443",
        _ => "",
    };
    let url = url_shape(base, &path, q.shape);
    Query {
        ask: Ask::CanFetch,
        agent,
        url,
    }
}

/// Queries for a raw body: its first group name as the agent and a URL
/// aimed at its first rule, plus one unaimed query. Used by the
/// `differential_bytes` target, whose input is nothing but the body.
pub fn queries_for_body(body: &[u8]) -> Vec<Query> {
    let mut agent: Option<String> = None;
    let mut pattern: Option<String> = None;
    for line in body.split(|&b| b == b'\n' || b == b'\r') {
        let line = match line.iter().position(|&b| b == b'#') {
            Some(i) => &line[..i],
            None => line,
        };
        let Some(colon) = line.iter().position(|&b| b == b':') else {
            continue;
        };
        let key = String::from_utf8_lossy(&line[..colon])
            .trim()
            .to_ascii_lowercase();
        let value = String::from_utf8_lossy(&line[colon + 1..])
            .trim()
            .to_string();
        if agent.is_none() && key.ends_with("user-agent") && value != "*" && !value.is_empty() {
            agent = Some(caller_from_name(&value));
        }
        if pattern.is_none() && (key == "disallow" || key == "allow") && !value.is_empty() {
            pattern = Some(value);
        }
        if agent.is_some() && pattern.is_some() {
            break;
        }
    }
    let agent = agent.unwrap_or_else(|| "foobot".to_string());
    let mut path: String = pattern
        .unwrap_or_default()
        .replace('*', "x")
        .trim_end_matches('$')
        .to_string();
    if !path.starts_with('/') {
        path.insert(0, '/');
    }
    vec![
        Query {
            ask: Ask::CanFetch,
            agent: agent.clone(),
            url: format!("http://example.test{path}"),
        },
        Query {
            ask: Ask::CanFetch,
            agent,
            url: "http://example.test/".to_string(),
        },
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::classes::{classes, Family, InputClass};
    use arbitrary::Unstructured;
    use std::collections::BTreeSet;

    #[test]
    fn renders_every_input_and_aims_queries() {
        let mut seen_rules = 0;
        for seed in 0u32..2000 {
            let bytes: Vec<u8> = (0..600u32)
                .map(|i| (seed.wrapping_mul(2654435761).wrapping_add(i * 40503) >> 7) as u8)
                .collect();
            let mut u = Unstructured::new(&bytes);
            let Ok(m) = Model::arbitrary(&mut u) else {
                continue;
            };
            let (body, queries) = m.render();
            assert!(!queries.is_empty() && queries.len() <= MAX_QUERIES);
            assert!(body.len() < 200_000);
            if body.windows(8).any(|w| w.eq_ignore_ascii_case(b"disallow")) {
                seen_rules += 1;
            }
            for q in &queries {
                // Absolute, or a reference: a path, a query, or empty.
                let u = &q.url;
                assert!(
                    u.starts_with("http")
                        || u.starts_with('/')
                        || u.starts_with('?')
                        || u.is_empty(),
                    "{u:?}"
                );
                // The in-loop triage asks the reference about every shape.
                let robots = oracles::rfc9309::Robots::parse(&body, &Default::default());
                let _ = robots.decide(&q.agent, u, &mut Vec::new());
            }
        }
        assert!(seen_rules > 100, "{seen_rules}");
    }

    /// Renders of `n` random byte buffers from splitmix64 (fixed seeds, so
    /// the tests below are deterministic) and the classes each shows.
    fn rendered_classes(n: u64) -> BTreeSet<InputClass> {
        let mut seen = BTreeSet::new();
        for seed in 0..n {
            let mut rng = engine::rng::Rng::new(seed);
            let len = 64 + rng.below(700);
            let bytes: Vec<u8> = (0..len).map(|_| rng.next_u64() as u8).collect();
            let Ok(m) = Model::arbitrary_take_rest(Unstructured::new(&bytes)) else {
                continue;
            };
            let (body, queries) = m.render();
            seen.extend(classes(&body, &queries));
        }
        seen
    }

    fn assert_family_reached(family: Family) {
        let seen = rendered_classes(6000);
        let missing: Vec<&str> = InputClass::ALL
            .iter()
            .filter(|c| c.family() == family && !seen.contains(c))
            .map(|c| c.name())
            .collect();
        assert!(missing.is_empty(), "never generated: {missing:?}");
    }

    #[test]
    fn generator_reaches_every_octet_class() {
        assert_family_reached(Family::Octet);
    }

    #[test]
    fn generator_reaches_every_line_shape() {
        assert_family_reached(Family::Line);
    }

    #[test]
    fn generator_reaches_every_url_shape() {
        assert_family_reached(Family::Url);
    }

    #[test]
    fn generator_reaches_every_agent_shape() {
        assert_family_reached(Family::Agent);
    }

    #[test]
    fn generator_reaches_every_abnf_production() {
        assert_family_reached(Family::Abnf);
    }

    #[test]
    fn generator_reaches_every_position() {
        assert_family_reached(Family::Position);
    }

    #[test]
    fn generator_reaches_every_rule_relation() {
        assert_family_reached(Family::Rule);
    }

    /// Each relation of `related_path`, asked of `Disallow: /a` (and its
    /// sibling `/a-b`, and `/%61` for the decoded form), shows the class
    /// the classifier names it by, from the rendered input alone.
    #[test]
    fn each_relation_shows_its_class() {
        use InputClass::*;
        let spec = |relate: u8| QuerySpec {
            relate,
            ..QuerySpec::PLAIN
        };
        let want = [
            RuleExact,
            RulePieceRepeated,
            RulePieceNested,
            RulePieceAtEnd,
            RulePieceInMiddle,
            RuleThenQuery,
            RuleThenFragment,
            RuleSiblingBetween,
            RuleCaseChanged,
            RulePercentEncoded,
        ];
        let body = b"User-agent: *\nDisallow: /a\nAllow: /a-b\n";
        for (v, class) in want.iter().enumerate() {
            let path = related_path("/a", &spec(128 + v as u8));
            let got = classes(
                body,
                &[Query {
                    ask: Ask::CanFetch,
                    agent: "b".into(),
                    url: path.clone(),
                }],
            );
            assert!(got.contains(class), "{path}: {got:?}");
        }
        // `/%61` asked decoded.
        let path = related_path("/%61", &spec(128 + 10));
        assert_eq!(path, "/a");
        let got = classes(
            b"Disallow: /%61\n",
            &[Query {
                ask: Ask::CanFetch,
                agent: "b".into(),
                url: path,
            }],
        );
        assert!(got.contains(&RulePercentDecoded), "{got:?}");
        // The piece skips a run of nothing but `/` and stops at a `#`;
        // it is written for a URL.
        assert_eq!(piece_of(b"/*?bar$").as_deref(), Some("?bar"));
        assert_eq!(piece_of(b"/a b#x").as_deref(), Some("/a%20b"));
        assert_eq!(piece_of(b"/\xff\x00").as_deref(), Some("/%FF%00"));
        assert_eq!(piece_of(b"/*"), None);
        assert_eq!(piece_of(b"#/a"), None);
        // A sibling rule follows its rule (tail 5), between it and `/x`.
        let r = RuleLine {
            allow: false,
            key: 0,
            sep: 0,
            pattern: vec![Seg::Word(0)],
            tail: 5,
        };
        let mut out = Out {
            huge_lines: false,
            body: Vec::new(),
            style: Style {
                bom: 255,
                eol: 0,
                final_eol: 255,
                blank_between: 255,
            },
            line_no: 0,
            names: Vec::new(),
            rules: Vec::new(),
            pieces: Vec::new(),
            siblings: Vec::new(),
        };
        render_rule(&mut out, &r);
        assert_eq!(out.body, b"Disallow: /a\nDisallow: /a-b");
        assert_eq!(out.rules.len(), 1);
        assert_eq!(out.pieces, [Some("/a".to_string())]);
        assert_eq!(out.siblings, [true]);
    }

    /// Inputs of 20,000 random buffers reaching each rule relation (the
    /// count quoted when the family was added).
    #[test]
    #[ignore]
    fn rule_relation_distribution() {
        let mut counts = std::collections::BTreeMap::new();
        let mut n = 0;
        for seed in 0..20_000u64 {
            let mut rng = engine::rng::Rng::new(seed);
            let len = 64 + rng.below(700);
            let bytes: Vec<u8> = (0..len).map(|_| rng.next_u64() as u8).collect();
            let Some((body, queries)) = decode(&bytes) else {
                continue;
            };
            n += 1;
            for c in classes(&body, &queries) {
                *counts.entry(c.name()).or_insert(0u32) += 1;
            }
        }
        eprintln!("{n} inputs");
        for c in InputClass::ALL {
            eprintln!("{} {}", c.name(), counts.get(c.name()).unwrap_or(&0));
        }
    }

    #[test]
    fn raw_bodies_get_aimed_queries() {
        let q = queries_for_body(b"User-agent: FooBot/1.0\nDisallow: /a*b$\n");
        assert_eq!(q[0].agent, "FooBot");
        assert_eq!(q[0].url, "http://example.test/axb");
    }
}
