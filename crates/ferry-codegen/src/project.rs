//! A runnable project around the generated program: `Pulumi.yaml` and each language's build
//! files (`package.json` + `tsconfig.json`, `requirements.txt`, `go.mod`, a `.csproj`), with the
//! packages' versions (the providers' own when known, else the SDK's major version).

use std::fmt::Write as _;

use crate::ir::{Package, Program};
use crate::lang::{emit, quoted, Language};

/// The major version a package's Go import path names (`.../sdk/v4/go/random` → 4), else 1.
fn major(p: &Package) -> u64 {
    if let Some(v) = &p.version {
        if let Some(m) = v.trim_start_matches('v').split('.').next().and_then(|m| m.parse().ok()) {
            return m;
        }
    }
    p.go_import
        .split('/')
        .find_map(|seg| seg.strip_prefix('v').and_then(|n| n.parse().ok()))
        .unwrap_or(1)
}

fn version(p: &Package) -> String {
    p.version
        .clone()
        .map(|v| v.trim_start_matches('v').to_string())
        .unwrap_or_else(|| format!("{}.0.0", major(p)))
}

/// The project's files: (path, contents), the program first.
pub fn files(program: &Program, language: Language) -> Vec<(String, String)> {
    let name = &program.project;
    let code = emit(program, language);
    let mut files = Vec::new();
    if language != Language::Yaml {
        files.push((language.file_name().to_string(), code.clone()));
        files.push((
            "Pulumi.yaml".to_string(),
            format!(
                "name: {name}\nruntime: {}\ndescription: Resources imported by Ferry\n",
                language.runtime()
            ),
        ));
    }
    match language {
        Language::TypeScript => {
            let mut deps = String::from("    \"@pulumi/pulumi\": \"^3.0.0\"");
            for p in program.packages.values() {
                let _ = write!(deps, ",\n    {}: \"^{}\"", quoted(&p.nodejs), version(p));
            }
            files.push((
                "package.json".into(),
                format!("{{\n  \"name\": {},\n  \"main\": \"index.ts\",\n  \"devDependencies\": {{\n    \"@types/node\": \"^20.0.0\",\n    \"typescript\": \"^5.0.0\"\n  }},\n  \"dependencies\": {{\n{deps}\n  }}\n}}\n", quoted(name)),
            ));
            files.push((
                "tsconfig.json".into(),
                "{\n  \"compilerOptions\": {\n    \"strict\": true,\n    \"outDir\": \"bin\",\n    \"target\": \"es2020\",\n    \"module\": \"commonjs\",\n    \"moduleResolution\": \"node\",\n    \"sourceMap\": true,\n    \"experimentalDecorators\": true,\n    \"forceConsistentCasingInFileNames\": true\n  },\n  \"files\": [\"index.ts\"]\n}\n".into(),
            ));
        }
        Language::Python => {
            let mut req = String::from("pulumi>=3.0.0,<4.0.0\n");
            for p in program.packages.values() {
                let _ = writeln!(req, "{}>={},<{}.0.0", p.python_package, version(p), major(p) + 1);
            }
            files.push(("requirements.txt".into(), req));
        }
        Language::Go => {
            let mut go_mod = format!("module {name}\n\ngo 1.21\n\nrequire (\n\tgithub.com/pulumi/pulumi/sdk/v3 v3.130.0\n");
            for p in program.packages.values() {
                // The module is the import path up to `/go/<package>`.
                let module = p.go_import.split("/go/").next().unwrap_or(&p.go_import);
                let _ = writeln!(go_mod, "\t{module} v{}", version(p));
            }
            go_mod.push_str(")\n");
            files.push(("go.mod".into(), go_mod));
        }
        Language::CSharp => {
            let mut refs =
                String::from("    <PackageReference Include=\"Pulumi\" Version=\"3.*\" />\n");
            for p in program.packages.values() {
                let _ = writeln!(
                    refs,
                    "    <PackageReference Include=\"Pulumi.{}\" Version=\"{}.*\" />",
                    p.csharp_namespace,
                    major(p)
                );
            }
            files.push((
                format!("{name}.csproj"),
                format!("<Project Sdk=\"Microsoft.NET.Sdk\">\n\n  <PropertyGroup>\n    <OutputType>Exe</OutputType>\n    <TargetFramework>net8.0</TargetFramework>\n    <Nullable>enable</Nullable>\n  </PropertyGroup>\n\n  <ItemGroup>\n{refs}  </ItemGroup>\n\n</Project>\n"),
            ));
        }
        Language::Yaml => files.push(("Pulumi.yaml".into(), code)),
    }
    files
}
