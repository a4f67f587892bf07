//! Where RFC 9309 leaves room, the reading taken is a named option.
//!
//! Every field of [`Readings`] is one place where the RFC's text admits more
//! than one executable meaning. The default of each is the reading this oracle
//! argues is closest to the text; the alternatives exist so the harness can
//! show which reading a divergence between two parsers comes down to. Every
//! explanation names the readings that decided its verdict (see `explain`).

/// The full set of readings. `Readings::default()` is the oracle as
/// registered; every field documents its default and the section it reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Readings {
    /// §2.2.2 "The most specific match is the match that has the most octets."
    pub specificity: Specificity,
    /// §2.2.2 Figure 4, second row: which reserved characters of a query are
    /// percent-encoded before comparison.
    pub query_reserved: QueryReserved,
    /// §2.2.1 "The product token MUST contain only ... letters, underscores,
    /// and hyphens": what a `user-agent` value may carry.
    pub product_token: ProductTokenChars,
    /// §2.2.1 "Crawlers MUST use case-insensitive matching to find the group
    /// that matches the product token": how the caller's agent string becomes
    /// the product token that is compared.
    pub caller_token: CallerToken,
    /// §2.2 ABNF `empty-pattern = *WS` with §2.2.2's prefix-match rule: what a
    /// rule with an empty path (`Disallow:`) matches.
    pub empty_pattern: EmptyPattern,
    /// §2.2.2 "The crawler SHOULD ignore "disallow" and "allow" rules that are
    /// not in any group".
    pub orphan_rules: OrphanRules,
    /// §2.3.1.3: whether HTTP 401 and 403 are "unavailable" like other 4xx.
    pub auth_status: AuthStatus,
    /// §2.5 "Crawlers SHOULD impose a parsing limit ... The parsing limit MUST
    /// be at least 500 kibibytes". `None` parses the whole body.
    pub parse_limit: Option<usize>,
    /// §2.3 "The file MUST be UTF-8 encoded (as defined in \[RFC3629\])": what a
    /// leading U+FEFF signature is.
    pub byte_order_mark: ByteOrderMark,
    /// §2.2 `path-pattern = "/" *UTF8-char-noctl`: a pattern holds no space
    /// and no control octet, yet `Disallow: /a b` is written.
    pub pattern_junk: PatternJunk,
    /// §2.2.3 "$ Designates the end of the match pattern": a `$` that is
    /// not the pattern's last octet.
    pub inner_dollar: InnerDollar,
    /// §2.3 "The file MUST be UTF-8 encoded"; "Implementors MAY bridge
    /// encoding mismatches": octets of a pattern that are not UTF-8.
    pub invalid_utf8: InvalidUtf8,
    /// §2.2 `rule = *WS ("allow" / "disallow") *WS ":" ...`: a line with
    /// no colon (`Disallow /x`) is not a rule of the grammar.
    pub no_colon: NoColon,
    /// §2.2.2 "The /robots.txt URI is implicitly allowed": is
    /// `/robots.txt?x=1` that URI?
    pub robots_txt_query: RobotsTxtQuery,
    /// §2.2 `path-pattern = "/" ...`, yet §5.1 writes `Disallow: *.gif$`:
    /// a pattern that does not start with `/`.
    pub pattern_start: PatternStart,
    /// §2.2.4 "Parsing of other records MUST NOT interfere with the parsing
    /// of explicitly defined records", against draft-ietf-aipref-attach-05
    /// §3 `rule =/ content-usage`: is a `Content-Usage` line an other record
    /// or a rule of its group?
    pub content_usage: ContentUsage,
}

/// 500 KiB, the smallest parsing limit §2.5 allows.
pub const PARSE_LIMIT_500_KIB: usize = 500 * 1024;

impl Default for Readings {
    fn default() -> Self {
        Readings {
            specificity: Specificity::PatternOctets,
            query_reserved: QueryReserved::EncodeGenDelims,
            product_token: ProductTokenChars::Strict,
            caller_token: CallerToken::UpToSlashOrSpace,
            empty_pattern: EmptyPattern::MatchesNothing,
            orphan_rules: OrphanRules::Ignore,
            auth_status: AuthStatus::Unavailable,
            parse_limit: Some(PARSE_LIMIT_500_KIB),
            byte_order_mark: ByteOrderMark::Skip,
            pattern_junk: PatternJunk::EncodeAsData,
            inner_dollar: InnerDollar::Literal,
            invalid_utf8: InvalidUtf8::PercentEncode,
            no_colon: NoColon::Ignored,
            robots_txt_query: RobotsTxtQuery::PathComponent,
            pattern_start: PatternStart::AsWritten,
            content_usage: ContentUsage::OtherRecord,
        }
    }
}

