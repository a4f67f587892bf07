//! The bench's tables: terminal, Markdown and JSON, apart from measuring.

use super::*;

pub fn fmt_ns(ns: f64) -> String {
    if !ns.is_finite() {
        return "-".into();
    }
    if ns < 0.0 {
        return format!("-{}", fmt_ns(-ns));
    }
    let (v, unit) = if ns < 1e3 {
        (ns, "ns")
    } else if ns < 1e6 {
        (ns / 1e3, "µs")
    } else if ns < 1e9 {
        (ns / 1e6, "ms")
    } else {
        (ns / 1e9, "s")
    };
    if v < 10.0 {
        format!("{v:.2} {unit}")
    } else if v < 100.0 {
        format!("{v:.1} {unit}")
    } else {
        format!("{v:.0} {unit}")
    }
}

/// A pipe table with padded columns: readable in a terminal and in Markdown.
/// Columns after the first two are right-aligned.
pub(super) fn table(header: &[&str], rows: &[Vec<String>]) -> String {
    let width = |i: usize| {
        rows.iter()
            .map(|r| r[i].chars().count())
            .chain(std::iter::once(header[i].chars().count()))
            .max()
            .unwrap_or(0)
    };
    let widths: Vec<usize> = (0..header.len()).map(width).collect();
    let line = |cells: Vec<String>| {
        let padded: Vec<String> = cells
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let pad = widths[i].saturating_sub(c.chars().count());
                if i < 2 {
                    format!("{c}{}", " ".repeat(pad))
                } else {
                    format!("{}{c}", " ".repeat(pad))
                }
            })
            .collect();
        format!("| {} |\n", padded.join(" | "))
    };
    let mut out = line(header.iter().map(|s| s.to_string()).collect());
    out.push_str(&line(
        widths
            .iter()
            .enumerate()
            .map(|(i, w)| {
                let dashes = "-".repeat((*w).max(3));
                if i < 2 {
                    dashes
                } else {
                    format!("{}:", &dashes[1..])
                }
            })
            .collect(),
    ));
    for r in rows {
        out.push_str(&line(r.clone()));
    }
    out
}

pub(super) fn overhead_table(rows: &[Row]) -> String {
    let cells: Vec<Vec<String>> = rows
        .iter()
        .map(|r| {
            let per = |s: &Stats| fmt_ns(s.median() / BATCH as f64);
            let (ratio, spread, of_medians, met) = if r.valid() {
                (
                    format!("{:.2}x", r.ratio),
                    format!("{:.2}–{:.2}", r.ratio_p25, r.ratio_p75),
                    format!("{:.2}x", r.ratio_of_medians),
                    if r.met() { "yes" } else { "NO" }.to_string(),
                )
            } else {
                (
                    "-".into(),
                    "-".into(),
                    "-".into(),
                    format!("INVALID ({} mismatch, {} failed)", r.mismatches, r.failures),
                )
            };
            vec![
                r.oracle.clone(),
                r.body.to_string(),
                fmt_ns(r.raw.median()),
                per(&r.raw),
                fmt_ns(r.repdiff.median()),
                per(&r.repdiff),
                fmt_ns(r.repdiff.median() - r.raw.median()),
                ratio,
                spread,
                of_medians,
                met,
                r.raw.samples.len().to_string(),
            ]
        })
        .collect();
    table(
        &[
            "oracle",
            "body",
            "raw batch",
            "raw /query",
            "repdiff batch",
            "repdiff /query",
            "added",
            "overhead",
            "p25–p75",
            "med/med",
            "< 1.5x",
            "rounds",
        ],
        &cells,
    )
}

pub(super) fn h2h_table(h2h: &[HeadToHead]) -> String {
    let per = |s: &Stats| fmt_ns(s.median() / BATCH as f64);
    let cells: Vec<Vec<String>> = h2h
        .iter()
        .flat_map(|h| {
            [
                ("100 in one call", &h.rfc_batch, &h.google_batch),
                ("1 per call", &h.rfc_alone, &h.google_alone),
            ]
            .map(|(mode, r, g)| {
                vec![
                    format!("{} ({} B)", h.body, h.bytes),
                    mode.to_string(),
                    per(r),
                    per(g),
                    format!("{:.2}x", g.median() / r.median()),
                    r.samples.len().to_string(),
                ]
            })
        })
        .collect();
    table(
        &[
            "body",
            "queries",
            "rfc9309 /query",
            "google /query",
            "google / rfc9309",
            "rounds",
        ],
        &cells,
    )
}

