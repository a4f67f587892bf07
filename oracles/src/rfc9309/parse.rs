//! §2.1 and §2.2: lines, records and groups.
//!
//! The body is read once into a [`Robots`]: every pattern normalised
//! (`matching::normalise`) into one arena, each group's rules sorted by
//! pattern octets, and an index from lower-cased product token to the groups
//! that name it, so a query costs one hash look-up and a scan that usually
//! stops at the first matching rule.

use super::agent::group_token;
use super::matching::{normalise, Side};
use super::readings::{
    ByteOrderMark, ContentUsage, InnerDollar, InvalidUtf8, NoColon, OrphanRules, PatternJunk,
    PatternStart, Readings,
};

/// A range of the arena.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Span {
    start: u32,
    end: u32,
}

/// One `allow` or `disallow` record (§2.2.2).
#[derive(Debug, Clone, Copy)]
pub struct Rule {
    pub allow: bool,
    /// 1-based line number in the body.
    pub line: u32,
    pattern: Span,
    raw: Span,
    /// Which of the §2.2 grammar's gaps its pattern falls into
    /// (`QUIRK_*`), so an explanation names the reading that kept it.
    pub quirks: u8,
}

/// A space, tab or control octet inside the pattern ([`PatternJunk`]).
pub const QUIRK_JUNK: u8 = 1;
/// A `$` before the last octet ([`InnerDollar`]).
pub const QUIRK_INNER_DOLLAR: u8 = 2;
/// Octets that are not UTF-8 ([`InvalidUtf8`]).
pub const QUIRK_INVALID_UTF8: u8 = 4;
/// Starts with neither `/` nor nothing ([`PatternStart`]).
pub const QUIRK_START: u8 = 8;
/// Read from a line without a colon ([`NoColon`]).
pub const QUIRK_NO_COLON: u8 = 16;

/// The quirks of a (trimmed) rule value.
fn quirks_of(value: &[u8]) -> u8 {
    let mut q = 0;
    if value.iter().any(|&b| b < 0x21) {
        q |= QUIRK_JUNK;
    }
    if value
        .split_last()
        .is_some_and(|(_, init)| init.contains(&b'$'))
    {
        q |= QUIRK_INNER_DOLLAR;
    }
    if std::str::from_utf8(value).is_err() {
        q |= QUIRK_INVALID_UTF8;
    }
    if value.first().is_some_and(|&b| b != b'/') {
        q |= QUIRK_START;
    }
    q
}

/// Whether a rule with `quirks` is dropped under `r`: each non-default
/// reading that ignores such a rule (see [`Readings`]).
fn dropped(quirks: u8, r: &Readings) -> bool {
    (quirks & QUIRK_JUNK != 0 && r.pattern_junk == PatternJunk::RuleIgnored)
        || (quirks & QUIRK_INNER_DOLLAR != 0 && r.inner_dollar == InnerDollar::MatchesNothing)
        || (quirks & QUIRK_START != 0 && r.pattern_start == PatternStart::RuleIgnored)
}

impl Rule {
    /// Octets of the normalised pattern, the [`Specificity::PatternOctets`]
    /// rank (`*` and a final `$` count one each).
    ///
    /// [`Specificity::PatternOctets`]: super::readings::Specificity::PatternOctets
    #[inline]
    pub fn octets(&self) -> u32 {
        self.pattern.end - self.pattern.start
    }

    /// `Disallow:` with no path (§2.2 `empty-pattern`).
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.pattern.start == self.pattern.end
    }
}

/// One group (§2.1 "One or more user-agent lines that are followed by one or
/// more rules. The group is terminated by a user-agent line or end of file.").
#[derive(Debug, Clone)]
pub struct Group {
    /// Line of its first `user-agent` line (of its first rule when implicit).
    pub line: u32,
    /// Its rules: `Robots::rules[start..end]`, sorted most octets first.
    pub start: u32,
    pub end: u32,
    /// Rules before any `user-agent`, kept under
    /// [`OrphanRules::AsStarGroup`].
    pub implicit: bool,
}

