//! §2.3 Access method: what a crawler does with the result of fetching
//! `/robots.txt`, before any rule is read.
//!
//! The harness fetches (or simulates a fetch) itself and asks
//! [`fetch_policy`] what RFC 9309 makes of the outcome.

use super::readings::{AuthStatus, Readings};

/// §2.3.1.2 "The crawlers SHOULD follow at least five consecutive redirects".
pub const MAX_REDIRECTS: u32 = 5;

/// What the crawler must do after fetching `/robots.txt`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AccessDecision {
    /// No rules apply: every resource may be fetched.
    FullAllow { reason: String },
    /// Nothing may be fetched.
    FullDisallow { reason: String },
    /// Parse the first `parse_bytes` bytes of the body and follow its rules.
    ParseBody { parse_bytes: usize, reason: String },
}

impl AccessDecision {
    pub fn reason(&self) -> &str {
        match self {
            AccessDecision::FullAllow { reason }
            | AccessDecision::FullDisallow { reason }
            | AccessDecision::ParseBody { reason, .. } => reason,
        }
    }
}

/// [`fetch_policy_with`] under the default [`Readings`].
pub fn fetch_policy(
    status: u16,
    redirect_hops: u32,
    body_len: usize,
    network_error: bool,
) -> AccessDecision {
    fetch_policy_with(
        status,
        redirect_hops,
        body_len,
        network_error,
        &Readings::default(),
    )
}