pub(super) fn terminal_tables(rows: &[Row], h2h: &H2h, unavailable: &[Unavailable]) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "\nOverhead: repdiff (worker process) vs raw (in process), batch of {BATCH} can_fetch, median"
    );
    out.push_str(&overhead_table(rows));
    for u in unavailable {
        let _ = writeln!(
            out,
            "UNAVAILABLE {}: {} (fix: {})",
            u.oracle,
            u.reason,
            u.fix_line("cargo xtask")
        );
    }
    let _ = writeln!(
        out,
        "\nHead-to-head: rfc9309 vs google, both through their workers, median"
    );
    match h2h {
        H2h::Ran(h) => out.push_str(&h2h_table(h)),
        H2h::Skipped(why) => {
            let _ = writeln!(out, "{why}");
        }
    }
    out
}

pub(super) fn to_markdown(
    meta: &Meta,
    bodies: &[Body],
    mix: &[(usize, usize)],
    rows: &[Row],
    h2h: &H2h,
    unavailable: &[Unavailable],
) -> String {
    let mut md = md_header(meta, unavailable);
    md_bodies(&mut md, bodies, mix);
    md_overhead(&mut md, rows);
    md_head_to_head(&mut md, h2h);
    md
}

/// What ran, where and how loaded, and which oracle could not.
pub(super) fn md_header(meta: &Meta, unavailable: &[Unavailable]) -> String {
    let mut md = String::new();
    let _ = writeln!(md, "# repdiff bench\n");
    if meta.quick {
        let _ = writeln!(
            md,
            "**Quick smoke run: few, short samples. Do not quote these figures.**\n"
        );
    }
    let _ = writeln!(
        md,
        "`{}` at `{}`, {} CPU(s), load average {} at start, {} at end, {:.0} s in all{}.\n",
        meta.command,
        meta.commit,
        meta.cpus,
        meta.load_start,
        meta.load_end,
        meta.secs,
        if meta.filtered {
            ", oracles filtered"
        } else {
            ""
        }
    );
    let _ = writeln!(
        md,
        "Each figure is the median of samples taken in one run, contenders \
         interleaved round by round (the order rotating), each sample repeating \
         its call to last about {} ms. Compare figures within this report, not \
         with another machine's or another run's: the machine may be busy, which \
         moves absolute times more than ratios.\n",
        if meta.quick { 1 } else { 8 }
    );
    for u in unavailable {
        let _ = writeln!(
            md,
            "> **UNAVAILABLE: `{}`**: {} (fix: `{}`)\n",
            u.oracle,
            u.reason,
            u.fix_line("cargo xtask")
        );
    }
    md
}

pub(super) fn md_bodies(md: &mut String, bodies: &[Body], mix: &[(usize, usize)]) {
    let _ = writeln!(md, "## Bodies\n");
    let body_rows: Vec<Vec<String>> = bodies
        .iter()
        .zip(mix)
        .map(|(b, (allowed, dis))| {
            vec![
                b.name.to_string(),
                b.what.to_string(),
                b.text.len().to_string(),
                b.lines().to_string(),
                b.queries.len().to_string(),
                format!("{allowed} / {dis}"),
                setup::sha256_hex(b.text.as_bytes())[..12].to_string(),
            ]
        })
        .collect();
    md.push_str(&table(
        &[
            "body",
            "what",
            "bytes",
            "lines",
            "queries",
            "rfc9309 allowed / disallowed",
            "sha256",
        ],
        &body_rows,
    ));
    let _ = writeln!(
        md,
        "\nGenerated in `xtask/src/bench.rs`, byte for byte the same every run. \
         Queries are `can_fetch` for a mix of agents on paths derived from the \
         body's own rules (hits anywhere in the file), near misses and unlisted \
         paths. The large body stays under 500 KiB so no oracle truncates it.\n"
    );
}

pub(super) fn md_overhead(md: &mut String, rows: &[Row]) {
    let _ = writeln!(md, "## Overhead of the worker process\n");
    let _ = writeln!(
        md,
        "`google` has no row: its C++ is linked only into its harness binary \
         (`oracles/harness/google/`), so this binary has no in-process call to \
         set beside its worker; its own speed is in the table of the parsers' \
         own speed below, and the head-to-head sets it against rfc9309. \
         raw: the oracle in this process, one `run(body, 100 queries)` call. \
         repdiff: the same call through `engine::worker::Supervised` and \
         `xtask worker NAME`, as `conformance` runs it (JSON header, raw body \
         bytes, JSON answers). added = median repdiff − median raw. Each round \
         times raw and repdiff back to back; overhead = the median of the \
         per-round ratios repdiff / raw (drift between rounds cancels), \
         p25–p75 their spread, med/med = median repdiff / median raw for \
         comparison. Target: overhead under {TARGET_OVERHEAD}x. A row is \
         INVALID when the two paths answered differently or the worker failed.\n"
    );
    md.push_str(&overhead_table(rows));
    let met = rows.iter().filter(|r| r.met()).count();
    let _ = writeln!(
        md,
        "\nTarget met in {met} of {} oracle × body measurements.\n",
        rows.len()
    );
    let missed: Vec<String> = rows
        .iter()
        .filter(|r| !r.met())
        .map(|r| format!("`{}` × {} ({:.2}x)", r.oracle, r.body, r.ratio))
        .collect();
    if !missed.is_empty() {
        let _ = writeln!(md, "Missed: {}.\n", missed.join(", "));
    }
    let _ = writeln!(md, "Versions:\n");
    let mut seen = Vec::new();
    for r in rows {
        if !seen.contains(&&r.oracle) {
            seen.push(&r.oracle);
            let _ = writeln!(md, "- `{}`: {}", r.oracle, r.version);
        }
    }
}

