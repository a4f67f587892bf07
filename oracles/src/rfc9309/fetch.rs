//! §2.3 as code that really fetches: a small HTTP/1.1 client (plain
//! `http://` only) that follows redirects, then hands the outcome to
//! [`fetch_policy_with`](super::access::fetch_policy_with). It gives the
//! status matrix its RFC column from a real socket, like the fetchers it is
//! compared with, instead of from a table typed by hand.
//!
//! Hand-written on purpose: an HTTP client crate follows redirects itself
//! (hiding the hop count §2.3.1.2 decides on and the status of each hop),
//! decodes bodies and retries, and maps resets and timeouts into its own
//! error kinds; the reference must see each of those as the RFC names them.

use super::access::MAX_REDIRECTS;
use std::io::{Read, Write};
use std::net::TcpStream;

/// What one fetch of `/robots.txt` came to.
#[derive(Debug)]
pub enum Fetched {
    /// A final, non-redirect response (or the last redirect, when more than
    /// five were followed).
    Response {
        status: u16,
        hops: u32,
        body: Vec<u8>,
    },
    /// No response: refused, reset, timed out, unparseable.
    NetworkError { hops: u32, detail: String },
}

/// Fetch `url`, following at most five redirects plus one more to learn
/// that there were more than five (§2.3.1.2).
pub fn fetch(url: &str) -> Fetched {
    let mut current = url.to_string();
    let mut hops = 0u32;
    loop {
        let (status, location, body) = match get(&current) {
            Ok(r) => r,
            Err(detail) => return Fetched::NetworkError { hops, detail },
        };
        match (status, location) {
            (300..=399, Some(loc)) if hops <= MAX_REDIRECTS => {
                hops += 1;
                current = resolve(&current, &loc);
            }
            _ => return Fetched::Response { status, hops, body },
        }
    }
}

fn resolve(base: &str, location: &str) -> String {
    if location.contains("://") {
        return location.to_string();
    }
    let after_scheme = base.find("://").map_or(0, |i| i + 3);
    let authority_end = base[after_scheme..]
        .find('/')
        .map_or(base.len(), |i| after_scheme + i);
    if location.starts_with('/') {
        format!("{}{}", &base[..authority_end], location)
    } else {
        let dir_end = base
            .rfind('/')
            .filter(|&i| i >= authority_end)
            .map_or(base.len(), |i| i + 1);
        format!("{}{}", &base[..dir_end], location)
    }
}

/// One GET: (status, Location header, decoded body).
fn get(url: &str) -> Result<(u16, Option<String>, Vec<u8>), String> {
    let rest = url
        .strip_prefix("http://")
        .ok_or_else(|| format!("only http:// is supported: {url}"))?;
    let (authority, path) = match rest.find('/') {
        Some(i) => (&rest[..i], &rest[i..]),
        None => (rest, "/"),
    };
    let addr = if authority.contains(':') {
        authority.to_string()
    } else {
        format!("{authority}:80")
    };
    let sock = std::net::ToSocketAddrs::to_socket_addrs(&addr)
        .map_err(|e| format!("resolve {addr}: {e}"))?
        .next()
        .ok_or_else(|| format!("no address for {addr}"))?;
    // The status matrix's slow response waits longer than this, so it
    // shows as §2.3.1.4's network error.
    let timeout = crate::fetch_timeout();
    let mut stream =
        TcpStream::connect_timeout(&sock, timeout).map_err(|e| format!("connect {addr}: {e}"))?;
    stream
        .set_read_timeout(Some(timeout))
        .map_err(|e| e.to_string())?;
    let request = format!(
        "GET {path} HTTP/1.1\r\nHost: {authority}\r\nUser-Agent: repdiff-rfc9309\r\n\
         Accept-Encoding: gzip\r\nConnection: close\r\n\r\n"
    );
    stream
        .write_all(request.as_bytes())
        .map_err(|e| format!("send: {e}"))?;
    let mut raw = Vec::new();
    stream
        .read_to_end(&mut raw)
        .map_err(|e| format!("read: {e}"))?;
    let head_end = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .ok_or("connection closed before a complete response")?;
    let head = String::from_utf8_lossy(&raw[..head_end]);
    let mut lines = head.split("\r\n");
    let status: u16 = lines
        .next()
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|s| s.parse().ok())
        .ok_or("malformed status line")?;
    let mut location = None;
    let (mut chunked, mut gzip) = (false, false);
    for line in lines {
        let Some((k, v)) = line.split_once(':') else {
            continue;
        };
        let (k, v) = (k.trim().to_ascii_lowercase(), v.trim());
        match k.as_str() {
            "location" => location = Some(v.to_string()),
            "transfer-encoding" => chunked = v.eq_ignore_ascii_case("chunked"),
            "content-encoding" => gzip = v.eq_ignore_ascii_case("gzip"),
            _ => {}
        }
    }
    let mut body = raw[head_end + 4..].to_vec();
    if chunked {
        body = dechunk(&body).ok_or("malformed chunked body")?;
    }
    if gzip {
        // RFC 9110 §8.4: a content-coding is removed before the content is used.
        let mut out = Vec::new();
        flate2::read::GzDecoder::new(&body[..])
            .read_to_end(&mut out)
            .map_err(|e| format!("gzip: {e}"))?;
        body = out;
    }
    Ok((status, location, body))
}

fn dechunk(mut data: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    loop {
        let line_end = data.windows(2).position(|w| w == b"\r\n")?;
        let size_text = std::str::from_utf8(&data[..line_end]).ok()?;
        let size = usize::from_str_radix(size_text.split(';').next()?.trim(), 16).ok()?;
        data = &data[line_end + 2..];
        if size == 0 {
            return Some(out);
        }
        out.extend_from_slice(data.get(..size)?);
        data = data.get(size + 2..)?;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolves_locations() {
        assert_eq!(resolve("http://h:1/a/b.txt", "/c"), "http://h:1/c");
        assert_eq!(resolve("http://h:1/a/b.txt", "c.txt"), "http://h:1/a/c.txt");
        assert_eq!(resolve("http://h:1/a", "http://o/x"), "http://o/x");
    }

    #[test]
    fn dechunks() {
        assert_eq!(
            dechunk(b"3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n").unwrap(),
            b"abcde"
        );
        assert!(dechunk(b"zz\r\n").is_none());
    }
}
