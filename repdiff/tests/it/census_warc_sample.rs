//! The census's WARC reader on real WARC files (pywb's sample archive, as
//! its sdist ships it: written by wget, wpull and pywb's recorder), checked
//! against what the real warcio reads in them. The census must yield
//! exactly the `response` records, each with warcio's id, status and
//! decoded payload (`content_stream()`), and the host of its target URI;
//! every other record type is skipped. A gzip WARC cut inside a member
//! must fail with an error naming the file and the record.
//!
//! FAILS (never skips) when `repdiff setup` (step `warc-sample`) has
//! not run.

use census::input::{self, Record, MAX_BODY};
use repdiff::datasets::warc_sample;
use std::path::{Path, PathBuf};
use std::process::Command;

/// One record as warcio reads it.
#[derive(Debug)]
struct Seen {
    kind: String,
    id: String,
    host: Option<String>,
    status: Option<u16>,
    content: Option<Vec<u8>>,
    /// Where the record starts in the file and how long it is there (for
    /// a `.warc.gz`, its gzip member).
    offset: u64,
    length: u64,
}

const LIST: &str = r#"
import json, sys, urllib.parse
from warcio.archiveiterator import ArchiveIterator
with open(sys.argv[1], 'rb') as f:
    it = ArchiveIterator(f)
    for r in it:
        uri = r.rec_headers.get_header('WARC-Target-URI')
        host = urllib.parse.urlsplit(uri).hostname if uri else None
        out = {'type': r.rec_type, 'id': r.rec_headers.get_header('WARC-Record-ID'),
               'host': host, 'status': None, 'content': None}
        if r.rec_type == 'response' and r.http_headers is not None:
            out['status'] = int(r.http_headers.get_statuscode())
            out['content'] = r.content_stream().read().hex()
        it.read_to_end(r)
        out['offset'] = it.get_record_offset()
        out['length'] = it.get_record_length()
        print(json.dumps(out))
"#;

fn cache() -> PathBuf {
    oracles::cache_dir()
}

fn data() -> PathBuf {
    let dir = warc_sample::data_dir(&cache());
    assert!(
        warc_sample::present(&dir),
        "the sample WARC files ({} {} sdist, sample_archive/warcs) are not at {}: \
         run `repdiff setup`, then rerun",
        warc_sample::SDIST_NAME,
        warc_sample::SDIST_VERSION,
        dir.display()
    );
    dir
}

fn warcio(path: &Path) -> Vec<Seen> {
    let python = warc_sample::warcio_venv(&cache()).join("bin/python");
    assert!(
        python.is_file(),
        "warcio's venv is not at {}: run `repdiff setup`, then rerun",
        python.display()
    );
    let out = Command::new(&python)
        .args(["-c", LIST])
        .arg(path)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", python.display()));
    assert!(
        out.status.success(),
        "warcio on {}: {}",
        path.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|line| {
            let v: serde_json::Value = serde_json::from_str(line).expect("warcio's JSON line");
            let s = |k: &str| v[k].as_str().map(str::to_string);
            let n = |k: &str| v[k].as_u64().expect("a number");
            Seen {
                kind: s("type").expect("type"),
                id: s("id").expect("id"),
                host: s("host"),
                status: v["status"].as_u64().map(|s| s as u16),
                content: s("content").map(|h| unhex(&h)),
                offset: n("offset"),
                length: n("length"),
            }
        })
        .collect()
}

fn unhex(hex: &str) -> Vec<u8> {
    (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).expect("hex"))
        .collect()
}

