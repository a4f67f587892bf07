//! The reproducer template language: `{{name}}` placeholders, filled in
//! one pass. At the bottom of the crate: `registry` checks every manifest's
//! template names only these when it loads, and `findings::repro` fills
//! them, so neither needs the other.

/// The placeholders a call (`reproducer.calls`) may use.
pub const CALL_PLACEHOLDERS: &[&str] = &["agent", "url"];

/// The placeholders a template may use.
pub const PLACEHOLDERS: &[&str] = &[
    "body",
    "body_len",
    "agent",
    "url",
    "call",
    "python_server",
    "trailer",
];

/// Replace every `{{name}}` of `template` in one pass (a value is never
/// scanned again, so a body that holds `{{url}}` stays as it is); an
/// unknown name is an error naming it.
// String error: the unknown name, said to the manifest's author as is.
pub fn fill(template: &str, value: &dyn Fn(&str) -> Option<String>) -> Result<String, String> {
    let mut out = String::with_capacity(template.len());
    let mut rest = template;
    while let Some(start) = rest.find("{{") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let Some(end) = after.find("}}") else {
            return Err("a `{{` without its `}}`".into());
        };
        let name = &after[..end];
        out.push_str(&value(name).ok_or_else(|| format!("unknown placeholder `{{{{{name}}}}}`"))?);
        rest = &after[end + 2..];
    }
    out.push_str(rest);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_are_filled_in_one_pass() {
        let value = |n: &str| match n {
            "body" => Some("b\"{{url}}\"".to_string()),
            "url" => Some("\"/x\"".to_string()),
            _ => None,
        };
        assert_eq!(
            fill("body = {{body}}; url = {{url}}", &value).unwrap(),
            "body = b\"{{url}}\"; url = \"/x\""
        );
        assert!(fill("{{nope}}", &value).unwrap_err().contains("`{{nope}}`"));
        assert!(fill("{{body", &value).is_err());
    }
}