/// What the parser noticed and the explanation may need to mention.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ParseNotes {
    /// Lines read (§2.2 `NL = %x0D / %x0A / %x0D.0A`).
    pub lines: u32,
    /// A leading UTF-8 signature was present.
    pub bom: bool,
    /// The body was longer than the parsing limit: bytes actually parsed.
    pub truncated_to: Option<usize>,
    /// Rules before the first `user-agent` line.
    pub orphan_rules: u32,
    /// Rules with an empty path.
    pub empty_rules: u32,
    /// `user-agent` lines whose value is no product token under the reading.
    pub nameless_agent_lines: u32,
    /// Rules the readings dropped (outside the grammar, or never matching).
    pub dropped_rules: u32,
    /// `allow`/`disallow` lines without a colon ([`NoColon`]).
    pub no_colon_rules: u32,
    /// Lines that are no record of the protocol: no `:`, an unknown key
    /// (§2.2.4 other records, e.g. `Crawl-delay`), or not parseable
    /// (§2.3.1.5). None of them ends or starts a group.
    pub other_lines: u32,
    /// `Content-Usage` lines read as rules of their group
    /// ([`ContentUsage::Rule`]).
    pub usage_rules: u32,
}

/// A parsed robots.txt body.
#[derive(Debug, Clone)]
pub struct Robots {
    pub(super) readings: Readings,
    arena: Vec<u8>,
    pub(super) rules: Vec<Rule>,
    pub(super) groups: Vec<Group>,
    /// (lower-cased product token in the arena, group naming it), sorted by
    /// token then group, without duplicates; `token_groups` holds the same
    /// groups, so the groups naming one token are one contiguous slice.
    tokens: Vec<(Span, u32)>,
    token_groups: Vec<u32>,
    /// Groups naming `*` (and the implicit orphan group), in file order.
    star: Vec<u32>,
    /// `Sitemap:` values, in the arena.
    sitemaps: Vec<Span>,
    /// `Content-Usage` rules, in file order (read under
    /// [`ContentUsage::Rule`] only).
    pub(super) usage: Vec<UsageRule>,
    pub(super) notes: ParseNotes,
}

/// One `Content-Usage` rule (draft-ietf-aipref-attach-05 §3): "a path
/// and a usage preference".
#[derive(Debug, Clone, Copy)]
pub struct UsageRule {
    /// 1-based line number in the body.
    pub line: u32,
    /// The group it belongs to (an index of `Robots::groups`).
    pub group: u32,
    /// The path, normalised like an Allow/Disallow pattern (§3.1 "the same
    /// percent-encoding rules"); empty when absent, which matches every path.
    path: Span,
    /// The statement of preference as written (aipref-vocab §6 bytes).
    statement: Span,
}

#[inline]
fn is_ws(b: u8) -> bool {
    b == b' ' || b == b'\t'
}

/// §2.2 `WS = %x20 / %x09` around keys, values and lines.
#[inline]
fn trim(mut s: &[u8]) -> &[u8] {
    while let [first, rest @ ..] = s {
        if !is_ws(*first) {
            break;
        }
        s = rest;
    }
    while let [rest @ .., last] = s {
        if !is_ws(*last) {
            break;
        }
        s = rest;
    }
    s
}

/// The keys of the records this oracle reads. §2.2: the ABNF's quoted
/// strings (`"user-agent"`, `"allow"`, `"disallow"`) are case-insensitive
/// (RFC 5234 §2.3), so keys compare ignoring ASCII case. No misspelling of
/// these three is accepted: §2.2.4's leniency is for *other* records only,
/// and "Parsing of other records MUST NOT interfere with the parsing of
/// explicitly defined records".
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Key {
    UserAgent,
    Allow,
    Disallow,
    /// §2.2.4 "Crawlers MAY interpret other records ... for example,
    /// "Sitemaps"": the Sitemaps protocol's `Sitemap:` record is read, and,
    /// as "Crawlers MAY be lenient when interpreting other records. For
    /// example, crawlers may accept common misspellings of the record", so
    /// are `Sitemaps:` (the RFC's own spelling) and `Site-map:`.
    Sitemap,
    Other,
}

fn key_of(key: &[u8]) -> Key {
    let is = |name: &[u8]| key.eq_ignore_ascii_case(name);
    match key.len() {
        10 if is(b"user-agent") => Key::UserAgent,
        5 if is(b"allow") => Key::Allow,
        8 if is(b"disallow") => Key::Disallow,
        7 if is(b"sitemap") => Key::Sitemap,
        8 if is(b"sitemaps") || is(b"site-map") => Key::Sitemap,
        _ => Key::Other,
    }
}

