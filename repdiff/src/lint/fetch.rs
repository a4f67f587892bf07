//! `lint URL`: the live file, fetched as RFC 9309 §2.3 says a crawler
//! fetches it. Redirects are followed here, hop by hop (the client's own
//! following is off, so each hop's status is seen and §2.3.1.2's five are
//! counted), and the outcome goes to the reference's
//! [`oracles::rfc9309::fetch_policy`]: a 2xx file is linted,
//! anything else is said with its paragraph and with what each parser's
//! fetcher did with that status in the corpus's HTTP cases.

use super::input::{self, Refusal};
use oracles::rfc9309::access::MAX_REDIRECTS;
use oracles::rfc9309::{fetch_policy, AccessDecision};
use std::io::Read;
use std::net::{IpAddr, SocketAddr, ToSocketAddrs};
use std::time::Duration;

/// Whether a lint argument is a URL rather than a file.
pub fn is_url(arg: &str) -> bool {
    arg.starts_with("http://") || arg.starts_with("https://")
}

/// One response on the way.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hop {
    pub url: String,
    pub status: u16,
}

/// What the fetch came to.
#[derive(Debug)]
pub struct Fetched {
    /// The robots.txt URL asked first.
    pub asked: String,
    /// Every response, redirects first.
    pub hops: Vec<Hop>,
    /// The body of the last response (empty on a network error).
    pub body: Vec<u8>,
    /// Set when no response came: refused, reset, timed out.
    pub network_error: Option<String>,
    /// RFC 9309 §2.3's decision on it.
    pub decision: AccessDecision,
}

impl Fetched {
    pub fn final_url(&self) -> &str {
        self.hops.last().map_or(&self.asked, |h| &h.url)
    }

    pub fn status(&self) -> Option<u16> {
        self.network_error
            .is_none()
            .then(|| self.hops.last().map(|h| h.status))
            .flatten()
    }

    /// One line: the status, the redirects, the final URL.
    pub fn summary(&self) -> String {
        let redirects = self.hops.len().saturating_sub(1);
        match (&self.network_error, self.status()) {
            (Some(e), _) => format!("{}: no response ({e})", self.asked),
            (None, Some(s)) => format!(
                "{}: HTTP {s}{}",
                self.asked,
                if redirects > 0 {
                    format!(" after {redirects} redirect(s), at {}", self.final_url())
                } else {
                    String::new()
                }
            ),
            (None, None) => format!("{}: no response", self.asked),
        }
    }
}

/// The robots.txt a URL names: the URL itself when its path ends in
/// `/robots.txt`, else `/robots.txt` of its host (§2.3 "the crawler MUST
/// access the robots.txt file ... at /robots.txt").
pub fn robots_url(arg: &str) -> Result<String, Refusal> {
    let url = url::Url::parse(arg)
        .map_err(|e| Refusal(format!("{arg} is not a URL lint can fetch ({e})")))?;
    if url.host().is_none() {
        return Err(Refusal(format!("{arg} has no host")));
    }
    if url.path().ends_with("/robots.txt") {
        return Ok(url.to_string());
    }
    url.join("/robots.txt")
        .map(|u| u.to_string())
        .map_err(|e| Refusal(format!("{arg}: cannot make its /robots.txt URL ({e})")))
}

/// Which addresses a fetch may reach.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Targets {
    /// Any (the command line: the user's own machine and network).
    Any,
    /// Public addresses only (`serve --allow-fetch`: no visitor's request
    /// may reach loopback, a private network or link-local addresses).
    Public,
}

/// The resolver of a [`Targets::Public`] fetch: every hop's host is
/// resolved here and its non-public addresses dropped, so a redirect or a
/// DNS answer cannot lead the server to an internal address.
struct PublicOnly;

impl ureq::Resolver for PublicOnly {
    fn resolve(&self, netloc: &str) -> std::io::Result<Vec<SocketAddr>> {
        let public: Vec<SocketAddr> = netloc
            .to_socket_addrs()?
            .filter(|a| is_public(a.ip()))
            .collect();
        if public.is_empty() {
            return Err(std::io::Error::new(
                std::io::ErrorKind::PermissionDenied,
                format!(
                    "{netloc} is a loopback, private or link-local address: this server fetches \
                     public addresses only (serve --allow-private)"
                ),
            ));
        }
        Ok(public)
    }
}

