//! The census's input, one robots.txt at a time.
//!
//! A Common Crawl robots.txt crawl is tens of gigabytes, so nothing here
//! holds more than a few records: a reader thread walks the input and hands
//! records over a small bounded channel. The consumer sees a plain iterator
//! and the reader blocks while the oracles are busy.

use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};

/// One robots.txt as served: `name` is unique in the input (a file's path
/// inside the directory or archive, a WARC record id) and is what shards
/// are keyed on, so a file lands in the same shard wherever it is read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record {
    pub name: String,
    pub host: String,
    pub body: Vec<u8>,
    /// The HTTP status, when the input recorded one (WARC responses).
    pub status: Option<u16>,
}

/// A bad input: it names the file (and the record or entry) so the person
/// running a census over thousands of WARC files can find the bad one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InputError(pub String);

impl std::fmt::Display for InputError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for InputError {}

/// A body larger than this is cut: Google reads 500 KiB, no real
/// robots.txt needs more, and one pathological record must not hold the
/// memory bound hostage.
pub const MAX_BODY: usize = 1 << 20;

/// Records in flight between the reader thread and the census.
const IN_FLIGHT: usize = 64;

/// What kind of input a path is, decided by its name (and, for a
/// directory, by being one).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Dir,
    Tar,
    TarGz,
    Warc,
    WarcGz,
}

pub fn kind_of(path: &Path) -> Result<Kind, InputError> {
    if path.is_dir() {
        return Ok(Kind::Dir);
    }
    let name = path.to_string_lossy();
    let kind = if name.ends_with(".tar.gz") || name.ends_with(".tgz") {
        Kind::TarGz
    } else if name.ends_with(".tar") {
        Kind::Tar
    } else if name.ends_with(".warc.gz") {
        Kind::WarcGz
    } else if name.ends_with(".warc") {
        Kind::Warc
    } else {
        return Err(InputError(format!(
            "{}: not a directory, .tar, .tar.gz, .warc or .warc.gz",
            path.display()
        )));
    };
    if !path.is_file() {
        return Err(InputError(format!("{}: no such file", path.display())));
    }
    Ok(kind)
}

/// Every record of every input, in order. Bad kinds are reported before
/// anything is read; a bad record stops the stream with an error.
pub struct Records {
    rx: Receiver<Result<Record, InputError>>,
    done: bool,
}

impl Iterator for Records {
    type Item = Result<Record, InputError>;
    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        let item = self.rx.recv().ok()?;
        self.done = item.is_err();
        Some(item)
    }
}

pub fn open(paths: &[PathBuf]) -> Result<Records, InputError> {
    let kinds = paths
        .iter()
        .map(|p| kind_of(p).map(|k| (p.clone(), k)))
        .collect::<Result<Vec<_>, _>>()?;
    let (tx, rx) = sync_channel(IN_FLIGHT);
    std::thread::spawn(move || {
        for (path, kind) in kinds {
            let r = match kind {
                Kind::Dir => read_dir(&path, &tx),
                Kind::Tar => read_tar(&path, std::fs::File::open(&path), &tx),
                Kind::TarGz => read_tar(
                    &path,
                    std::fs::File::open(&path).map(flate2::read::MultiGzDecoder::new),
                    &tx,
                ),
                Kind::Warc => read_warc(&path, false, &tx),
                Kind::WarcGz => read_warc(&path, true, &tx),
            };
            match r {
                Ok(true) => {}
                // The consumer hung up (a --limit was reached): stop reading.
                Ok(false) => return,
                Err(e) => {
                    let _ = tx.send(Err(e));
                    return;
                }
            }
        }
    });
    Ok(Records { rx, done: false })
}

type Tx = SyncSender<Result<Record, InputError>>;

