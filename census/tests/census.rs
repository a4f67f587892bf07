//! The census harness on inputs the tests write themselves, with fake
//! oracles (named `fake-*`): these test the counting, sharding and input
//! readers, not any parser.

use census::input::{self, Record};
use census::pair::Pair;
use census::queries::Origin;
use census::{Census, Options, Shard};
use engine::oracle::{About, Answer, Capabilities, Oracle, Outcome, Query};
use std::path::{Path, PathBuf};

/// Allows everything.
struct FakeOpen;
/// Disallows any URL containing `admin`; raises on a body containing `boom`.
struct FakeStrict;

fn about(name: &str) -> About {
    About {
        library: name.into(),
        version: "0".into(),
        ..About::default()
    }
}

impl Oracle for FakeOpen {
    fn name(&self) -> &str {
        "fake-open"
    }
    fn about(&self) -> About {
        about("fake-open")
    }
    fn capabilities(&self) -> Capabilities {
        Capabilities {
            can_fetch: true,
            ..Capabilities::default()
        }
    }
    fn run(&mut self, _body: &[u8], queries: &[Query]) -> Vec<Answer> {
        queries.iter().map(|_| Outcome::Allowed.into()).collect()
    }
}

impl Oracle for FakeStrict {
    fn name(&self) -> &str {
        "fake-strict"
    }
    fn about(&self) -> About {
        about("fake-strict")
    }
    fn capabilities(&self) -> Capabilities {
        Capabilities {
            can_fetch: true,
            ..Capabilities::default()
        }
    }
    fn run(&mut self, body: &[u8], queries: &[Query]) -> Vec<Answer> {
        let boom = body.windows(4).any(|w| w == b"boom");
        queries
            .iter()
            .map(|q| {
                if boom {
                    Outcome::Error {
                        kind: "Boom".into(),
                        message: "fake".into(),
                    }
                } else if q.url.contains("admin") || q.url.ends_with(".test/") {
                    Outcome::Disallowed
                } else {
                    Outcome::Allowed
                }
                .into()
            })
            .collect()
    }
}

fn fakes() -> Vec<Box<dyn Oracle>> {
    vec![Box::new(FakeOpen), Box::new(FakeStrict)]
}

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("repdiff-census-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("scratch dir");
    d
}

fn bodies() -> Vec<(String, String)> {
    (0..40)
        .map(|i| {
            let body = match i % 4 {
                0 => format!("User-agent: *\nDisallow: /admin{i}/\n"),
                1 => "User-agent: bot\nDisallow: /\n".to_string(),
                2 => "# boom\nUser-agent: *\nAllow: /\n".to_string(),
                _ => format!("User-agent: *\nDisallow: /p{i}*$\nSitemap: https://h/s.xml\n"),
            };
            (format!("site{i}.test"), body)
        })
        .collect()
}

fn opts(input: &str, shard: Option<Shard>) -> Options {
    Options {
        input: input.into(),
        shard,
        limit: None,
        reference: "fake-open".into(),
        impact_pairs: vec![("fake-open".into(), "fake-strict".into())],
        expected: None,
    }
}

fn json(c: &Census) -> String {
    serde_json::to_string_pretty(c).expect("serialise")
}

fn run_dir(dir: &Path, shard: Option<Shard>) -> Census {
    let records = input::open(&[dir.to_path_buf()]).expect("open");
    census::run(
        records,
        &mut fakes(),
        &mut [],
        &mut [],
        &opts("test-data", shard),
    )
    .expect("run")
    .0
}

#[test]
fn helper_instances_change_the_time_not_the_report() {
    let dir = scratch("helpers");
    for (name, body) in bodies() {
        std::fs::write(dir.join(name), body).expect("write");
    }
    let alone = run_dir(&dir, None);
    let mut helpers: Vec<(String, Box<dyn Oracle>)> = vec![
        ("fake-strict".into(), Box::new(FakeStrict)),
        ("fake-strict".into(), Box::new(FakeStrict)),
        ("fake-open".into(), Box::new(FakeOpen)),
    ];
    let records = input::open(std::slice::from_ref(&dir)).expect("open");
    let (helped, speed) = census::run(
        records,
        &mut fakes(),
        &mut helpers,
        &mut [],
        &opts("test-data", None),
    )
    .expect("run");
    assert_eq!(json(&helped), json(&alone));
    assert_eq!(
        speed.oracles.len(),
        2,
        "helpers are no oracles of their own"
    );
}