/// §2.5: the bytes to parse when the body exceeds `limit`. The cut is moved
/// back to the end of the last whole line, because a rule cut short is a
/// different rule (`Allow: /private/page` would become `Allow: /pri`).
fn limit_body(body: &[u8], limit: Option<usize>) -> (&[u8], Option<usize>) {
    match limit {
        Some(limit) if body.len() > limit => {
            let cut = if matches!(body[limit], b'\n' | b'\r') {
                limit
            } else {
                body[..limit]
                    .iter()
                    .rposition(|&b| b == b'\n' || b == b'\r')
                    .map_or(0, |i| i + 1)
            };
            (&body[..cut], Some(cut))
        }
        _ => (body, None),
    }
}

/// A record line's key and value: split at the first `:` (§2.2), or, for
/// an `allow`/`disallow` line without one, at its first whitespace under
/// [`NoColon::WhitespaceSeparator`]. The flag says the colon was missing.
fn split_line<'l>(
    line: &'l [u8],
    readings: &Readings,
    notes: &mut ParseNotes,
) -> Option<(&'l [u8], &'l [u8], bool)> {
    if let Some(colon) = line.iter().position(|&b| b == b':') {
        return Some((trim(&line[..colon]), trim(&line[colon + 1..]), false));
    }
    let ws = line.iter().position(|&b| is_ws(b))?;
    let key = &line[..ws];
    if !matches!(key_of(key), Key::Allow | Key::Disallow) {
        return None;
    }
    notes.no_colon_rules += 1;
    (readings.no_colon == NoColon::WhitespaceSeparator).then(|| (key, trim(&line[ws..]), true))
}

/// Where parsing stands: the group rules are being added to, and whether
/// it has any yet.
#[derive(Default)]
struct Cursor {
    group: Option<usize>,
    has_rules: bool,
}

impl Robots {
    /// Parse `body` under `readings`. Never fails: §2.3.1.5 "Crawlers MUST
    /// try to parse each line of the robots.txt file. Crawlers MUST use the
    /// parseable rules." Lines that are not records are counted and skipped.
    pub fn parse(body: &[u8], readings: &Readings) -> Robots {
        let (body, truncated_to) = limit_body(body, readings.parse_limit);
        let mut notes = ParseNotes {
            truncated_to,
            ..ParseNotes::default()
        };
        let body = match body.strip_prefix(b"\xEF\xBB\xBF") {
            Some(rest) => {
                notes.bom = true;
                match readings.byte_order_mark {
                    ByteOrderMark::Skip => rest,
                    ByteOrderMark::Literal => body,
                }
            }
            None => body,
        };
        let mut robots = Robots {
            readings: *readings,
            arena: Vec::with_capacity(body.len()),
            rules: Vec::with_capacity(body.len() / 16 + 4),
            groups: Vec::new(),
            tokens: Vec::new(),
            token_groups: Vec::new(),
            star: Vec::new(),
            sitemaps: Vec::new(),
            usage: Vec::new(),
            notes: ParseNotes::default(),
        };
        let mut cursor = Cursor::default();

        let mut pos = 0;
        let mut line_no: u32 = 0;
        while pos < body.len() {
            line_no += 1;
            let rest = &body[pos..];
            let len = find_line_end(rest);
            let line = &rest[..len];
            pos += len;
            if pos < body.len() {
                pos += if body[pos] == b'\r' && body.get(pos + 1) == Some(&b'\n') {
                    2
                } else {
                    1
                };
            }

            // §2.2 `EOL = *WS [comment] NL`, `comment = "#" ...`.
            let line = match line.iter().position(|&b| b == b'#') {
                Some(i) => &line[..i],
                None => line,
            };
            let line = trim(line);
            if line.is_empty() {
                // §2.2 `emptyline`: allowed anywhere, ends nothing.
                continue;
            }
            let Some((key, value, no_colon)) = split_line(line, readings, &mut notes) else {
                notes.other_lines += 1;
                continue;
            };
            match key_of(key) {
                Key::UserAgent => robots.user_agent_line(&mut cursor, line_no, value, &mut notes),
                kind @ (Key::Allow | Key::Disallow) => {
                    let quirks = quirks_of(value) | if no_colon { QUIRK_NO_COLON } else { 0 };
                    let allow = kind == Key::Allow;
                    robots.rule_line(&mut cursor, line_no, allow, value, quirks, &mut notes);
                }
                Key::Sitemap => robots.sitemap_line(value),
                Key::Other
                    if readings.content_usage == ContentUsage::Rule
                        && key.eq_ignore_ascii_case(b"content-usage") =>
                {
                    robots.usage_line(&mut cursor, line_no, value, &mut notes)
                }
                Key::Other => notes.other_lines += 1,
            }
        }
        notes.lines = line_no;
        robots.notes = notes;

        robots.index_tokens();
        robots.sort_rules();
        robots
    }

