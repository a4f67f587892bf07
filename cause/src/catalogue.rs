//! The catalogue of named, neutralising transformations (see [`super`]).
//! Each removes one feature of the input that parsers read differently; it
//! returns `None` when the input lacks that feature.

use super::{lines, normalise_line_ends, split_end, split_url, Input, Transformation};

/// Narrowest first: encoding, line syntax, agent and group names, the URL,
/// escapes, then whole-rule and whole-file changes.
pub const CATALOGUE: &[Transformation] = &[
    t(
        "strip-bom",
        "a parser keeping a leading UTF-8 BOM as part of the first key",
        strip_bom,
    ),
    t(
        "strip-partial-bom",
        "a parser skipping a partial BOM (EF, EF BB) or keeping it",
        strip_partial_bom,
    ),
    t(
        "remove-inner-bom",
        "a U+FEFF at the start of a later line trimmed (String#trim), or kept in the key",
        remove_inner_bom,
    ),
    t(
        "decode-utf16",
        "a UTF-16LE file (FF FE) decoded as UTF-16 or read as bytes",
        decode_utf16,
    ),
    t(
        "remove-nul",
        "a NUL byte ending the pattern or the line, or kept",
        remove_nul,
    ),
    t(
        "drop-invalid-utf8",
        "a parser raising on, replacing or keeping bytes that are not UTF-8",
        drop_invalid_utf8,
    ),
    t(
        "remove-extra-line-breaks",
        "Python's splitlines: VT, FF, FS, GS, RS, NEL, U+2028/9 as line breaks",
        remove_extra_breaks,
    ),
    t(
        "trim-unicode-spaces",
        "a Unicode-aware trim (Rust str::trim, Python str.strip, String#trim) cutting U+00A0, U+2000-U+200A, U+3000... from a value's ends",
        trim_unicode_spaces,
    ),
    t(
        "normalise-line-ends",
        "a lone CR (or CRLF) read as a line end or as a character",
        normalise_ends,
    ),
    t(
        "drop-indentation",
        "indented lines skipped, or read with the indentation in the key",
        drop_indentation,
    ),
    t(
        "add-missing-colon",
        "`Disallow /a` without its colon repaired as key and value, or skipped",
        add_missing_colon,
    ),
    t(
        "fix-misspelt-key",
        "misspelt keys (Dissallow, useragent, site-map) read leniently, or ignored",
        fix_misspelt_key,
    ),
    t(
        "fix-key-prefix",
        "a key read by its prefix (Disallowed: as Disallow:), or ignored",
        fix_key_prefix,
    ),
    t(
        "agent-product-token",
        "the caller's agent compared whole (MyBot/1.0) instead of its product token",
        agent_product_token,
    ),
    t(
        "rename-substring-groups",
        "a group applied because its name is inside the agent (bot in MyBot, empty in all)",
        rename_substring_groups,
    ),
    t(
        "cut-group-token",
        "a group name cut at its first non-token character (Foo2Bot as Foo, foo* as foo)",
        cut_group_token,
    ),
    t(
        "avoid-robots-txt-url",
        "/robots.txt allowed implicitly, or matched against the rules",
        avoid_robots_txt,
    ),
    t(
        "drop-fragment",
        "the URL fragment kept in the matched path",
        drop_fragment,
    ),
    t(
        "slash-empty-path",
        "an empty URL path (http://h?q) matched as ?q instead of /?q",
        slash_empty_path,
    ),
    t(
        "remove-dot-segments",
        "dot segments (/b/../a) resolved before matching, or not",
        remove_dot_segments,
    ),
    t(
        "uppercase-escape-hex",
        "%c3 and %C3 compared as different strings",
        uppercase_escape_hex,
    ),
    t(
        "decode-unreserved-escapes",
        "%7E not decoded to ~ (escapes of unreserved characters)",
        decode_unreserved,
    ),
    t(
        "decode-slash-escape",
        "%2F decoded to /, or kept",
        decode_slash,
    ),
    t(
        "decode-query-escapes",
        "%3F, %3D, %26 decoded to ?, =, &, or kept",
        decode_query,
    ),
    t(
        "encode-special-url-chars",
        "a literal * or $ in the URL against %2A or %24 in a pattern",
        encode_special_url,
    ),
    t(
        "encode-non-ascii-url",
        "raw non-ASCII in the URL matched without percent-encoding",
        encode_non_ascii_url,
    ),
    t(
        "encode-non-ascii-rules",
        "raw non-ASCII in a pattern matched as octets, decoded or dropped",
        encode_non_ascii_rules,
    ),
    t(
        "drop-query-mark",
        "a trailing ? dropped from a pattern (/search? as /search)",
        drop_query_mark,
    ),
    t(
        "drop-space-in-pattern",
        "a space inside a pattern kept as an octet, or ending it",
        drop_space_in_pattern,
    ),
    t(
        "cut-index-html",
        "Allow: /dir/index.html also allowing /dir/",
        cut_index_html,
    ),
    t(
        "remove-dollar",
        "$ read as an end anchor, as a literal, or mid-pattern",
        remove_dollar,
    ),
    t(
        "remove-star",
        "* read as a wildcard or as a literal",
        remove_star,
    ),
    t(
        "drop-empty-disallow",
        "an empty Disallow: read as allow-all, competing with other rules",
        drop_empty_disallow,
    ),
    t(
        "drop-orphan-rules",
        "rules before every user-agent line applied to all agents, or ignored",
        drop_orphan_rules,
    ),
    t(
        "drop-other-records",
        "a Sitemap, Crawl-delay or unknown line ending the list of user-agent lines",
        drop_other_records,
    ),
    t(
        "separate-groups-with-blank-lines",
        "a blank line required between records (the 1994 and 1996 record format): a user-agent line right after a rule or another record is a syntax error",
        separate_groups,
    ),
    t(
        "drop-repeated-groups",
        "only the first group for an agent used, later groups with its name not merged",
        drop_repeated_groups,
    ),
    t(
        "drop-blank-lines",
        "a blank line ending a group",
        drop_blank_lines,
    ),
    t(
        "reverse-rule-order",
        "the first matching rule winning instead of the most specific",
        reverse_rule_order,
    ),
    // Last: with every Allow gone most rule-precedence causes would agree
    // too, so it names only what the narrower ones above cannot.
    t(
        "drop-allow-rules",
        "no Allow (the 1994 standard has only Disallow): an Allow line skipped as unknown",
        drop_allow_rules,
    ),
    // After every other: it changes the question (the caller's agent), so
    // it names only what no change of the file or URL explains. Appended
    // (2026-12-02) rather than put with the agent causes so that no cause
    // named before it changes.
    t(
        "lowercase-agent",
        "the group names matched case-sensitively against the caller's agent (Heritrix lower-cases the file's names, not its own User-Agent)",
        lowercase_agent,
    ),
    // Appended (2026-12-04) for the same reason, after the sweep that
    // followed the first nightly with every oracle in the loop: the fuzz
    // generator's URL and agent shapes include questions no crawler asks a
    // library that takes an absolute URL and a configured name (the first
    // two), and two parser habits the catalogue lacked (the last two).
    t(
        "absolute-url",
        "a URL without scheme and host (`/private`, `//[`) refused or parsed as a network path: made absolute on the plain host, its path kept",
        absolute_url,
    ),
    t(
        "token-agent",
        "an agent with no product token at all (`0`, `)`, a tab, empty) refused by the crawler's configuration check: replaced by a token the file does not name",
        token_agent,
    ),
    t(
        "drop-space-before-colon",
        "whitespace between a key and its colon (`Disallow : /`, allowed by RFC 9309's ABNF) read as part of the key, so the line is skipped",
        drop_space_before_colon,
    ),
    t(
        "escape-url-octets",
        "a URL holding a `%` without two hex digits or an octet RFC 3986 does not allow (`\"`, `{`, a space) refused by a URL parser, or matched raw: percent-encoded as the reference reads it",
        escape_url_octets,
    ),
    // Appended (2026-12-04, second sweep after the 60-minute nightly): the
    // rule-side twin of `escape-url-octets`, for parsers that encode the
    // URL's octets but compare the rule's raw.
    t(
        "escape-rule-octets",
        "a rule holding a control octet, `\"`, `{`, `|` or another ASCII octet RFC 3986 does not allow, or a `%` without two hex digits, matched raw or cut at the octet: percent-encoded as the reference reads it",
        escape_rule_octets,
    ),
    // Appended (2026-12-04, the sweep after the first batch of second-sweep
    // cases): two repairs some parsers make of values RFC 9309's ABNF does
    // not allow, each the reading of one `either` query of the corpus.
    t(
        "cut-star-group-value",
        "a user-agent value that is `*` followed by whitespace and more (`User-agent: * foobot`) read up to the space as the `*` group (fuzz-star-then-token-user-agent)",
        cut_star_group_value,
    ),
    t(
        "add-leading-slash",
        "a rule that starts with neither `/` nor `*` (`Disallow: private`) repaired as `/private`, or resolved against the robots.txt URL, instead of matching nothing (rob-pattern-without-slash)",
        add_leading_slash,
    ),
];