pub(super) fn md_head_to_head(md: &mut String, h2h: &H2h) {
    let _ = writeln!(md, "\n## Head-to-head: rfc9309 vs google\n");
    match h2h {
        H2h::Ran(h) => {
            let _ = writeln!(
                md,
                "Both through their workers (google's C++ is linked only into its \
                 harness binary), same bodies and queries, interleaved. Per query = \
                 median time for all {BATCH} queries / {BATCH}: in one `run` call \
                 (rfc9309 parses once; google's `OneAgentAllowedByRobots` parses \
                 again for each query) and one `run` call per query (each parses).\n"
            );
            md.push_str(&h2h_table(h));
            for x in h {
                let _ = writeln!(
                    md,
                    "\n{}: the two disagree on {} of {} queries (not a speed issue; see the conformance report).",
                    x.body, x.disagreements, BATCH
                );
            }
        }
        H2h::Skipped(why) => {
            let _ = writeln!(md, "{why}");
        }
    }
}

pub(super) fn to_json(
    meta: &Meta,
    bodies: &[Body],
    mix: &[(usize, usize)],
    rows: &[Row],
    h2h: &H2h,
    unavailable: &[Unavailable],
) -> String {
    let head = match h2h {
        H2h::Ran(h) => json!({
            "ran": true,
            "bodies": h.iter().map(|x| json!({
                "body": x.body,
                "bytes": x.bytes,
                "disagreements": x.disagreements,
                "batched": {
                    "rfc9309": x.rfc_batch.to_json(BATCH),
                    "google": x.google_batch.to_json(BATCH),
                    "google_over_rfc9309": x.google_batch.median() / x.rfc_batch.median(),
                },
                "one_per_call": {
                    "rfc9309": x.rfc_alone.to_json(BATCH),
                    "google": x.google_alone.to_json(BATCH),
                    "google_over_rfc9309": x.google_alone.median() / x.rfc_alone.median(),
                },
            })).collect::<Vec<_>>(),
        }),
        H2h::Skipped(why) => json!({"ran": false, "reason": why}),
    };
    let finite = |x: f64| if x.is_finite() { json!(x) } else { Value::Null };
    let doc = json!({
        "tool": "cargo xtask bench",
        "command": meta.command,
        "quick": meta.quick,
        "filtered": meta.filtered,
        "commit": meta.commit,
        "cpus": meta.cpus,
        "load_average_start": meta.load_start,
        "load_average_end": meta.load_end,
        "seconds": meta.secs,
        "batch": BATCH,
        "target_overhead": TARGET_OVERHEAD,
        "bodies": bodies.iter().zip(mix).map(|(b, (allowed, dis))| json!({
            "name": b.name,
            "what": b.what,
            "bytes": b.text.len(),
            "lines": b.lines(),
            "queries": b.queries.len(),
            "rfc9309_allowed": allowed,
            "rfc9309_disallowed": dis,
            "sha256": setup::sha256_hex(b.text.as_bytes()),
        })).collect::<Vec<_>>(),
        "unavailable": unavailable.iter().map(|u| json!({
            "oracle": u.oracle, "reason": u.reason, "fix": u.fix_line("cargo xtask"),
        })).collect::<Vec<_>>(),
        "overhead": rows.iter().map(|r| json!({
            "oracle": r.oracle,
            "version": r.version,
            "body": r.body,
            "raw": r.raw.to_json(BATCH),
            "repdiff": r.repdiff.to_json(BATCH),
            "overhead": finite(r.ratio),
            "overhead_ratio_of_medians": finite(r.ratio_of_medians),
            "round_ratio_p25": finite(r.ratio_p25),
            "round_ratio_p75": finite(r.ratio_p75),
            "valid": r.valid(),
            "met": r.met(),
            "mismatches": r.mismatches,
            "failures": r.failures,
            "first_failure": r.first_failure,
        })).collect::<Vec<_>>(),
        "head_to_head": head,
    });
    let mut s = serde_json::to_string_pretty(&doc).unwrap_or_default();
    s.push('\n');
    s
}