/// RFC 9309 §2.3.1 (and §2.5) for one fetch of `/robots.txt`.
///
/// - `status`: the HTTP status of the last response, after following
///   redirects.
/// - `redirect_hops`: consecutive redirects followed to get it.
/// - `body_len`: length of the body received with it.
/// - `network_error`: no response at all (DNS, connect, TLS, reset,
///   timeout); `status` is then ignored.
///
/// In order of precedence:
///
/// 1. A network error: §2.3.1.4 "If the robots.txt file is unreachable due
///    to server or network errors, this means the robots.txt file is
///    undefined and the crawler MUST assume complete disallow."
/// 2. More than [`MAX_REDIRECTS`] hops: §2.3.1.2 "If there are more than five
///    consecutive redirects, crawlers MAY assume that the robots.txt file is
///    unavailable", and §2.3.1.3 then lets the crawler "access any resources
///    on the server".
/// 3. 2xx: §2.3.1.1 "If the crawler successfully downloads the robots.txt
///    file, the crawler MUST follow the parseable rules", at most the
///    reading's parse limit (§2.5 "The parsing limit MUST be at least 500
///    kibibytes"; 500 KiB by default).
/// 4. 3xx within five hops: the redirect was not followed to a file (no
///    usable `Location`), so no robots.txt was reached: taken as unavailable
///    (§2.3.1.3), as the RFC does once redirects are given up on.
/// 5. 4xx: §2.3.1.3 ""Unavailable" ... in the context of HTTP, such status
///    codes are in the 400-499 range. ... the crawler MAY access any
///    resources on the server." 401 and 403 follow [`AuthStatus`] (default:
///    unavailable like every 4xx). 429 is a 4xx and so unavailable too.
/// 6. 5xx: §2.3.1.4 "server errors are identified by status codes in the
///    500-599 range": complete disallow. (The RFC lets a crawler treat a
///    file unreachable "for a reasonably long period of time (for example,
///    30 days)" as unavailable; that needs a clock and a history, which a
///    single fetch outcome does not carry.)
/// 7. Anything else (1xx, below 100, 600 and up) is no final HTTP response:
///    nothing was retrieved, treated as unreachable (§2.3.1.4).
pub fn fetch_policy_with(
    status: u16,
    redirect_hops: u32,
    body_len: usize,
    network_error: bool,
    readings: &Readings,
) -> AccessDecision {
    use AccessDecision::*;
    if network_error {
        return FullDisallow {
            reason: "§2.3.1.4 unreachable: a network error means the robots.txt file is \
                     undefined; MUST assume complete disallow"
                .into(),
        };
    }
    if redirect_hops > MAX_REDIRECTS {
        return FullAllow {
            reason: format!(
                "§2.3.1.2 {redirect_hops} consecutive redirects (more than five): MAY assume \
                 unavailable; §2.3.1.3 MAY access any resource"
            ),
        };
    }
    match status {
        200..=299 => {
            let (parse_bytes, limit_note) = match readings.parse_limit {
                Some(limit) if body_len > limit => (
                    limit,
                    format!("; §2.5 parsing limit: first {limit} of {body_len} bytes"),
                ),
                _ => (body_len, String::new()),
            };
            ParseBody {
                parse_bytes,
                reason: format!(
                    "§2.3.1.1 HTTP {status} successful access: MUST follow the parseable \
                     rules{limit_note}"
                ),
            }
        }
        300..=399 => FullAllow {
            reason: format!(
                "§2.3.1.2 HTTP {status} after {redirect_hops} redirects reached no robots.txt: \
                 unavailable; §2.3.1.3 MAY access any resource"
            ),
        },
        401 | 403 if readings.auth_status == AuthStatus::Disallow => FullDisallow {
            reason: format!(
                "§2.3.1.3 HTTP {status} read as a refusal ({}): complete disallow",
                readings.auth_status.label()
            ),
        },
        400..=499 => FullAllow {
            reason: format!("§2.3.1.3 HTTP {status} unavailable: MAY access any resource"),
        },
        500..=599 => FullDisallow {
            reason: format!(
                "§2.3.1.4 HTTP {status} unreachable (server error): MUST assume complete \
                 disallow"
            ),
        },
        _ => FullDisallow {
            reason: format!(
                "§2.3.1.4 status {status} is no final HTTP response, nothing was retrieved: \
                 unreachable, complete disallow"
            ),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kind(d: &AccessDecision) -> &'static str {
        match d {
            AccessDecision::FullAllow { .. } => "allow",
            AccessDecision::FullDisallow { .. } => "disallow",
            AccessDecision::ParseBody { .. } => "parse",
        }
    }

    #[test]
    fn status_classes() {
        for (status, expected) in [
            (200, "parse"),
            (204, "parse"),
            (301, "allow"),
            (400, "allow"),
            (401, "allow"),
            (403, "allow"),
            (404, "allow"),
            (410, "allow"),
            (429, "allow"),
            (499, "allow"),
            (500, "disallow"),
            (503, "disallow"),
            (599, "disallow"),
            (100, "disallow"),
            (0, "disallow"),
            (600, "disallow"),
        ] {
            let d = fetch_policy(status, 0, 10, false);
            assert_eq!(kind(&d), expected, "HTTP {status}: {d:?}");
            assert!(d.reason().starts_with('§'), "{d:?}");
        }
    }

    #[test]
    fn auth_status_reading() {
        let r = Readings {
            auth_status: AuthStatus::Disallow,
            ..Readings::default()
        };
        for status in [401, 403] {
            let d = fetch_policy_with(status, 0, 0, false, &r);
            assert_eq!(kind(&d), "disallow");
            assert!(d.reason().contains("401/403=disallow"));
        }
        assert_eq!(kind(&fetch_policy_with(404, 0, 0, false, &r)), "allow");
    }

    #[test]
    fn network_error_wins() {
        let d = fetch_policy(200, 0, 10, true);
        assert_eq!(kind(&d), "disallow");
        assert!(d.reason().contains("§2.3.1.4"));
    }

    #[test]
    fn redirects() {
        assert_eq!(kind(&fetch_policy(200, 5, 10, false)), "parse");
        let d = fetch_policy(200, 6, 10, false);
        assert_eq!(kind(&d), "allow");
        assert!(d.reason().contains("§2.3.1.2"));
        assert_eq!(kind(&fetch_policy(302, 2, 0, false)), "allow");
    }

    #[test]
    fn parse_limit() {
        match fetch_policy(200, 0, 600 * 1024, false) {
            AccessDecision::ParseBody {
                parse_bytes,
                reason,
            } => {
                assert_eq!(parse_bytes, 500 * 1024);
                assert!(reason.contains("§2.5"));
            }
            d => panic!("{d:?}"),
        }
        match fetch_policy(200, 0, 100, false) {
            AccessDecision::ParseBody { parse_bytes, .. } => assert_eq!(parse_bytes, 100),
            d => panic!("{d:?}"),
        }
        let unlimited = Readings {
            parse_limit: None,
            ..Readings::default()
        };
        match fetch_policy_with(200, 0, 600 * 1024, false, &unlimited) {
            AccessDecision::ParseBody { parse_bytes, .. } => assert_eq!(parse_bytes, 600 * 1024),
            d => panic!("{d:?}"),
        }
    }
}