const fn t(
    name: &'static str,
    neutralises: &'static str,
    apply: fn(&Input) -> Option<Input>,
) -> Transformation {
    Transformation {
        name,
        neutralises,
        apply,
    }
}

/// `input` with a new body, when it differs.
fn body(input: &Input, body: Vec<u8>) -> Option<Input> {
    (body != input.body).then(|| Input {
        body,
        ..input.clone()
    })
}

fn url(input: &Input, url: String) -> Option<Input> {
    (url != input.url).then(|| Input {
        url,
        ..input.clone()
    })
}

/// Apply `f` to each line's content (line ends kept); `f` returns `None` to
/// drop the line.
fn map_lines(input: &Input, mut f: impl FnMut(&[u8]) -> Option<Vec<u8>>) -> Option<Input> {
    let mut out = Vec::with_capacity(input.body.len());
    for line in lines(&input.body) {
        let (content, end) = split_end(&line);
        if let Some(c) = f(content) {
            out.extend_from_slice(&c);
            out.extend_from_slice(end);
        }
    }
    body(input, out)
}

/// A line's key (lower case, trimmed) and the bytes after its colon.
fn key_value(content: &[u8]) -> Option<(String, &[u8])> {
    let colon = content.iter().position(|&b| b == b':')?;
    let key = String::from_utf8_lossy(&content[..colon])
        .trim()
        .to_ascii_lowercase();
    Some((key, &content[colon + 1..]))
}