#[test]
fn merge_of_shards_is_byte_identical_to_one_run() {
    let dir = scratch("shards");
    for (name, body) in bodies() {
        std::fs::write(dir.join(name), body).expect("write");
    }
    let whole = run_dir(&dir, None);
    assert_eq!(whole.written.tally.files, 40);
    assert!(
        whole.written.tally.signatures.len() >= 2,
        "{:?}",
        whole.written.tally.signatures.keys()
    );
    assert_eq!(whole.written.tally.oracles["fake-strict"].files_error, 10);
    assert!(whole.written.tally.high_impact.total > 0);
    for n in [1, 3, 7] {
        let parts: Vec<Census> = (0..n)
            .rev() // the order of the parts must not matter
            .map(|k| run_dir(&dir, Some(Shard { k, n })))
            .collect();
        assert_eq!(parts.iter().map(|p| p.written.tally.files).sum::<u64>(), 40);
        let merged = Census::merge(parts).expect("merge");
        assert_eq!(json(&merged), json(&whole), "{n} shards");
    }
    // Through the files merge reads, too.
    let out = dir.join("out");
    census::write_outputs(&out, &whole, None).expect("write");
    let back = census::read_census(&out.join("census.json")).expect("read");
    assert_eq!(
        json(&Census::merge(vec![back]).expect("merge")),
        json(&whole)
    );
    let svg = std::fs::read_to_string(out.join("heatmap.svg")).expect("svg");
    assert!(svg.starts_with("<svg") && svg.contains("fake-strict"));
}

#[test]
fn merge_refuses_shards_of_different_censuses() {
    let dir = scratch("refuse");
    std::fs::write(dir.join("a.test"), "User-agent: *\nDisallow: /admin\n").expect("write");
    let a = run_dir(&dir, None);
    let mut b = a.clone();
    b.input = "other".into();
    assert!(Census::merge(vec![a.clone(), b]).is_err());
    // A shard of the format before every rule was asked asked other
    // questions.
    let mut old = a.clone();
    old.format = census::LEGACY_FORMAT.into();
    let e = Census::merge(vec![a, old]).expect_err("stale shard");
    assert!(e.contains("repdiff-census/2"), "{e}");
}

/// A census.json of the format before near misses were counted apart
/// still reads (the published snapshot until the next publish) and
/// renders as it did: no near-miss section, none claimed.
#[test]
fn a_census_of_the_previous_format_reads_and_renders_as_it_did() {
    let dir = scratch("legacy");
    std::fs::write(dir.join("a.test"), "User-agent: *\nDisallow: /admin\n").expect("write");
    let c = run_dir(&dir, None);
    let mut doc: serde_json::Value = serde_json::from_str(&json(&c)).expect("json");
    doc["format"] = census::LEGACY_FORMAT.into();
    let map = doc.as_object_mut().expect("object");
    map.remove("near_misses");
    let path = dir.join("census.json");
    std::fs::write(&path, serde_json::to_string(&doc).expect("writes")).expect("write");
    let old = census::read_census(&path).expect("reads");
    assert!(!old.has_near_misses());
    let md = census::render::markdown(&old, None);
    assert!(
        !md.contains("Near misses") && !md.contains("near misses"),
        "{md}"
    );
    assert_eq!(census::render::sections(&old).len(), 2);
    doc["format"] = "repdiff-census/1".into();
    std::fs::write(&path, serde_json::to_string(&doc).expect("writes")).expect("write");
    assert!(census::read_census(&path).is_err());
}

