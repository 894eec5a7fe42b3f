//! Small pure helpers shared by server and browser rendering (both must produce the same text
//! for hydration to match).

/// `s` escaped for a page link's query value, as the API's are (RFC 3986's unreserved
/// characters stay).
pub fn encode_query_value(s: &str) -> String {
    ferry_types::api::escape(s)
}

/// The name part of a URN (`urn:pulumi:stack::project::type::name`; names may hold `::`).
pub fn urn_name(urn: &str) -> &str {
    urn.strip_prefix("urn:pulumi:").and_then(|rest| rest.splitn(4, "::").nth(3)).unwrap_or(urn)
}

/// A link to a stack view with a resource selected.
pub fn resource_link(stack_id: &str, view: &str, urn: &str) -> String {
    format!("/stacks/{stack_id}{view}?r={}", encode_query_value(urn))
}

/// A screenful of `text`: its first `lines` lines, and no more than `bytes` bytes of them (a
/// compact JSON spec is one long line), cut at a character boundary; and the text that follows.
#[cfg_attr(not(feature = "ssr"), allow(dead_code))]
pub fn screenful(text: &str, lines: usize, bytes: usize) -> (&str, &str) {
    let by_lines = match text.match_indices('\n').nth(lines.saturating_sub(1)) {
        Some((end, _)) if lines > 0 => end + 1,
        _ if lines == 0 => 0,
        _ => text.len(),
    };
    let mut end = by_lines.min(bytes);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text.split_at(end)
}

/// What a screenful leaves out, as a reader would say it: lines when it ended at a line's end,
/// kilobytes when it cut a long line.
#[cfg_attr(not(feature = "ssr"), allow(dead_code))]
pub fn left_out(shown: &str, rest: &str) -> Option<String> {
    if rest.is_empty() {
        None
    } else if shown.is_empty() || shown.ends_with('\n') {
        Some(format!("{} more lines", rest.lines().count()))
    } else {
        Some(format!("{} kB more", rest.len().div_ceil(1024)))
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
        assert_eq!(
            resource_link("s1", "/graph", "urn:pulumi:d::p::t::n $x"),
            "/stacks/s1/graph?r=urn%3Apulumi%3Ad%3A%3Ap%3A%3At%3A%3An%20%24x"
        );
    }

    #[test]
    fn a_screenful_keeps_lines_and_bytes_and_says_what_follows() {
        assert_eq!(screenful("a\nb\nc\n", 2, 100), ("a\nb\n", "c\n"));
        assert_eq!(screenful("a\nb\nc", 2, 100), ("a\nb\n", "c"));
        assert_eq!(screenful("a\nb", 5, 100), ("a\nb", ""));
        assert_eq!(screenful("", 5, 100), ("", ""));
        assert_eq!(screenful("a\nb", 0, 100), ("", "a\nb"));
        // One long line is cut by bytes, never inside a character.
        assert_eq!(screenful("ab\u{e9}cd", 5, 3), ("ab", "\u{e9}cd"));
        assert_eq!(left_out("a\nb\n", "c\nd"), Some("2 more lines".into()));
        assert_eq!(left_out("ab", &"x".repeat(2048)), Some("2 kB more".into()));
        assert_eq!(left_out("ab", ""), None);
        // What is shown and what follows make the whole text.
        let text = (0..500).map(|i| format!("line {i}\n")).collect::<String>();
        let (shown, rest) = screenful(&text, 120, 16 * 1024);
        assert_eq!((shown.lines().count(), format!("{shown}{rest}") == text), (120, true));
    }
}