/// §2.2.2: "The most specific match is the match that has the most octets."
/// The octets of what — the rule or the URI?
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Specificity {
    /// Default. The octets of the rule's path pattern after §2.2.2
    /// normalisation, `*` and a final `$` counted as one octet each. A rule's
    /// rank is then a property of the rule alone, so two URIs can never order
    /// the same two rules differently (Google's library, protego).
    PatternOctets,
    /// The octets of the URI that the pattern matched, the longest such span
    /// (a trailing `*` or a final `$` reaches the end of the URI). For a
    /// pattern without `*` this equals the pattern octets (CPython 3.15 ranks
    /// wildcard rules this way).
    MatchedSpan,
}

/// §2.2.2 says reserved octets "MUST be percent-encoded ... prior to
/// comparison", yet Figure 4 keeps `/`, `?` and `=` of
/// `/foo/bar?baz=https://foo.bar` and encodes only the `:` and `/` after the
/// `=`. The path's delimiters evidently keep their role; what of the query?
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QueryReserved {
    /// Default, Figure 4 as printed. After the first `?`, the generic
    /// delimiters `:`, `/`, `?` and `@` (RFC 3986 §2.2 gen-delims that have no
    /// delimiting role inside a query) are percent-encoded on both sides; the
    /// sub-delims `!&'()+,;=` keep their role (they separate key=value pairs)
    /// and stay as written.
    EncodeGenDelims,
    /// Reserved characters of the query are compared as written; only the
    /// rest of the normalisation applies (Google's library, google/robotstxt
    /// issue #64).
    AsWritten,
}

/// §2.2.1 "The product token MUST contain only uppercase and lowercase letters
/// ("a-z" and "A-Z"), underscores ("_"), and hyphens ("-")."
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProductTokenChars {
    /// Default. A `user-agent` value is a product token only if it is wholly
    /// `[a-zA-Z_-]+` or exactly `*` (§2.2 ABNF `product-token`). Any other
    /// value (`FooBot/1.0`, `Foo Bar`, `Foo2Bot`, `foo*`, empty) still starts
    /// a group — the line is a `user-agent` line — but the group names no
    /// crawler, so its rules apply to nobody.
    Strict,
    /// The value up to its first `/`, space or tab is the token, whatever
    /// octets it holds (`FooBot/1.0` names `FooBot`, `Foo2Bot` names
    /// `Foo2Bot`, `Foo Bar` names `Foo`). The same cut is applied to the
    /// caller's agent by [`CallerToken::UpToSlashOrSpace`], so both sides are
    /// reduced alike.
    Lenient,
}

/// The harness passes the caller's agent verbatim (`MyBot/1.0`,
/// `Mozilla/5.0 (compatible; FooBot/1.0)`); §2.2.1 matches groups against the
/// crawler's *product token*, which the RFC says "SHOULD be a substring" of
/// that string but never says how to extract.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CallerToken {
    /// Default. The product token is the agent, leading spaces and tabs
    /// skipped, up to its first `/`, space or tab (the RFC 9110 §10.1.5
    /// `product = token ["/" product-version]` shape): `MyBot/1.0` is
    /// `MyBot`, `Mozilla/5.0 (compatible; FooBot/1.0)` is `Mozilla`. It is
    /// compared with each group's token case-insensitively for equality,
    /// never as a substring, so `googlebot` does not name `Googlebot-News`.
    UpToSlashOrSpace,
    /// The whole agent string is the product token (Google's library
    /// contract: the caller passes a bare token), compared
    /// case-insensitively for equality.
    Verbatim,
}