#[test]
fn unrequested_urls_are_tallied_but_not_in_the_headline() {
    let dir = scratch("unrequested");
    let body = "User-agent: *\nDisallow: /robots.txt\nDisallow: /search?\n";
    std::fs::write(dir.join("a.test"), body).expect("write");
    let mut oracles: Vec<Box<dyn Oracle>> = vec![Box::new(FakeOpen), Box::new(FAKE_UNREQUESTED)];
    let mut o = opts("test-data", None);
    o.impact_pairs = vec![("fake-open".into(), "fake-unrequested".into())];
    let (c, _) = census::run(
        input::open(std::slice::from_ref(&dir)).expect("open"),
        &mut oracles,
        &mut [],
        &mut [],
        &o,
    )
    .expect("run");
    let key = &Pair::new("fake-open", "fake-unrequested");
    // `/robots.txt` and `/search?` for ExampleBot and Googlebot: asked and
    // counted in the as-written section...
    let asked = census::queries::derive("a.test", body.as_bytes());
    let marked: Vec<&str> = asked
        .iter()
        .filter(|q| q.unrequested && q.query.agent == "ExampleBot")
        .map(|q| q.query.url.as_str())
        .collect();
    assert!(marked.contains(&"https://a.test/robots.txt"), "{marked:?}");
    assert!(marked.contains(&"https://a.test/search?"), "{marked:?}");
    assert_eq!(c.written.tally.pairs[key].queries_disagree, 4);
    let unrequested = asked
        .iter()
        .filter(|q| q.unrequested && q.kind.origin() == Origin::Written)
        .count() as u64;
    assert_eq!(c.written.tally.unrequested, unrequested);
    // ... but not in the headline: the pair is compared there, and agrees.
    let h = &c.written.tally.headline[key];
    assert_eq!((h.files_compared, h.files_disagree), (1, 0));
    let md = census::render::markdown(&c, None);
    let all =
        c.written.tally.unrequested + c.near_misses.tally.unrequested + c.probes.tally.unrequested;
    assert!(
        md.contains(&format!(
            "Unrequested: {all} questions on URLs no crawler requests"
        )),
        "{md}"
    );
}

#[test]
fn shard_parsing_and_plan() {
    assert_eq!(Shard::parse("2/5"), Ok(Shard { k: 2, n: 5 }));
    for bad in ["5/5", "1/0", "x/2", "3"] {
        assert!(Shard::parse(bad).is_err(), "{bad}");
    }
    let recs = (0..100).map(|i| {
        Ok(Record {
            name: format!("f{i}"),
            host: String::new(),
            body: Vec::new(),
            status: None,
        })
    });
    let plan = census::shard_plan(recs, 4, None).expect("plan");
    assert_eq!(plan.iter().sum::<u64>(), 100);
    assert!(plan.iter().all(|&c| c > 10), "{plan:?}");
}

fn tar_bytes() -> Vec<u8> {
    let mut b = tar::Builder::new(Vec::new());
    for (name, body) in bodies().iter().take(3) {
        let mut h = tar::Header::new_gnu();
        h.set_size(body.len() as u64);
        h.set_mode(0o644);
        h.set_cksum();
        b.append_data(&mut h, format!("data/{name}"), body.as_bytes())
            .expect("append");
    }
    b.into_inner().expect("tar")
}

#[test]
fn tar_and_tar_gz_inputs() {
    use std::io::Write;
    let dir = scratch("tar");
    let tar = dir.join("x.tar");
    std::fs::write(&tar, tar_bytes()).expect("write");
    let gz = dir.join("x.tar.gz");
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    enc.write_all(&tar_bytes()).expect("gz");
    std::fs::write(&gz, enc.finish().expect("gz")).expect("write");
    for path in [tar, gz] {
        let recs: Vec<Record> = input::open(&[path])
            .expect("open")
            .collect::<Result<_, _>>()
            .expect("records");
        assert_eq!(recs.len(), 3);
        assert_eq!(recs[0].name, "data/site0.test");
        assert_eq!(recs[0].host, "site0.test");
        assert_eq!(recs[1].body, b"User-agent: bot\nDisallow: /\n");
    }
}

fn warc_record(kind: warc::RecordType, id: &str, uri: &str, body: &[u8]) -> Vec<u8> {
    let record = warc::RecordBuilder::default()
        .warc_type(kind)
        .warc_id(id)
        .header(warc::WarcHeader::TargetURI, uri)
        .body(body.to_vec())
        .build()
        .expect("record");
    let mut w = warc::WarcWriter::new(std::io::BufWriter::new(Vec::new()));
    w.write(&record).expect("write");
    w.into_inner().expect("inner")
}

