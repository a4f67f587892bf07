//! Input classes: the kinds of bytes, lines, URLs and agents the parsers
//! are known to treat differently, named so that a fuzz run can say how
//! often it reached each and how often each shows up where the oracles
//! disagree.
//!
//! The classifier reads only the rendered input (body bytes, each query's
//! URL and agent), never the generator's model: the same function then
//! describes `differential_bytes` inputs, corpus files and saved findings,
//! which have no model. It is one pass over the body plus a few over each
//! query, cheap enough to run on every distinct input in the loop.

use engine::oracle::Query;
use std::collections::BTreeSet;

/// One class of input. The order is the report's row order (by family).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum InputClass {
    // Octets of the body.
    Nul,
    VerticalTab,
    FormFeed,
    /// Any other C0 control but TAB, LF and CR (and DEL).
    OtherC0,
    /// U+0085 as UTF-8 (`C2 85`).
    NelUtf8,
    /// A lone `0x85` byte (NEL in Latin-1, invalid UTF-8).
    NelRaw,
    /// Another C1 control as UTF-8 (`C2 80..9F`).
    OtherC1,
    /// U+00A0, U+2000..U+200A, U+3000 (and U+2028/2029).
    UnicodeSpace,
    /// U+200B, U+200E/200F, or U+FEFF after the start of the body.
    FormatChar,
    /// The body starts with `EF BB BF`.
    Bom,
    /// The body starts with `EF BB` not followed by `BF`.
    PartialBom,
    /// Bytes that are not UTF-8.
    InvalidUtf8,
    // Line shapes.
    /// A line starting with a space or tab, then something else.
    Indented,
    /// A non-blank, non-comment line without a `:`.
    MissingColon,
    /// A key within two edits of `user-agent`, `allow` or `disallow`.
    MisspeltKey,
    /// A key ending in one of those three after other characters.
    PrefixedKey,
    /// A line whose first non-blank byte is `#`.
    CommentLine,
    /// A `#` after a key's value (`Disallow: /a # x`, `/a#x`).
    CommentAfterValue,
    /// A `#` before the line's first `:` on a line that is not a comment.
    CommentInKey,
    // URL shapes (RFC 3986) of a query.
    UrlEmptyPath,
    UrlQueryOnly,
    /// A path starting with `//` (for an origin-form URL: a network path).
    UrlDoubleSlashPath,
    UrlDotSegment,
    UrlFragment,
    UrlUserinfo,
    UrlPort,
    UrlEscapeUpper,
    UrlEscapeLower,
    /// `%` and one hex digit, or `%` and two alphanumerics not both hex.
    UrlEscapeMalformed,
    /// `%` at the end or before a character that is not alphanumeric.
    UrlStrayPercent,
    /// A character RFC 3986 allows nowhere unescaped (space, `"`, `<`,
    /// `\`, `{`, controls, non-ASCII...).
    UrlNeedsEscaping,
    // Agent shapes of a query.
    AgentEmpty,
    /// RFC 9309's product token: letters, `-` and `_` only.
    AgentProductToken,
    /// `token/version`.
    AgentTokenVersion,
    /// A whole User-Agent header: several products or a `(comment)`.
    AgentFullHeader,
    AgentNonAscii,
    /// ASCII punctuation besides `-`, `_` (and the `/` of a version), or a
    /// space outside a full header.
    AgentPunctuation,
}

/// The families, for tests and for readers of the report.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Family {
    Octet,
    Line,
    Url,
    Agent,
}