pub(super) fn is_rule(content: &[u8]) -> bool {
    key_value(content).is_some_and(|(k, _)| k == "allow" || k == "disallow")
}

pub(super) fn is_agent_line(content: &[u8]) -> bool {
    key_value(content).is_some_and(|(k, _)| k == "user-agent")
}

/// Apply `f` to the value of every line whose key satisfies `which`.
fn map_values(
    input: &Input,
    which: fn(&str) -> bool,
    f: impl Fn(&[u8]) -> Vec<u8>,
) -> Option<Input> {
    map_lines(input, |c| match key_value(c) {
        Some((k, v)) if which(&k) => {
            let head = &c[..c.len() - v.len()];
            Some([head, f(v).as_slice()].concat())
        }
        _ => Some(c.to_vec()),
    })
}

fn rule_key(k: &str) -> bool {
    k == "allow" || k == "disallow"
}

fn strip_bom(i: &Input) -> Option<Input> {
    let rest = i.body.strip_prefix(b"\xEF\xBB\xBF")?;
    body(i, rest.to_vec())
}

fn strip_partial_bom(i: &Input) -> Option<Input> {
    if i.body.starts_with(b"\xEF\xBB\xBF") {
        return None;
    }
    let rest = i
        .body
        .strip_prefix(b"\xEF\xBB")
        .or_else(|| i.body.strip_prefix(b"\xEF"))?;
    body(i, rest.to_vec())
}

fn remove_inner_bom(i: &Input) -> Option<Input> {
    let (head, rest) = i.body.split_at(i.body.len().min(3));
    let rest = remove_all(rest, &[b"\xEF\xBB\xBF"]);
    body(i, [head, rest.as_slice()].concat())
}

fn decode_utf16(i: &Input) -> Option<Input> {
    let rest = i.body.strip_prefix(b"\xFF\xFE")?;
    let units: Vec<u16> = rest
        .chunks(2)
        .map(|c| u16::from_le_bytes([c[0], *c.get(1).unwrap_or(&0)]))
        .collect();
    body(i, String::from_utf16_lossy(&units).into_bytes())
}

fn remove_nul(i: &Input) -> Option<Input> {
    body(i, i.body.iter().copied().filter(|&b| b != 0).collect())
}

fn drop_invalid_utf8(i: &Input) -> Option<Input> {
    let mut out = Vec::with_capacity(i.body.len());
    for chunk in i.body.utf8_chunks() {
        out.extend_from_slice(chunk.valid().as_bytes());
    }
    body(i, out)
}