#[test]
fn warc_responses_with_status() {
    use std::io::Write;
    let mut raw = Vec::new();
    raw.extend(warc_record(
        warc::RecordType::Request,
        "<urn:uuid:1>",
        "https://a.test/robots.txt",
        b"GET /robots.txt HTTP/1.1\r\nHost: a.test\r\n\r\n",
    ));
    raw.extend(warc_record(
        warc::RecordType::Response,
        "<urn:uuid:2>",
        "https://A.test/robots.txt",
        b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\nUser-agent: *\nDisallow: /admin\n",
    ));
    raw.extend(warc_record(
        warc::RecordType::Response,
        "<urn:uuid:3>",
        "http://b.test/robots.txt",
        b"HTTP/1.1 404 Not Found\r\n\r\nnope",
    ));
    let dir = scratch("warc");
    let plain = dir.join("crawl.warc");
    std::fs::write(&plain, &raw).expect("write");
    // Common Crawl compresses each record as its own gzip member.
    let gz = dir.join("crawl.warc.gz");
    let mut members = Vec::new();
    for part in [&raw[..], &raw[..0]] {
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        enc.write_all(part).expect("gz");
        members.extend(enc.finish().expect("gz"));
    }
    std::fs::write(&gz, members).expect("write");
    for path in [plain, gz] {
        let recs: Vec<Record> = input::open(std::slice::from_ref(&path))
            .expect("open")
            .collect::<Result<_, _>>()
            .expect("records");
        assert_eq!(recs.len(), 2, "{}", path.display());
        assert_eq!(recs[0].name, "<urn:uuid:2>");
        assert_eq!(recs[0].host, "a.test");
        assert_eq!(recs[0].status, Some(200));
        assert_eq!(recs[0].body, b"User-agent: *\nDisallow: /admin\n");
        assert_eq!(recs[1].status, Some(404));
        let (c, _) = census::run(
            input::open(&[path]).expect("open"),
            &mut fakes(),
            &mut [],
            &mut [],
            &opts("w", None),
        )
        .expect("run");
        assert_eq!(c.written.tally.files, 1);
        assert_eq!(c.written.tally.skipped_status.get(&404), Some(&1));
    }
}

#[test]
fn bad_inputs_name_the_file_and_record() {
    let dir = scratch("bad");
    let bad = dir.join("bad.warc");
    std::fs::write(&bad, b"WARC/1.0\r\nthis is not a header\r\n\r\n").expect("write");
    let err = input::open(std::slice::from_ref(&bad))
        .expect("open")
        .find_map(Result::err)
        .expect("an error");
    assert!(
        err.0.contains("bad.warc") && err.0.contains("record 1"),
        "{err}"
    );
    let http = dir.join("nohttp.warc");
    std::fs::write(
        &http,
        warc_record(
            warc::RecordType::Response,
            "<urn:uuid:9>",
            "http://x/",
            b"junk",
        ),
    )
    .expect("write");
    let err = census::run(
        input::open(&[http]).expect("open"),
        &mut fakes(),
        &mut [],
        &mut [],
        &opts("w", None),
    )
    .expect_err("an error");
    assert!(err.0.contains("<urn:uuid:9>"), "{err}");
    let tar = dir.join("bad.tar.gz");
    std::fs::write(&tar, b"not gzip at all").expect("write");
    let err = input::open(&[tar]).expect("open").find_map(Result::err);
    assert!(err.is_some_and(|e| e.0.contains("bad.tar.gz")));
    assert!(input::open(&[dir.join("x.zip")]).is_err());
}