    /// §2.2 `group = startgroupline *(startgroupline / emptyline) *(rule /
    /// emptyline)`: a user-agent line after a rule starts a new group; one
    /// before any rule joins the group being named.
    fn user_agent_line(
        &mut self,
        cur: &mut Cursor,
        line_no: u32,
        value: &[u8],
        notes: &mut ParseNotes,
    ) {
        let g = match cur.group {
            Some(g) if !cur.has_rules => g,
            _ => {
                self.groups.push(Group {
                    line: line_no,
                    start: self.rules.len() as u32,
                    end: self.rules.len() as u32,
                    implicit: false,
                });
                cur.group = Some(self.groups.len() - 1);
                cur.has_rules = false;
                self.groups.len() - 1
            }
        };
        match group_token(value, self.readings.product_token) {
            Some(b"*") => push_once(&mut self.star, g as u32),
            Some(token) => {
                let start = self.arena.len();
                self.arena.extend_from_slice(token);
                self.arena[start..].make_ascii_lowercase();
                let span = Span {
                    start: start as u32,
                    end: self.arena.len() as u32,
                };
                self.tokens.push((span, g as u32));
            }
            None => notes.nameless_agent_lines += 1,
        }
    }

    /// An `allow`/`disallow` line: into the current group, or, before any
    /// group, per [`OrphanRules`] (§2.2.2 "The crawler SHOULD ignore
    /// "disallow" and "allow" rules that are not in any group").
    fn rule_line(
        &mut self,
        cur: &mut Cursor,
        line_no: u32,
        allow: bool,
        value: &[u8],
        quirks: u8,
        notes: &mut ParseNotes,
    ) {
        let g = match cur.group {
            Some(g) => g,
            None => {
                notes.orphan_rules += 1;
                if self.readings.orphan_rules == OrphanRules::Ignore {
                    return;
                }
                self.groups.push(Group {
                    line: line_no,
                    start: self.rules.len() as u32,
                    end: self.rules.len() as u32,
                    implicit: true,
                });
                let g = self.groups.len() - 1;
                self.star.push(g as u32);
                cur.group = Some(g);
                g
            }
        };
        cur.has_rules = true;
        if value.is_empty() {
            notes.empty_rules += 1;
        }
        if dropped(quirks, &self.readings) {
            notes.dropped_rules += 1;
            return;
        }
        let rule = self.push_rule(allow, line_no, value, quirks);
        self.rules.push(rule);
        self.groups[g].end = self.rules.len() as u32;
    }

    /// aipref-attach §3: a `Content-Usage` rule belongs to the group being
    /// read and, being a rule, closes its run of user-agent lines. Before
    /// any group it is a rule in no group, which §2.2.2 says to ignore.
    /// §3.2: a value starting with `/` is a path up to the first SP or
    /// HTAB, then the statement; any other value is the statement alone.
    fn usage_line(&mut self, cur: &mut Cursor, line_no: u32, value: &[u8], notes: &mut ParseNotes) {
        let Some(g) = cur.group else {
            notes.orphan_rules += 1;
            return;
        };
        cur.has_rules = true;
        notes.usage_rules += 1;
        let (path, statement) = match value.first() {
            Some(b'/') => {
                let end = value.iter().position(|&b| is_ws(b)).unwrap_or(value.len());
                (&value[..end], trim(&value[end..]))
            }
            _ => (&value[..0], value),
        };
        let start = self.arena.len() as u32;
        normalise(
            path,
            Side::Pattern,
            self.readings.query_reserved,
            &mut self.arena,
        );
        let path = Span {
            start,
            end: self.arena.len() as u32,
        };
        self.arena.extend_from_slice(statement);
        let statement = Span {
            start: path.end,
            end: self.arena.len() as u32,
        };
        self.usage.push(UsageRule {
            line: line_no,
            group: g as u32,
            path,
            statement,
        });
    }

