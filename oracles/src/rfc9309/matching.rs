//! Path patterns: §2.2.2 percent-encoding normalisation, §2.2.3 special
//! characters, and the matcher.
//!
//! Both sides of a comparison — the rule's path pattern and the URI's path and
//! query — go through [`normalise`], so equivalent spellings compare equal.
//! After normalisation a raw `*` byte can only be a wildcard of a pattern (a
//! literal `*` is `%2A` on both sides) and a raw `$` only a pattern's final
//! end-of-match anchor (a literal `$` is `%24`), so the normalised pattern is
//! its own compiled form: no regex, nothing to backtrack exponentially.

use super::readings::{QueryReserved, RobotsTxtQuery, Specificity};

/// Which side of the comparison a string is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    /// A rule's path pattern: `*` and a final `$` are special (§2.2.3).
    Pattern,
    /// The URI's path and query: every octet is literal.
    Uri,
}

// Byte classes for normalisation.
const UNRESERVED: u8 = 0; // RFC 3986 §2.3: ALPHA DIGIT - . _ ~  — kept
const SUB_DELIM: u8 = 1; // RFC 3986 §2.2 sub-delims but * and $  — kept
const PATH_DELIM: u8 = 2; // / : @ — kept in the path, data in a query
const QUESTION: u8 = 3; // ? — the first one starts the query
const STAR: u8 = 4; // * — wildcard in a pattern, data in a URI
const DOLLAR: u8 = 5; // $ — final anchor in a pattern, data elsewhere
const PERCENT: u8 = 6; // % — an escape, or a stray %
const ENCODE: u8 = 7; // everything else: always percent-encoded

const CLASS: [u8; 256] = {
    let mut t = [ENCODE; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        t[b] = if c.is_ascii_alphanumeric() || matches!(c, b'-' | b'.' | b'_' | b'~') {
            UNRESERVED
        } else {
            match c {
                b'!' | b'&' | b'\'' | b'(' | b')' | b'+' | b',' | b';' | b'=' => SUB_DELIM,
                b'/' | b':' | b'@' => PATH_DELIM,
                b'?' => QUESTION,
                b'*' => STAR,
                b'$' => DOLLAR,
                b'%' => PERCENT,
                _ => ENCODE,
            }
        };
        b += 1;
    }
    t
};

/// Octets [`normalise`] copies unchanged, by side and by whether the query's
/// gen-delims are being encoded (a fast path; the `match` decides the rest).
const fn keep_table(star: bool, path_delims: bool) -> [bool; 256] {
    let mut t = [false; 256];
    let mut b = 0;
    while b < 256 {
        t[b] = match CLASS[b] {
            UNRESERVED | SUB_DELIM => true,
            PATH_DELIM => path_delims,
            STAR => star,
            _ => false,
        };
        b += 1;
    }
    t
}
const KEEP_PATTERN_PATH: [bool; 256] = keep_table(true, true);
const KEEP_PATTERN_QUERY: [bool; 256] = keep_table(true, false);
const KEEP_URI_PATH: [bool; 256] = keep_table(false, true);
const KEEP_URI_QUERY: [bool; 256] = keep_table(false, false);

const HEX: &[u8; 16] = b"0123456789ABCDEF";

#[inline]
fn hex_value(b: u8) -> Option<u8> {
    match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'a'..=b'f' => Some(b - b'a' + 10),
        b'A'..=b'F' => Some(b - b'A' + 10),
        _ => None,
    }
}

#[inline]
fn push_encoded(out: &mut Vec<u8>, b: u8) {
    out.extend_from_slice(&[b'%', HEX[(b >> 4) as usize], HEX[(b & 15) as usize]]);
}

/// Whether `b` is an RFC 3986 §2.3 unreserved character.
#[inline]
pub fn is_unreserved(b: u8) -> bool {
    CLASS[b as usize] == UNRESERVED
}