/// Remove every occurrence of any of `needles` from `hay`.
fn remove_all(hay: &[u8], needles: &[&[u8]]) -> Vec<u8> {
    let mut out = Vec::with_capacity(hay.len());
    let mut j = 0;
    'outer: while j < hay.len() {
        for n in needles {
            if hay[j..].starts_with(n) {
                j += n.len();
                continue 'outer;
            }
        }
        out.push(hay[j]);
        j += 1;
    }
    out
}

fn remove_extra_breaks(i: &Input) -> Option<Input> {
    let breaks: &[&[u8]] = &[
        b"\x0B",
        b"\x0C",
        b"\x1C",
        b"\x1D",
        b"\x1E",
        b"\xC2\x85",
        b"\xE2\x80\xA8",
        b"\xE2\x80\xA9",
    ];
    body(i, remove_all(&i.body, breaks))
}

fn normalise_ends(i: &Input) -> Option<Input> {
    body(i, normalise_line_ends(&i.body))
}

fn drop_indentation(i: &Input) -> Option<Input> {
    map_lines(i, |c| {
        let n = c.iter().take_while(|b| **b == b' ' || **b == b'\t').count();
        Some(c[n..].to_vec())
    })
}

const KEYS: &[&str] = &["user-agent", "allow", "disallow", "sitemap", "crawl-delay"];

fn add_missing_colon(i: &Input) -> Option<Input> {
    map_lines(i, |c| {
        if c.contains(&b':') {
            return Some(c.to_vec());
        }
        let n = c.iter().take_while(|b| **b == b' ' || **b == b'\t').count();
        let word_end = c[n..]
            .iter()
            .position(|b| *b == b' ' || *b == b'\t')
            .map_or(c.len(), |p| n + p);
        let word = String::from_utf8_lossy(&c[n..word_end]).to_ascii_lowercase();
        // A misspelt key some parser accepts may lack its colon too.
        let keyish = KEYS.contains(&word.as_str()) || TYPOS.iter().any(|(bad, _)| *bad == word);
        if keyish && word_end < c.len() {
            return Some([&c[..word_end], b":", &c[word_end..]].concat());
        }
        Some(c.to_vec())
    })
}

/// Misspellings some parser accepts (Google's robots.cc list, and the
/// corpus's), and the key each stands for.
const TYPOS: &[(&str, &str)] = &[
    ("dissallow", "disallow"),
    ("dissalow", "disallow"),
    ("disalow", "disallow"),
    ("diasllow", "disallow"),
    ("disallaw", "disallow"),
    ("disallw", "disallow"),
    ("useragent", "user-agent"),
    ("user agent", "user-agent"),
    ("user_agent", "user-agent"),
    ("user-agnet", "user-agent"),
    ("site-map", "sitemap"),
];

/// Replace a line's key by `fix(key)`, keeping what follows the colon.
fn rekey(i: &Input, fix: impl Fn(&str) -> Option<&'static str>) -> Option<Input> {
    map_lines(i, |c| match key_value(c) {
        Some((k, v)) => match fix(&k) {
            Some(good) => Some([good.as_bytes(), b":", v].concat()),
            None => Some(c.to_vec()),
        },
        None => Some(c.to_vec()),
    })
}

fn fix_misspelt_key(i: &Input) -> Option<Input> {
    rekey(i, |k| {
        TYPOS.iter().find(|(bad, _)| *bad == k).map(|(_, g)| *g)
    })
}

fn fix_key_prefix(i: &Input) -> Option<Input> {
    rekey(i, |k| {
        if KEYS.contains(&k) {
            return None;
        }
        // Longest first: `disallow` before `allow` cannot clash (a key
        // starting with `disallow` does not start with `allow`).
        KEYS.iter().find(|g| k.starts_with(**g)).copied()
    })
}

/// The leading run of RFC 9309 product-token characters.
fn token_prefix(s: &str) -> &str {
    let n = s
        .bytes()
        .take_while(|b| b.is_ascii_alphabetic() || *b == b'_' || *b == b'-')
        .count();
    &s[..n]
}

fn agent_product_token(i: &Input) -> Option<Input> {
    let token = token_prefix(&i.agent);
    if token.is_empty() || token == i.agent {
        return None;
    }
    Some(Input {
        agent: token.to_string(),
        ..i.clone()
    })
}

