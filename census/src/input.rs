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

fn read_warc(path: &Path, gz: bool, tx: &Tx) -> Result<bool, InputError> {
    let shown = path.display();
    let file =
        std::fs::File::open(path).map_err(|e| InputError(format!("{shown}: cannot open: {e}")))?;
    let reader: Box<dyn BufRead + Send> = if gz {
        Box::new(BufReader::new(flate2::read::MultiGzDecoder::new(file)))
    } else {
        Box::new(BufReader::new(file))
    };
    for (i, record) in warc::WarcReader::new(reader).iter_records().enumerate() {
        let record =
            record.map_err(|e| InputError(format!("{shown}: WARC record {}: {e}", i + 1)))?;
        if record.warc_type() != &warc::RecordType::Response {
            continue;
        }
        let id = record.warc_id().to_string();
        let uri = record
            .header(warc::WarcHeader::TargetURI)
            .map(|u| u.into_owned())
            .unwrap_or_default();
        let (status, body) = split_http(record.body()).ok_or_else(|| {
            InputError(format!(
                "{shown}: WARC record {} ({id}): the response holds no HTTP status line and header",
                i + 1
            ))
        })?;
        let mut body = body.to_vec();
        body.truncate(MAX_BODY);
        let record = Record {
            host: host_of_uri(&uri).unwrap_or_else(|| id.clone()),
            name: id,
            body,
            status: Some(status),
        };
        if tx.send(Ok(record)).is_err() {
            return Ok(false);
        }
    }
    Ok(true)
}

/// An HTTP/1.x response's status and body. The body is taken as stored:
/// Common Crawl stores it decoded (no chunking, no content-encoding).
pub fn split_http(raw: &[u8]) -> Option<(u16, &[u8])> {
    let line_end = raw.iter().position(|&b| b == b'\n')?;
    let line = std::str::from_utf8(&raw[..line_end]).ok()?;
    let mut parts = line.split_whitespace();
    if !parts.next()?.starts_with("HTTP/") {
        return None;
    }
    let status: u16 = parts.next()?.parse().ok()?;
    let body_start = find(raw, b"\r\n\r\n")
        .map(|i| i + 4)
        .or_else(|| find(raw, b"\n\n").map(|i| i + 2))?;
    Some((status, &raw[body_start..]))
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
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