fn census_records(path: &Path) -> Vec<Record> {
    input::open(&[path.to_path_buf()])
        .expect("open")
        .collect::<Result<_, _>>()
        .unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn census_reads_what_warcio_reads_in_real_warc_files() {
    let dir = data();
    let mut responses = 0;
    let mut others = 0;
    let mut kinds = std::collections::BTreeSet::new();
    for name in warc_sample::FILES {
        let path = dir.join(name);
        let seen = warcio(&path);
        assert!(!seen.is_empty(), "warcio reads no record in {name}");
        kinds.extend(seen.iter().map(|s| s.kind.clone()));
        let want: Vec<&Seen> = seen.iter().filter(|s| s.kind == "response").collect();
        others += seen.len() - want.len();
        responses += want.len();
        let got = census_records(&path);
        let ids = |v: Vec<&str>| v.join(" ");
        assert_eq!(
            ids(got.iter().map(|r| r.name.as_str()).collect()),
            ids(want.iter().map(|s| s.id.as_str()).collect()),
            "{name}: the census's records are not warcio's response records"
        );
        for (g, w) in got.iter().zip(&want) {
            let what = format!("{name} {}", w.id);
            assert_eq!(g.status, w.status, "{what}: status");
            assert_eq!(Some(&g.host), w.host.as_ref(), "{what}: host");
            let mut content = w.content.clone().expect("a response's content");
            content.truncate(MAX_BODY);
            assert!(
                g.body == content,
                "{what}: the body differs from warcio's content_stream() ({} bytes, warcio {})",
                g.body.len(),
                content.len()
            );
        }
    }
    // The sample is worth something only if it holds what the test is about.
    // (Before the census read WARC records itself, the `warc` crate
    // failed on three of these files and read none of
    // missing-status-text.warc's one response, without an error.)
    assert!(responses >= 25, "only {responses} response records");
    for kind in ["warcinfo", "request", "revisit", "resource"] {
        assert!(kinds.contains(kind), "no {kind} record in the sample");
    }
    assert!(others >= 50, "only {others} records of other types");
}

/// What the sample holds to decode: example2's response is gzip-encoded
/// as served, and 28 of iana's carry `Transfer-Encoding: chunked` over a
/// body stored de-chunked (no record of the sample is stored chunked; the
/// unit tests in `census/src/input.rs` cover real chunking).
#[test]
fn payloads_are_the_bytes_a_crawler_would_parse() {
    let dir = data();
    let ex2 = census_records(&dir.join("example2.warc.gz"));
    assert_eq!(ex2.len(), 1);
    assert!(
        ex2[0].body.starts_with(b"<!doctype html>"),
        "still gzip-encoded"
    );
    let iana = census_records(&dir.join("iana.warc.gz"));
    let home = iana
        .iter()
        .find(|r| r.name == "<urn:uuid:4eec4942-a541-410a-99f4-50de39b62118>")
        .expect("www.iana.org/");
    assert!(
        home.body.starts_with(b"<!doctype html>"),
        "a body stored de-chunked under `Transfer-Encoding: chunked` is taken as it is"
    );
}

#[test]
fn a_truncated_gzip_member_names_the_file_and_the_record() {
    let dir = data();
    let src = dir.join("example.warc.gz");
    let seen = warcio(&src);
    let bytes = std::fs::read(&src).expect("read");
    let scratch = Path::new(env!("CARGO_TARGET_TMPDIR")).join("census_warc_sample");
    std::fs::create_dir_all(&scratch).expect("scratch");
    // Cut each response record inside its gzip member, halfway (maybe in
    // its header) and just before the member's 8-byte trailer (in its
    // block): every record before it is read, then the error names the
    // file and the cut record, by number, and by id once its header is in.
    for (i, cut) in seen
        .iter()
        .enumerate()
        .filter(|(_, s)| s.kind == "response")
    {
        for (at, named) in [(cut.length / 2, false), (cut.length - 10, true)] {
            let path = scratch.join(format!("record-{}-cut-at-{at}.warc.gz", i + 1));
            std::fs::write(&path, &bytes[..(cut.offset + at) as usize]).expect("write");
            let mut read = Vec::new();
            let mut err = None;
            for r in input::open(std::slice::from_ref(&path)).expect("open") {
                match r {
                    Ok(rec) => read.push(rec.name),
                    Err(e) => err = Some(e),
                }
            }
            let before: Vec<&str> = seen[..i]
                .iter()
                .filter(|s| s.kind == "response")
                .map(|s| s.id.as_str())
                .collect();
            assert_eq!(read, before, "{}", path.display());
            let err = err.unwrap_or_else(|| panic!("{}: no error", path.display()));
            let file = path.display().to_string();
            assert!(err.0.contains(&file), "{err}: does not name {file}");
            assert!(
                err.0.contains(&format!("WARC record {}", i + 1)),
                "{err}: does not name record {}",
                i + 1
            );
            assert!(
                !named || err.0.contains(&cut.id),
                "{err}: does not name {}",
                cut.id
            );
        }
    }
}

#[test]
fn a_plain_warc_cut_in_a_block_says_how_much_is_there() {
    let src = data().join("example.warc");
    let seen = warcio(&src);
    let cut = seen
        .iter()
        .find(|s| s.kind == "response")
        .expect("a response");
    let bytes = std::fs::read(&src).expect("read");
    let scratch = Path::new(env!("CARGO_TARGET_TMPDIR")).join("census_warc_sample");
    std::fs::create_dir_all(&scratch).expect("scratch");
    let path = scratch.join("plain-cut.warc");
    std::fs::write(&path, &bytes[..(cut.offset + cut.length - 100) as usize]).expect("write");
    let err = input::open(std::slice::from_ref(&path))
        .expect("open")
        .find_map(Result::err)
        .expect("an error");
    assert!(
        err.0.contains(&path.display().to_string())
            && err.0.contains(&format!("WARC record 2 ({})", cut.id))
            && err.0.contains("truncated: the block holds"),
        "{err}"
    );
}