/// §2.2.2 normalisation, appended to `out`. Applied alike to patterns and to
/// URIs (the RFC states the decoding rule for "the URI"; Figure 4 is titled
/// "matching percent-encoded URI components" and its last row only makes
/// `Disallow: /foo/bar/%62%61%7A` meaningful if patterns are read the same
/// way, so this reading applies it to both sides).
///
/// - "Octets in the URI and robots.txt paths outside the range of the ASCII
///   coded character set ... MUST be percent-encoded": octets ≥ 0x80 become
///   `%XX` (`ツ` → `%E3%83%84`). Octets RFC 3986 never allows raw in a path
///   or query (controls, space, `"`, `<`, `>`, `\`, `^`, `` ` ``, `{`, `|`,
///   `}`, `[`, `]`, `#`) are encoded too, so their raw and encoded spellings
///   compare equal.
/// - "If a percent-encoded ASCII octet is encountered in the URI, it MUST be
///   unencoded prior to comparison, unless it is a reserved character ... or
///   the character is outside the unreserved character range": `%62` → `b`,
///   while `%2F`, `%3A`, `%20` stay encoded. Hex digits are upper-cased (RFC
///   3986 §6.2.2.1), so `%2f` ≡ `%2F`. A `%` not followed by two hex digits
///   is data: `%25`.
/// - "... and those in the reserved range ... MUST be percent-encoded": taken
///   literally this would encode every `/`, which Figure 4 does not, so a
///   reserved character keeps its raw spelling where it delimits: `/`, `:`,
///   `@` and the sub-delims in the path, the first `?`, and in the query the
///   sub-delims; the query's gen-delims `:/?@` follow [`QueryReserved`].
/// - §2.2.3 "If crawlers match special characters verbatim in the URI,
///   crawlers SHOULD use "%" encoding": a URI's `*` and `$` are `%2A` and
///   `%24`, so `Disallow: /path/file-with-a-%2A.html` matches
///   `/path/file-with-a-*.html` (Figure 6). In a pattern `*` stays the
///   wildcard and only a final `$` is the anchor; a `$` elsewhere is literal.
pub fn normalise(input: &[u8], side: Side, query: QueryReserved, out: &mut Vec<u8>) {
    out.reserve(input.len());
    let mut in_query = false;
    let encode_gen_delims = query == QueryReserved::EncodeGenDelims;
    let last = input.len().wrapping_sub(1);
    let mut i = 0;
    while i < input.len() {
        // Fast path: copy the run of octets that stand for themselves.
        let keep = match (side, in_query && encode_gen_delims) {
            (Side::Pattern, false) => &KEEP_PATTERN_PATH,
            (Side::Pattern, true) => &KEEP_PATTERN_QUERY,
            (Side::Uri, false) => &KEEP_URI_PATH,
            (Side::Uri, true) => &KEEP_URI_QUERY,
        };
        let start = i;
        while i < input.len() && keep[input[i] as usize] {
            i += 1;
        }
        out.extend_from_slice(&input[start..i]);
        if i == input.len() {
            break;
        }
        let b = input[i];
        match CLASS[b as usize] {
            UNRESERVED | SUB_DELIM => out.push(b),
            PATH_DELIM => {
                if in_query && encode_gen_delims {
                    push_encoded(out, b)
                } else {
                    out.push(b)
                }
            }
            QUESTION => {
                if !in_query {
                    in_query = true;
                    out.push(b);
                } else if encode_gen_delims {
                    push_encoded(out, b)
                } else {
                    out.push(b)
                }
            }
            STAR => match side {
                Side::Pattern => out.push(b),
                Side::Uri => push_encoded(out, b),
            },
            DOLLAR => {
                if side == Side::Pattern && i == last {
                    out.push(b)
                } else {
                    push_encoded(out, b)
                }
            }
            PERCENT => {
                let hi = input.get(i + 1).copied().and_then(hex_value);
                let lo = input.get(i + 2).copied().and_then(hex_value);
                if let (Some(hi), Some(lo)) = (hi, lo) {
                    let v = hi << 4 | lo;
                    if is_unreserved(v) {
                        out.push(v);
                    } else {
                        push_encoded(out, v);
                    }
                    i += 3;
                    continue;
                }
                push_encoded(out, b'%');
            }
            _ => push_encoded(out, b),
        }
        i += 1;
    }
}

/// A URL's path and query, as [`uri_path`] finds them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UriPath<'a> {
    /// Path and query as written, fragment removed.
    pub path_query: &'a [u8],
    /// The URL had no path: `/` must be prepended.
    pub needs_slash: bool,
    /// The URL had a fragment, dropped.
    pub had_fragment: bool,
}

