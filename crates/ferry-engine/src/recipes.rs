//! Import ID recipes: what a resource type's import ID is made of, learnt from what its package
//! publishes. A package may state it (`language.ferry.importId` of the resource in its schema,
//! a template such as `<database>.<name>`); otherwise it is read off the `pulumi import`
//! examples in the resource's documentation, each part of the example ID matched to a value of
//! the example program or, in order, to the properties the Import section's text names. A part
//! that matches nothing leaves the type without a recipe: a recipe is never guessed.

use std::collections::BTreeMap;

use ferry_types::identify::{IdPart, IdRecipe, RecipeSource};
use marked_yaml::Node;
use serde_json::Value;

/// What separates the parts of a documented example ID.
const SEPARATORS: [char; 4] = ['/', ':', ',', '|'];

/// Every resource type of `schema` that has a recipe.
pub fn recipes(schema: &Value) -> BTreeMap<String, IdRecipe> {
    let Some(resources) = schema["resources"].as_object() else { return BTreeMap::new() };
    resources.iter().filter_map(|(token, r)| Some((token.clone(), recipe_of(token, r)?))).collect()
}

/// The recipe of one resource type, given its schema entry.
pub fn recipe_of(token: &str, resource: &Value) -> Option<IdRecipe> {
    if let Some(template) = resource["language"]["ferry"]["importId"].as_str() {
        return IdRecipe::parse_template(template, RecipeSource::Package).ok();
    }
    let description = resource["description"].as_str()?;
    let properties: Vec<&str> = ["properties", "inputProperties"]
        .iter()
        .filter_map(|k| resource[*k].as_object())
        .flat_map(|m| m.keys().map(String::as_str))
        .collect();
    for (at, name, id) in examples(description, token) {
        let values = example_values(description, token, &name);
        let named = named_in_text(&description[section_start(description, at)..at], &properties);
        if let Some(parts) = match_parts(&id, &values, &named) {
            return Some(IdRecipe { parts, source: RecipeSource::Example, example: Some(id) });
        }
    }
    None
}

/// `pulumi import <token> <name> <id>` lines: where each is, the resource's name and the ID.
fn examples(description: &str, token: &str) -> Vec<(usize, String, String)> {
    let mut out = Vec::new();
    let mut at = 0;
    for line in description.split_inclusive('\n') {
        let start = at;
        at += line.len();
        let command = line.trim().trim_start_matches('$').trim();
        let Some(rest) = command.strip_prefix("pulumi import ") else { continue };
        let words: Vec<String> =
            shell_words(rest).into_iter().filter(|w| !w.starts_with('-')).collect();
        if let [t, name, id, ..] = words.as_slice() {
            if t == token && !id.is_empty() {
                out.push((start, name.clone(), id.clone()));
            }
        }
    }
    out
}

/// Words as a shell splits them (single and double quotes; no expansions).
fn shell_words(text: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut quote: Option<char> = None;
    let mut any = false;
    for c in text.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => word.push(c),
            (None, '"' | '\'') => {
                quote = Some(c);
                any = true;
            }
            (None, c) if c.is_whitespace() => {
                if any || !word.is_empty() {
                    words.push(std::mem::take(&mut word));
                }
                any = false;
            }
            (None, c) => word.push(c),
        }
    }
    if any || !word.is_empty() {
        words.push(word);
    }
    words
}

/// Where the Import section that holds position `at` starts (its heading), or the start of the
/// paragraph before `at` when there is no heading.
fn section_start(description: &str, at: usize) -> usize {
    let before = &description[..at];
    before.rfind("## Import").unwrap_or_else(|| before.rfind("\n\n").unwrap_or(0))
}

/// The properties `text` names, in order, once each: as written (`b64Url`) or in snake case
/// (`resource_group_name`). Markup is dropped first (the docs wrap names in per-language spans).
fn named_in_text(text: &str, properties: &[&str]) -> Vec<String> {
    let mut plain = String::with_capacity(text.len());
    let mut in_tag = false;
    for c in text.chars() {
        match c {
            '<' => in_tag = true,
            '>' if in_tag => {
                in_tag = false;
                plain.push(' ');
            }
            c if !in_tag => plain.push(c),
            _ => {}
        }
    }
    let mut out: Vec<String> = Vec::new();
    // Only prose: the example commands are not the text's names.
    for word in plain
        .lines()
        .filter(|l| !l.trim_start().starts_with("$ ") && !l.trim_start().starts_with("pulumi "))
        .flat_map(|l| l.split(|c: char| !c.is_alphanumeric() && c != '_'))
    {
        let camel = heck::ToLowerCamelCase::to_lower_camel_case(word);
        if let Some(p) = properties.iter().find(|p| **p == word || **p == camel) {
            if !out.iter().any(|o| o == p) {
                out.push(p.to_string());
            }
        }
    }
    out
}