/// A directory's files, recursively, in byte order of their relative paths
/// (only names are listed ahead; bodies are read one at a time).
fn read_dir(root: &Path, tx: &Tx) -> Result<bool, InputError> {
    let mut names = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let entries = std::fs::read_dir(&dir)
            .map_err(|e| InputError(format!("{}: cannot list: {e}", dir.display())))?;
        for entry in entries {
            let entry =
                entry.map_err(|e| InputError(format!("{}: cannot list: {e}", dir.display())))?;
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if let Ok(rel) = path.strip_prefix(root) {
                names.push(rel.to_string_lossy().into_owned());
            }
        }
    }
    names.sort();
    for name in names {
        let path = root.join(&name);
        let mut body = Vec::new();
        std::fs::File::open(&path)
            .and_then(|f| f.take(MAX_BODY as u64).read_to_end(&mut body))
            .map_err(|e| InputError(format!("{}: cannot read: {e}", path.display())))?;
        let host = host_from_name(&name);
        let record = Record {
            name,
            host,
            body,
            status: None,
        };
        if tx.send(Ok(record)).is_err() {
            return Ok(false);
        }
    }
    Ok(true)
}

/// The host a file is named after: its last path component (the protego
/// data names each file by host).
pub fn host_from_name(name: &str) -> String {
    name.rsplit('/').next().unwrap_or(name).to_string()
}

fn read_tar<R: Read>(path: &Path, file: std::io::Result<R>, tx: &Tx) -> Result<bool, InputError> {
    let shown = path.display();
    let file = file.map_err(|e| InputError(format!("{shown}: cannot open: {e}")))?;
    let mut archive = tar::Archive::new(file);
    let entries = archive
        .entries()
        .map_err(|e| InputError(format!("{shown}: not a tar archive: {e}")))?;
    for (i, entry) in entries.enumerate() {
        let mut entry = entry
            .map_err(|e| InputError(format!("{shown}: entry {}: bad tar entry: {e}", i + 1)))?;
        if !entry.header().entry_type().is_file() {
            continue;
        }
        let name = entry
            .path()
            .map(|p| p.to_string_lossy().into_owned())
            .map_err(|e| InputError(format!("{shown}: entry {}: bad path: {e}", i + 1)))?;
        let mut body = Vec::new();
        (&mut entry)
            .take(MAX_BODY as u64)
            .read_to_end(&mut body)
            .map_err(|e| InputError(format!("{shown}: entry {} ({name}): {e}", i + 1)))?;
        let record = Record {
            host: host_from_name(&name),
            name,
            body,
            status: None,
        };
        if tx.send(Ok(record)).is_err() {
            return Ok(false);
        }
    }
    Ok(true)
}

/// A response's block is read up to this much; the rest is skipped. The
/// payload may be compressed or chunked, so the bound is above
/// [`MAX_BODY`], which the decoded body is cut to.
const MAX_BLOCK: u64 = 4 * MAX_BODY as u64;

/// A header line longer than this ends the read with an error: garbage,
/// not a WARC, and it must not be read into memory whole.
const MAX_LINE: u64 = 64 << 10;

/// Likewise the header's lines (a real WARC header has about a dozen).
const MAX_HEADERS: usize = 1024;