/// Where the path of `url` starts, for §2.2.2 "The matching MUST start with
/// the first octet of the path".
///
/// - `scheme://authority/path?query#fragment` (the harness's shape): the
///   authority, up to the first `/`, `?` or `#`, is skipped.
/// - A URL with an authority but no path (`http://example.test`,
///   `http://example.test?q`) has the empty path, which RFC 3986 §6.2.3 makes
///   equivalent to `/` for http(s): the result reports `needs_slash`.
/// - A fragment is dropped: it is never sent to the server (RFC 9110 §7.1),
///   so it is no part of the resource a crawler would fetch.
/// - A string with no `scheme:` (`/a/b?c`) is taken as a path already;
///   `//host/p` as a network-path reference. Anything else (`a/b`) is taken
///   as written and, not starting with `/`, can match only patterns that
///   start with `*`.
/// - Dot segments (`/b/../a`) are not removed: RFC 9309 asks for no
///   normalisation beyond percent-encoding, and a crawler fetches the URI it
///   has.
pub fn uri_path(url: &[u8]) -> UriPath<'_> {
    let (url, had_fragment) = match url.iter().position(|&b| b == b'#') {
        Some(i) => (&url[..i], true),
        None => (url, false),
    };
    let after_scheme = match scheme_end(url) {
        Some(colon) => &url[colon + 1..],
        None => url,
    };
    let rest = match after_scheme.strip_prefix(b"//") {
        Some(auth) => {
            let end = auth
                .iter()
                .position(|&b| b == b'/' || b == b'?')
                .unwrap_or(auth.len());
            &auth[end..]
        }
        None => after_scheme,
    };
    UriPath {
        path_query: rest,
        needs_slash: rest.is_empty() || rest[0] == b'?',
        had_fragment,
    }
}

/// RFC 3986 §3.1 `scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ) ":"`.
fn scheme_end(url: &[u8]) -> Option<usize> {
    if !url.first()?.is_ascii_alphabetic() {
        return None;
    }
    for (i, &b) in url.iter().enumerate().skip(1) {
        match b {
            b':' => return Some(i),
            b if b.is_ascii_alphanumeric() || matches!(b, b'+' | b'-' | b'.') => {}
            _ => return None,
        }
    }
    None
}

/// Normalise a URL's path and query into `out` (cleared first): the string
/// every pattern is matched against.
pub fn normalise_uri<'u>(url: &'u [u8], query: QueryReserved, out: &mut Vec<u8>) -> UriPath<'u> {
    out.clear();
    let p = uri_path(url);
    if p.needs_slash {
        out.push(b'/');
    }
    normalise(p.path_query, Side::Uri, query, out);
    p
}

/// Whether the normalised `path` is the robots.txt file itself (§2.2.2 "The
/// /robots.txt URI is implicitly allowed"): its path component is exactly
/// `/robots.txt` (§2.3 "all lowercase"); whether a query makes it another
/// file is [`RobotsTxtQuery`].
pub fn is_robots_txt(path: &[u8], reading: RobotsTxtQuery) -> bool {
    let end = match reading {
        RobotsTxtQuery::PathComponent => path.iter().position(|&b| b == b'?').unwrap_or(path.len()),
        RobotsTxtQuery::ExactPath => path.len(),
    };
    &path[..end] == b"/robots.txt"
}

/// A rule's rank under [`Specificity`] if its normalised `pattern` matches the
/// normalised `path`, else `None`.
///
/// §2.2.2: "The match evaluates positively if and only if the end of the path
/// from the rule is reached before a difference in octets is encountered" —
/// a prefix match, case-sensitive ("The matching SHOULD be case sensitive")
/// and starting at the path's first octet. §2.2.3: `*` "Designates 0 or more
/// instances of any character", a final `$` "Designates the end of the match
/// pattern".
///
/// Greedy leftmost placement of each `*`-separated literal is optimal for
/// such globs, so the cost is that of the substring searches: linear in the
/// path for `*a*a*a…`, at worst path × pattern, never exponential.
///
/// An empty pattern reaches "the end of the path from the rule" at once;
/// whether that counts is [`super::readings::EmptyPattern`], decided by the
/// caller, so here it is `None`.
#[inline]
pub fn rank(pattern: &[u8], path: &[u8], specificity: Specificity) -> Option<u32> {
    if pattern.is_empty() {
        return None;
    }
    match specificity {
        Specificity::PatternOctets => match_end(pattern, path, false).map(|_| pattern.len() as u32),
        Specificity::MatchedSpan => match_end(pattern, path, true).map(|e| e as u32),
    }
}