/// The top-level scalar values of the example program's resource `name` (of type `token`), as
/// text, by property: from the description's YAML examples.
fn example_values(description: &str, token: &str, name: &str) -> Vec<(String, String)> {
    let short = short_token(token);
    let mut out = Vec::new();
    for block in description.split("```yaml").skip(1) {
        let Some(block) = block.split("```").next() else { continue };
        let Ok(root) = marked_yaml::parse_yaml(0, block) else { continue };
        let Some(resources) = root.as_mapping().and_then(|m| m.get_mapping("resources")) else {
            continue;
        };
        for (key, value) in resources.iter() {
            let Some(r) = value.as_mapping() else { continue };
            let type_ = r.get_scalar("type").map(|s| s.as_str()).unwrap_or("");
            let logical = r.get_scalar("name").map(|s| s.as_str()).unwrap_or(key.as_str());
            if (type_ != token && type_ != short) || (key.as_str() != name && logical != name) {
                continue;
            }
            if let Some(props) = r.get_mapping("properties") {
                for (k, v) in props.iter() {
                    if let Node::Scalar(s) = v {
                        out.push((k.as_str().to_string(), s.as_str().to_string()));
                    }
                }
            }
        }
    }
    out
}

/// How YAML examples write a type: `random:index/randomPet:RandomPet` → `random:RandomPet`,
/// `azure:core/resourceGroup:ResourceGroup` → `azure:core:ResourceGroup`.
fn short_token(token: &str) -> String {
    let mut parts = token.split(':');
    match (parts.next(), parts.next(), parts.next()) {
        (Some(pkg), Some(module), Some(name)) => match module.split('/').next().unwrap_or(module) {
            "index" | "" => format!("{pkg}:{name}"),
            m => format!("{pkg}:{m}:{name}"),
        },
        _ => token.to_string(),
    }
}

/// Whether an example ID reads as one base64 value (`8/fu3q+2DcgSJ19i0jZ5Cw==`), whose `/` is
/// one of its digits, not a separator.
fn is_base64(id: &str) -> bool {
    id.len().is_multiple_of(4)
        && !id.starts_with('/')
        && (id.ends_with('=') || id.contains('+'))
        && id.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'='))
}

/// The example ID split at its separators: values and the text between them.
fn split_id(id: &str) -> Vec<IdPart> {
    if is_base64(id) {
        return vec![IdPart::Property(id.to_string())];
    }
    let mut parts: Vec<IdPart> = Vec::new();
    let mut current = String::new();
    for c in id.chars() {
        if SEPARATORS.contains(&c) {
            if !current.is_empty() {
                parts.push(IdPart::Property(std::mem::take(&mut current)));
            }
            match parts.last_mut() {
                Some(IdPart::Literal(t)) => t.push(c),
                _ => parts.push(IdPart::Literal(c.to_string())),
            }
        } else {
            current.push(c);
        }
    }
    if !current.is_empty() {
        parts.push(IdPart::Property(current));
    }
    parts
}