/// WARC records, read here rather than with the `warc` crate: real WARC
/// files (pywb's sample archive, written by wget, wpull and older
/// recorders) have records the crate refuses or, worse, drops without a
/// word: a header ending in `\r\r\n`, one CRLF too many or too few after a
/// block, a Content-Length a few bytes short. This reader tolerates what
/// warcio tolerates (`repdiff/tests/it/census_warc_sample.rs` holds it to
/// warcio on those files): blank lines between records, and one stray line
/// right after a block.
fn read_warc(path: &Path, gz: bool, tx: &Tx) -> Result<bool, InputError> {
    let shown = path.display();
    let file =
        std::fs::File::open(path).map_err(|e| InputError(format!("{shown}: cannot open: {e}")))?;
    let mut reader: Box<dyn BufRead + Send> = if gz {
        Box::new(BufReader::new(flate2::read::MultiGzDecoder::new(file)))
    } else {
        Box::new(BufReader::new(file))
    };
    let mut n = 0usize;
    let mut next = next_version_line(&mut reader, false)
        .map_err(|e| InputError(format!("{shown}: WARC record 1: cannot read: {e}")))?;
    loop {
        let Some(first) = next else {
            return Ok(true);
        };
        n += 1;
        let at = |what: &str| InputError(format!("{shown}: WARC record {n}: {what}"));
        if !first.starts_with(b"WARC/") {
            return Err(at("no `WARC/` version line where a record should start"));
        }
        let headers = header_lines(&mut reader)
            .map_err(|e| at(&format!("cannot read its header: {e}")))?
            .ok_or_else(|| at("truncated in its header"))?;
        let get = |name: &str| {
            headers
                .iter()
                .find(|(k, _)| k.eq_ignore_ascii_case(name))
                .map(|(_, v)| v.as_str())
        };
        let id = get("WARC-Record-ID").unwrap_or_default().to_string();
        let at = |what: &str| InputError(format!("{shown}: WARC record {n} ({id}): {what}"));
        let len: u64 = get("Content-Length")
            .and_then(|v| v.parse().ok())
            .ok_or_else(|| at("no valid Content-Length"))?;
        let response = get("WARC-Type").is_some_and(|t| t.eq_ignore_ascii_case("response"));
        let mut block = Vec::new();
        let keep = if response { len.min(MAX_BLOCK) } else { 0 };
        let read = (&mut reader)
            .take(keep)
            .read_to_end(&mut block)
            .and_then(|k| {
                let skipped =
                    std::io::copy(&mut (&mut reader).take(len - keep), &mut std::io::sink())?;
                Ok(k as u64 + skipped)
            })
            .map_err(|e| at(&format!("cannot read its block: {e}")))?;
        if read < len {
            return Err(at(&format!(
                "truncated: the block holds {read} of its {len} bytes"
            )));
        }
        // What follows the block up to the next record belongs to this one
        // (in a .warc.gz, to its gzip member): read it before the record is
        // handed on, so that a member cut short is this record's error.
        next = next_version_line(&mut reader, true)
            .map_err(|e| at(&format!("cannot read past its block: {e}")))?;
        if !response {
            continue;
        }
        let http = parse_http(&block)
            .ok_or_else(|| at("the response holds no HTTP status line and header"))?;
        let uri = get("WARC-Target-URI").unwrap_or_default();
        let record = Record {
            host: host_of_uri(uri).unwrap_or_else(|| id.clone()),
            body: http.payload(),
            status: Some(http.status),
            name: id,
        };
        if tx.send(Ok(record)).is_err() {
            return Ok(false);
        }
    }
}

/// One line, at most [`MAX_LINE`] bytes; `None` at the end of the input.
fn line(reader: &mut dyn BufRead) -> std::io::Result<Option<Vec<u8>>> {
    let mut buf = Vec::new();
    reader.take(MAX_LINE).read_until(b'\n', &mut buf)?;
    if buf.len() as u64 == MAX_LINE && !buf.ends_with(b"\n") {
        return Err(std::io::Error::other(format!(
            "a line longer than {MAX_LINE} bytes"
        )));
    }
    Ok((!buf.is_empty()).then_some(buf))
}

fn blank(line: &[u8]) -> bool {
    line.iter().all(u8::is_ascii_whitespace)
}

/// The first non-blank line, where the next record starts. After a block,
/// the first line is passed over even when it is not blank (warcio does
/// so too: it is what a Content-Length a few bytes short leaves).
fn next_version_line(
    reader: &mut dyn BufRead,
    after_block: bool,
) -> std::io::Result<Option<Vec<u8>>> {
    let mut first = after_block;
    while let Some(l) = line(reader)? {
        let stray = first && !l.starts_with(b"WARC/");
        if !blank(&l) && !stray {
            return Ok(Some(l));
        }
        first = false;
    }
    Ok(None)
}