/// Where a match of `pattern` against a prefix of `path` ends: the earliest
/// end if `longest` is false, else the latest one. `None` if no match.
pub fn match_end(pattern: &[u8], path: &[u8], longest: bool) -> Option<usize> {
    let (pattern, anchored) = match pattern.split_last() {
        Some((b'$', rest)) => (rest, true),
        _ => (pattern, false),
    };
    let mut segments = pattern.split(|&b| b == b'*');
    let first = segments.next().unwrap_or(&[]);
    if !path.starts_with(first) {
        return None;
    }
    let mut pos = first.len();
    let mut last = match segments.next() {
        None => {
            // No `*`: a plain prefix, or the whole path when anchored.
            return (!anchored || path.len() == pos).then_some(pos);
        }
        Some(s) => s,
    };
    for next in segments {
        // `last` is a middle literal: place it as early as possible.
        if !last.is_empty() {
            pos += find(&path[pos..], last)? + last.len();
        }
        last = next;
    }
    // `last` follows the final `*`.
    if anchored {
        return (path.len() - pos >= last.len() && path.ends_with(last)).then_some(path.len());
    }
    if last.is_empty() {
        return Some(if longest { path.len() } else { pos });
    }
    if longest {
        rfind(&path[pos..], last).map(|i| pos + i + last.len())
    } else {
        find(&path[pos..], last).map(|i| pos + i + last.len())
    }
}

/// Leftmost occurrence of a non-empty `needle`.
#[inline]
fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    let (&first, rest) = needle.split_first()?;
    if hay.len() < needle.len() {
        return None;
    }
    let limit = hay.len() - needle.len();
    let mut i = 0;
    while i <= limit {
        match hay[i..=limit].iter().position(|&b| b == first) {
            None => return None,
            Some(off) => {
                i += off;
                if &hay[i + 1..i + needle.len()] == rest {
                    return Some(i);
                }
                i += 1;
            }
        }
    }
    None
}