impl InputClass {
    pub const ALL: &'static [InputClass] = &[
        InputClass::Nul,
        InputClass::VerticalTab,
        InputClass::FormFeed,
        InputClass::OtherC0,
        InputClass::NelUtf8,
        InputClass::NelRaw,
        InputClass::OtherC1,
        InputClass::UnicodeSpace,
        InputClass::FormatChar,
        InputClass::Bom,
        InputClass::PartialBom,
        InputClass::InvalidUtf8,
        InputClass::Indented,
        InputClass::MissingColon,
        InputClass::MisspeltKey,
        InputClass::PrefixedKey,
        InputClass::CommentLine,
        InputClass::CommentAfterValue,
        InputClass::CommentInKey,
        InputClass::UrlEmptyPath,
        InputClass::UrlQueryOnly,
        InputClass::UrlDoubleSlashPath,
        InputClass::UrlDotSegment,
        InputClass::UrlFragment,
        InputClass::UrlUserinfo,
        InputClass::UrlPort,
        InputClass::UrlEscapeUpper,
        InputClass::UrlEscapeLower,
        InputClass::UrlEscapeMalformed,
        InputClass::UrlStrayPercent,
        InputClass::UrlNeedsEscaping,
        InputClass::AgentEmpty,
        InputClass::AgentProductToken,
        InputClass::AgentTokenVersion,
        InputClass::AgentFullHeader,
        InputClass::AgentNonAscii,
        InputClass::AgentPunctuation,
    ];

    /// The stable name used in the statistics files and the report.
    pub fn name(self) -> &'static str {
        use InputClass::*;
        match self {
            Nul => "octet/nul",
            VerticalTab => "octet/vt",
            FormFeed => "octet/ff",
            OtherC0 => "octet/c0-other",
            NelUtf8 => "octet/nel-utf8",
            NelRaw => "octet/nel-raw",
            OtherC1 => "octet/c1-other",
            UnicodeSpace => "octet/unicode-space",
            FormatChar => "octet/format-char",
            Bom => "octet/bom",
            PartialBom => "octet/partial-bom",
            InvalidUtf8 => "octet/invalid-utf8",
            Indented => "line/indented",
            MissingColon => "line/missing-colon",
            MisspeltKey => "line/misspelt-key",
            PrefixedKey => "line/prefixed-key",
            CommentLine => "line/comment-line",
            CommentAfterValue => "line/comment-after-value",
            CommentInKey => "line/comment-in-key",
            UrlEmptyPath => "url/empty-path",
            UrlQueryOnly => "url/query-only",
            UrlDoubleSlashPath => "url/double-slash-path",
            UrlDotSegment => "url/dot-segment",
            UrlFragment => "url/fragment",
            UrlUserinfo => "url/userinfo",
            UrlPort => "url/port",
            UrlEscapeUpper => "url/escape-upper",
            UrlEscapeLower => "url/escape-lower",
            UrlEscapeMalformed => "url/escape-malformed",
            UrlStrayPercent => "url/stray-percent",
            UrlNeedsEscaping => "url/needs-escaping",
            AgentEmpty => "agent/empty",
            AgentProductToken => "agent/product-token",
            AgentTokenVersion => "agent/token-version",
            AgentFullHeader => "agent/full-header",
            AgentNonAscii => "agent/non-ascii",
            AgentPunctuation => "agent/punctuation",
        }
    }

    pub fn family(self) -> Family {
        match self.name().split('/').next() {
            Some("octet") => Family::Octet,
            Some("line") => Family::Line,
            Some("url") => Family::Url,
            _ => Family::Agent,
        }
    }
}

/// Every class the input shows.
pub fn classes(body: &[u8], queries: &[Query]) -> BTreeSet<InputClass> {
    let mut out = BTreeSet::new();
    octet_classes(body, &mut out);
    for line in body.split(|&b| b == b'\n' || b == b'\r') {
        line_classes(line, &mut out);
    }
    for q in queries {
        url_classes(&q.url, &mut out);
        agent_classes(&q.agent, &mut out);
    }
    out
}

