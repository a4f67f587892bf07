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
    /// Only spaces or tabs.
    AgentWhitespace,
    /// A token with a space or tab before or after it.
    AgentSurroundingSpace,
    // RFC 9309 §2.2's ABNF, production by production (and §2.2.3's
    // special characters, §2.2.4's other records).
    /// `emptyline`: a line with nothing but WS (or nothing).
    AbnfEmptyLine,
    /// A `comment` on a line of its own or after a value.
    AbnfComment,
    /// `NL` as a lone CR.
    AbnfNlCr,
    /// `NL` as CR LF.
    AbnfNlCrlf,
    /// `NL` as a lone LF.
    AbnfNlLf,
    /// The last line has no `NL`.
    AbnfNoFinalNl,
    /// `*WS` between a key and its `:`.
    AbnfWsBeforeColon,
    /// A key not written in lower case (keys match case-insensitively).
    AbnfKeyCase,
    /// `group` with two or more `startgroupline`s in a row.
    AbnfMultiAgentGroup,
    /// `product-token` `*`.
    AbnfAgentStar,
    /// `product-token` as an `identifier`.
    AbnfAgentIdentifier,
    /// A `rule` before any `startgroupline`.
    AbnfRuleOutsideGroup,
    /// `empty-pattern`: an allow or disallow with no path.
    AbnfEmptyPattern,
    /// A `path-pattern` holding `*` (§2.2.3).
    AbnfPatternStar,
    /// A `path-pattern` ending in `$` (§2.2.3).
    AbnfPatternDollar,
    /// A `path-pattern` holding a `%` escape.
    AbnfPatternEscape,
    /// A rule's value that starts with neither `/` nor `*` (no production).
    AbnfPatternNoSlash,
    /// A `sitemap` record (§2.2.4).
    AbnfSitemap,
    /// Another record (`crawl-delay`, `host`...): §2.2.4's "other records".
    AbnfOtherRecord,
    /// One of the records written for AI use (aipref's `Content-Usage`,
    /// Cloudflare's `Content-Signal`, RSL's `License`, the expired
    /// `DisallowAITraining`/`AllowAITraining`): other records to RFC 9309,
    /// a rule to aipref-attach, a prefix-matched key to Google's parser.
    AbnfAiPreference,
    // Where an unusual octet (a control, NUL, NEL, a Unicode space or
    // format character, a BOM, a byte that is not UTF-8, a `%` without two
    // hex digits) stands.
    /// The first byte of a line.
    AtLineStart,
    /// Inside a key.
    AtKey,
    /// Between a key and its `:`.
    AtSeparator,
    /// In a rule's or other record's value.
    AtValue,
    /// In a user-agent line's value.
    AtAgentValue,
    /// In the agent a crawler sends.
    AtCrawlerAgent,
    /// In the URL's path.
    AtUrlPath,
    /// In the URL's query.
    AtUrlQuery,
    /// In the URL's fragment.
    AtUrlFragment,
    // How a query's URL relates to an allow or disallow rule of the body
    // (read by a cheap scan: lines whose key is exactly `allow` or
    // `disallow`, the value up to a `#`). A rule's *piece* is the first
    // run of its value between `*` and `$` holding more than `/`; its
    // *prefix* is the value up to its first `*` or `$`. Matchers that
    // search instead of anchoring, sort rules, fold case or decode escapes
    // part ways on these.
    /// The URL's path-and-after is a rule without `*` (less a final `$`).
    RuleExact,
    /// The piece twice in a row in the path (`/a/a` for `/a`).
    RulePieceRepeated,
    /// The piece twice in the path with something between (`/a/x/a`).
    RulePieceNested,
    /// The path ends in the piece but does not start with it (`/x/a`).
    RulePieceAtEnd,
    /// The piece inside the path, neither at its start nor its end
    /// (`/x/a/y`).
    RulePieceInMiddle,
    /// The URL is the piece then a query (`/a?x`).
    RuleThenQuery,
    /// The URL is the piece then a fragment (`/a#x`).
    RuleThenFragment,
    /// Another rule sorts between a rule and the URL the rule's prefix
    /// matches, without matching it (`/a`, `/a-b` and `/a/x`): where a
    /// sorted map's `floor()` finds the wrong rule (Heritrix).
    RuleSiblingBetween,
    /// The piece in the path with its ASCII letters' case changed
    /// (`/A` for `/a`, `/%2f` for `/%2F`).
    RuleCaseChanged,
    /// The path holds the piece only once escapes are decoded: the URL
    /// escapes what the rule spells out (`/%61` for `/a`).
    RulePercentEncoded,
    /// The path holds the piece with its escapes decoded, not as written:
    /// the rule escapes what the URL spells out (`/a` for `/%61`).
    RulePercentDecoded,
}