/// Each value of the example ID matched to a property: by the example program's value, or by
/// position among the names the text gives (which must agree with every match by value). A
/// word in a path (`resourceGroups` in `…/resourceGroups/<name>`) stays literal when a matched
/// value follows it.
fn match_parts(id: &str, values: &[(String, String)], named: &[String]) -> Option<Vec<IdPart>> {
    let split = split_id(id);
    let segments: Vec<&str> = split
        .iter()
        .filter_map(|p| match p {
            IdPart::Property(v) => Some(v.as_str()),
            IdPart::Literal(_) => None,
        })
        .collect();
    let by_value = |segment: &str| -> Option<String> {
        let mut matching = values.iter().filter(|(_, v)| v == segment);
        let first = matching.next()?;
        matching.next().is_none().then(|| first.0.clone())
    };
    let value_matches: Vec<Option<String>> = segments.iter().map(|s| by_value(s)).collect();
    // By position: the text names as many properties as the ID has values (or more, the rest
    // being optional ones), and every match by value agrees.
    if named.len() >= segments.len() {
        let agree = value_matches
            .iter()
            .enumerate()
            .all(|(i, m)| m.as_ref().is_none_or(|m| *m == named[i]));
        if agree {
            let mut i = 0;
            let parts = split
                .iter()
                .map(|p| match p {
                    IdPart::Literal(t) => IdPart::Literal(t.clone()),
                    IdPart::Property(_) => {
                        i += 1;
                        IdPart::Property(named[i - 1].clone())
                    }
                })
                .collect();
            return Some(parts);
        }
    }
    // By value alone: every value matched, but path words.
    let mut out = Vec::with_capacity(split.len());
    let mut i = 0;
    for (k, part) in split.iter().enumerate() {
        match part {
            IdPart::Literal(t) => out.push(IdPart::Literal(t.clone())),
            IdPart::Property(segment) => {
                let matched = value_matches[i].clone();
                i += 1;
                match matched {
                    Some(name) => out.push(IdPart::Property(name)),
                    None => {
                        let path_word = segment.chars().all(|c| c.is_ascii_alphabetic())
                            && matches!(split.get(k + 1), Some(IdPart::Literal(t)) if t == "/")
                            && value_matches.get(i).is_some_and(Option::is_some);
                        if !path_word {
                            return None;
                        }
                        // Literal text joins its neighbours.
                        match out.last_mut() {
                            Some(IdPart::Literal(t)) => t.push_str(segment),
                            _ => out.push(IdPart::Literal(segment.clone())),
                        }
                    }
                }
            }
        }
    }
    // Merge adjacent literals (a path word between two slashes).
    let mut merged: Vec<IdPart> = Vec::with_capacity(out.len());
    for part in out {
        match (merged.last_mut(), part) {
            (Some(IdPart::Literal(a)), IdPart::Literal(b)) => a.push_str(&b),
            (_, part) => merged.push(part),
        }
    }
    merged.iter().any(|p| matches!(p, IdPart::Property(_))).then_some(merged)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn template(r: Option<IdRecipe>) -> String {
        r.map(|r| r.template()).unwrap_or_else(|| "none".into())
    }

    #[test]
    fn a_stated_recipe_wins() {
        let r = json!({"language": {"ferry": {"importId": "<database>.<name>"}}, "description": "pulumi import x:index:Y a b"});
        let recipe = recipe_of("x:index:Y", &r).unwrap();
        assert_eq!(recipe.template(), "<database>.<name>");
        assert_eq!(recipe.source, RecipeSource::Package);
    }

    #[test]
    fn parts_match_the_example_programs_values() {
        let description = "Example\n```yaml\nresources:\n  example:\n    type: azure:core:Thing\n    properties:\n      resourceGroupName: group1\n      name: thing1\n```\n\n## Import\n\n```sh\n$ pulumi import azure:core/thing:Thing example /subscriptions/group1/thing1\n```\n";
        let token = "azure:core/thing:Thing";
        let r = json!({"description": description.replace("azure:core:Thing", token), "inputProperties": {"resourceGroupName": {}, "name": {}}});
        // `subscriptions` is a path word followed by a matched value.
        assert_eq!(template(recipe_of(token, &r)), "/subscriptions/<resourceGroupName>/<name>");
    }

    #[test]
    fn an_unexplained_part_leaves_no_recipe() {
        let description =
            "## Import\n\n```sh\n$ pulumi import x:index/y:Y a 0000-1111/group1\n```\n";
        let r = json!({"description": description, "inputProperties": {"name": {}}});
        assert_eq!(template(recipe_of("x:index/y:Y", &r)), "none");
    }

    #[test]
    fn the_texts_names_place_the_parts_in_order() {
        let description = "## Import\n\nThings can be imported using the `result`, `min` and `max`, with an optional `seed`.\n\n```sh\n$ pulumi import x:index/y:Y a 15390,1,50000\n```\n";
        let r = json!({"description": description, "properties": {"result": {}, "min": {}, "max": {}, "seed": {}}});
        assert_eq!(template(recipe_of("x:index/y:Y", &r)), "<result>,<min>,<max>");
    }

    #[test]
    fn a_base64_example_is_one_value() {
        let description = "## Import\n\nBytes can be imported by specifying the value as base64 string.\n\n```sh\n$ pulumi import x:index/y:Y basic \"8/fu3q+2DcgSJ19i0jZ5Cw==\"\n```\n";
        let r = json!({"description": description, "properties": {"base64": {}, "hex": {}}});
        assert_eq!(template(recipe_of("x:index/y:Y", &r)), "<base64>");
    }

    #[test]
    fn shell_words_keep_quoted_ids_whole() {
        assert_eq!(shell_words(r#"t n "a b/c" 'd'"#), vec!["t", "n", "a b/c", "d"]);
    }
}