fn octet_classes(body: &[u8], out: &mut BTreeSet<InputClass>) {
    use InputClass::*;
    if body.starts_with(b"\xEF\xBB\xBF") {
        out.insert(Bom);
    } else if body.starts_with(b"\xEF\xBB") {
        out.insert(PartialBom);
    }
    for &b in body {
        match b {
            0x00 => out.insert(Nul),
            0x0B => out.insert(VerticalTab),
            0x0C => out.insert(FormFeed),
            b'\t' | b'\n' | b'\r' => false,
            0x01..=0x1F | 0x7F => out.insert(OtherC0),
            _ => false,
        };
    }
    // Walk the UTF-8 sequences, recovering after each invalid one, so a
    // lone 0x85 is told apart from a valid U+0085.
    let mut rest = body;
    let mut at = 0usize;
    while !rest.is_empty() {
        let (valid, bad) = match std::str::from_utf8(rest) {
            Ok(s) => (s, None),
            Err(e) => {
                let s = std::str::from_utf8(&rest[..e.valid_up_to()]).unwrap_or_default();
                (
                    s,
                    Some(e.error_len().unwrap_or(rest.len() - e.valid_up_to())),
                )
            }
        };
        for (i, c) in valid.char_indices() {
            char_class(c, at + i, out);
        }
        let Some(n) = bad else { break };
        out.insert(InvalidUtf8);
        let skip = valid.len() + n.max(1);
        if rest[valid.len()..valid.len() + n.max(1)].contains(&0x85) {
            out.insert(NelRaw);
        }
        at += skip;
        rest = &rest[skip.min(rest.len())..];
    }
}

fn char_class(c: char, at: usize, out: &mut BTreeSet<InputClass>) {
    use InputClass::*;
    match c {
        '\u{85}' => {
            out.insert(NelUtf8);
        }
        '\u{80}'..='\u{9f}' => {
            out.insert(OtherC1);
        }
        '\u{a0}' | '\u{2000}'..='\u{200a}' | '\u{2028}' | '\u{2029}' | '\u{3000}' => {
            out.insert(UnicodeSpace);
        }
        '\u{200b}' | '\u{200e}' | '\u{200f}' => {
            out.insert(FormatChar);
        }
        '\u{feff}' if at > 0 => {
            out.insert(FormatChar);
        }
        _ => {}
    }
}

const KEYS: &[&str] = &["user-agent", "allow", "disallow"];

/// Levenshtein distance, capped: keys are short.
fn edits(a: &[u8], b: &[u8]) -> usize {
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, &x) in a.iter().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, &y) in b.iter().enumerate() {
            cur[j + 1] = (prev[j] + usize::from(x != y))
                .min(prev[j + 1] + 1)
                .min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

fn line_classes(line: &[u8], out: &mut BTreeSet<InputClass>) {
    use InputClass::*;
    let is_space = |b: &u8| *b == b' ' || *b == b'\t';
    let Some(first) = line.iter().position(|b| !is_space(b)) else {
        return; // blank
    };
    if first > 0 {
        out.insert(Indented);
    }
    let text = &line[first..];
    if text[0] == b'#' {
        out.insert(CommentLine);
        return;
    }
    let colon = text.iter().position(|&b| b == b':');
    let hash = text.iter().position(|&b| b == b'#');
    let Some(colon) = colon else {
        out.insert(MissingColon);
        if hash.is_some() {
            out.insert(CommentAfterValue);
        }
        return;
    };
    match hash {
        Some(h) if h < colon => {
            out.insert(CommentInKey);
        }
        Some(_) => {
            out.insert(CommentAfterValue);
        }
        None => {}
    }
    // A BOM before the first key is its own class, not a prefix.
    let key = String::from_utf8_lossy(&text[..colon])
        .trim_matches(|c: char| c.is_whitespace() || c == '\u{feff}')
        .to_ascii_lowercase();
    if key.len() > 24 || KEYS.contains(&key.as_str()) {
        return;
    }
    if KEYS.iter().any(|k| key.ends_with(k)) {
        out.insert(PrefixedKey);
    } else if KEYS
        .iter()
        .any(|k| edits(key.as_bytes(), k.as_bytes()) <= 2)
    {
        out.insert(MisspeltKey);
    }
}

/// (authority, path-and-after) of a URL: absolute with `scheme://`, or a
/// reference with no authority.
fn split_url(url: &str) -> (Option<&str>, &str) {
    let Some(i) = url.find("://") else {
        return (None, url);
    };
    let scheme = &url[..i];
    if scheme.is_empty()
        || !scheme
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"+-.".contains(&b))
    {
        return (None, url);
    }
    let rest = &url[i + 3..];
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    (Some(&rest[..end]), &rest[end..])
}