/// `Disallow:` with nothing after it. §2.2 admits it (`empty-pattern`), but
/// §2.2.2 defines a match as "the end of the path from the rule is reached
/// before a difference in octets is encountered", which an empty path
/// satisfies for every URI.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EmptyPattern {
    /// Default. An empty rule matches nothing and has no effect (the 1994
    /// convention "an empty value indicates that all URLs can be retrieved",
    /// which every surveyed parser follows).
    MatchesNothing,
    /// The literal reading: an empty rule matches every URI with zero octets,
    /// so a lone `Disallow:` disallows everything and an `Allow:` of the same
    /// (zero) length beats it.
    MatchesEverything,
}

/// Rules that precede the first `user-agent` line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OrphanRules {
    /// Default, the §2.2.2 SHOULD: they are ignored.
    Ignore,
    /// They form an implicit `user-agent: *` group, merged with any `*`
    /// groups of the file (what a parser that ignores the SHOULD does).
    AsStarGroup,
}

/// §2.3.1.3 gives "400-499" as the example range of "unavailable"; 401 and
/// 403 say the crawler is not authorised, which some crawlers read as a
/// refusal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AuthStatus {
    /// Default, the text: 401 and 403 are 4xx, so "unavailable", and the
    /// crawler "MAY access any resources on the server".
    Unavailable,
    /// 401 and 403 are taken as a refusal: complete disallow (CPython's
    /// `read()`).
    Disallow,
}

/// A UTF-8 signature (EF BB BF) at the start of the body.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ByteOrderMark {
    /// Default. Skipped: RFC 3629 §6 (normative for §2.3's "UTF-8 encoded")
    /// says that where a protocol does not forbid the signature,
    /// implementations "SHOULD be prepared to handle a signature", and RFC
    /// 9309 does not forbid it.
    Skip,
    /// Kept: the §2.2 ABNF has no place for it, so it is part of line 1's key
    /// and line 1 is not a record of the protocol (§2.3.1.5 ignores it).
    Literal,
}

/// A pattern with a space, tab or control octet inside it (after the
/// value's surrounding whitespace is trimmed).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PatternJunk {
    /// Default. The octets are kept and percent-encoded like any octet
    /// RFC 3986 never allows raw (§2.2.2 normalisation), so `/a b` matches
    /// `/a%20b` and `/a b`: §2.3.1.5 asks crawlers to "use the parseable
    /// rules", and the rest of the line parses.
    EncodeAsData,
    /// The rule is outside the §2.2 grammar, so it is no parseable rule
    /// and is ignored.
    RuleIgnored,
}

/// A `$` before a pattern's last octet (`/a$b`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InnerDollar {
    /// Default. §2.2.3 gives `$` its meaning only as "the end of the match
    /// pattern"; elsewhere it is data, compared as `%24` (Figure 6's
    /// "If crawlers match special characters verbatim ... SHOULD use %
    /// encoding").
    Literal,
    /// The regular-expression reading (a parser that translates patterns
    /// into regexes): `$` anchors where it stands, so octets after it can
    /// never match and the rule matches nothing.
    MatchesNothing,
}

/// Octets of a pattern that are not UTF-8.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InvalidUtf8 {
    /// Default. Each octet ≥ 0x80 is percent-encoded as it is (§2.2.2
    /// "Octets ... outside the range of the ASCII coded character set ...
    /// MUST be percent-encoded"), so the pattern matches a URI holding the
    /// same octets.
    PercentEncode,
    /// The body is decoded as UTF-8 first with U+FFFD for what is not UTF-8
    /// (a parser that reads text), so the pattern holds `%EF%BF%BD`.
    Replacement,
}

/// A line with a known key and no colon (`Disallow /private`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NoColon {
    /// Default. Not a rule of the §2.2 grammar: ignored (§2.3.1.5).
    Ignored,
    /// The first run of whitespace stands for the colon (Google documents
    /// accepting a missing colon).
    WhitespaceSeparator,
}

/// `/robots.txt` with a query string.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RobotsTxtQuery {
    /// Default. The path component is `/robots.txt`: the query does not make
    /// it another file, so it is implicitly allowed.
    PathComponent,
    /// Only the exact path `/robots.txt`, no query, is exempt.
    ExactPath,
}

/// A pattern that starts with neither `/` (nor is empty).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PatternStart {
    /// Default. Kept as written: matching starts at the path's first octet,
    /// always `/`, so only a pattern starting with `*` can match (§5.1
    /// writes `Disallow: *.gif$` and states its effect).
    AsWritten,
    /// Outside the §2.2 `path-pattern` grammar: ignored.
    RuleIgnored,
}

