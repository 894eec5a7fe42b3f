//! Where a spec's or program's problems are in its text: JSON paths and program diagnostics
//! become line/column ranges an editor can underline as the user types.
//!
//! Lines and columns are 1-based and count characters, as Monaco's markers do.

use jsonc_parser::ast::{ObjectPropName, Value as Ast};
use jsonc_parser::common::Ranged;
use jsonc_parser::{CollectOptions, ParseOptions};

use crate::import_spec::{parse_import_spec, SpecProblem};
use crate::program::parse_program;

use ferry_types::EditorMarker;

/// How bad a problem is, as markers name it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Severity {
    Error,
    Warning,
}

impl Severity {
    fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
        }
    }
}

/// Line starts of a text, for byte offset → (line, column).
struct Lines<'a> {
    text: &'a str,
    starts: Vec<usize>,
}

impl<'a> Lines<'a> {
    fn new(text: &'a str) -> Self {
        let mut starts = vec![0];
        starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        Lines { text, starts }
    }

    fn position(&self, offset: usize) -> (usize, usize) {
        let offset = offset.min(self.text.len());
        let line = self.starts.partition_point(|&s| s <= offset) - 1;
        let column = self.text[self.starts[line]..offset].chars().count() + 1;
        (line + 1, column)
    }

    /// The end of the line holding `offset` (without its newline).
    fn line_end(&self, offset: usize) -> usize {
        self.text[offset.min(self.text.len())..].find('\n').map_or(self.text.len(), |i| offset + i)
    }

    /// `line`'s text (1-based), without its newline.
    fn line_text(&self, line: usize) -> &'a str {
        let start = self.starts.get(line.saturating_sub(1)).copied().unwrap_or(self.text.len());
        &self.text[start..self.line_end(start)]
    }
}

/// A path segment: a field or an index.
#[derive(Debug, PartialEq)]
enum Segment<'p> {
    Field(&'p str),
    Index(usize),
}

fn segments(path: &str) -> Vec<Segment<'_>> {
    let mut out = Vec::new();
    for part in path.split('.').filter(|p| !p.is_empty()) {
        let (field, mut rest) = part.split_once('[').map_or((part, ""), |(f, r)| (f, r));
        if !field.is_empty() {
            out.push(Segment::Field(field));
        }
        while let Some((index, after)) = rest.split_once(']') {
            if let Ok(i) = index.parse() {
                out.push(Segment::Index(i));
            }
            rest = after.trim_start_matches('[');
        }
    }
    out
}

/// The byte range of what `path` names in a parsed spec: a field's name and scalar value, an
/// object's or list's field name; for a missing field, the first line of the nearest object that holds
/// it (underlining a whole multi-line object says less).
fn locate(root: &Ast<'_>, lines: &Lines<'_>, path: &str) -> (usize, usize) {
    let mut node = root;
    let mut name_range = None;
    let mut complete = true;
    for segment in segments(path) {
        let next = match (segment, node) {
            (Segment::Field(f), Ast::Object(obj)) => {
                obj.properties.iter().find(|p| p.name.as_str() == f).map(|p| {
                    let name = match &p.name {
                        ObjectPropName::String(s) => s.range(),
                        ObjectPropName::Word(w) => w.range(),
                    };
                    (&p.value, Some((name.start, name.end)))
                })
            }
            (Segment::Index(i), Ast::Array(arr)) => arr.elements.get(i).map(|v| (v, None)),
            _ => None,
        };
        match next {
            Some((v, name)) => {
                node = v;
                name_range = name;
            }
            None => {
                complete = false;
                break;
            }
        }
    }
    let range = node.range();
    if complete {
        // A scalar is underlined whole; an object or array by its field name when it has one.
        let compound = matches!(node, Ast::Object(_) | Ast::Array(_));
        if let (true, Some(name)) = (compound, name_range) {
            return name;
        }
        if !compound {
            // A field's name and value together: right for a misspelled name and a wrong value.
            return (name_range.map_or(range.start, |n| n.0), range.end);
        }
    }
    (range.start, lines.line_end(range.start).min(range.end).max(range.start + 1))
}

fn marker(
    lines: &Lines<'_>,
    severity: Severity,
    problem: &SpecProblem,
    range: (usize, usize),
) -> EditorMarker {
    let (line, column) = lines.position(range.0);
    let (end_line, end_column) = lines.position(range.1.max(range.0));
    EditorMarker {
        severity: severity.as_str().into(),
        message: problem.message.clone(),
        path: problem.path.clone(),
        line,
        column,
        end_line,
        end_column,
    }
}