fn lowercase_agent(i: &Input) -> Option<Input> {
    let lower = i.agent.to_ascii_lowercase();
    (lower != i.agent).then(|| Input {
        agent: lower,
        ..i.clone()
    })
}

/// The path (and query) of a relative reference on `http://example.test`;
/// a network-path reference (`//host/p`) loses its authority, which is what
/// a parser refusing it could not parse.
fn absolute_url(i: &Input) -> Option<Input> {
    let scheme = i.url.find("://").map(|n| &i.url[..n]);
    let valid = |s: &str| {
        s.starts_with(|c: char| c.is_ascii_alphabetic())
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
    };
    if scheme.is_some_and(valid) {
        return None;
    }
    let rest = match i.url.strip_prefix("//") {
        Some(after) => &after[after.find(['/', '?', '#']).unwrap_or(after.len())..],
        None => i.url.as_str(),
    };
    let slash = if rest.starts_with('/') { "" } else { "/" };
    url(i, format!("http://example.test{slash}{rest}"))
}

/// For the reference an agent with no product token matches only `*`, as
/// does a token no group names: the question is the same, asked in a form
/// every crawler's configuration accepts.
fn token_agent(i: &Input) -> Option<Input> {
    if !token_prefix(&i.agent).is_empty() {
        return None;
    }
    let body = String::from_utf8_lossy(&i.body).to_ascii_lowercase();
    let mut agent = String::from("unnamedbot");
    while body.contains(&agent) {
        agent.push('z');
    }
    Some(Input { agent, ..i.clone() })
}

fn drop_space_before_colon(i: &Input) -> Option<Input> {
    map_lines(i, |c| {
        let Some(colon) = c.iter().position(|&b| b == b':') else {
            return Some(c.to_vec());
        };
        let key = &c[..colon];
        let kept = key.trim_ascii_end().len();
        let keyish = key[..kept].iter().any(|b| !b.is_ascii_whitespace());
        Some(if keyish && kept < key.len() {
            [&key[..kept], &c[colon..]].concat()
        } else {
            c.to_vec()
        })
    })
}

/// The URL's path and query with every `%` that starts no escape written
/// `%25` and every ASCII octet RFC 3986 allows in neither written `%XX`:
/// the octets the reference percent-encodes before it compares (§2.2.2).
fn escape_url_octets(i: &Input) -> Option<Input> {
    let (host, rest) = split_url(&i.url);
    let (rest, fragment) = rest.split_at(rest.find('#').unwrap_or(rest.len()));
    let b = rest.as_bytes();
    let mut out = String::with_capacity(rest.len());
    for (n, ch) in rest.char_indices() {
        let hex = |k: usize| b.get(n + k).is_some_and(u8::is_ascii_hexdigit);
        match ch {
            '%' if !(hex(1) && hex(2)) => out.push_str("%25"),
            c if c.is_ascii_control() || " \"<>\\^`{|}".contains(c) => {
                out.push_str(&format!("%{:02X}", c as u32))
            }
            c => out.push(c),
        }
    }
    url(i, format!("{host}{out}{fragment}"))
}

/// A rule's pattern (before any comment) with the octets `escape_url_octets`
/// encodes written `%XX`, except space and tab, which are
/// `drop-space-in-pattern`'s: the reference encodes the rule as it encodes
/// the URL (§2.2.2).
fn escape_rule_octets(i: &Input) -> Option<Input> {
    map_values(i, rule_key, |v| {
        let cut = v.iter().position(|&b| b == b'#').unwrap_or(v.len());
        let (pattern, comment) = v.split_at(cut);
        let mut out = Vec::with_capacity(v.len());
        for (n, &b) in pattern.iter().enumerate() {
            let hex = |k: usize| pattern.get(n + k).is_some_and(u8::is_ascii_hexdigit);
            match b {
                b'%' if !(hex(1) && hex(2)) => out.extend_from_slice(b"%25"),
                b' ' | b'\t' => out.push(b),
                b if b.is_ascii_control() || b"\"<>\\^`{|}".contains(&b) => {
                    out.extend_from_slice(format!("%{b:02X}").as_bytes())
                }
                b => out.push(b),
            }
        }
        out.extend_from_slice(comment);
        out
    })
}

