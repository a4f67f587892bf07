//! Causes in the words of someone who writes robots.txt files, not of a
//! parser maintainer. The catalogue's own `neutralises` sentence stands in
//! for a cause this table does not word yet.

/// (cause, plain sentence).
pub const WORDS: &[(&str, &str)] = &[
    (
        "strip-bom",
        "the file starts with an invisible byte-order mark: some parsers read it as part of the first line, which they then ignore",
    ),
    (
        "remove-nul",
        "the file holds a NUL byte: some parsers end the line there, others keep it",
    ),
    (
        "drop-invalid-utf8",
        "the line holds bytes that are not UTF-8: parsers drop, replace or keep them",
    ),
    (
        "normalise-line-ends",
        "the file ends lines with a lone CR: some parsers see one long line",
    ),
    (
        "drop-indentation",
        "the line is indented: some parsers skip indented lines",
    ),
    (
        "add-missing-colon",
        "the line lacks its colon: some parsers repair it, others skip it",
    ),
    (
        "fix-misspelt-key",
        "the key is misspelt: some parsers accept the misspelling, others skip the line",
    ),
    (
        "fix-key-prefix",
        "the key has extra letters: some parsers read it by its prefix, others skip it",
    ),
    (
        "rename-substring-groups",
        "some parsers apply a group to every agent whose name contains the group's name (`bot` is inside `MyBot`); RFC 9309 readers apply it only to that exact product token",
    ),
    (
        "cut-group-token",
        "the group's name holds a character a product token cannot (`*`, a digit, `/`): some parsers cut the name there, others match it whole",
    ),
    (
        "agent-product-token",
        "some parsers compare the crawler's whole user-agent string, others only its product token",
    ),
    (
        "remove-star",
        "some parsers read `*` inside a path as a wildcard, others as a literal star",
    ),
    (
        "remove-dollar",
        "some parsers read a final `$` as \"the URL ends here\", others as a literal dollar sign",
    ),
    (
        "drop-allow-rules",
        "some parsers ignore Allow lines (the 1994 standard has only Disallow)",
    ),
    (
        "reverse-rule-order",
        "some parsers use the first rule that matches, RFC 9309 readers the most specific (longest) one",
    ),
    (
        "drop-empty-disallow",
        "an empty `Disallow:` means \"allow everything\" to some parsers and competes with the group's other rules in others",
    ),
    (
        "drop-other-records",
        "a Sitemap, Crawl-delay or unknown line between user-agent lines ends the group for some parsers",
    ),
    (
        "separate-groups-with-blank-lines",
        "a group starts right after another without a blank line: older parsers want a blank line between groups",
    ),
    (
        "drop-blank-lines",
        "a blank line inside a group ends the group for some parsers",
    ),
    (
        "drop-repeated-groups",
        "the same agent has two groups: some parsers merge them, others use only the first",
    ),
    (
        "decode-unreserved-escapes",
        "a %-escape of a plain character (%7E for ~) is decoded by some parsers and not by others",
    ),
    (
        "uppercase-escape-hex",
        "%c3 and %C3 are the same to some parsers and different to others",
    ),
    (
        "encode-non-ascii-rules",
        "the path holds non-ASCII characters: parsers encode, decode or compare them differently",
    ),
];

/// The plain sentence for a departure no transformation names.
const NEW: &str = "the parsers differ here for a reason repdiff's catalogue does not name yet";

/// The plain sentence for a diagnosis, if it has one (lint never stacks
/// two causes, so a stacked pair has none of its own).
pub fn words(d: cause::Diagnosis) -> Option<&'static str> {
    match d {
        cause::Diagnosis::Catalogued(name) => {
            WORDS.iter().find(|(n, _)| *n == name).map(|(_, w)| *w)
        }
        cause::Diagnosis::Stacked(..) => None,
        cause::Diagnosis::New => Some(NEW),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_worded_cause_is_a_catalogue_cause() {
        let names: Vec<&str> = cause::CATALOGUE.iter().map(|t| t.name).collect();
        for (name, _) in super::WORDS {
            assert!(names.contains(name), "{name}");
        }
        let named = cause::Diagnosis::Catalogued("rename-substring-groups");
        assert!(super::words(named).is_some());
        assert!(super::words(cause::Diagnosis::New).is_some());
    }
}