    /// §2.2.4: not part of any group, so it neither ends nor starts one ("a
    /// "Sitemaps" record MUST NOT terminate a group").
    fn sitemap_line(&mut self, value: &[u8]) {
        if !value.is_empty() {
            let start = self.arena.len() as u32;
            self.arena.extend_from_slice(value);
            self.sitemaps.push(Span {
                start,
                end: self.arena.len() as u32,
            });
        }
    }

    /// The token index: sorted, one entry per (token, group).
    fn index_tokens(&mut self) {
        let arena = &self.arena;
        let text = |span: Span| &arena[span.start as usize..span.end as usize];
        self.tokens
            .sort_unstable_by(|a, b| text(a.0).cmp(text(b.0)).then(a.1.cmp(&b.1)));
        self.tokens
            .dedup_by(|a, b| a.1 == b.1 && text(a.0) == text(b.0));
        self.token_groups = self.tokens.iter().map(|t| t.1).collect();
    }

    /// Most octets first, then allow before disallow (§2.2.2 "If an "allow"
    /// rule and a "disallow" rule are equivalent, then the "allow" rule
    /// SHOULD be used"), then file order: under pattern octets the first
    /// rule of a group that matches is that group's decision.
    fn sort_rules(&mut self) {
        for g in &self.groups {
            // Lines are unique, so an unstable sort is deterministic.
            self.rules[g.start as usize..g.end as usize].sort_unstable_by_key(|r| {
                (u64::from(u32::MAX - r.octets()) << 33)
                    | (u64::from(!r.allow) << 32)
                    | u64::from(r.line)
            });
        }
    }

    /// A rule's path, normalised (`matching::normalise`) into the arena.
    ///
    /// §2.2 ABNF `path-pattern = "/" *UTF8-char-noctl`, yet §5.1's own
    /// example writes `Disallow: *.gif$` and states its effect, so a path is
    /// not rejected for its first octet; one that starts with neither `/` nor
    /// `*` can never match, since matching starts at the path's first octet,
    /// always `/`. Octets that are not UTF-8 (§2.3 "The file MUST be UTF-8
    /// encoded"; "Implementors MAY bridge encoding mismatches") are not
    /// re-encoded from another charset: as octets ≥ 0x80 they are
    /// percent-encoded like any other.
    fn push_rule(&mut self, allow: bool, line: u32, value: &[u8], quirks: u8) -> Rule {
        let start = self.arena.len() as u32;
        let decoded;
        let text = if quirks & QUIRK_INVALID_UTF8 != 0
            && self.readings.invalid_utf8 == InvalidUtf8::Replacement
        {
            decoded = String::from_utf8_lossy(value).into_owned();
            decoded.as_bytes()
        } else {
            value
        };
        normalise(
            text,
            Side::Pattern,
            self.readings.query_reserved,
            &mut self.arena,
        );
        let pattern = Span {
            start,
            end: self.arena.len() as u32,
        };
        // The raw spelling is kept only where normalisation changed it.
        let raw = if self.arena[start as usize..] == *value {
            pattern
        } else {
            self.arena.extend_from_slice(value);
            Span {
                start: pattern.end,
                end: self.arena.len() as u32,
            }
        };
        Rule {
            allow,
            line,
            pattern,
            raw,
            quirks,
        }
    }

    /// A rule's normalised pattern.
    #[inline]
    pub fn pattern(&self, rule: &Rule) -> &[u8] {
        &self.arena[rule.pattern.start as usize..rule.pattern.end as usize]
    }

    /// A `Content-Usage` rule's normalised path (empty: every path).
    pub fn usage_path(&self, rule: &UsageRule) -> &[u8] {
        self.text(rule.path)
    }

    /// A `Content-Usage` rule's statement of preference, as written.
    pub fn usage_statement(&self, rule: &UsageRule) -> &[u8] {
        self.text(rule.statement)
    }

    /// Every `Content-Usage` rule, in file order.
    pub fn usage_rules(&self) -> &[UsageRule] {
        &self.usage
    }

    /// A rule's path as written in the file.
    pub fn raw_pattern(&self, rule: &Rule) -> &[u8] {
        &self.arena[rule.raw.start as usize..rule.raw.end as usize]
    }

    /// Every `Sitemap:` value, in file order, as written (invalid UTF-8
    /// replaced).
    pub fn sitemaps(&self) -> Vec<String> {
        self.sitemaps
            .iter()
            .map(|s| String::from_utf8_lossy(self.text(*s)).into_owned())
            .collect()
    }

