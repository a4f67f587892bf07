//! HTML building blocks: escaping, the page frame with its inline style, and
//! the exact-bytes view of a robots.txt body.
//!
//! Everything that comes from the corpus or an oracle goes through [`esc`].

use std::fmt::Write as _;

/// Escape text for HTML element content and double-quoted attributes.
pub fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 8);
    for ch in s.chars() {
        match ch {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            _ => out.push(ch),
        }
    }
    out
}

/// A link target is only ever an http(s) URL; anything else is shown as text.
pub fn link_or_text(url: &str) -> String {
    let u = url.trim();
    if (u.starts_with("https://") || u.starts_with("http://")) && !u.contains(char::is_whitespace) {
        format!("<a href=\"{}\">{}</a>", esc(u), esc(u))
    } else {
        esc(u)
    }
}

/// A file name for a case or oracle page: ids are kebab-case already, but a
/// report from elsewhere is not trusted to be.
pub fn slug(id: &str) -> String {
    let s: String = id
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '.' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if s.is_empty() || s.starts_with('.') {
        format!("_{s}")
    } else {
        s
    }
}

const CSS: &str = r#"
:root{--fg:#1b1f24;--muted:#57606a;--line:#d0d7de;--bg:#fff;--soft:#f6f8fa;
--good:#d2f4d3;--ok:#eef6c6;--warn:#fde8c4;--bad:#fbd0d0;--na:#eceff1;--info:#dbe9fb}
*{box-sizing:border-box}
body{margin:0;font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif;color:var(--fg);background:var(--bg)}
header{background:#24292f;color:#fff;padding:.6em 1.2em}
header a{color:#fff;margin-right:1.2em;text-decoration:none;font-weight:600}
header a:hover{text-decoration:underline}
main{padding:1em 1.2em;max-width:1400px}
h1{font-size:1.5em;margin:.3em 0 .5em}h2{font-size:1.2em;margin:1.4em 0 .5em;border-bottom:1px solid var(--line)}
h3{font-size:1.05em;margin:1.1em 0 .4em}
a{color:#0550ae}
p.muted,.muted{color:var(--muted)}
table{border-collapse:collapse;margin:.4em 0 1em}
th,td{border:1px solid var(--line);padding:.25em .5em;vertical-align:top;text-align:left}
th{background:var(--soft);font-weight:600}
td.n,th.n{text-align:right;font-variant-numeric:tabular-nums}
.m{text-align:center;white-space:nowrap;font-variant-numeric:tabular-nums}
.v{text-align:center;min-width:6.5em;max-width:11em;overflow-wrap:anywhere}
.good{background:var(--good)}.ok{background:var(--ok)}.warn{background:var(--warn)}.bad{background:var(--bad)}.na{background:var(--na);color:var(--muted)}
.s-match{background:var(--good)}.s-deviate{background:var(--bad)}.s-failed{background:var(--warn)}.s-split{background:var(--info)}.s-unsupported{background:var(--na);color:var(--muted)}
.untri{font-weight:700;color:#a40e26}
code,pre,.mono{font-family:ui-monospace,SFMono-Regular,"DejaVu Sans Mono",Menlo,Consolas,monospace;font-size:12.5px}
pre{background:var(--soft);border:1px solid var(--line);padding:.6em;overflow:auto;max-height:34em;white-space:pre-wrap;word-break:break-all}
pre.body{white-space:pre-wrap}
.esc{background:#fff3b0;color:#7a4b00;border-radius:2px;padding:0 1px}
.rep{background:#e6e6fa;color:#3b2e7e;border-radius:2px;padding:0 2px}
pre i,.lf{font-style:normal;color:#8c959f}
.d-add{background:#dafbe1;display:block}.d-del{background:#ffebe9;display:block}.d-hdr{color:var(--muted);display:block}.d-ctx{display:block}
.legend span{display:inline-block;padding:0 .5em;margin-right:.4em;border:1px solid var(--line)}
.tag{display:inline-block;background:var(--soft);border:1px solid var(--line);border-radius:9px;padding:0 .5em;margin:0 .2em .2em 0;font-size:12px}
details>summary{cursor:pointer;color:#0550ae}
.flip{font-weight:600}
.wrap{overflow-x:auto}
"#;

/// One page: `root` is the relative path back to the site root ("" or "../").
pub fn page(title: &str, root: &str, generated: &str, body: &str) -> String {
    let mut s = String::with_capacity(body.len() + CSS.len() + 1024);
    let _ = write!(
        s,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">\
<title>{} — repdiff</title><style>{CSS}</style></head><body>\
<header><a href=\"{root}index.html\">repdiff</a><a href=\"{root}cases.html\">cases</a>\
<a href=\"{root}ledger.html\">ledger</a><a href=\"{root}history.html\">versions</a>\
<a href=\"{root}suites.html\">suites</a><a href=\"{root}census.html\">census</a><a href=\"{root}findings.html\">findings</a></header>\
<main>{body}<p class=\"muted\">{}</p></main></body></html>\n",
        esc(title),
        esc(generated)
    );
    s
}

/// A colour class for a score, always shown next to the number itself.
pub fn band(percent: Option<f64>) -> &'static str {
    match percent {
        None => "na",
        Some(p) if p >= 99.0 => "good",
        Some(p) if p >= 90.0 => "ok",
        Some(p) if p >= 75.0 => "warn",
        Some(_) => "bad",
    }
}

/// The legend of [`band`].
pub fn band_legend() -> &'static str {
    "<p class=\"legend muted\">Cells show matched/scored and the percentage; the colour \
repeats the percentage: <span class=\"good\">≥ 99%</span><span class=\"ok\">90–99%</span>\
<span class=\"warn\">75–90%</span><span class=\"bad\">&lt; 75%</span><span class=\"na\">– nothing scored</span></p>"
}

/// The status of a cell as a symbol and word, so colour is never alone.
pub fn status_text(status: crate::compat::Status) -> &'static str {
    use crate::compat::Status::*;
    match status {
        Match => "✓ match",
        Deviate => "✗ deviates",
        Failed => "! failed",
        Split => "≠ split",
        Unsupported => "– unsupported",
    }
}

pub fn status_symbol(status: crate::compat::Status) -> &'static str {
    use crate::compat::Status::*;
    match status {
        Match => "✓",
        Deviate => "✗",
        Failed => "!",
        Split => "≠",
        Unsupported => "–",
    }
}

/// Lines shorter than this are shown whole; a run of one byte at least this
/// long is shown once with its count.
const RUN: usize = 48;

/// The exact bytes of a body, with every invisible or ambiguous byte made
/// visible: CR `␍`/`\r`, LF `\n` (then a real line break), tab `\t`, NUL
/// `\0`, a BOM `<BOM>`, other control bytes and every byte that is not valid
/// UTF-8 as `\xNN`. Long runs of one byte and repeated identical lines are
/// folded with their exact count, so a 500 KiB case stays readable and the
/// view stays lossless.
pub fn body_view(bytes: &[u8]) -> String {
    let mut out = String::new();
    // Split after each LF (a CR alone does not end a display line, but is shown).
    let mut lines: Vec<&[u8]> = Vec::new();
    let mut start = 0;
    for (i, b) in bytes.iter().enumerate() {
        if *b == b'\n' {
            lines.push(&bytes[start..=i]);
            start = i + 1;
        }
    }
    if start < bytes.len() {
        lines.push(&bytes[start..]);
    }
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        let mut n = 1;
        while i + n < lines.len() && lines[i + n] == line {
            n += 1;
        }
        out.push_str(&line_view(line, i == 0));
        if n > 1 {
            let _ = writeln!(
                out,
                "<span class=\"rep\">⟨the line above {} more time{}: {} identical lines of {} bytes⟩</span>",
                n - 1,
                if n == 2 { "" } else { "s" },
                n,
                line.len()
            );
        }
        i += n;
    }
    if bytes.is_empty() {
        out.push_str("<span class=\"rep\">⟨empty body: 0 bytes⟩</span>");
    } else if !bytes.ends_with(b"\n") {
        out.push_str("<span class=\"rep\">⟨no final LF⟩</span>");
    }
    out
}

fn line_view(line: &[u8], first: bool) -> String {
    let mut out = String::new();
    let mut i = 0;
    while i < line.len() {
        let b = line[i];
        let run = line[i..].iter().take(RUN).take_while(|x| **x == b).count();
        if run >= RUN {
            let run = line[i..].iter().take_while(|x| **x == b).count();
            let one = if b < 0x80 {
                char_view(b as char, false)
            } else {
                format!("\\x{b:02x}")
            };
            let _ = write!(
                out,
                "<span class=\"rep\" title=\"{run} bytes 0x{b:02x} in a row\">⟨{one} ×{run}⟩</span>"
            );
            i += run;
            continue;
        }
        let width = match b {
            0x00..=0x7f => 1,
            0xc2..=0xdf => 2,
            0xe0..=0xef => 3,
            0xf0..=0xf4 => 4,
            _ => 0,
        };
        let ch = line
            .get(i..i + width)
            .filter(|_| width > 0)
            .and_then(|s| std::str::from_utf8(s).ok())
            .and_then(|s| s.chars().next());
        match ch {
            Some(c) => {
                out.push_str(&char_view(c, first && i == 0));
                i += width;
            }
            None => {
                let _ = write!(
                    out,
                    "<span class=\"esc\" title=\"byte 0x{b:02x}: not valid UTF-8\">\\x{b:02x}</span>"
                );
                i += 1;
            }
        }
    }
    out
}

fn char_view(ch: char, at_start: bool) -> String {
    let e = |shown: &str, title: &str| {
        format!(
            "<span class=\"esc\" title=\"{}\">{}</span>",
            esc(title),
            esc(shown)
        )
    };
    match ch {
        '\n' => "<i>\\n</i>\n".into(),
        '\r' => e("\\r", "CR, 0x0d"),
        '\t' => e("\\t", "tab, 0x09"),
        '\0' => e("\\0", "NUL, 0x00"),
        '\u{feff}' => e(
            "<BOM>",
            if at_start {
                "byte order mark EF BB BF at the start of the file"
            } else {
                "U+FEFF (EF BB BF) inside the file"
            },
        ),
        ' ' => " ".into(),
        c if (c as u32) < 0x20 || c as u32 == 0x7f => {
            e(&format!("\\x{:02x}", c as u32), "control character")
        }
        c if ('\u{80}'..='\u{9f}').contains(&c)
            || matches!(
                c,
                '\u{a0}' | '\u{200b}'..='\u{200f}' | '\u{2028}' | '\u{2029}' | '\u{3000}'
            ) =>
        {
            e(
                &format!("\\u{{{:04x}}}", c as u32),
                "invisible or space-like character",
            )
        }
        c => esc(c.encode_utf8(&mut [0; 4])),
    }
}

/// A classic hex dump (offset, 16 bytes, ASCII), for small bodies.
pub fn hex_dump(bytes: &[u8]) -> String {
    let mut out = String::new();
    for (row, chunk) in bytes.chunks(16).enumerate() {
        let _ = write!(out, "{:08x}  ", row * 16);
        for k in 0..16 {
            match chunk.get(k) {
                Some(b) => {
                    let _ = write!(out, "{b:02x} ");
                }
                None => out.push_str("   "),
            }
            if k == 7 {
                out.push(' ');
            }
        }
        out.push_str(" |");
        for b in chunk {
            out.push(if b.is_ascii_graphic() || *b == b' ' {
                *b as char
            } else {
                '.'
            });
        }
        out.push_str("|\n");
    }
    esc(&out)
}

/// A unified diff (from `similar`) as HTML, each line keeping its `+`/`-`.
pub fn diff_view(unified: &str) -> String {
    let mut out = String::new();
    for line in unified.lines() {
        let class = if line.starts_with("+++") || line.starts_with("---") || line.starts_with("@@")
        {
            "d-hdr"
        } else if line.starts_with('+') {
            "d-add"
        } else if line.starts_with('-') {
            "d-del"
        } else {
            "d-ctx"
        };
        let _ = write!(out, "<span class=\"{class}\">{}</span>", esc(line));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_markup() {
        assert_eq!(
            esc("<script>alert('x')</script>&\""),
            "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&amp;&quot;"
        );
        assert_eq!(link_or_text("javascript:alert(1)"), "javascript:alert(1)");
        assert!(link_or_text("https://github.com/x/y/issues/1").starts_with("<a href="));
        assert_eq!(slug("seed-18"), "seed-18");
        assert_eq!(slug("../x"), "_.._x");
    }

    #[test]
    fn body_bytes_are_visible() {
        let v = body_view(b"\xef\xbb\xbfUser-agent: *\r\nDisallow: /a\tb\x00\xff\n");
        assert!(v.contains("&lt;BOM&gt;"), "{v}");
        assert!(v.contains("\\r"));
        assert!(v.contains("\\n"));
        assert!(v.contains("\\t"));
        assert!(v.contains("\\0"));
        assert!(v.contains("\\xff"));
        assert!(v.contains("User-agent: *"));
        let v = body_view(b"<b>&amp;</b>\n");
        assert!(v.contains("&lt;b&gt;&amp;amp;&lt;/b&gt;"), "{v}");
    }

    #[test]
    fn long_runs_and_repeated_lines_fold_exactly() {
        let mut body = b"Disallow: /".to_vec();
        body.extend(std::iter::repeat_n(b'*', 17000));
        body.push(b'\n');
        for _ in 0..1000 {
            body.extend_from_slice(b"# pad\n");
        }
        let v = body_view(&body);
        assert!(v.contains("⟨* ×17000⟩"), "{v}");
        assert!(v.contains("999 more times"), "{v}");
        assert!(v.len() < 2000, "{}", v.len());
    }
}