/// `* foobot` as a user-agent value becomes `*` (any comment kept): the
/// value read up to its first whitespace, as Google's parser reads it.
fn cut_star_group_value(i: &Input) -> Option<Input> {
    map_values(
        i,
        |k| k == "user-agent",
        |v| {
            let cut = v.iter().position(|&b| b == b'#').unwrap_or(v.len());
            let (value, comment) = v.split_at(cut);
            let value = value.trim_ascii();
            match value {
                [b'*', w, ..] if w.is_ascii_whitespace() => [b" *", comment].concat(),
                _ => v.to_vec(),
            }
        },
    )
}

/// `private` as a rule becomes `/private`: the repair WWW::RobotRules makes
/// by resolving the value against the robots.txt URL; a value that starts
/// with `/`, `*` or a comment, or is empty, is left to other causes.
fn add_leading_slash(i: &Input) -> Option<Input> {
    map_pattern(i, |p| match p.chars().next() {
        None | Some('/' | '*' | '#') => p.to_string(),
        Some(_) => format!("/{p}"),
    })
}

fn rename_substring_groups(i: &Input) -> Option<Input> {
    let agent = i.agent.to_ascii_lowercase();
    let token = token_prefix(&agent).to_string();
    map_lines(i, |c| match key_value(c) {
        Some((k, v)) if k == "user-agent" => {
            let name = String::from_utf8_lossy(v).trim().to_ascii_lowercase();
            let foreign = name != "*" && name != token && agent.contains(name.as_str());
            Some(if foreign {
                b"User-agent: zz-unrelated".to_vec()
            } else {
                c.to_vec()
            })
        }
        _ => Some(c.to_vec()),
    })
}

fn cut_group_token(i: &Input) -> Option<Input> {
    map_values(
        i,
        |k| k == "user-agent",
        |v| {
            let name = String::from_utf8_lossy(v).trim().to_string();
            let token = token_prefix(&name);
            if name == "*" || token.is_empty() {
                return v.to_vec();
            }
            format!(" {token}").into_bytes()
        },
    )
}

fn avoid_robots_txt(i: &Input) -> Option<Input> {
    let (host, path) = split_url(&i.url);
    let rest = path.strip_prefix("/robots.txt")?;
    if !(rest.is_empty() || rest.starts_with(['?', '#'])) {
        return None;
    }
    url(i, format!("{host}/robots.txx{rest}"))
}

fn drop_fragment(i: &Input) -> Option<Input> {
    let cut = i.url.find('#')?;
    url(i, i.url[..cut].to_string())
}

fn slash_empty_path(i: &Input) -> Option<Input> {
    let (host, path) = split_url(&i.url);
    if host.is_empty() || path.starts_with('/') {
        return None;
    }
    url(i, format!("{host}/{path}"))
}

fn remove_dot_segments(i: &Input) -> Option<Input> {
    let (host, rest) = split_url(&i.url);
    let cut = rest.find(['?', '#']).unwrap_or(rest.len());
    let (path, tail) = rest.split_at(cut);
    let mut out: Vec<&str> = Vec::new();
    let segs: Vec<&str> = path.split('/').collect();
    for (n, s) in segs.iter().enumerate() {
        match *s {
            "." => {}
            ".." => {
                if out.len() > 1 {
                    out.pop();
                }
            }
            s => out.push(s),
        }
        if (*s == "." || *s == "..") && n + 1 == segs.len() {
            out.push("");
        }
    }
    url(i, format!("{host}{}{tail}", out.join("/")))
}

/// Apply `f` to every `%XY` escape (the two hex digits as given) of the URL
/// and of every rule value; `f` returns the replacement bytes.
fn map_escapes(i: &Input, f: fn(u8, &[u8]) -> Option<Vec<u8>>) -> Option<Input> {
    let fix = |s: &[u8]| -> Vec<u8> {
        let mut out = Vec::with_capacity(s.len());
        let mut j = 0;
        while j < s.len() {
            let hex = s
                .get(j + 1..j + 3)
                .filter(|h| h.iter().all(u8::is_ascii_hexdigit));
            if let (b'%', Some(h)) = (s[j], hex) {
                let v = u8::from_str_radix(&String::from_utf8_lossy(h), 16).unwrap_or(0);
                out.extend(f(v, h).unwrap_or_else(|| s[j..j + 3].to_vec()));
                j += 3;
            } else {
                out.push(s[j]);
                j += 1;
            }
        }
        out
    };
    let mut changed = map_values(i, rule_key, fix).unwrap_or_else(|| i.clone());
    changed.url = String::from_utf8_lossy(&fix(i.url.as_bytes())).into_owned();
    (changed != *i).then_some(changed)
}