#[test]
fn each_oracle_is_measured_against_each_profile() {
    let dir = scratch("profiles");
    for (name, body) in bodies() {
        std::fs::write(dir.join(name), body).expect("write");
    }
    let alone = run_dir(&dir, None);
    // fake-open as a "profile": fake-strict departs from it exactly as
    // the pair disagrees, fake-open never; pairs and signatures unchanged.
    let mut profiles: Vec<Box<dyn Oracle>> = vec![Box::new(FakeOpen)];
    let (c, speed) = census::run(
        input::open(std::slice::from_ref(&dir)).expect("open"),
        &mut fakes(),
        &mut [],
        &mut profiles,
        &opts("test-data", None),
    )
    .expect("run");
    assert_eq!(c.written.tally.pairs, alone.written.tally.pairs);
    assert_eq!(c.written.tally.signatures, alone.written.tally.signatures);
    assert_eq!(speed.oracles.len(), 2, "a profile has no speed row");
    let pair = &c.written.tally.pairs[&Pair::new("fake-open", "fake-strict")];
    let strict = &c.written.tally.oracles["fake-strict"].profiles["fake-open"];
    assert_eq!(strict.queries_compared, pair.queries_compared);
    assert_eq!(strict.queries_disagree, pair.queries_disagree);
    assert!(strict.queries_disagree > 0);
    let open = &c.written.tally.oracles["fake-open"].profiles["fake-open"];
    assert_eq!(open.queries_disagree, 0);
    let md = census::render::markdown(&c, None);
    assert!(md.contains("departs from profile `fake-open`"), "{md}");
}

/// Disallows the URLs `url` picks and allows the rest: it parts from
/// `fake-open` on those alone.
struct FakeDisallowing {
    name: &'static str,
    url: fn(&str) -> bool,
}

/// Disallows exactly the URLs holding a `%`: it parts from `fake-open` on
/// probes (`/admin` -> `/%61dmin`) and on nothing a site's links ask.
const FAKE_ESCAPE: FakeDisallowing = FakeDisallowing {
    name: "fake-escape",
    url: |u| u.contains('%'),
};

/// Disallows the URLs no crawler requests (`/robots.txt`, a bare `?`).
const FAKE_UNREQUESTED: FakeDisallowing = FakeDisallowing {
    name: "fake-unrequested",
    url: |u| u.ends_with("/robots.txt") || u.ends_with('?'),
};

impl Oracle for FakeDisallowing {
    fn name(&self) -> &str {
        self.name
    }
    fn about(&self) -> About {
        about(self.name)
    }
    fn capabilities(&self) -> Capabilities {
        Capabilities {
            can_fetch: true,
            ..Capabilities::default()
        }
    }
    fn run(&mut self, _body: &[u8], queries: &[Query]) -> Vec<Answer> {
        queries
            .iter()
            .map(|q| {
                if (self.url)(&q.url) {
                    Outcome::Disallowed.into()
                } else {
                    Outcome::Allowed.into()
                }
            })
            .collect()
    }
}

#[test]
fn as_written_near_misses_and_probes_are_counted_apart() {
    let dir = scratch("sections");
    for (name, body) in bodies() {
        std::fs::write(dir.join(name), body).expect("write");
    }
    let mut oracles: Vec<Box<dyn Oracle>> = vec![
        Box::new(FakeOpen),
        Box::new(FakeStrict),
        Box::new(FAKE_ESCAPE),
    ];
    let mut o = opts("test-data", None);
    o.impact_pairs
        .push(("fake-open".into(), "fake-escape".into()));
    let (c, _) = census::run(
        input::open(std::slice::from_ref(&dir)).expect("open"),
        &mut oracles,
        &mut [],
        &mut [],
        &o,
    )
    .expect("run");
    // Every query is in exactly one section, its origin's.
    let (mut written, mut near, mut probes) = (0u64, 0u64, 0u64);
    for (name, body) in bodies() {
        for q in census::queries::derive(&name, body.as_bytes()) {
            *match q.kind.origin() {
                Origin::Written => &mut written,
                Origin::NearMiss => &mut near,
                Origin::Probe => &mut probes,
            } += 1;
        }
    }
    assert_eq!(
        (
            c.written.tally.queries,
            c.near_misses.tally.queries,
            c.probes.tally.queries
        ),
        (written, near, probes)
    );
    assert!(probes > 0 && near > 0);
    assert_eq!(c.queries(), written + near + probes);
    assert_eq!(c.written.tally.files, 40);
    // `fake-escape` parts from `fake-open` on probes only.
    let key = &Pair::new("fake-open", "fake-escape");
    assert_eq!(c.written.tally.pairs[key].queries_disagree, 0);
    assert!(c.probes.tally.pairs[key].queries_disagree > 0);
    assert!(
        !c.written.tally.headline.contains_key(key)
            || c.written.tally.headline[key].files_disagree == 0
    );
    // `fake-strict` refuses `/` on every file it can read (not the ten
    // `boom` files, where it raises): 30 real sites in the headline, the
    // three smallest kept.
    let h = &c.written.summary.headline;
    let strict = h
        .iter()
        .find(|p| p.b == "fake-strict")
        .expect("headline pair");
    assert_eq!((strict.files_disagree, strict.files_compared), (30, 30));
    assert_eq!(strict.examples.len(), 3);
    assert!(strict
        .examples
        .windows(2)
        .all(|w| w[0].example.body_bytes <= w[1].example.body_bytes));
    assert_eq!(h[0].b, "fake-strict", "most sites first");
    let md = census::render::markdown(&c, None);
    let at = |s: &str| md.find(s).unwrap_or_else(|| panic!("no {s:?} in {md}"));
    assert!(at("## Headline") < at("## As-written questions"));
    assert!(at("## As-written questions") < at("## Near misses"));
    assert!(at("## Near misses") < at("## Probes"));
    assert!(md.contains("![pairwise disagreement heatmap](heatmap-near-misses.svg)"));
    assert!(
        md.contains("| `fake-open` vs `fake-strict` | 30 of 30 (100.0%) |"),
        "{md}"
    );
}