fn url_classes(url: &str, out: &mut BTreeSet<InputClass>) {
    use InputClass::*;
    let (authority, rest) = split_url(url);
    if let Some(a) = authority {
        if a.contains('@') {
            out.insert(UrlUserinfo);
        }
        let host = a.rsplit('@').next().unwrap_or(a);
        if host
            .rsplit_once(':')
            .is_some_and(|(_, p)| p.bytes().all(|b| b.is_ascii_digit()))
        {
            out.insert(UrlPort);
        }
    }
    let path_end = rest.find(['?', '#']).unwrap_or(rest.len());
    let path = &rest[..path_end];
    if path.is_empty() {
        out.insert(UrlEmptyPath);
        if rest.starts_with('?') {
            out.insert(UrlQueryOnly);
        }
    }
    if path.starts_with("//") {
        out.insert(UrlDoubleSlashPath);
    }
    if path.split('/').any(|s| s == "." || s == "..") {
        out.insert(UrlDotSegment);
    }
    if rest.contains('#') {
        out.insert(UrlFragment);
    }
    escape_classes(url.as_bytes(), out);
    let bad = |c: char| !c.is_ascii() || c.is_ascii_control() || " \"<>\\^`{|}".contains(c);
    if url.chars().any(bad) {
        out.insert(UrlNeedsEscaping);
    }
}

fn escape_classes(u: &[u8], out: &mut BTreeSet<InputClass>) {
    use InputClass::*;
    for (i, _) in u.iter().enumerate().filter(|(_, &b)| b == b'%') {
        let a = u.get(i + 1).copied();
        let b = u.get(i + 2).copied();
        let hex = |x: Option<u8>| x.is_some_and(|x| x.is_ascii_hexdigit());
        let alnum = |x: Option<u8>| x.is_some_and(|x| x.is_ascii_alphanumeric());
        if hex(a) && hex(b) {
            let pair = [a.unwrap_or(0), b.unwrap_or(0)];
            if pair.iter().any(u8::is_ascii_uppercase) {
                out.insert(UrlEscapeUpper);
            }
            if pair.iter().any(u8::is_ascii_lowercase) {
                out.insert(UrlEscapeLower);
            }
        } else if !alnum(a) {
            out.insert(UrlStrayPercent);
        } else {
            out.insert(UrlEscapeMalformed);
        }
    }
}

