//! Small pure helpers shared by server and browser rendering (both must produce the same text
//! for hydration to match).

use percent_encoding::{utf8_percent_encode, AsciiSet, NON_ALPHANUMERIC};

/// Characters left as they are in a query value (RFC 3986 unreserved).
const QUERY_VALUE: &AsciiSet = &NON_ALPHANUMERIC.remove(b'-').remove(b'_').remove(b'.').remove(b'~');

pub fn encode_query_value(s: &str) -> String {
    utf8_percent_encode(s, QUERY_VALUE).to_string()
}

/// The name part of a URN (`urn:pulumi:stack::project::type::name`; names may hold `::`).
pub fn urn_name(urn: &str) -> &str {
    urn.strip_prefix("urn:pulumi:").and_then(|rest| rest.splitn(4, "::").nth(3)).unwrap_or(urn)
}

/// A link to a stack view with a resource selected.
pub fn resource_link(stack_id: &str, view: &str, urn: &str) -> String {
    format!("/stacks/{stack_id}{view}?r={}", encode_query_value(urn))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urn_names_and_links() {
        let urn = "urn:pulumi:dev::p::a:b:C$x:y:Z::name::with::colons";
        assert_eq!(urn_name(urn), "name::with::colons");
        assert_eq!(urn_name("plain"), "plain");
        assert_eq!(resource_link("s1", "/graph", "urn:pulumi:d::p::t::n $x"), "/stacks/s1/graph?r=urn%3Apulumi%3Ad%3A%3Ap%3A%3At%3A%3An%20%24x");
    }
}