fn uppercase_escape_hex(i: &Input) -> Option<Input> {
    map_escapes(i, |_, h| {
        Some([b"%", h.to_ascii_uppercase().as_slice()].concat())
    })
}

fn decode_unreserved(i: &Input) -> Option<Input> {
    map_escapes(i, |v, _| {
        (v.is_ascii_alphanumeric() || b"-._~".contains(&v)).then(|| vec![v])
    })
}

fn decode_slash(i: &Input) -> Option<Input> {
    map_escapes(i, |v, _| (v == b'/').then(|| vec![v]))
}

fn decode_query(i: &Input) -> Option<Input> {
    map_escapes(i, |v, _| b"?=&".contains(&v).then(|| vec![v]))
}

fn encode_special_url(i: &Input) -> Option<Input> {
    let (host, path) = split_url(&i.url);
    let path = path.replace('*', "%2A").replace('$', "%24");
    url(i, format!("{host}{path}"))
}

/// Percent-encode every non-ASCII octet (upper-case hex).
fn encode_octets(s: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(s.len());
    for &b in s {
        if b.is_ascii() {
            out.push(b);
        } else {
            out.extend_from_slice(format!("%{b:02X}").as_bytes());
        }
    }
    out
}

fn encode_non_ascii_url(i: &Input) -> Option<Input> {
    let encoded = encode_octets(i.url.as_bytes());
    url(i, String::from_utf8_lossy(&encoded).into_owned())
}

/// Unicode White_Space outside ASCII that no parser takes for a line break
/// (NEL, U+2028 and U+2029 are `remove-extra-line-breaks`).
fn unicode_space(c: char) -> bool {
    c.is_whitespace() && !c.is_ascii() && !matches!(c, '\u{85}' | '\u{2028}' | '\u{2029}')
}

fn trim_unicode_spaces(i: &Input) -> Option<Input> {
    map_values(
        i,
        |_| true,
        |v| match std::str::from_utf8(v) {
            Ok(text) => {
                let ascii_ws = |c: char| c == ' ' || c == '\t';
                let inner = text.trim_matches(ascii_ws);
                let lead = &text[..text.len() - text.trim_start_matches(ascii_ws).len()];
                let trimmed = inner.trim_matches(unicode_space);
                if trimmed.len() == inner.len() {
                    v.to_vec()
                } else {
                    format!("{lead}{trimmed}").into_bytes()
                }
            }
            Err(_) => v.to_vec(),
        },
    )
}

fn encode_non_ascii_rules(i: &Input) -> Option<Input> {
    map_values(i, rule_key, encode_octets)
}

/// Trim a rule value's surrounding whitespace, apply `f`, keep one space.
/// A value that is not UTF-8 is left alone (other transformations name it).
fn map_pattern(i: &Input, f: fn(&str) -> String) -> Option<Input> {
    map_values(i, rule_key, |v| {
        let Ok(text) = std::str::from_utf8(v) else {
            return v.to_vec();
        };
        let trimmed = text.trim_matches([' ', '\t']);
        let out = f(trimmed);
        if out == trimmed {
            v.to_vec()
        } else {
            format!(" {out}").into_bytes()
        }
    })
}

fn drop_query_mark(i: &Input) -> Option<Input> {
    map_pattern(i, |p| p.strip_suffix('?').unwrap_or(p).to_string())
}

fn drop_space_in_pattern(i: &Input) -> Option<Input> {
    map_pattern(i, |p| p.replace([' ', '\t'], ""))
}

fn cut_index_html(i: &Input) -> Option<Input> {
    map_pattern(i, |p| {
        for suffix in ["index.html", "index.htm"] {
            if let Some(dir) = p.strip_suffix(suffix) {
                if dir.ends_with('/') {
                    return dir.to_string();
                }
            }
        }
        p.to_string()
    })
}

fn remove_dollar(i: &Input) -> Option<Input> {
    map_pattern(i, |p| p.replace('$', ""))
}

fn remove_star(i: &Input) -> Option<Input> {
    map_pattern(i, |p| p.replace('*', ""))
}