/// `Name: value` lines up to a blank one, names and values trimmed (lines
/// may end in LF, CRLF or CRCRLF); a line starting with a space or tab
/// continues the one before, a line without a colon is ignored (as in
/// warcio). `None` when the input ends first.
fn header_lines(reader: &mut dyn BufRead) -> std::io::Result<Option<Vec<(String, String)>>> {
    let mut headers: Vec<(String, String)> = Vec::new();
    while let Some(l) = line(reader)? {
        if blank(&l) {
            return Ok(Some(headers));
        }
        if headers.len() >= MAX_HEADERS {
            return Err(std::io::Error::other(format!(
                "more than {MAX_HEADERS} header lines"
            )));
        }
        let l = String::from_utf8_lossy(&l);
        if l.starts_with([' ', '\t']) {
            if let Some((_, v)) = headers.last_mut() {
                v.push(' ');
                v.push_str(l.trim());
            }
        } else if let Some((k, v)) = l.split_once(':') {
            headers.push((k.trim().to_string(), v.trim().to_string()));
        }
    }
    Ok(None)
}

/// An HTTP/1.x response as a WARC stores it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Http<'a> {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    /// As stored: possibly chunked and content-encoded.
    pub body: &'a [u8],
}

/// The status line (a protocol starting `HTTP`, then a number), the
/// header lines up to a blank one (LF, CRLF or CRCRLF), and the bytes
/// after it. A header without its blank line has an empty body.
pub fn parse_http(raw: &[u8]) -> Option<Http<'_>> {
    let mut rest = raw;
    let mut next_line = || {
        let end = rest
            .iter()
            .position(|&b| b == b'\n')
            .map_or(rest.len(), |i| i + 1);
        let (l, r) = rest.split_at(end);
        rest = r;
        l
    };
    let status_line = String::from_utf8_lossy(next_line()).into_owned();
    let mut parts = status_line.split_whitespace();
    if !parts.next()?.to_ascii_uppercase().starts_with("HTTP") {
        return None;
    }
    let status: u16 = parts.next()?.parse().ok()?;
    let mut headers = Vec::new();
    loop {
        let l = next_line();
        if blank(l) {
            break;
        }
        if let Some((k, v)) = String::from_utf8_lossy(l).split_once(':') {
            headers.push((k.trim().to_string(), v.trim().to_string()));
        }
    }
    Some(Http {
        status,
        headers,
        body: rest,
    })
}

/// The status and the body as stored (see [`Http::payload`] for what the
/// census hands the parsers).
pub fn split_http(raw: &[u8]) -> Option<(u16, &[u8])> {
    parse_http(raw).map(|h| (h.status, h.body))
}

impl Http<'_> {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// The body a crawler's HTTP client hands its robots.txt parser: the
    /// chunking undone and a gzip or deflate content-encoding decoded, as
    /// warcio's `content_stream()` gives it. Common Crawl stores bodies
    /// already decoded, without those headers, so there this changes
    /// nothing; wget, wpull and most recorders store them as served. Where
    /// the stored bytes are not what the header says (an already
    /// de-chunked body under `Transfer-Encoding: chunked`, an unknown
    /// coding, a broken gzip stream) they are taken as they are, as warcio
    /// does. Cut at [`MAX_BODY`].
    pub fn payload(&self) -> Vec<u8> {
        let chunked = self
            .header("Transfer-Encoding")
            .is_some_and(|v| v.eq_ignore_ascii_case("chunked"));
        let body = if chunked {
            std::borrow::Cow::Owned(dechunk(self.body))
        } else {
            std::borrow::Cow::Borrowed(self.body)
        };
        let coding = self.header("Content-Encoding").map(str::to_ascii_lowercase);
        let decoded = match coding.as_deref() {
            Some("gzip" | "x-gzip") => decode(flate2::read::GzDecoder::new(&body[..])),
            Some("deflate") => decode(flate2::read::ZlibDecoder::new(&body[..]))
                .or_else(|| decode(flate2::read::DeflateDecoder::new(&body[..]))),
            _ => None,
        };
        let mut out = decoded.unwrap_or_else(|| body.into_owned());
        out.truncate(MAX_BODY);
        out
    }
}

fn decode(r: impl Read) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    r.take(MAX_BODY as u64).read_to_end(&mut out).ok()?;
    Some(out)
}