/// A `Content-Usage` line (draft-ietf-aipref-attach-05).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ContentUsage {
    /// Default, RFC 9309 as published: an other record (§2.2.4), which
    /// neither ends nor starts a group.
    OtherRecord,
    /// aipref-attach §3: a rule of the group it is in, so, like an
    /// Allow/Disallow line, it ends the group's run of user-agent lines
    /// (§2.1: a user-agent line after a rule starts a new group). It never
    /// decides a `can_fetch` verdict ("Allow and Disallow rules determine
    /// what resources can be crawled", §3.1).
    Rule,
}

impl ContentUsage {
    pub fn label(self) -> &'static str {
        match self {
            ContentUsage::OtherRecord => "content-usage=other-record",
            ContentUsage::Rule => "content-usage=rule (aipref-attach)",
        }
    }
}

impl Specificity {
    pub fn label(self) -> &'static str {
        match self {
            Specificity::PatternOctets => "specificity=pattern-octets",
            Specificity::MatchedSpan => "specificity=matched-span",
        }
    }
}

impl QueryReserved {
    pub fn label(self) -> &'static str {
        match self {
            QueryReserved::EncodeGenDelims => "query=encode-gen-delims",
            QueryReserved::AsWritten => "query=as-written",
        }
    }
}

impl ProductTokenChars {
    pub fn label(self) -> &'static str {
        match self {
            ProductTokenChars::Strict => "token=strict",
            ProductTokenChars::Lenient => "token=lenient",
        }
    }
}

impl CallerToken {
    pub fn label(self) -> &'static str {
        match self {
            CallerToken::UpToSlashOrSpace => "agent=up-to-slash-or-space",
            CallerToken::Verbatim => "agent=verbatim",
        }
    }
}

impl EmptyPattern {
    pub fn label(self) -> &'static str {
        match self {
            EmptyPattern::MatchesNothing => "empty-rule=matches-nothing",
            EmptyPattern::MatchesEverything => "empty-rule=matches-everything",
        }
    }
}

impl OrphanRules {
    pub fn label(self) -> &'static str {
        match self {
            OrphanRules::Ignore => "orphans=ignored",
            OrphanRules::AsStarGroup => "orphans=as-star-group",
        }
    }
}

impl AuthStatus {
    pub fn label(self) -> &'static str {
        match self {
            AuthStatus::Unavailable => "401/403=unavailable",
            AuthStatus::Disallow => "401/403=disallow",
        }
    }
}

impl ByteOrderMark {
    pub fn label(self) -> &'static str {
        match self {
            ByteOrderMark::Skip => "bom=skip",
            ByteOrderMark::Literal => "bom=literal",
        }
    }
}

impl PatternJunk {
    pub fn label(self) -> &'static str {
        match self {
            PatternJunk::EncodeAsData => "pattern-junk=encode",
            PatternJunk::RuleIgnored => "pattern-junk=rule-ignored",
        }
    }
}

impl InnerDollar {
    pub fn label(self) -> &'static str {
        match self {
            InnerDollar::Literal => "inner-dollar=literal",
            InnerDollar::MatchesNothing => "inner-dollar=matches-nothing",
        }
    }
}

impl InvalidUtf8 {
    pub fn label(self) -> &'static str {
        match self {
            InvalidUtf8::PercentEncode => "invalid-utf8=percent-encode",
            InvalidUtf8::Replacement => "invalid-utf8=replacement",
        }
    }
}

impl NoColon {
    pub fn label(self) -> &'static str {
        match self {
            NoColon::Ignored => "no-colon=ignored",
            NoColon::WhitespaceSeparator => "no-colon=whitespace",
        }
    }
}

impl RobotsTxtQuery {
    pub fn label(self) -> &'static str {
        match self {
            RobotsTxtQuery::PathComponent => "robots-txt-query=path-component",
            RobotsTxtQuery::ExactPath => "robots-txt-query=exact-path",
        }
    }
}

impl PatternStart {
    pub fn label(self) -> &'static str {
        match self {
            PatternStart::AsWritten => "pattern-start=as-written",
            PatternStart::RuleIgnored => "pattern-start=rule-ignored",
        }
    }
}