/// The families, for tests and for readers of the report.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Family {
    Octet,
    Line,
    Url,
    Agent,
    Abnf,
    Position,
    Rule,
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
        InputClass::AgentWhitespace,
        InputClass::AgentSurroundingSpace,
        InputClass::AbnfEmptyLine,
        InputClass::AbnfComment,
        InputClass::AbnfNlCr,
        InputClass::AbnfNlCrlf,
        InputClass::AbnfNlLf,
        InputClass::AbnfNoFinalNl,
        InputClass::AbnfWsBeforeColon,
        InputClass::AbnfKeyCase,
        InputClass::AbnfMultiAgentGroup,
        InputClass::AbnfAgentStar,
        InputClass::AbnfAgentIdentifier,
        InputClass::AbnfRuleOutsideGroup,
        InputClass::AbnfEmptyPattern,
        InputClass::AbnfPatternStar,
        InputClass::AbnfPatternDollar,
        InputClass::AbnfPatternEscape,
        InputClass::AbnfPatternNoSlash,
        InputClass::AbnfSitemap,
        InputClass::AbnfOtherRecord,
        InputClass::AbnfAiPreference,
        InputClass::AtLineStart,
        InputClass::AtKey,
        InputClass::AtSeparator,
        InputClass::AtValue,
        InputClass::AtAgentValue,
        InputClass::AtCrawlerAgent,
        InputClass::AtUrlPath,
        InputClass::AtUrlQuery,
        InputClass::AtUrlFragment,
        InputClass::RuleExact,
        InputClass::RulePieceRepeated,
        InputClass::RulePieceNested,
        InputClass::RulePieceAtEnd,
        InputClass::RulePieceInMiddle,
        InputClass::RuleThenQuery,
        InputClass::RuleThenFragment,
        InputClass::RuleSiblingBetween,
        InputClass::RuleCaseChanged,
        InputClass::RulePercentEncoded,
        InputClass::RulePercentDecoded,
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
            AgentWhitespace => "agent/whitespace",
            AgentSurroundingSpace => "agent/surrounding-space",
            AbnfEmptyLine => "abnf/emptyline",
            AbnfComment => "abnf/comment",
            AbnfNlCr => "abnf/nl-cr",
            AbnfNlCrlf => "abnf/nl-crlf",
            AbnfNlLf => "abnf/nl-lf",
            AbnfNoFinalNl => "abnf/no-final-nl",
            AbnfWsBeforeColon => "abnf/ws-before-colon",
            AbnfKeyCase => "abnf/key-case",
            AbnfMultiAgentGroup => "abnf/multi-agent-group",
            AbnfAgentStar => "abnf/agent-star",
            AbnfAgentIdentifier => "abnf/agent-identifier",
            AbnfRuleOutsideGroup => "abnf/rule-outside-group",
            AbnfEmptyPattern => "abnf/empty-pattern",
            AbnfPatternStar => "abnf/pattern-star",
            AbnfPatternDollar => "abnf/pattern-dollar",
            AbnfPatternEscape => "abnf/pattern-escape",
            AbnfPatternNoSlash => "abnf/pattern-no-slash",
            AbnfSitemap => "abnf/sitemap",
            AbnfOtherRecord => "abnf/other-record",
            AbnfAiPreference => "abnf/ai-preference",
            AtLineStart => "at/line-start",
            AtKey => "at/key",
            AtSeparator => "at/separator",
            AtValue => "at/value",
            AtAgentValue => "at/agent-value",
            AtCrawlerAgent => "at/crawler-agent",
            AtUrlPath => "at/url-path",
            AtUrlQuery => "at/url-query",
            AtUrlFragment => "at/url-fragment",
            RuleExact => "rule/exact",
            RulePieceRepeated => "rule/piece-repeated",
            RulePieceNested => "rule/piece-nested",
            RulePieceAtEnd => "rule/piece-at-end",
            RulePieceInMiddle => "rule/piece-in-middle",
            RuleThenQuery => "rule/then-query",
            RuleThenFragment => "rule/then-fragment",
            RuleSiblingBetween => "rule/sibling-between",
            RuleCaseChanged => "rule/case-changed",
            RulePercentEncoded => "rule/percent-encoded",
            RulePercentDecoded => "rule/percent-decoded",
        }
    }

    pub fn family(self) -> Family {
        match self.name().split('/').next() {
            Some("octet") => Family::Octet,
            Some("line") => Family::Line,
            Some("url") => Family::Url,
            Some("abnf") => Family::Abnf,
            Some("at") => Family::Position,
            Some("rule") => Family::Rule,
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
    abnf_classes(body, &mut out);
    for q in queries {
        url_classes(&q.url, &mut out);
        agent_classes(&q.agent, &mut out);
        position_classes_of_query(q, &mut out);
    }
    if !queries.is_empty() {
        let rules = rule_values(body);
        for q in queries {
            rule_relation_classes(&rules, &q.url, &mut out);
        }
    }
    out
}

/// Rules read for the relation classes, at most this many (a body of
/// generated size has fewer; a long corpus file costs no more).
const MAX_RULES: usize = 16;

/// An allow or disallow rule's value, its prefix and piece (see
/// [`InputClass::RuleExact`] and the family's comment).
struct RuleText<'a> {
    value: &'a [u8],
    prefix: &'a [u8],
    piece: Option<&'a [u8]>,
    /// The piece with its `%XX` escapes decoded.
    decoded: Vec<u8>,
}