fn drop_empty_disallow(i: &Input) -> Option<Input> {
    map_lines(i, |c| match key_value(c) {
        Some((k, v)) if k == "disallow" && v.iter().all(|b| *b == b' ' || *b == b'\t') => None,
        _ => Some(c.to_vec()),
    })
}

fn drop_orphan_rules(i: &Input) -> Option<Input> {
    let mut seen_agent = false;
    map_lines(i, |c| {
        seen_agent |= is_agent_line(c);
        (seen_agent || !is_rule(c)).then(|| c.to_vec())
    })
}

fn drop_other_records(i: &Input) -> Option<Input> {
    map_lines(i, |c| match key_value(c) {
        Some((k, _)) if k != "user-agent" && !rule_key(&k) && !k.starts_with('#') => None,
        _ => Some(c.to_vec()),
    })
}

/// A blank line (with the previous line's end) before every user-agent
/// line that follows a line of another key: each group becomes a record of
/// its own, as the 1994 and 1996 formats write them.
fn separate_groups(i: &Input) -> Option<Input> {
    let mut out = Vec::with_capacity(i.body.len() + 16);
    let mut after_other = false;
    for l in lines(&i.body) {
        let (c, end) = split_end(&l);
        let key = key_value(c).map(|(k, _)| k);
        if after_other && key.as_deref() == Some("user-agent") {
            out.extend_from_slice(if end.is_empty() { b"\n" } else { end });
        }
        if let Some(k) = key.filter(|k| !k.starts_with('#')) {
            after_other = k != "user-agent";
        }
        out.extend_from_slice(&l);
    }
    body(i, out)
}

fn drop_blank_lines(i: &Input) -> Option<Input> {
    map_lines(i, |c| {
        (!c.iter().all(|b| *b == b' ' || *b == b'\t')).then(|| c.to_vec())
    })
}

fn drop_allow_rules(i: &Input) -> Option<Input> {
    map_lines(i, |c| match key_value(c) {
        Some((k, _)) if k == "allow" => None,
        _ => Some(c.to_vec()),
    })
}

/// Reverse every run of consecutive rule lines.
fn reverse_rule_order(i: &Input) -> Option<Input> {
    let mut ls = lines(&i.body);
    if let Some(last) = ls.last_mut() {
        if !last.ends_with(b"\n") && !last.ends_with(b"\r") {
            last.push(b'\n');
        }
    }
    let mut j = 0;
    while j < ls.len() {
        let start = j;
        while j < ls.len() && is_rule(split_end(&ls[j]).0) {
            j += 1;
        }
        ls[start..j].reverse();
        j = j.max(start + 1);
    }
    let out = ls.concat();
    let trimmed_input = normal_final_newline(&i.body);
    (out != trimmed_input).then(|| Input {
        body: out,
        ..i.clone()
    })
}

/// The body with a final line end added if it lacks one.
fn normal_final_newline(body: &[u8]) -> Vec<u8> {
    let mut b = body.to_vec();
    if !b.is_empty() && !b.ends_with(b"\n") && !b.ends_with(b"\r") {
        b.push(b'\n');
    }
    b
}

/// Keep only the first group for each set of names: a group is a run of
/// user-agent lines and the lines after it, up to the next such run.
fn drop_repeated_groups(i: &Input) -> Option<Input> {
    let ls = lines(&i.body);
    // The group each line belongs to (None before the first), and each
    // group's sorted names.
    let mut group_of: Vec<Option<usize>> = Vec::with_capacity(ls.len());
    let mut groups: Vec<Vec<String>> = Vec::new();
    let mut prev_agent = false;
    for l in &ls {
        let c = split_end(l).0;
        let agent = is_agent_line(c);
        if agent && !prev_agent {
            groups.push(Vec::new());
        }
        if let (true, Some((_, v)), Some(g)) = (agent, key_value(c), groups.last_mut()) {
            g.push(String::from_utf8_lossy(v).trim().to_ascii_lowercase());
            g.sort();
        }
        group_of.push(groups.len().checked_sub(1));
        prev_agent = agent;
    }
    let repeated: Vec<bool> = (0..groups.len())
        .map(|g| groups[..g].contains(&groups[g]))
        .collect();
    let out: Vec<u8> = ls
        .iter()
        .zip(&group_of)
        .filter(|(_, g)| g.is_none_or(|g| !repeated[g]))
        .flat_map(|(l, _)| l.iter().copied())
        .collect();
    body(i, out)
}