    pub fn sitemap_count(&self) -> usize {
        self.sitemaps.len()
    }

    #[inline]
    fn text(&self, span: Span) -> &[u8] {
        &self.arena[span.start as usize..span.end as usize]
    }

    /// The groups naming `lower` (a lower-cased token), in file order.
    fn groups_naming(&self, lower: &[u8]) -> &[u32] {
        let lo = self.tokens.partition_point(|t| self.text(t.0) < lower);
        let hi = lo + self.tokens[lo..].partition_point(|t| self.text(t.0) == lower);
        &self.token_groups[lo..hi]
    }

    pub fn readings(&self) -> &Readings {
        &self.readings
    }

    pub fn notes(&self) -> &ParseNotes {
        &self.notes
    }

    pub fn groups(&self) -> &[Group] {
        &self.groups
    }

    pub fn rules_of(&self, group: &Group) -> &[Rule] {
        &self.rules[group.start as usize..group.end as usize]
    }

    /// §2.2.1 group selection for a caller's product token: every group
    /// naming it, case-insensitively, merged ("If there is more than one
    /// group matching the user-agent, the matching groups' rules MUST be
    /// combined into one group"); if none, every `*` group ("If no matching
    /// group exists, crawlers MUST obey the group with a user-agent line with
    /// the "*" value, if present"); else none ("no rules apply").
    pub fn select(&self, token: &[u8]) -> Selection<'_> {
        if !token.is_empty() && token != b"*" {
            let mut buf = [0u8; 64];
            let groups = if token.len() <= buf.len() {
                let lower = &mut buf[..token.len()];
                lower.copy_from_slice(token);
                lower.make_ascii_lowercase();
                self.groups_naming(lower)
            } else {
                self.groups_naming(&token.to_ascii_lowercase())
            };
            if !groups.is_empty() {
                return Selection {
                    kind: Chosen::Exact,
                    groups,
                };
            }
        }
        if self.star.is_empty() {
            Selection {
                kind: Chosen::None,
                groups: &[],
            }
        } else {
            Selection {
                kind: Chosen::Star,
                groups: &self.star,
            }
        }
    }
}