/// The values of the body's first [`MAX_RULES`] rules: lines whose key,
/// less blanks (and a BOM), is `allow` or `disallow` in any case, the
/// value up to a `#`, less blanks; empty values left out. A cheap scan,
/// not a parser: misspelt keys and odd separators are other classes.
fn rule_values(body: &[u8]) -> Vec<RuleText<'_>> {
    let ws = |b: &u8| *b == b' ' || *b == b'\t';
    let trim = |s: &'_ [u8]| -> (usize, usize) {
        let a = s.iter().position(|b| !ws(b)).unwrap_or(s.len());
        let z = s.iter().rposition(|b| !ws(b)).map_or(a, |i| i + 1);
        (a, z.max(a))
    };
    let mut rules = Vec::new();
    for line in body.split(|&b| b == b'\n' || b == b'\r') {
        let line = match line.iter().position(|&b| b == b'#') {
            Some(h) => &line[..h],
            None => line,
        };
        let Some(colon) = line.iter().position(|&b| b == b':') else {
            continue;
        };
        let key = line[..colon]
            .strip_prefix(b"\xEF\xBB\xBF")
            .unwrap_or(&line[..colon]);
        let (a, z) = trim(key);
        let key = &key[a..z];
        if !key.eq_ignore_ascii_case(b"allow") && !key.eq_ignore_ascii_case(b"disallow") {
            continue;
        }
        let value = &line[colon + 1..];
        let (a, z) = trim(value);
        let value = &value[a..z];
        if value.is_empty() {
            continue;
        }
        let prefix = value
            .split(|&b| b == b'*' || b == b'$')
            .next()
            .unwrap_or(value);
        let piece = value
            .split(|&b| b == b'*' || b == b'$')
            .find(|p| p.iter().any(|&b| b != b'/'));
        rules.push(RuleText {
            value,
            prefix,
            piece,
            decoded: piece.map(percent_decoded).unwrap_or_default(),
        });
        if rules.len() == MAX_RULES {
            break;
        }
    }
    rules
}

