//! Golden tests: every fixture schema's resources, each input property set, in every
//! language; and a stack-shaped case with a parent component, an explicit provider, a
//! reference, a secret and elision, in both styles.

mod common;

use std::collections::{BTreeSet, HashMap};

use ferry_codegen::{emit, lower, CodeStyle, Language, Options};

#[test]
fn every_schema_in_every_language() {
    let schemas = common::schemas();
    for package in common::PACKAGES {
        let resources = common::sample_resources(&schemas[package], "fixtures");
        let program = lower(
            "fixtures",
            &resources,
            &[],
            &schemas,
            &Options { elide: false, ..Default::default() },
        )
        .unwrap();
        for lang in Language::ALL {
            let code = emit(&program, lang);
            insta::assert_snapshot!(format!("{package}.{}", lang.id()), code);
            assert_eq!(code, emit(&program, lang), "the same program always prints the same bytes");
        }
    }
}

#[test]
fn a_stack_with_components_providers_references_and_secrets() {
    let schemas: HashMap<_, _> = common::schemas();
    let (resources, context) = common::stack_case();
    for style in [CodeStyle::Cli, CodeStyle::CodeFirst] {
        let options = Options { style, elide: true, references: true, ..Default::default() };
        let program = lower("shop", &resources, &context, &schemas, &options).unwrap();
        let style_name = match style {
            CodeStyle::Cli => "cli",
            CodeStyle::CodeFirst => "code-first",
        };
        insta::assert_json_snapshot!(format!("stack.{style_name}.report"), program.report);
        for lang in Language::ALL {
            let code = emit(&program, lang);
            assert!(
                !code.contains("!#%&"),
                "{lang:?}: a secret was written into the code:\n{code}"
            );
            insta::assert_snapshot!(format!("stack.{style_name}.{}", lang.id()), code);
        }
    }
    // Elision per resource, and a reference suggestion turned off.
    let options = Options {
        elide: true,
        keep_all: BTreeSet::from(["database-id".to_string()]),
        references: true,
        reference_exclusions: BTreeSet::from(["admin-password.keepers.database".to_string()]),
        ..Default::default()
    };
    let program = lower("shop", &resources, &context, &schemas, &options).unwrap();
    assert!(program.report.references.is_empty());
    assert!(program.report.elided.iter().all(|e| e.resource != "database-id"));
    let ts = emit(&program, Language::TypeScript);
    assert!(ts.contains("prefix: \"\"") && ts.contains("database: \"kT3ZqA\""), "{ts}");
}

