//! §2.2.1 The User-Agent line: product tokens on both sides.

use super::readings::{CallerToken, ProductTokenChars};

#[inline]
fn is_ws(b: u8) -> bool {
    b == b' ' || b == b'\t'
}

/// §2.2 ABNF `identifier = 1*(%x2D / %x41-5A / %x5F / %x61-7A)`; §2.2.1 "The
/// product token MUST contain only uppercase and lowercase letters ("a-z" and
/// "A-Z"), underscores ("_"), and hyphens ("-")."
#[inline]
pub fn is_identifier(token: &[u8]) -> bool {
    !token.is_empty()
        && token
            .iter()
            .all(|&b| b.is_ascii_alphabetic() || b == b'_' || b == b'-')
}

/// The token before the first `/`, space or tab.
#[inline]
fn up_to_slash_or_space(s: &[u8]) -> &[u8] {
    let end = s
        .iter()
        .position(|&b| b == b'/' || is_ws(b))
        .unwrap_or(s.len());
    &s[..end]
}

/// The product token a `user-agent` line names (§2.2 ABNF
/// `product-token = identifier / "*"`), given its value with comment and
/// surrounding whitespace already removed. `None`: the line names no crawler,
/// though it still starts or extends a group (see
/// [`ProductTokenChars::Strict`]).
pub fn group_token(value: &[u8], reading: ProductTokenChars) -> Option<&[u8]> {
    match reading {
        ProductTokenChars::Strict => (value == b"*" || is_identifier(value)).then_some(value),
        ProductTokenChars::Lenient => {
            let t = up_to_slash_or_space(value);
            (!t.is_empty()).then_some(t)
        }
    }
}

/// The caller's product token, from the agent string the harness passes
/// verbatim. See [`CallerToken`] for the readings; §2.2.1 "Crawlers MUST use
/// case-insensitive matching to find the group that matches the product
/// token" — the comparison itself is ASCII case-insensitive equality, done by
/// looking the lower-cased token up in the parsed file's index.
pub fn caller_token(agent: &str, reading: CallerToken) -> &[u8] {
    let agent = agent.as_bytes();
    match reading {
        CallerToken::Verbatim => agent,
        CallerToken::UpToSlashOrSpace => {
            let start = agent.iter().position(|&b| !is_ws(b)).unwrap_or(agent.len());
            up_to_slash_or_space(&agent[start..])
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strict_group_tokens() {
        let s = ProductTokenChars::Strict;
        assert_eq!(group_token(b"FooBot", s), Some(&b"FooBot"[..]));
        assert_eq!(group_token(b"foo_bot-x", s), Some(&b"foo_bot-x"[..]));
        assert_eq!(group_token(b"*", s), Some(&b"*"[..]));
        assert_eq!(group_token(b"FooBot/1.0", s), None);
        assert_eq!(group_token(b"Foo Bar", s), None);
        assert_eq!(group_token(b"Foo2Bot", s), None);
        assert_eq!(group_token(b"foo*", s), None);
        assert_eq!(group_token(b"", s), None);
    }

    #[test]
    fn lenient_group_tokens() {
        let l = ProductTokenChars::Lenient;
        assert_eq!(group_token(b"FooBot/1.0", l), Some(&b"FooBot"[..]));
        assert_eq!(group_token(b"Foo Bar", l), Some(&b"Foo"[..]));
        assert_eq!(group_token(b"Foo2Bot", l), Some(&b"Foo2Bot"[..]));
        assert_eq!(group_token(b"foo*", l), Some(&b"foo*"[..]));
        assert_eq!(group_token(b"/1.0", l), None);
    }

    #[test]
    fn caller_tokens() {
        let c = CallerToken::UpToSlashOrSpace;
        assert_eq!(caller_token("MyBot/1.0", c), b"MyBot");
        assert_eq!(
            caller_token("Mozilla/5.0 (compatible; FooBot/1.0)", c),
            b"Mozilla"
        );
        assert_eq!(caller_token("  FooBot", c), b"FooBot");
        assert_eq!(caller_token("Foo Bar", c), b"Foo");
        assert_eq!(caller_token("", c), b"");
        assert_eq!(
            caller_token("MyBot/1.0", CallerToken::Verbatim),
            b"MyBot/1.0"
        );
    }
}