/// Not loopback, private (RFC 1918, RFC 6598's shared space, IPv6 unique
/// local), link-local, unspecified, broadcast or documentation space.
pub fn is_public(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v) => {
            let [a, b, ..] = v.octets();
            !(v.is_loopback()
                || v.is_private()
                || v.is_link_local()
                || v.is_unspecified()
                || v.is_broadcast()
                || v.is_documentation()
                || (a == 100 && (b & 0xc0) == 64)
                || a == 0)
        }
        IpAddr::V6(v) => {
            let first = v.segments()[0];
            if let Some(mapped) = v.to_ipv4_mapped() {
                return is_public(IpAddr::V4(mapped));
            }
            !(v.is_loopback()
                || v.is_unspecified()
                || (first & 0xfe00) == 0xfc00
                || (first & 0xffc0) == 0xfe80)
        }
    }
}

/// Fetch `robots` (a robots.txt URL), following at most five redirects
/// plus one to learn there were more (§2.3.1.2).
pub fn fetch(robots: &str) -> Fetched {
    fetch_to(robots, Targets::Any)
}

/// [`fetch`], reaching only `targets`.
pub fn fetch_to(robots: &str, targets: Targets) -> Fetched {
    let mut builder = ureq::AgentBuilder::new();
    if targets == Targets::Public {
        builder = builder.resolver(PublicOnly);
    }
    // A server's visitor must not hold one of its threads for minutes: six
    // hops at 5 s each at most there, 30 s each on the command line.
    let per_hop = match targets {
        Targets::Any => Duration::from_secs(30),
        Targets::Public => Duration::from_secs(5),
    };
    let agent = builder
        .redirects(0)
        .timeout_connect(Duration::from_secs(10).min(per_hop))
        .timeout(per_hop)
        .user_agent(concat!("repdiff-lint/", env!("CARGO_PKG_VERSION")))
        .build();
    let mut hops: Vec<Hop> = Vec::new();
    let mut current = robots.to_string();
    let (body, network_error) = loop {
        let response = match agent.get(&current).call() {
            Ok(r) | Err(ureq::Error::Status(_, r)) => r,
            Err(e) => break (Vec::new(), Some(e.to_string())),
        };
        let status = response.status();
        hops.push(Hop {
            url: current.clone(),
            status,
        });
        let next = (300..400)
            .contains(&status)
            .then(|| response.header("location").map(str::to_string))
            .flatten()
            .and_then(|l| url::Url::parse(&current).ok()?.join(&l).ok());
        match next {
            Some(next) if hops.len() <= MAX_REDIRECTS as usize => current = next.to_string(),
            _ => break (read_body(response), None),
        }
    };
    let redirects = hops.len().saturating_sub(1) as u32;
    let status = hops.last().map_or(0, |h| h.status);
    let decision = fetch_policy(status, redirects, body.len(), network_error.is_some());
    Fetched {
        asked: robots.to_string(),
        hops,
        body,
        network_error,
        decision,
    }
}

/// The body, at most one byte past lint's limit (so a larger one is
/// refused as a file is).
fn read_body(response: ureq::Response) -> Vec<u8> {
    let mut body = Vec::new();
    let _ = response
        .into_reader()
        .take(input::MAX_BYTES + 1)
        .read_to_end(&mut body);
    body
}

/// What each parser did with this status in the corpus's HTTP case
/// `http-<status>` (the published run): `(oracle, outcome)` of its first
/// question, or nothing when the corpus has no such case.
pub fn corpus_verdicts(status: u16) -> Vec<(String, String)> {
    let path = crate::paths::published_dir().join("compat.json");
    let Ok(report) = report::compat::Report::load(&path) else {
        return Vec::new();
    };
    let case = format!("http-{status}");
    report
        .cells
        .iter()
        .filter(|c| c.case == case && c.query == 0)
        .map(|c| (c.oracle.clone(), c.label()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn internal_addresses_are_not_public() {
        for ip in [
            "127.0.0.1",
            "10.1.2.3",
            "172.16.0.1",
            "192.168.1.1",
            "169.254.169.254",
            "100.64.0.1",
            "0.0.0.0",
            "::1",
            "fd00::1",
            "fe80::1",
            "::ffff:127.0.0.1",
        ] {
            assert!(!is_public(ip.parse().unwrap()), "{ip}");
        }
        for ip in ["93.184.216.34", "2606:2800:220:1::1"] {
            assert!(is_public(ip.parse().unwrap()), "{ip}");
        }
    }

    #[test]
    fn a_public_only_fetch_refuses_loopback() {
        let f = fetch_to("http://127.0.0.1:9/robots.txt", Targets::Public);
        let e = f.network_error.expect("refused");
        assert!(e.contains("public addresses only"), "{e}");
    }
}