/// Every error and warning of an import spec, placed in its text. Empty when the spec is fine.
pub fn spec_markers(text: &str) -> Vec<EditorMarker> {
    let lines = Lines::new(text);
    let options =
        ParseOptions { allow_comments: true, allow_trailing_commas: true, ..Default::default() };
    let ast = match jsonc_parser::parse_to_ast(text, &CollectOptions::default(), &options) {
        Ok(parsed) => parsed.value,
        Err(e) => {
            let r = e.range();
            let problem = SpecProblem {
                path: String::new(),
                message: format!("not valid JSON: {}", e.kind()),
            };
            return vec![marker(
                &lines,
                Severity::Error,
                &problem,
                (r.start, r.end.max(r.start + 1)),
            )];
        }
    };
    let (errors, warnings) = match parse_import_spec(text) {
        Ok(spec) => (Vec::new(), spec.warnings),
        Err(e) => (e.errors, e.warnings),
    };
    let place = |p: &SpecProblem| match &ast {
        Some(root) => locate(root, &lines, &p.path),
        None => (0, lines.line_end(0).max(1)),
    };
    errors
        .iter()
        .map(|p| marker(&lines, Severity::Error, p, place(p)))
        .chain(warnings.iter().map(|p| marker(&lines, Severity::Warning, p, place(p))))
        .collect()
}

/// Every problem of a YAML program, underlined from its position to the end of the word (or
/// the line, for structural problems).
pub fn program_markers(text: &str) -> Vec<EditorMarker> {
    let Err(e) = parse_program("Pulumi.yaml", text) else { return Vec::new() };
    let lines = Lines::new(text);
    e.diagnostics
        .into_iter()
        .map(|d| {
            let line = d.line.max(1);
            let column = d.column.max(1);
            let content = lines.line_text(line);
            let start = content.char_indices().nth(column - 1).map_or(content.len(), |(i, _)| i);
            let rest = &content[start..];
            // To the end of the token: up to `:` for a key, the rest of the line for a value.
            let width = rest
                .find(": ")
                .or_else(|| rest.strip_suffix(':').map(str::len))
                .unwrap_or(rest.trim_end().len());
            let end_column = column + rest[..width].chars().count().max(1);
            EditorMarker {
                severity: Severity::Error.as_str().into(),
                message: d.message,
                path: d.path,
                line,
                column,
                end_line: line,
                end_column,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_split_into_fields_and_indices() {
        assert_eq!(
            segments("resources[2].parent"),
            vec![Segment::Field("resources"), Segment::Index(2), Segment::Field("parent")]
        );
        assert_eq!(
            segments("nameTable.web"),
            vec![Segment::Field("nameTable"), Segment::Field("web")]
        );
        assert_eq!(segments(""), vec![]);
    }

    #[test]
    fn a_misspelled_field_is_underlined_where_it_is() {
        let text = "{\n  \"resources\": [\n    {\"type\": \"random:index/randomPet:RandomPet\", \"nmae\": \"a\", \"id\": \"x\"}\n  ]\n}\n";
        let markers = spec_markers(text);
        let name = markers
            .iter()
            .find(|m| m.severity == "error" && m.message.contains("`name`"))
            .expect("missing name");
        assert_eq!((name.severity.as_str(), name.line), ("error", 3));
        let typo = markers.iter().find(|m| m.path == "resources[0].nmae").expect("unknown field");
        assert_eq!(typo.severity, "warning");
        assert!(typo.message.contains("did you mean `name`"), "{}", typo.message);
        assert_eq!(
            &text.lines().nth(2).unwrap()[typo.column - 1..typo.end_column - 1],
            "\"nmae\": \"a\""
        );
    }

    #[test]
    fn a_syntax_error_points_at_the_token() {
        let markers = spec_markers("{\n  \"resources\": [\n    {\"type\": }\n  ]\n}");
        assert_eq!(markers.len(), 1);
        assert_eq!(markers[0].line, 3);
        assert!(markers[0].message.starts_with("not valid JSON"));
    }

    #[test]
    fn a_wrong_value_is_underlined_whole() {
        let text = "{\"resources\": [{\"type\": \"random:index/randomPet:RandomPet\", \"name\": \"a\", \"id\": \"x\", \"version\": \"four\"}]}";
        let markers = spec_markers(text);
        let v = markers.iter().find(|m| m.path == "resources[0].version").expect("bad version");
        assert_eq!(&text[v.column - 1..v.end_column - 1], "\"version\": \"four\"");
    }

    #[test]
    fn a_clean_spec_has_no_markers() {
        assert!(spec_markers("{\"resources\": [{\"type\": \"random:index/randomPet:RandomPet\", \"name\": \"a\", \"id\": \"x\"}]}").is_empty());
    }

    #[test]
    fn program_problems_keep_their_line() {
        let text = "name: p\nruntime: yaml\nresources:\n  a:\n    type: random:RandomPet\n    propertes:\n      length: 2\n";
        let markers = program_markers(text);
        assert_eq!(markers.len(), 1, "{markers:?}");
        assert_eq!((markers[0].line, markers[0].column, markers[0].end_column), (6, 5, 14));
        assert!(program_markers(
            "name: p\nruntime: yaml\nresources:\n  a:\n    type: random:RandomPet\n"
        )
        .is_empty());
    }
}