/// Index of the first CR or LF of `s` (§2.2 `NL`), else `s.len()`. Eight
/// octets at a time: the body may be 500 KiB and every octet passes here.
#[inline]
fn find_line_end(s: &[u8]) -> usize {
    const LO: u64 = 0x0101_0101_0101_0101;
    const HI: u64 = 0x8080_8080_8080_8080;
    let mut i = 0;
    while i + 8 <= s.len() {
        let mut word = [0u8; 8];
        word.copy_from_slice(&s[i..i + 8]);
        let w = u64::from_le_bytes(word);
        let lf = w ^ (LO * b'\n' as u64);
        let cr = w ^ (LO * b'\r' as u64);
        // The lowest set high bit marks the first zero octet of `lf` or `cr`
        // exactly (the borrow only produces false marks above a true one).
        let hit = ((lf.wrapping_sub(LO) & !lf) | (cr.wrapping_sub(LO) & !cr)) & HI;
        if hit != 0 {
            return i + (hit.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    while i < s.len() {
        if s[i] == b'\n' || s[i] == b'\r' {
            return i;
        }
        i += 1;
    }
    s.len()
}

fn push_once(list: &mut Vec<u32>, g: u32) {
    if list.last() != Some(&g) {
        list.push(g);
    }
}

/// How the group for a query was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Chosen {
    /// Groups naming the caller's product token.
    Exact,
    /// No group names it: the `*` groups.
    Star,
    /// Neither: no rules apply.
    None,
}

/// The merged group a query obeys: indices into [`Robots::groups`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Selection<'r> {
    pub kind: Chosen,
    pub groups: &'r [u32],
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(body: &str) -> Robots {
        Robots::parse(body.as_bytes(), &Readings::default())
    }

    #[test]
    fn line_ends_and_numbers() {
        let r = parse("User-agent: a\rDisallow: /x\r\n\nAllow: /y\n");
        assert_eq!(r.notes.lines, 4);
        let mut lines: Vec<u32> = r.rules.iter().map(|r| r.line).collect();
        lines.sort();
        assert_eq!(lines, vec![2, 4]);
    }

    #[test]
    fn user_agent_after_rule_starts_group() {
        let r = parse("user-agent: a\nuser-agent: b\ndisallow: /\nuser-agent: c\nallow: /\n");
        assert_eq!(r.groups.len(), 2);
        assert_eq!(r.select(b"A").groups, &[0]);
        assert_eq!(r.select(b"b").groups, &[0]);
        assert_eq!(r.select(b"C").groups, &[1]);
        assert_eq!(r.select(b"d").kind, Chosen::None);
    }

    #[test]
    fn token_index_merges_and_dedupes() {
        let r = parse("user-agent: a\nuser-agent: A\ndisallow: /\nuser-agent: b\nuser-agent: a\nallow: /\nuser-agent: ab\nallow: /\n");
        assert_eq!(r.select(b"a").groups, &[0, 1]);
        assert_eq!(r.select(b"B").groups, &[1]);
        assert_eq!(r.select(b"AB").groups, &[2]);
        assert_eq!(r.select(b"aa").kind, Chosen::None);
        assert_eq!(r.select(b"").kind, Chosen::None);
        let long = "x".repeat(100);
        let r = parse(&format!("user-agent: {long}\ndisallow: /\n"));
        assert_eq!(r.select(long.to_uppercase().as_bytes()).groups, &[0]);
    }

    #[test]
    fn other_records_do_not_end_groups() {
        let r = parse("User-agent: BarBot\nSitemap: https://foo.bar/s\nCrawl-delay: 5\nbogus line\nUser-agent: *\nDisallow: /\n");
        assert_eq!(r.groups.len(), 1);
        assert_eq!(r.sitemaps(), vec!["https://foo.bar/s".to_string()]);
        assert_eq!(r.notes.other_lines, 2);
        let r = parse("SITEMAPS: /a\nsite-map: /b\nsitemap:\nUser-agent: *\nsite map: /c\n");
        assert_eq!(r.sitemaps(), vec!["/a".to_string(), "/b".to_string()]);
        assert_eq!(r.notes.other_lines, 1);
    }

    #[test]
    fn nameless_user_agent_still_starts_a_group() {
        let r = parse("User-agent: a\nDisallow: /x\nUser-agent: FooBot/1.0\nDisallow: /\n");
        assert_eq!(r.groups.len(), 2);
        assert_eq!(r.rules_of(&r.groups[0]).len(), 1);
        assert_eq!(r.notes.nameless_agent_lines, 1);
    }

    #[test]
    fn parse_limit_cuts_at_a_line_end() {
        let body = "User-agent: *\nDisallow: /private\n";
        let readings = Readings {
            parse_limit: Some(24),
            ..Readings::default()
        };
        let r = Robots::parse(body.as_bytes(), &readings);
        assert_eq!(r.notes.truncated_to, Some(14));
        assert_eq!(r.rules.len(), 0);
        let readings = Readings {
            parse_limit: Some(body.len() - 1),
            ..Readings::default()
        };
        let r = Robots::parse(body.as_bytes(), &readings);
        assert_eq!(r.notes.truncated_to, Some(body.len() - 1));
        assert_eq!(r.raw_pattern(&r.rules[0]), b"/private");
    }

    #[test]
    fn line_end_search() {
        for s in [
            "",
            "a",
            "abcdefgh",
            "abcdefghijklmnop",
            "abc\rdefghijkl",
            "abcdefghij\n",
            "\r\n",
        ] {
            let expected = s.find(['\n', '\r']).unwrap_or(s.len());
            assert_eq!(find_line_end(s.as_bytes()), expected, "{s:?}");
        }
        // Octets that differ from CR/LF only in the high bit, and 0x00/0x01
        // around them, must not be taken for line ends.
        let filler = [0x8Au8, 0x8D, 0x0B, 0x0C, 0x00, 0x01, b'x', 0xFF];
        for nl in [b'\n', b'\r'] {
            for i in 0..40 {
                let mut v: Vec<u8> = (0..40).map(|k| filler[k % filler.len()]).collect();
                assert_eq!(find_line_end(&v), 40);
                v[i] = nl;
                assert_eq!(find_line_end(&v), i);
            }
        }
    }

    #[test]
    fn rules_sorted_by_octets_then_allow() {
        let r = parse("User-agent: a\nDisallow: /x\nAllow: /\nAllow: /x\nDisallow: /xyz\n");
        let order: Vec<(bool, u32)> = r.rules.iter().map(|r| (r.allow, r.line)).collect();
        assert_eq!(order, vec![(false, 5), (true, 4), (false, 2), (true, 3)]);
    }
}
