//! Pulumi URNs: `urn:pulumi:<stack>::<project>::<qualified type>::<name>`.

/// A parsed URN. The qualified type carries parent types joined by `$`; the name may itself
/// contain `::`, so only the first three separators split.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Urn<'a> {
    pub stack: &'a str,
    pub project: &'a str,
    pub qualified_type: &'a str,
    pub name: &'a str,
}

impl<'a> Urn<'a> {
    pub fn parse(urn: &'a str) -> Option<Urn<'a>> {
        let rest = urn.strip_prefix("urn:pulumi:")?;
        // What `splitn(4, "::")` would give, found with memchr's scan for `:` rather than the
        // general substring search (parsing URNs was a tenth of a 100,000-resource upload's
        // instructions, callgrind, 2026-11-30).
        let (stack, rest) = split_separator(rest)?;
        let (project, rest) = split_separator(rest)?;
        let (qualified_type, name) = split_separator(rest)?;
        (!qualified_type.is_empty()).then_some(Urn { stack, project, qualified_type, name })
    }

    /// The resource's own type: the last `$`-separated part of the qualified type.
    pub fn type_token(&self) -> &'a str {
        self.qualified_type.rsplit('$').next().unwrap_or(self.qualified_type)
    }
}

/// `text` split around its first `::`.
fn split_separator(text: &str) -> Option<(&str, &str)> {
    let bytes = text.as_bytes();
    let at = memchr::memchr_iter(b':', bytes).find(|&at| bytes.get(at + 1) == Some(&b':'))?;
    Some((&text[..at], &text[at + 2..]))
}

/// `text` split around its last `::`.
fn rsplit_separator(text: &str) -> Option<(&str, &str)> {
    let bytes = text.as_bytes();
    let at = memchr::memrchr_iter(b':', bytes).find(|&at| at > 0 && bytes[at - 1] == b':')?;
    Some((&text[..at - 1], &text[at + 1..]))
}

/// The name part of a URN, or the whole string when it is not a URN.
pub fn name_of(urn: &str) -> &str {
    Urn::parse(urn).map(|u| u.name).unwrap_or(urn)
}

/// Splits a provider reference `<provider urn>::<provider id>` at its last `::`.
pub fn split_provider_reference(reference: &str) -> Option<(&str, &str)> {
    let (urn, id) = rsplit_separator(reference)?;
    Urn::parse(urn).map(|_| (urn, id))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// The scans split where the standard library's substring search does, on text made
        /// mostly of colons (runs of three and more included).
        #[test]
        fn the_separator_scans_agree_with_the_substring_search(text in "[a:é]{0,24}") {
            prop_assert_eq!(split_separator(&text), text.split_once("::"));
            prop_assert_eq!(rsplit_separator(&text), text.rsplit_once("::"));
        }
    }

    #[test]
    fn parses_names_with_separators_and_nested_types() {
        let u = Urn::parse("urn:pulumi:dev::proj::my:mod:Comp$aws:s3/bucket:Bucket::a::b").unwrap();
        assert_eq!(u.stack, "dev");
        assert_eq!(u.project, "proj");
        assert_eq!(u.type_token(), "aws:s3/bucket:Bucket");
        assert_eq!(u.name, "a::b");
        assert!(Urn::parse("not-a-urn").is_none());
    }

    #[test]
    fn provider_references_split_at_the_last_separator() {
        let r = "urn:pulumi:s::p::pulumi:providers:aws::default::7844429e-9c0b";
        assert_eq!(
            split_provider_reference(r),
            Some(("urn:pulumi:s::p::pulumi:providers:aws::default", "7844429e-9c0b"))
        );
    }
}