fn agent_classes(agent: &str, out: &mut BTreeSet<InputClass>) {
    use InputClass::*;
    let token = |s: &str| {
        !s.is_empty()
            && s.bytes()
                .all(|b| b.is_ascii_alphabetic() || b == b'-' || b == b'_')
    };
    let word = |s: &str| {
        !s.is_empty()
            && s.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
    };
    if agent.is_empty() {
        out.insert(AgentEmpty);
        return;
    }
    if !agent.is_ascii() {
        out.insert(AgentNonAscii);
    }
    if token(agent) {
        out.insert(AgentProductToken);
        return;
    }
    let products = agent.split_whitespace().filter(|w| w.contains('/')).count();
    let header = products >= 2 || (agent.contains('(') && agent.contains(')') && products >= 1);
    if header {
        out.insert(AgentFullHeader);
        return;
    }
    let version = agent
        .split_once('/')
        .is_some_and(|(t, v)| word(t) && !v.is_empty() && !v.contains(char::is_whitespace));
    if version {
        out.insert(AgentTokenVersion);
        return;
    }
    if agent
        .bytes()
        .any(|b| b.is_ascii() && !b.is_ascii_alphanumeric() && b != b'-' && b != b'_')
    {
        out.insert(AgentPunctuation);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::oracle::Ask;
    use InputClass::*;

    fn q(agent: &str, url: &str) -> Query {
        Query {
            ask: Ask::CanFetch,
            agent: agent.into(),
            url: url.into(),
        }
    }

    fn body_classes(body: &[u8]) -> BTreeSet<InputClass> {
        classes(body, &[])
    }

    fn url_of(url: &str) -> BTreeSet<InputClass> {
        let mut s = BTreeSet::new();
        url_classes(url, &mut s);
        s
    }

    fn agent_of(agent: &str) -> BTreeSet<InputClass> {
        let mut s = BTreeSet::new();
        agent_classes(agent, &mut s);
        s
    }

    #[test]
    fn names_are_unique_and_prefixed_by_family() {
        let names: BTreeSet<&str> = InputClass::ALL.iter().map(|c| c.name()).collect();
        assert_eq!(names.len(), InputClass::ALL.len());
        // The harness counts by `class as usize` into arrays laid out like ALL.
        for (i, c) in InputClass::ALL.iter().enumerate() {
            assert_eq!(*c as usize, i, "{c:?}");
        }
        assert_eq!(AgentEmpty.family(), Family::Agent);
        assert_eq!(UrlPort.family(), Family::Url);
        assert_eq!(Indented.family(), Family::Line);
        assert_eq!(Nul.family(), Family::Octet);
    }

    #[test]
    fn octets_on_hand_written_bodies() {
        let plain = b"User-agent: *\nDisallow: /a\n";
        assert!(body_classes(plain).is_empty(), "{:?}", body_classes(plain));
        let cases: &[(&[u8], InputClass)] = &[
            (b"Disallow: /a\x00b", Nul),
            (b"Disallow:\x0b/a", VerticalTab),
            (b"Disallow:\x0c/a", FormFeed),
            (b"Disallow: /\x1f", OtherC0),
            (b"Disallow: /\x7f", OtherC0),
            ("Disallow: /a\u{85}".as_bytes(), NelUtf8),
            (b"Disallow: /a\x85b", NelRaw),
            (b"Disallow: /a\x85b", InvalidUtf8),
            ("Disallow: /\u{9f}".as_bytes(), OtherC1),
            ("Disallow:\u{a0}/a".as_bytes(), UnicodeSpace),
            ("Disallow:\u{2003}/a".as_bytes(), UnicodeSpace),
            ("Disallow:\u{3000}/a".as_bytes(), UnicodeSpace),
            ("Disallow: /\u{200b}".as_bytes(), FormatChar),
            ("Disallow: /\u{200e}".as_bytes(), FormatChar),
            ("Disallow: /\u{feff}a".as_bytes(), FormatChar),
            (b"\xEF\xBB\xBFUser-agent: *", Bom),
            (b"\xEF\xBBUser-agent: *", PartialBom),
            (b"Disallow: /\xff", InvalidUtf8),
            (b"Disallow: /\xc3", InvalidUtf8),
        ];
        for (body, class) in cases {
            let got = body_classes(body);
            assert!(
                got.contains(class),
                "{:?}: {got:?}",
                body.escape_ascii().to_string()
            );
        }
        // A BOM at the start is not a format character; a valid NEL is not raw.
        assert!(!body_classes(b"\xEF\xBB\xBFa").contains(&FormatChar));
        assert!(!body_classes("a\u{85}".as_bytes()).contains(&NelRaw));
        assert!(!body_classes(b"\xEF\xBB\xBFa").contains(&PartialBom));
    }

    #[test]
    fn lines_on_hand_written_bodies() {
        let cases: &[(&str, InputClass)] = &[
            ("  Disallow: /a", Indented),
            ("\tUser-agent: x", Indented),
            ("Disallow /a", MissingColon),
            ("Disalow: /a", MisspeltKey),
            ("useragent: x", MisspeltKey),
            ("User-agnet: x", MisspeltKey),
            ("x-disallow: /a", PrefixedKey),
            ("X-User-agent: b", PrefixedKey),
            ("# hello", CommentLine),
            ("   # hello", CommentLine),
            ("Disallow: /a # x", CommentAfterValue),
            ("Disallow: /a#x", CommentAfterValue),
            ("Disallow #x: /a", CommentInKey),
        ];
        for (body, class) in cases {
            let got = body_classes(body.as_bytes());
            assert!(got.contains(class), "{body:?}: {got:?}");
        }
        let plain = body_classes(b"User-agent: a\nAllow: /\nDisallow: /x\nSitemap: /s\n\n");
        assert!(plain.is_empty(), "{plain:?}");
        // Other records are neither misspelt nor prefixed.
        assert!(body_classes(b"Crawl-delay: 5\nHost: x").is_empty());
    }

    #[test]
    fn urls_on_hand_written_queries() {
        let cases: &[(&str, InputClass)] = &[
            ("http://example.test", UrlEmptyPath),
            ("http://example.test?a=1", UrlQueryOnly),
            ("?a=1", UrlQueryOnly),
            ("http://example.test//a", UrlDoubleSlashPath),
            ("//[", UrlDoubleSlashPath),
            ("http://example.test/a/../b", UrlDotSegment),
            ("/./a", UrlDotSegment),
            ("http://example.test/a#f", UrlFragment),
            ("http://u:p@example.test/", UrlUserinfo),
            ("https://example.test:8443/", UrlPort),
            ("http://example.test/%2F", UrlEscapeUpper),
            ("http://example.test/%2f", UrlEscapeLower),
            ("http://example.test/%G1", UrlEscapeMalformed),
            ("http://example.test/%4", UrlEscapeMalformed),
            ("http://example.test/%", UrlStrayPercent),
            ("http://example.test/%/a", UrlStrayPercent),
            ("http://example.test/a b", UrlNeedsEscaping),
            ("http://example.test/\u{e4}", UrlNeedsEscaping),
            ("http://example.test/{x}", UrlNeedsEscaping),
        ];
        for (url, class) in cases {
            let got = url_of(url);
            assert!(got.contains(class), "{url}: {got:?}");
        }
        assert!(url_of("http://example.test/a/b.html?q=1").is_empty());
        assert!(!url_of("http://example.test/a").contains(&UrlEmptyPath));
        assert!(!url_of("http://example.test/").contains(&UrlPort));
    }

    #[test]
    fn agents_on_hand_written_queries() {
        let cases: &[(&str, InputClass)] = &[
            ("", AgentEmpty),
            ("foobot", AgentProductToken),
            ("Foo-Bot_x", AgentProductToken),
            ("foobot/1.0", AgentTokenVersion),
            (
                "Mozilla/5.0 (compatible; foobot/2.1; +http://example.test/bot)",
                AgentFullHeader,
            ),
            ("foobot/2.1 libwww/5", AgentFullHeader),
            ("\u{c4}bot", AgentNonAscii),
            ("foo.bot", AgentPunctuation),
            (" foobot", AgentPunctuation),
            ("foobot;x", AgentPunctuation),
        ];
        for (agent, class) in cases {
            let got = agent_of(agent);
            assert!(got.contains(class), "{agent:?}: {got:?}");
        }
        assert_eq!(agent_of("foobot/1.0"), BTreeSet::from([AgentTokenVersion]));
        assert!(agent_of("Foo2Bot").is_empty());
    }

    #[test]
    fn classes_unions_body_and_queries() {
        let got = classes(
            b"\xEF\xBB\xBFUser-agent: *\n",
            &[q("", "http://example.test"), q("a/1", "/%")],
        );
        let want = BTreeSet::from([
            Bom,
            AgentEmpty,
            UrlEmptyPath,
            AgentTokenVersion,
            UrlStrayPercent,
        ]);
        assert_eq!(got, want);
    }
}
