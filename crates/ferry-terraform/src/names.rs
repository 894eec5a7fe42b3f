//! Readable, unique Pulumi names for Terraform's instances, the same for the same file: the
//! resource's name with its `count`/`for_each` key (`logs`, `logs-0`, `logs-prod`); where two
//! would meet, the module path joins it (`web-logs`), then the type (`web-aws_s3_bucket-logs`).
//! `module.web.aws_s3_bucket.logs` and `aws_s3_bucket.logs` never collide.

use std::collections::{BTreeMap, HashSet};

use crate::address::{Address, IndexKey};

/// A name part as a Pulumi name holds it: letters, digits, `-` and `_`; anything else is `-`.
pub(crate) fn clean(part: &str) -> String {
    part.chars()
        .map(|c| if c.is_ascii_alphanumeric() || c == '-' || c == '_' { c } else { '-' })
        .collect()
}

fn key_part(key: &Option<IndexKey>) -> Option<String> {
    key.as_ref().map(|k| match k {
        IndexKey::Number(n) => n.to_string(),
        IndexKey::Text(s) => clean(s),
    })
}

/// The name at `level`: 0 the name (and key), 1 with the module path, 2 with the type too.
fn candidate(a: &Address, level: u8) -> String {
    let mut parts = Vec::new();
    if level >= 1 {
        for (module, key) in a.modules() {
            parts.push(clean(&module));
            parts.extend(key_part(&key));
        }
    }
    if level >= 2 {
        parts.push(clean(&a.type_));
    }
    parts.push(clean(&a.name));
    parts.extend(key_part(&a.key));
    parts.join("-")
}

/// A unique name for each of `addresses` (in their order), deterministic for the same set.
/// `deposed` objects are named by their address and key.
pub fn names(addresses: &[(Address, Option<String>)]) -> Vec<String> {
    let mut level = vec![0u8; addresses.len()];
    loop {
        let names: Vec<String> = addresses
            .iter()
            .zip(&level)
            .map(|((a, deposed), l)| {
                let base = candidate(a, *l);
                match deposed {
                    Some(key) => format!("{base}-deposed-{}", clean(key)),
                    None => base,
                }
            })
            .collect();
        let mut by_name: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
        for (i, n) in names.iter().enumerate() {
            by_name.entry(n.as_str()).or_default().push(i);
        }
        let clashing: Vec<usize> = by_name
            .values()
            .filter(|v| v.len() > 1)
            .flatten()
            .copied()
            .filter(|&i| level[i] < 2)
            .collect();
        if clashing.is_empty() {
            // Full addresses never clash, but cleaning may make two meet: number them, stably.
            let mut seen = HashSet::new();
            return names
                .into_iter()
                .map(|n| {
                    let mut name = n.clone();
                    let mut k = 2;
                    while !seen.insert(name.clone()) {
                        name = format!("{n}-{k}");
                        k += 1;
                    }
                    name
                })
                .collect();
        }
        for i in clashing {
            level[i] += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::address::Mode;

    fn addr(
        module: &str,
        type_: &str,
        name: &str,
        key: Option<IndexKey>,
    ) -> (Address, Option<String>) {
        (
            Address {
                module: module.into(),
                mode: Mode::Managed,
                type_: type_.into(),
                name: name.into(),
                key,
            },
            None,
        )
    }

    #[test]
    fn names_are_short_where_they_can_be_and_never_collide() {
        let all = vec![
            addr("", "aws_s3_bucket", "logs", None),
            addr("module.web", "aws_s3_bucket", "logs", None),
            addr("", "aws_s3_bucket", "assets", Some(IndexKey::Number(0))),
            addr("", "aws_s3_bucket", "assets", Some(IndexKey::Number(1))),
            addr("", "aws_iam_role", "site", Some(IndexKey::Text("prod eu".into()))),
            addr("", "aws_s3_bucket", "site", Some(IndexKey::Text("prod eu".into()))),
            addr("module.net[\"a\"]", "aws_vpc", "main", None),
        ];
        let got = names(&all);
        assert_eq!(
            got,
            [
                "logs",
                "web-logs",
                "assets-0",
                "assets-1",
                "aws_iam_role-site-prod-eu",
                "aws_s3_bucket-site-prod-eu",
                "main"
            ]
        );
        assert_eq!(names(&all), got, "the same for the same file");
    }
}