/// `s` with every `%XX` decoded to its octet.
fn percent_decoded(s: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(s.len());
    let mut i = 0;
    while i < s.len() {
        let hex = |x: Option<&u8>| x.and_then(|&x| (x as char).to_digit(16));
        match (s[i], hex(s.get(i + 1)), hex(s.get(i + 2))) {
            (b'%', Some(h), Some(l)) => {
                out.push((h * 16 + l) as u8);
                i += 3;
            }
            (b, _, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    out
}

/// Where `needle` (not empty) starts in `hay`.
fn occurrences<'a>(hay: &'a [u8], needle: &'a [u8]) -> impl Iterator<Item = usize> + 'a {
    hay.windows(needle.len().max(1))
        .enumerate()
        .filter(move |(_, w)| *w == needle)
        .map(|(i, _)| i)
}

fn contains(hay: &[u8], needle: &[u8]) -> bool {
    occurrences(hay, needle).next().is_some()
}

/// How the URL relates to each rule (the `rule/` family).
fn rule_relation_classes(rules: &[RuleText], url: &str, out: &mut BTreeSet<InputClass>) {
    use InputClass::*;
    if rules.is_empty() {
        return;
    }
    let (_, rest) = split_url(url);
    let rest = rest.as_bytes();
    let path = &rest[..rest
        .iter()
        .position(|&b| b == b'?' || b == b'#')
        .unwrap_or(rest.len())];
    let decoded_path = percent_decoded(path);
    for r in rules {
        if !r.value.contains(&b'*') && rest == r.value.strip_suffix(b"$").unwrap_or(r.value) {
            out.insert(RuleExact);
        }
        if !r.prefix.iter().all(|&b| b == b'/')
            && rest.starts_with(r.prefix)
            && rules.iter().any(|s| {
                s.prefix.len() > r.prefix.len()
                    && s.prefix.starts_with(r.prefix)
                    && s.prefix < rest
                    && !rest.starts_with(s.prefix)
            })
        {
            out.insert(RuleSiblingBetween);
        }
        let Some(p) = r.piece else { continue };
        let n = p.len();
        let at_start = path.starts_with(p);
        let mut first: Option<usize> = None;
        for i in occurrences(path, p) {
            match first {
                None => first = Some(i),
                Some(f) if i == f + n => {
                    out.insert(RulePieceRepeated);
                }
                Some(f) if i > f + n => {
                    out.insert(RulePieceNested);
                }
                Some(_) => {}
            }
            if !at_start && i > 0 && i + n < path.len() {
                out.insert(RulePieceInMiddle);
            }
        }
        if !at_start && path.ends_with(p) {
            out.insert(RulePieceAtEnd);
        }
        match rest.get(n) {
            Some(b'?') if rest.starts_with(p) => {
                out.insert(RuleThenQuery);
            }
            Some(b'#') if rest.starts_with(p) => {
                out.insert(RuleThenFragment);
            }
            _ => {}
        }
        let folded = path.windows(n).any(|w| w != p && w.eq_ignore_ascii_case(p));
        if p.iter().any(u8::is_ascii_alphabetic) && folded {
            out.insert(RuleCaseChanged);
        }
        if first.is_none() {
            if r.decoded != p && contains(path, &r.decoded) {
                out.insert(RulePercentDecoded);
            } else if contains(&decoded_path, &r.decoded) && !contains(path, &r.decoded) && !folded
            {
                out.insert(RulePercentEncoded);
            }
        }
    }
}

/// Is there an unusual octet in `s`: a C0 control but TAB, DEL, a byte
/// that is not UTF-8, a C1 control, a Unicode space or format character
/// (a BOM included), or a `%` without two hex digits after it?
fn unusual(s: &[u8]) -> bool {
    let bare_percent = s.iter().enumerate().any(|(i, &b)| {
        b == b'%'
            && !(s.get(i + 1).is_some_and(u8::is_ascii_hexdigit)
                && s.get(i + 2).is_some_and(u8::is_ascii_hexdigit))
    });
    bare_percent
        || s.iter().any(|&b| (b < 0x20 && b != b'\t') || b == 0x7F)
        || String::from_utf8_lossy(s).chars().any(|c| {
            matches!(c,
                '\u{80}'..='\u{9f}' | '\u{a0}' | '\u{2000}'..='\u{200f}' | '\u{2028}'
                | '\u{2029}' | '\u{3000}' | '\u{feff}' | '\u{fffd}')
        })
}

/// The body's lines with the `NL` that ends each (empty for the last line
/// when the body does not end in one).
fn lines_with_ends(body: &[u8]) -> Vec<(&[u8], &[u8])> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut i = 0;
    while i < body.len() {
        match body[i] {
            b'\n' => {
                out.push((&body[start..i], &body[i..=i]));
                start = i + 1;
            }
            b'\r' => {
                let end = if body.get(i + 1) == Some(&b'\n') {
                    i + 2
                } else {
                    i + 1
                };
                out.push((&body[start..i], &body[i..end]));
                start = end;
                i = end - 1;
            }
            _ => {}
        }
        i += 1;
    }
    if start < body.len() {
        out.push((&body[start..], &[][..]));
    }
    out
}

/// RFC 9309 §2.2's productions, and where an unusual octet stands on each
/// line (line start, key, separator, value, user-agent value).
fn abnf_classes(body: &[u8], out: &mut BTreeSet<InputClass>) {
    use InputClass::*;
    let ws = |b: &u8| *b == b' ' || *b == b'\t';
    let mut in_group = false;
    let mut previous_was_agent = false;
    for (line, nl) in lines_with_ends(body) {
        out.insert(match nl {
            b"\r" => AbnfNlCr,
            b"\r\n" => AbnfNlCrlf,
            b"\n" => AbnfNlLf,
            _ => AbnfNoFinalNl,
        });
        if line.first().is_some_and(|b| !ws(b)) && unusual(&line[..1]) {
            out.insert(AtLineStart);
        }
        let text: &[u8] = match line.iter().position(|b| !ws(b)) {
            Some(i) => &line[i..],
            None => {
                out.insert(AbnfEmptyLine);
                continue;
            }
        };
        let (content, comment) = match text.iter().position(|&b| b == b'#') {
            Some(h) => (&text[..h], true),
            None => (text, false),
        };
        if comment {
            out.insert(AbnfComment);
        }
        let Some(colon) = content.iter().position(|&b| b == b':') else {
            continue;
        };
        let run = content[..colon]
            .iter()
            .position(|b| !(b.is_ascii_alphabetic() || *b == b'-'))
            .unwrap_or(colon);
        let (key, gap) = content[..colon].split_at(run);
        let gap_is_key = gap.iter().any(u8::is_ascii_alphanumeric);
        if unusual(key) || (gap_is_key && unusual(gap)) {
            out.insert(AtKey);
        } else if unusual(gap) {
            out.insert(AtSeparator);
        }
        if !gap.is_empty() && gap.iter().all(ws) {
            out.insert(AbnfWsBeforeColon);
        }
        let name = String::from_utf8_lossy(key).to_ascii_lowercase();
        if !gap_is_key && key.iter().any(u8::is_ascii_uppercase) {
            out.insert(AbnfKeyCase);
        }
        let value = &content[colon + 1..];
        let value = &value[value.iter().position(|b| !ws(b)).unwrap_or(value.len())..];
        let trimmed = &value[..value.iter().rposition(|b| !ws(b)).map_or(0, |i| i + 1)];
        let key = if gap_is_key { "" } else { name.as_str() };
        match key {
            "user-agent" => {
                if unusual(value) {
                    out.insert(AtAgentValue);
                }
                if previous_was_agent {
                    out.insert(AbnfMultiAgentGroup);
                }
                if trimmed == b"*" {
                    out.insert(AbnfAgentStar);
                } else if !trimmed.is_empty()
                    && trimmed
                        .iter()
                        .all(|b| b.is_ascii_alphabetic() || *b == b'-' || *b == b'_')
                {
                    out.insert(AbnfAgentIdentifier);
                }
                in_group = true;
                previous_was_agent = true;
                continue;
            }
            "allow" | "disallow" => {
                if !in_group {
                    out.insert(AbnfRuleOutsideGroup);
                }
                match trimmed.first() {
                    None => {
                        out.insert(AbnfEmptyPattern);
                    }
                    Some(b'/') | Some(b'*') => {}
                    Some(_) => {
                        out.insert(AbnfPatternNoSlash);
                    }
                }
                if trimmed.contains(&b'*') {
                    out.insert(AbnfPatternStar);
                }
                if trimmed.ends_with(b"$") {
                    out.insert(AbnfPatternDollar);
                }
                if trimmed
                    .windows(3)
                    .any(|w| w[0] == b'%' && w[1].is_ascii_hexdigit() && w[2].is_ascii_hexdigit())
                {
                    out.insert(AbnfPatternEscape);
                }
            }
            "sitemap" => {
                out.insert(AbnfSitemap);
            }
            "" => {}
            _ => {
                out.insert(AbnfOtherRecord);
                if oracles::profiles::aipref::AI_RECORD_KEYS.contains(&key) {
                    out.insert(AbnfAiPreference);
                }
            }
        }
        if unusual(value) {
            out.insert(AtValue);
        }
        previous_was_agent = false;
    }
}

/// Where an unusual octet stands in a query: the agent, or the URL's path,
/// query or fragment.
fn position_classes_of_query(q: &Query, out: &mut BTreeSet<InputClass>) {
    use InputClass::*;
    if unusual(q.agent.as_bytes()) {
        out.insert(AtCrawlerAgent);
    }
    let (_, rest) = split_url(&q.url);
    let odd = |s: &str| {
        unusual(s.as_bytes())
            || s.chars()
                .any(|c| !c.is_ascii() || c.is_ascii_control() || " \"<>\\^`{|}".contains(c))
    };
    let (before_fragment, fragment) = rest.split_once('#').unwrap_or((rest, ""));
    let (path, query) = before_fragment
        .split_once('?')
        .unwrap_or((before_fragment, ""));
    if odd(path) {
        out.insert(AtUrlPath);
    }
    if odd(query) {
        out.insert(AtUrlQuery);
    }
    if odd(fragment) {
        out.insert(AtUrlFragment);
    }
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
    if agent.bytes().all(|b| b == b' ' || b == b'\t') {
        out.insert(AgentWhitespace);
        return;
    }
    if agent.starts_with([' ', '\t']) || agent.ends_with([' ', '\t']) {
        out.insert(AgentSurroundingSpace);
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

    /// The octet and line classes of a body (the ABNF and position
    /// families have tests of their own).
    fn body_classes(body: &[u8]) -> BTreeSet<InputClass> {
        classes(body, &[])
            .into_iter()
            .filter(|c| matches!(c.family(), Family::Octet | Family::Line))
            .collect()
    }

    fn abnf_of(body: &[u8]) -> BTreeSet<InputClass> {
        classes(body, &[])
            .into_iter()
            .filter(|c| matches!(c.family(), Family::Abnf | Family::Position))
            .collect()
    }

    #[test]
    fn abnf_productions_and_positions_on_hand_written_bodies() {
        let cases: &[(&[u8], &[InputClass])] = &[
            (
                b"User-agent: a\nUser-agent: *\n",
                &[
                    AbnfMultiAgentGroup,
                    AbnfAgentStar,
                    AbnfAgentIdentifier,
                    AbnfNlLf,
                ],
            ),
            (
                b"Disallow: /a\r",
                &[AbnfRuleOutsideGroup, AbnfNlCr, AbnfKeyCase],
            ),
            (
                b"user-agent: a\r\ndisallow:\r\n\r\n",
                &[AbnfEmptyPattern, AbnfNlCrlf, AbnfEmptyLine],
            ),
            (
                b"user-agent: a\nallow: /a*b$",
                &[AbnfPatternStar, AbnfPatternDollar, AbnfNoFinalNl],
            ),
            (
                b"user-agent: a\nallow: /%41 # c\n",
                &[AbnfPatternEscape, AbnfComment],
            ),
            (b"user-agent: a\ndisallow: a\n", &[AbnfPatternNoSlash]),
            (
                b"sitemap: /s\ncrawl-delay: 1\n",
                &[AbnfSitemap, AbnfOtherRecord],
            ),
            (
                b"user-agent: a\nContent-Usage: train-ai=n\n",
                &[AbnfOtherRecord, AbnfAiPreference, AbnfKeyCase],
            ),
            (b"disallow : /\n", &[AbnfWsBeforeColon]),
            (b"\x00disallow: /\n", &[AtLineStart, AtKey]),
            (b"dis\x0ballow: /\n", &[AtKey]),
            (b"disallow\x0b: /\n", &[AtSeparator]),
            (b"disallow: /a\xc2\xa0\n", &[AtValue]),
            (b"disallow: /a%\n", &[AtValue]),
            (b"user-agent: a\x0b\n", &[AtAgentValue]),
        ];
        for (body, want) in cases {
            let got = abnf_of(body);
            for c in *want {
                assert!(
                    got.contains(c),
                    "{:?}: {c:?} not in {got:?}",
                    String::from_utf8_lossy(body)
                );
            }
        }
        let plain = abnf_of(b"user-agent: a\ndisallow: /x\n");
        assert_eq!(plain, BTreeSet::from([AbnfAgentIdentifier, AbnfNlLf]));
        let mut q_out = BTreeSet::new();
        position_classes_of_query(&q("a\u{a0}", "http://x.test/a b?c%zz#d\te"), &mut q_out);
        assert_eq!(
            q_out,
            BTreeSet::from([AtCrawlerAgent, AtUrlPath, AtUrlQuery, AtUrlFragment])
        );
        assert!(agent_of(" \t").contains(&AgentWhitespace));
        assert!(agent_of(" bot").contains(&AgentSurroundingSpace));
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

    fn rule_of(body: &str, url: &str) -> BTreeSet<InputClass> {
        classes(body.as_bytes(), &[q("foobot", url)])
            .into_iter()
            .filter(|c| c.family() == Family::Rule)
            .collect()
    }

    #[test]
    fn rule_relations_on_hand_written_inputs() {
        let a = "User-agent: *\nDisallow: /a\n";
        let sib = "User-agent: *\nDisallow: /a\nAllow: /a-b\n";
        let esc = "User-agent: *\nDisallow: /%61\n";
        // (class, body, a URL showing it, a URL that does not)
        let cases: &[(InputClass, &str, &str, &str)] = &[
            (RuleExact, a, "/a", "/a/b"),
            (RuleExact, "Allow: /a$ # c", "http://x.test/a", "/a?"),
            (RulePieceRepeated, a, "/a/a", "/a/b"),
            (RulePieceNested, a, "http://x.test/a/x/a", "/a/a"),
            (RulePieceAtEnd, a, "/x/a", "/a/x/a"),
            (RulePieceInMiddle, a, "/x/a/y", "/x/a"),
            (RuleThenQuery, a, "/a?x", "/a/b?x"),
            (RuleThenFragment, a, "/a#x", "/a/b#x"),
            (RuleSiblingBetween, sib, "/a/x", "/a-b/x"),
            (RuleSiblingBetween, sib, "/a.c", "/a"),
            (RuleCaseChanged, a, "/A", "/a"),
            (RuleCaseChanged, "Disallow: /%2F", "/%2f", "/%2F"),
            (RulePercentEncoded, a, "/%61", "/a"),
            (RulePercentEncoded, a, "/x/%2Fa", "/x/%2fA"),
            (RulePercentDecoded, esc, "/a", "/%61"),
            // The piece of `/*.php$` is `.php`.
            (RulePieceAtEnd, "Disallow: /*.php$", "/x.php?a", "/x.phps"),
        ];
        for (class, body, yes, no) in cases {
            let got = rule_of(body, yes);
            assert!(got.contains(class), "{body:?} {yes}: {got:?}");
            let got = rule_of(body, no);
            assert!(!got.contains(class), "{body:?} {no}: {got:?}");
        }
        // The same URL without the sibling rule, or with no rules at all.
        assert!(!rule_of(a, "/a/x").contains(&RuleSiblingBetween));
        assert!(rule_of("User-agent: *\nSitemap: /a\n", "/a/a").is_empty());
        // Misspelt keys, empty values and `/` alone are no rules here.
        assert!(rule_of("Disalow: /a\nDisallow:\nAllow: /\n", "/a/a/a").is_empty());
        // A BOM before the key, a comment after the value.
        assert_eq!(
            rule_of("\u{feff}Disallow: /a # c\r\n", "/a"),
            BTreeSet::from([RuleExact])
        );
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
            // The BOM is the first byte of the line, glued to its key; the
            // `%` stands in the path; the line ends in LF.
            AtLineStart,
            AtKey,
            AtUrlPath,
            AbnfNlLf,
        ]);
        assert_eq!(got, want);
    }
}