/// HTTP/1.1 chunked transfer coding undone. From the first chunk-size
/// line that does not parse, the rest is taken as it is (warcio's
/// fallback: the body was stored de-chunked under the old header); a
/// last chunk cut short keeps what there is.
fn dechunk(mut raw: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    loop {
        let size = raw
            .iter()
            .position(|&b| b == b'\n')
            .filter(|&i| i > 0 && raw[i - 1] == b'\r')
            .and_then(|i| {
                let digits = std::str::from_utf8(&raw[..i - 1]).ok()?;
                let digits = digits.split(';').next()?.trim();
                let size = usize::from_str_radix(digits, 16).ok()?;
                Some((i + 1, size))
            });
        let Some((start, size)) = size else {
            out.extend_from_slice(raw);
            return out;
        };
        if size == 0 || out.len() >= MAX_BODY {
            return out;
        }
        let data = &raw[start..];
        let take = size.min(data.len());
        out.extend_from_slice(&data[..take]);
        raw = data[take..].strip_prefix(b"\r\n").unwrap_or(&data[take..]);
        if take < size {
            return out;
        }
    }
}

/// `http://Example.com:80/robots.txt` -> `example.com`.
pub fn host_of_uri(uri: &str) -> Option<String> {
    let rest = uri.split_once("://")?.1;
    let authority = rest.split(['/', '?', '#']).next()?;
    let authority = authority.rsplit('@').next()?;
    let host = match authority.strip_prefix('[') {
        Some(v6) => v6.split(']').next()?,
        None => authority.split(':').next()?,
    };
    (!host.is_empty()).then(|| host.to_ascii_lowercase())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn http_split() {
        let raw = b"HTTP/1.1 404 Not Found\r\nA: b\r\n\r\nUser-agent: *\n";
        assert_eq!(split_http(raw), Some((404, &b"User-agent: *\n"[..])));
        assert_eq!(split_http(b"garbage"), None);
    }

    #[test]
    fn http_lines_end_as_they_may() {
        let raw = b"HTTP/1.0 302 \r\r\nLocation: /x\r\r\n\r\r\nbody";
        let http = parse_http(raw).expect("parsed");
        assert_eq!((http.status, http.body), (302, &b"body"[..]));
        assert_eq!(http.header("location"), Some("/x"));
        assert_eq!(
            split_http(b"HTTP/1.1 200 OK\nA: b\n"),
            Some((200, &b""[..]))
        );
    }

    #[test]
    fn payload_decoded_as_a_client_would() {
        use std::io::Write;
        let chunked = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n\
            5;x=y\r\nUser-\r\n8\r\nagent: *\r\n0\r\n\r\n";
        assert_eq!(
            parse_http(chunked).expect("http").payload(),
            b"User-agent: *"
        );
        // Stored de-chunked under the old header: taken as it is.
        let stale = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nUser-agent: *\n";
        assert_eq!(
            parse_http(stale).expect("http").payload(),
            b"User-agent: *\n"
        );
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        gz.write_all(b"Disallow: /\n").expect("gz");
        let mut raw = b"HTTP/1.1 200 OK\r\nContent-Encoding: GZIP\r\n\r\n".to_vec();
        raw.extend(gz.finish().expect("gz"));
        assert_eq!(parse_http(&raw).expect("http").payload(), b"Disallow: /\n");
        let unknown = b"HTTP/1.1 200 OK\r\nContent-Encoding: br\r\n\r\nxyz";
        assert_eq!(parse_http(unknown).expect("http").payload(), b"xyz");
    }

    #[test]
    fn hosts() {
        assert_eq!(
            host_of_uri("https://WWW.Example.com:443/robots.txt").as_deref(),
            Some("www.example.com")
        );
        assert_eq!(host_of_uri("http://[::1]:80/r").as_deref(), Some("::1"));
        assert_eq!(
            host_from_name("protego-0.7.0/tests/test_data/a.com"),
            "a.com"
        );
    }
}