#[test]
fn count_and_for_each_instances_are_loops() {
    let schemas: HashMap<_, _> = common::schemas();
    let resources = common::terraform_case();
    for style in [CodeStyle::Cli, CodeStyle::CodeFirst] {
        let options = Options { style, elide: true, references: true, ..Default::default() };
        let program = lower("migrated", &resources, &[], &schemas, &options).unwrap();
        let declarations: Vec<&str> =
            program.loops.iter().map(|l| l.declaration.as_str()).collect();
        // The pairs that differ by key-tied values loop; the pair that differs in shape does not.
        assert_eq!(
            declarations,
            ["random_pet.pets", "module.net.random_integer.ports"],
            "{style:?}"
        );
        let style_name = match style {
            CodeStyle::Cli => "cli",
            CodeStyle::CodeFirst => "code-first",
        };
        for lang in Language::ALL {
            let code = emit(&program, lang);
            insta::assert_snapshot!(format!("terraform.{style_name}.{}", lang.id()), code);
            if lang == Language::Yaml {
                // YAML has no loops: it lists every instance by its name.
                for r in &resources {
                    assert!(
                        code.contains(&format!("  {}:\n", r.name)),
                        "{}: not listed\n{code}",
                        r.name
                    );
                }
            } else {
                // Each loop is declared once; its instances are not declared one by one, and the
                // resource using an instance reaches it through the loop's key.
                assert!(
                    !code.contains("\"pets-0\"") && !code.contains("\"ports-web\""),
                    "{lang:?}: an instance was declared alone\n{code}"
                );
                assert!(
                    code.contains("\"ids-0\"") && code.contains("\"ids-1\""),
                    "{lang:?}: the pair that differs in shape is two resources\n{code}"
                );
                // `count`'s keys are numbers, as the configuration had them (`for_each`'s text).
                assert!(
                    code.contains("[0]") && code.contains("[1]"),
                    "{lang:?}: the reference and dependsOn reach the instances by key\n{code}"
                );
                assert!(
                    !code.contains("[\"0\"]") && !code.contains("\"0\","),
                    "{lang:?}: a `count` key written as text\n{code}"
                );
                let numeric = match lang {
                    Language::TypeScript => "Record<number, ",
                    Language::Python => "dict[int, ",
                    Language::Go => "map[int]*",
                    _ => "Dictionary<int, ",
                };
                assert!(
                    code.contains(numeric),
                    "{lang:?}: the count loop's map is keyed by numbers\n{code}"
                );
                assert!(
                    code.contains("Terraform: random_shuffle.pick"),
                    "{lang:?}: the Terraform address is a comment\n{code}"
                );
            }
            // Root variables are read from stack config, each once, the state's value its
            // default; the one the IDs disagree on stays a value where it differs.
            let reads = match lang {
                Language::TypeScript => [
                    "config.get(\"separator\") ?? \"-\"",
                    "config.getNumber(\"port_min\") ?? 1000",
                    "config.getNumber(\"id_bytes\") ?? 4",
                ],
                Language::Python => [
                    "config.get(\"separator\")",
                    "config.get_int(\"port_min\")",
                    "config.get_int(\"id_bytes\")",
                ],
                Language::Go => [
                    "cfg.Get(\"separator\"); param != \"\"",
                    "portMin = cfg.RequireInt(\"port_min\")",
                    "idBytes = cfg.RequireInt(\"id_bytes\")",
                ],
                Language::CSharp => [
                    "config.Get(\"separator\") ?? \"-\"",
                    "config.GetInt32(\"port_min\") ?? 1000",
                    "config.GetInt32(\"id_bytes\") ?? 4",
                ],
                Language::Yaml => [
                    "  separator:\n    type: string\n    default: ",
                    "  port_min:\n    type: integer\n    default: 1000\n",
                    "  id_bytes:\n    type: integer\n    default: 4\n",
                ],
            };
            for read in reads {
                assert_eq!(code.matches(read).count(), 1, "{lang:?}: `{read}` once\n{code}");
            }
            // The template: its text escaped as each language's interpolation needs, the
            // variable read from config, the loop's instance reached by its key.
            let label = match lang {
                Language::TypeScript => {
                    r#"pulumi.interpolate`a\`{b}%c\${d}\"\\-${team}/${ports["web"].result}`"#
                }
                Language::Python => {
                    r#"pulumi.Output.format("a`{{b}}%c${{d}}\"\\-{0}/{1}", team, ports["web"].result)"#
                }
                Language::Go => {
                    r#"pulumi.Sprintf("a`{b}%%c${d}\"\\-%v/%v", team, ports["web"].Result)"#
                }
                Language::CSharp => {
                    r#"Output.Format($"a`{{b}}%c${{d}}\"\\-{team}/{ports["web"].Result}")"#
                }
                Language::Yaml => r#""a`{b}%c$${d}\"\\-${team}/${ports-web.result}""#,
            };
            assert!(code.contains(label), "{lang:?}: `{label}`\n{code}");
            assert!(
                !code.contains("secret: true")
                    && !code.contains("RequireSecret")
                    && !code.contains("requireSecret"),
                "{lang:?}: variables are no secrets\n{code}"
            );
            assert!(
                program
                    .report
                    .warnings
                    .iter()
                    .any(|w| w.contains("`ids-1`: `byteLength` is var.id_bytes")),
                "{:?}",
                program.report.warnings
            );
            assert!(
                program.report.config_commands.is_empty(),
                "{:?}",
                program.report.config_commands
            );
        }
    }
}
