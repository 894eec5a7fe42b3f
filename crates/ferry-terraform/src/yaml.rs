//! Writes JSON values as block-style YAML for a Pulumi YAML program: strings double-quoted as
//! JSON quotes them (valid YAML, and never read as anything but a string), numbers, booleans
//! and nulls plain, objects and lists in blocks.

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
        scalar => {
            out.push(' ');
            out.push_str(&scalar.to_string());
            out.push('\n');
        }
    }
}
