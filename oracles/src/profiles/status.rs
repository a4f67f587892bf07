//! What each profile makes of a fetch of `/robots.txt`, before any rule is
//! read. The fetch itself is `rfc9309`'s real HTTP client
//! ([`crate::rfc9309::fetch`]: follows up to five redirects and one more to
//! learn there were more), so every profile sees the same socket.

use super::fetched_status;
use crate::rfc9309::fetch::Fetched;

/// What a fetch came to under one profile.
pub enum Access {
    /// Parse this body (possibly cut) and answer from its rules.
    Parse { body: Vec<u8>, reason: String },
    /// The same verdict for every URL of the site.
    Whole { allowed: bool, reason: String },
}

fn whole(allowed: bool, f: &Fetched, rule: &str) -> Access {
    Access::Whole {
        allowed,
        reason: format!("{}: {rule}", fetched_status(f)),
    }
}

fn parse(body: &[u8], f: &Fetched, rule: &str) -> Access {
    Access::Parse {
        body: body.to_vec(),
        reason: format!("{}: {rule}", fetched_status(f)),
    }
}

/// 1996 §3.1. Success: "the robot must read the content, parse it, and
/// follow any instructions"; 404: "access to the site is not restricted";
/// 401/403: "a robot should regard access to the site completely
/// restricted"; temporary failure: "defer visits to the site until such
/// time as the resource can be retrieved" (a disallow for now); 3xx:
/// "follow the redirects until a resource can be found".
///
/// Readings where §3.1 is silent: 5xx, 429, a network error and any
/// non-final status are the temporary failure; redirects still going after
/// the fetcher's six hops found no resource, also a failure to defer on;
/// other 4xx say, like 404, that no instructions are available.
pub fn draft_1996(f: &Fetched) -> Access {
    match f {
        Fetched::NetworkError { .. } => whole(false, f, "1996 §3.1 temporary failure: defer visits (disallowed for now)"),
        Fetched::Response { status, body, .. } => match status {
            200..=299 => parse(body, f, "1996 §3.1 success: parse and follow"),
            300..=399 => whole(false, f, "1996 §3.1 redirects followed without finding a resource (reading: a failure to defer on)"),
            401 | 403 => whole(false, f, "1996 §3.1 access restrictions: the site is completely restricted"),
            404 => whole(true, f, "1996 §3.1 404: access to the site is not restricted"),
            429 => whole(false, f, "1996 §3.1 temporary failure (reading: 429 is one): defer visits"),
            400..=499 => whole(true, f, "1996 §3.1 is silent on other 4xx (reading: no instructions available, as 404)"),
            _ => whole(false, f, "1996 §3.1 temporary failure (reading: 5xx and non-final statuses): defer visits"),
        },
    }
}

/// 1994 *The Method* and *The Format* give no status rules; only "The
/// presence of an empty "/robots.txt" file has no explicit associated
/// semantics, it will be treated as if it was not present, i.e. all robots
/// will consider themselves welcome." Reading (default): any outcome that
/// yields no file is a file not present, so no restrictions; 2xx is parsed.
pub fn classic_1994(f: &Fetched) -> Access {
    match f {
        Fetched::Response {
            status: 200..=299,
            body,
            ..
        } => parse(body, f, "1994 The Method: the file is read"),
        _ => whole(
            true,
            f,
            "1994 is silent on failures (reading: no file, so all robots are welcome)",
        ),
    }
}

/// Google's size limit (Search Central, *File format*): "Google enforces a
/// robots.txt file size limit of 500 kibibytes (KiB). Content which is
/// after the maximum file size is ignored."
pub const GOOGLE_LIMIT: usize = 500 * 1024;

/// Search Central, *Handling of errors and HTTP status codes*: 2xx
/// processed; 3xx followed "for at least five hops" then treated as 404;
/// 4xx other than 429 "as if a valid robots.txt file didn't exist"; 429 and
/// 5xx: "Google's crawlers will temporarily interpret ... as if the entire
/// site is disallowed"; *Other errors*: "a robots.txt file which cannot be
/// fetched due to DNS or networking issues, such as timeouts, invalid
/// responses, reset or interrupted connections ... is treated as a server
/// error". The 30-day fallback to a cached copy needs a history a single
/// fetch does not have.
pub fn google(f: &Fetched) -> Access {
    match f {
        Fetched::NetworkError { .. } => whole(
            false,
            f,
            "Google, Other errors: a network error is a server error, the site is disallowed for now",
        ),
        // "follows at least five redirect hops ... and then stops and treats
        // it as a 404": reading redirect-limit=5, the page's number.
        Fetched::Response { hops, .. } if *hops > 5 => whole(
            true,
            f,
            "Google, 3xx: five redirect hops followed, then treated as 404 (reading redirect-limit=5): no restrictions",
        ),
        Fetched::Response { status, body, .. } => match status {
            200..=299 => {
                let cut = &body[..body.len().min(GOOGLE_LIMIT)];
                parse(cut, f, "Google, 2xx: processed (content after 500 KiB ignored)")
            }
            300..=399 => whole(true, f, "Google, 3xx: followed for at least five hops, then treated as 404: no restrictions"),
            429 => whole(false, f, "Google, 429: as 5xx, the entire site is disallowed for now"),
            400..=499 => whole(true, f, "Google, 4xx: as if no robots.txt existed, no restrictions"),
            _ => whole(false, f, "Google, 5xx (or no final status, as a server error): the entire site is disallowed for now"),
        },
    }
}