/// Rightmost occurrence of a non-empty `needle`.
#[inline]
fn rfind(hay: &[u8], needle: &[u8]) -> Option<usize> {
    if needle.is_empty() || hay.len() < needle.len() {
        return None;
    }
    (0..=hay.len() - needle.len())
        .rev()
        .find(|&i| &hay[i..i + needle.len()] == needle)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn norm(s: &str, side: Side) -> String {
        let mut out = Vec::new();
        normalise(s.as_bytes(), side, QueryReserved::EncodeGenDelims, &mut out);
        String::from_utf8(out).unwrap()
    }

    fn uri(s: &str) -> String {
        let mut out = Vec::new();
        normalise_uri(s.as_bytes(), QueryReserved::EncodeGenDelims, &mut out);
        String::from_utf8(out).unwrap()
    }

    /// §2.2.2 Figure 4, every row, as "Path" → "Path to Match".
    #[test]
    fn figure_4_percent_encoding_table() {
        let rows = [
            ("/foo/bar?baz=quz", "/foo/bar?baz=quz"),
            (
                "/foo/bar?baz=https://foo.bar",
                "/foo/bar?baz=https%3A%2F%2Ffoo.bar",
            ),
            ("/foo/bar/ツ", "/foo/bar/%E3%83%84"),
            ("/foo/bar/%E3%83%84", "/foo/bar/%E3%83%84"),
            ("/foo/bar/%62%61%7A", "/foo/bar/baz"),
        ];
        for (path, expected) in rows {
            assert_eq!(norm(path, Side::Uri), expected, "URI {path}");
            assert_eq!(norm(path, Side::Pattern), expected, "pattern {path}");
            // Idempotent: the encoded column maps to itself.
            assert_eq!(norm(expected, Side::Uri), expected, "URI {expected}");
        }
    }

    #[test]
    fn query_as_written_keeps_reserved() {
        let mut out = Vec::new();
        normalise(
            b"/foo/bar?baz=https://foo.bar",
            Side::Uri,
            QueryReserved::AsWritten,
            &mut out,
        );
        assert_eq!(out, b"/foo/bar?baz=https://foo.bar");
    }

    #[test]
    fn escapes_are_uppercased_and_reserved_stay_encoded() {
        assert_eq!(norm("/a%2fb", Side::Uri), "/a%2Fb");
        assert_eq!(norm("/a%e3%83%84", Side::Uri), "/a%E3%83%84");
        assert_eq!(norm("/a%7e%41", Side::Uri), "/a~A");
        assert_eq!(norm("/a%20b c", Side::Uri), "/a%20b%20c");
        assert_eq!(norm("/100%", Side::Uri), "/100%25");
        assert_eq!(norm("/%zz", Side::Uri), "/%25zz");
        assert_eq!(norm("/a%3Db", Side::Uri), "/a%3Db");
    }

    /// §2.2.3 Figure 6: literal special characters.
    #[test]
    fn figure_6_special_characters_verbatim() {
        assert_eq!(
            norm("/path/file-with-a-*.html", Side::Uri),
            "/path/file-with-a-%2A.html"
        );
        assert_eq!(
            norm("/path/file-with-a-%2A.html", Side::Pattern),
            "/path/file-with-a-%2A.html"
        );
        assert_eq!(norm("/path/foo-$", Side::Uri), "/path/foo-%24");
        assert_eq!(norm("/path/foo-%24", Side::Pattern), "/path/foo-%24");
        // Only a final `$` anchors; `*` stays a wildcard in patterns.
        assert_eq!(norm("/a$b$", Side::Pattern), "/a%24b$");
        assert_eq!(norm("/a*b", Side::Pattern), "/a*b");
        let p = norm("/path/file-with-a-%2A.html", Side::Pattern);
        let u = uri("https://www.example.com/path/file-with-a-*.html");
        assert!(match_end(p.as_bytes(), u.as_bytes(), false).is_some());
        let p = norm("/path/foo-%24", Side::Pattern);
        let u = uri("https://www.example.com/path/foo-$");
        assert!(match_end(p.as_bytes(), u.as_bytes(), false).is_some());
    }

    #[test]
    fn url_to_path() {
        assert_eq!(uri("http://example.test/path?q"), "/path?q");
        assert_eq!(uri("http://example.test"), "/");
        assert_eq!(uri("http://example.test?q=1"), "/?q=1");
        assert_eq!(uri("http://example.test/a#frag"), "/a");
        assert_eq!(uri("http://user@example.test:8080/a/b"), "/a/b");
        assert_eq!(uri("/a/b?c"), "/a/b?c");
        assert_eq!(uri("//host/x"), "/x");
        assert_eq!(uri("HTTPS://EXAMPLE.TEST/A"), "/A");
        assert_eq!(uri(""), "/");
    }

    #[test]
    fn robots_txt_uri() {
        let is = |p: &[u8]| is_robots_txt(p, RobotsTxtQuery::PathComponent);
        assert!(is(b"/robots.txt"));
        assert!(is(b"/robots.txt?x=1"));
        assert!(!is(b"/robots.txt/x"));
        assert!(!is(b"/Robots.txt"));
        assert!(is(uri("http://h/%72obots.txt").as_bytes()));
        let exact = |p: &[u8]| is_robots_txt(p, RobotsTxtQuery::ExactPath);
        assert!(exact(b"/robots.txt"));
        assert!(!exact(b"/robots.txt?x=1"));
    }

    fn m(p: &str, path: &str) -> bool {
        match_end(p.as_bytes(), path.as_bytes(), false).is_some()
    }

    #[test]
    fn wildcards_and_anchor() {
        assert!(m("/fish", "/fish.html"));
        assert!(!m("/fish/", "/fish"));
        assert!(m("/*.php", "/a/b.php"));
        assert!(m("/*.php", "/a/b.php?x"));
        assert!(!m("/*.php$", "/a/b.php?x"));
        assert!(m("/*.php$", "/a/b.php"));
        assert!(m("*.gif$", "/x/y.gif"));
        assert!(!m("*.gif$", "/x/y.gif/z"));
        assert!(m("/$", "/"));
        assert!(!m("/$", "/a"));
        assert!(m("/a*", "/a"));
        assert!(m("*", "/anything"));
        assert!(m("/a**b", "/ab"));
        assert!(m("/a*b*c$", "/abcbc"));
        assert!(!m("/a*b*c$", "/abcb"));
        assert!(m("/a*bc$", "/abcbc"));
        assert!(!m("/X", "/x"));
    }

    #[test]
    fn longest_span() {
        let end = |p: &str, path: &str| match_end(p.as_bytes(), path.as_bytes(), true);
        assert_eq!(end("/fish*", "/fish/salmon.html"), Some(17));
        assert_eq!(end("/*.html", "/x/page.html"), Some(12));
        assert_eq!(end("/a*b", "/abab"), Some(5));
        assert_eq!(end("/x", "/xyz"), Some(2));
        assert_eq!(end("/x$", "/x"), Some(2));
    }

    #[test]
    fn no_exponential_backtracking() {
        let pattern = "/".to_string() + &"*a".repeat(2000) + "*b";
        let path = "/".to_string() + &"a".repeat(100_000);
        let t = std::time::Instant::now();
        assert!(!m(&pattern, &path));
        assert!(match_end(pattern.as_bytes(), path.as_bytes(), true).is_none());
        assert!(t.elapsed() < std::time::Duration::from_secs(2));
    }
}
