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

/// The first `lines` lines of `text` (what a screen shows before the editor takes over), and
/// how many lines follow them.
pub fn first_lines(text: &str, lines: usize) -> (&str, usize) {
    match text.match_indices('\n').nth(lines.saturating_sub(1)) {
        Some((end, _)) if lines > 0 => {
            let rest = &text[end + 1..];
            (&text[..end + 1], rest.lines().count())
        }
        _ if lines == 0 => ("", text.lines().count()),
        _ => (text, 0),
    }
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

    #[test]
    fn first_lines_keep_a_screenful_and_count_the_rest() {
        assert_eq!(first_lines("a\nb\nc\n", 2), ("a\nb\n", 1));
        assert_eq!(first_lines("a\nb\nc", 2), ("a\nb\n", 1));
        assert_eq!(first_lines("a\nb\n", 2), ("a\nb\n", 0));
        assert_eq!(first_lines("a\nb", 5), ("a\nb", 0));
        assert_eq!(first_lines("", 5), ("", 0));
        assert_eq!(first_lines("a\nb", 0), ("", 2));
        // What is shown and what follows make the whole text, line for line.
        let text = (0..500).map(|i| format!("line {i}\n")).collect::<String>();
        let (shown, rest) = first_lines(&text, 120);
        assert_eq!((shown.lines().count() + rest, text.starts_with(shown)), (500, true));
    }
}