/// The questions over the default census data, by origin, before every
/// rule was asked (the first part alone) and now, and how long deriving
/// takes: `cargo test --release -p repdiff-census --test census --
/// --ignored --nocapture questions_over_the_default_data` (needs `repdiff
/// setup`'s census data, or REPDIFF_CENSUS_DATA naming an input).
#[test]
#[ignore = "reads the default census data; a measurement, not a check"]
fn questions_over_the_default_data() {
    let dir = std::env::var_os("REPDIFF_CENSUS_DATA").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("../.cache/census/protego-0.7.0-test-data"),
        PathBuf::from,
    );
    let records: Vec<Record> = input::open(std::slice::from_ref(&dir))
        .expect("open the census data")
        .map(|r| r.expect("a record"))
        .filter(|r| r.status.is_none_or(|s| (200..300).contains(&s)))
        .collect();
    let started = std::time::Instant::now();
    let asked: Vec<_> = records
        .iter()
        .map(|r| census::queries::derive(&r.host, &r.body))
        .collect();
    let took = started.elapsed();
    // Before: the first part alone, `derive` as it was (every path of
    // the first 24 rules for every agent, cut at 160).
    let mut before = std::collections::BTreeMap::<String, (u64, u64)>::new();
    for r in &records {
        let d = census::queries::read(&r.host, &r.body);
        let crossed = d.urls.iter().flat_map(|u| d.agents.iter().map(move |_| u));
        for u in crossed.take(census::queries::MAX_QUERIES) {
            let e = before.entry(format!("{:?}", u.kind.origin())).or_default();
            e.0 += 1;
            e.1 += u64::from(u.unrequested);
        }
    }
    let mut now = std::collections::BTreeMap::<String, (u64, u64)>::new();
    for q in asked.iter().flatten() {
        let e = now.entry(format!("{:?}", q.kind.origin())).or_default();
        e.0 += 1;
        e.1 += u64::from(q.unrequested);
    }
    let max = asked.iter().map(Vec::len).max().unwrap_or(0);
    println!(
        "{} files; derived in {:.3} s; most questions in one file: {max}",
        records.len(),
        took.as_secs_f64()
    );
    println!("before (origin: (questions, unrequested)): {before:?}");
    println!("now: {now:?}");
    let mut big: Vec<(usize, &str)> = asked
        .iter()
        .zip(&records)
        .map(|(a, r)| (a.len(), r.name.as_str()))
        .collect();
    big.sort_unstable_by(|x, y| y.cmp(x));
    let over = |n: usize| big.iter().filter(|b| b.0 > n).count();
    println!(
        "largest: {:?}; files over 1,000 questions: {}, over 10,000: {}",
        &big[..big.len().min(5)],
        over(1_000),
        over(10_000)
    );
}
