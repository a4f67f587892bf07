//! crawler-commons 1.6's own robots tests (SimpleRobotRulesParserTest,
//! GoogleRobotsTxtTest, SimpleRobotRulesTest), from the
//! `crawler-commons-1.6-tests.jar` Maven Central serves, run by JUnit
//! Jupiter in a JVM whose Byte Buddy hooks record each `parseContent` and
//! `isAllowed` call (oracles/harness/crawler-commons/suite/: its Maven
//! project pins every jar, the tests jar among them, in jars.sha256; the
//! library's jar is the oracle's). Heritrix's RobotstxtTest is not captured:
//! no artifact on Maven Central ships it (only the GitHub tag does).

use super::{read_raw, shim, tail, Prepared, PIECE};
use crate::registry::MavenPin;
use crate::setup::{jvm_go, Ctx, Result};
use crate::suites::model::Raw;
use std::path::{Path, PathBuf};
use std::process::Command;

const PROJECT: &str = "oracles/harness/crawler-commons/suite";
const OUT: &str = "jvm/suite-crawler-commons";
const TESTS_JAR: &str = "crawler-commons-1.6-tests.jar";
const TESTS_JAR_SHA256: &str = "cb21e55977bd51215ce28cefd175ed8505d4e85873bca3f7c636a1e1452fdd1f";

fn out(ctx: &Ctx) -> PathBuf {
    ctx.cache.join(OUT)
}

pub fn prepare_crawler_commons(ctx: &Ctx, verbose: bool) -> Result<Prepared> {
    let pin = MavenPin {
        project: PROJECT.into(),
        out: OUT.into(),
        java_home: None,
    };
    // Resolves and checks every jar against jars.sha256 (the tests jar too).
    jvm_go::ensure_maven(ctx, verbose, "suite crawler-commons", &pin)?;
    let jar = out(ctx).join("lib").join(TESTS_JAR);
    crate::setup::verify(ctx, PIECE, &jar, TESTS_JAR_SHA256)?;
    let project = ctx.root.join(PROJECT);
    let mut shims = vec![project.join("pom.xml"), project.join("jars.sha256")];
    shims.push(shim(
        ctx,
        "crawler-commons",
        "src/CaptureCrawlerCommons.java",
    ));
    Ok(Prepared {
        files: vec![(
            format!("Maven Central com.github.crawler-commons:crawler-commons:1.6 {TESTS_JAR}"),
            jar,
            TESTS_JAR_SHA256.into(),
        )],
        shims,
        source: "the robots tests in crawler-commons-1.6-tests.jar (Maven Central), under JUnit Jupiter 5.13.4".into(),
        runtime: java_version(),
        notes: vec![
            "crawler-commons' tests mostly parse with the deprecated parseContent(..., String names), \
             which matches agent names loosely (prefixes, several names in one string); Nutch, as the \
             oracle feeds it, passes a collection and matches exactly, so a test agent like \
             `WebCrawler/3.0` or a line `User-agent: crawler1 crawler2` is read differently"
                .into(),
            "Nutch raises the maximum crawl delay (the suite's 3600 s delay disallows everything by the \
             library's default) and refuses an empty agent or an empty URL (java.net.URL)"
                .into(),
        ],
    })
}

pub fn capture_crawler_commons(ctx: &Ctx, _p: &Prepared, work: &Path) -> Result<Raw> {
    let out_file = work.join("capture.json");
    let dir = out(ctx);
    let out = Command::new("java")
        .arg("-Dfile.encoding=UTF-8")
        .arg("-cp")
        .arg(format!(
            "{}:{}/*",
            dir.join("classes").display(),
            dir.join("lib").display()
        ))
        .arg("CaptureCrawlerCommons")
        .arg(dir.join("lib").join(TESTS_JAR))
        .arg(work.join("run"))
        .arg(&out_file)
        .output()
        .map_err(|e| ctx.err(PIECE, format!("cannot run java: {e}"), "install a JDK 17"))?;
    read_raw(ctx, &out_file, "java CaptureCrawlerCommons", &tail(&out))
}

fn java_version() -> String {
    Command::new("java")
        .arg("-version")
        .output()
        .map(|o| {
            let text = String::from_utf8_lossy(&o.stderr).into_owned();
            text.lines().next().unwrap_or("").trim().to_string()
        })
        .unwrap_or_default()
}
