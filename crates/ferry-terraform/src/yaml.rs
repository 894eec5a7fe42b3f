//! Writes JSON values as block-style YAML for a Pulumi YAML program: strings double-quoted as
//! JSON quotes them (valid YAML, and never read as anything but a string), with `${` written
//! `$${` so that text Terraform recorded (a policy's `${aws:username}`, a script's `${VAR}`)
//! stays text rather than becoming a reference; numbers, booleans and nulls plain, objects and
//! lists in blocks.

use serde_json::Value;

/// A map key as YAML holds it: plain when it is a simple word, quoted otherwise.
pub fn key(k: &str) -> String {
    let plain = !k.is_empty()
        && k.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | '/'))
        && !k.starts_with(['-', '.'])
        && !matches!(k, "true" | "false" | "null" | "yes" | "no" | "on" | "off" | "y" | "n" | "~")
        && k.parse::<f64>().is_err();
    if plain || k == "fn::secret" {
        k.to_string()
    } else {
        Value::String(k.to_string()).to_string()
    }
}

/// A string scalar: JSON-quoted, with `${` as the literal `$${`.
pub fn string(s: &str) -> String {
    Value::String(s.replace("${", "$${")).to_string()
}

/// `value` under a key at `indent` spaces: ` <scalar>` on the key's line, or a block below it.
pub fn write_value(out: &mut String, value: &Value, indent: usize) {
    let pad = " ".repeat(indent);
    match value {
        Value::Object(map) if !map.is_empty() => {
            out.push('\n');
            for (k, v) in map {
                out.push_str(&format!("{pad}{}:", key(k)));
                write_value(out, v, indent + 2);
            }
        }
        Value::Array(items) if !items.is_empty() => {
            out.push('\n');
            for item in items {
                out.push_str(&format!("{pad}-"));
                match item {
                    Value::Object(map) if !map.is_empty() => {
                        // The first key on the dash's line, the rest below it.
                        let mut first = true;
                        for (k, v) in map {
                            if first {
                                out.push_str(&format!(" {}:", key(k)));
                                first = false;
                            } else {
                                out.push_str(&format!("{pad}  {}:", key(k)));
                            }
                            write_value(out, v, indent + 4);
                        }
                    }
                    other => write_value(out, other, indent + 2),
                }
            }
        }
        Value::Object(_) => out.push_str(" {}\n"),
        Value::Array(_) => out.push_str(" []\n"),
        Value::String(s) => {
            out.push(' ');
            out.push_str(&string(s));
            out.push('\n');
        }
        scalar => {
            out.push(' ');
            out.push_str(&scalar.to_string());
            out.push('\n');
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_that_looks_like_a_reference_stays_text() {
        let mut out = String::new();
        write_value(
            &mut out,
            &serde_json::json!({"policy": "arn:aws:s3:::${aws:username}/*", "plain": "a $ b"}),
            2,
        );
        assert_eq!(out, "\n  policy: \"arn:aws:s3:::$${aws:username}/*\"\n  plain: \"a $ b\"\n");
    }
}
