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
        let mut parts = rest.splitn(4, "::");
        let stack = parts.next()?;
        let project = parts.next()?;
        let qualified_type = parts.next()?;
        let name = parts.next()?;
        (!qualified_type.is_empty()).then_some(Urn { stack, project, qualified_type, name })
    }

    /// The resource's own type: the last `$`-separated part of the qualified type.
    pub fn type_token(&self) -> &'a str {
        self.qualified_type.rsplit('$').next().unwrap_or(self.qualified_type)
    }
}

/// The name part of a URN, or the whole string when it is not a URN.
pub fn name_of(urn: &str) -> &str {
    Urn::parse(urn).map(|u| u.name).unwrap_or(urn)
}

/// Splits a provider reference `<provider urn>::<provider id>` at its last `::`.
pub fn split_provider_reference(reference: &str) -> Option<(&str, &str)> {
    let (urn, id) = reference.rsplit_once("::")?;
    Urn::parse(urn).map(|_| (urn, id))
}

#[cfg(test)]
mod tests {
    use super::*;

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
