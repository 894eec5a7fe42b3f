//! Where a backend (or one of its files) lives, canonical: a URL decoded and normalised once —
//! percent-encoding undone, `.` and `..` resolved, a folder's symbolic links followed, an S3
//! bucket, prefix and options each read alone — so that "does this lie inside that?" is asked
//! of what will be opened, never of the URL as written.

use std::collections::BTreeMap;
use std::path::{Component, Path, PathBuf};

use crate::BackendError;

/// The options an `s3://` URL may carry, as Pulumi's DIY backend reads them.
const S3_OPTIONS: [&str; 6] =
    ["endpoint", "region", "s3ForcePathStyle", "awssdk", "profile", "disableSSL"];

/// A backend location, canonical. Made only by [`Location::parse`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Location {
    /// A folder or file of the server's machine: absolute, symbolic links resolved, existing.
    Local(PathBuf),
    /// An object-storage bucket, a prefix (decoded segments, none `.`, `..`, empty or holding a
    /// `/`) and its options (endpoint included).
    Bucket { bucket: String, prefix: Vec<String>, options: BTreeMap<String, String> },
}

impl Location {
    /// Decodes and normalises `url` (`file:///<path>` or `s3://<bucket>[/<prefix>]?…`). A
    /// folder must exist (its real path is what is compared); a prefix part that decodes to a
    /// separator or a dot segment is refused rather than read.
    pub fn parse(url: &str) -> Result<Location, BackendError> {
        let bad = |reason: String| BackendError::Url { url: url.to_string(), reason };
        let parsed = url::Url::parse(url).map_err(|e| bad(e.to_string()))?;
        match parsed.scheme() {
            "file" => {
                if parsed.query().is_some() || parsed.fragment().is_some() {
                    return Err(bad("a file URL takes no query or fragment".into()));
                }
                if parsed.host_str().is_some_and(|h| !h.is_empty() && h != "localhost") {
                    return Err(bad(
                        "a file URL names a path of this machine (file:///<path>)".into()
                    ));
                }
                // Percent-decoded once here; a decoded `/` or `..` becomes a path component,
                // and the real path below is what is then compared and opened.
                let path = parsed
                    .to_file_path()
                    .map_err(|_| bad("a file URL names an absolute path".into()))?;
                let real = std::fs::canonicalize(&path)
                    .map_err(|e| bad(format!("{} cannot be opened: {e}", path.display())))?;
                Ok(Location::Local(real))
            }
            "s3" => {
                let bucket = parsed
                    .host_str()
                    .filter(|b| !b.is_empty())
                    .ok_or_else(|| bad("an s3 URL names its bucket".into()))?
                    .to_string();
                let mut prefix = Vec::new();
                for raw in parsed.path_segments().into_iter().flatten().filter(|s| !s.is_empty()) {
                    let part = percent_encoding::percent_decode_str(raw)
                        .decode_utf8()
                        .map_err(|_| bad(format!("the path part `{raw}` is not UTF-8")))?;
                    if part == "."
                        || part == ".."
                        || part.contains(['/', '\\'])
                        || part.chars().any(char::is_control)
                    {
                        return Err(bad(format!("the path part `{raw}` is not a plain name (no `.`, `..`, separators or control characters)")));
                    }
                    prefix.push(part.into_owned());
                }
                let mut options = BTreeMap::new();
                for (key, value) in parsed.query_pairs() {
                    if !S3_OPTIONS.contains(&key.as_ref()) {
                        return Err(bad(format!("unknown option `{key}`")));
                    }
                    if options.insert(key.to_string(), value.to_string()).is_some() {
                        return Err(bad(format!("the option `{key}` is given twice")));
                    }
                }
                Ok(Location::Bucket { bucket, prefix, options })
            }
            other => Err(bad(format!("the scheme `{other}` (azblob and gs are not supported)"))),
        }
    }

    /// Whether this location is `root` or lies under it: the same folder tree (component by
    /// component, after symbolic links), or the same bucket and options with a prefix that
    /// starts with the root's.
    pub fn is_within(&self, root: &Location) -> bool {
        match (self, root) {
            (Location::Local(path), Location::Local(root)) => path.starts_with(root),
            (
                Location::Bucket { bucket, prefix, options },
                Location::Bucket { bucket: b, prefix: p, options: o },
            ) => bucket == b && options == o && prefix.starts_with(p),
            _ => false,
        }
    }

    /// The canonical URL: what Ferry stores and shows.
    pub fn url(&self) -> String {
        match self {
            Location::Local(path) => url::Url::from_file_path(path)
                .map(String::from)
                .unwrap_or_else(|_| format!("file://{}", path.display())),
            Location::Bucket { bucket, prefix, options } => {
                let mut url = url::Url::parse(&format!("s3://{bucket}"))
                    .expect("a bucket name from a parsed URL is a host");
                url.path_segments_mut().expect("s3 URLs have a path").extend(prefix);
                if !options.is_empty() {
                    url.query_pairs_mut().extend_pairs(options);
                }
                url.into()
            }
        }
    }

    /// The location's last part (a file's name) and the location of what holds it.
    pub fn split_file(&self) -> Option<(Location, String)> {
        match self {
            Location::Local(path) => {
                let name = path.file_name()?.to_str()?.to_string();
                Some((Location::Local(path.parent()?.to_path_buf()), name))
            }
            Location::Bucket { bucket, prefix, options } => {
                let (name, folder) = prefix.split_last()?;
                Some((
                    Location::Bucket {
                        bucket: bucket.clone(),
                        prefix: folder.to_vec(),
                        options: options.clone(),
                    },
                    name.clone(),
                ))
            }
        }
    }

    /// The folder, for a local location.
    pub(crate) fn local_path(&self) -> Option<&Path> {
        match self {
            Location::Local(path) => Some(path),
            Location::Bucket { .. } => None,
        }
    }
}

/// Whether a relative path stays where it is put: no root, no `..`, nothing but plain names.
pub fn is_plain_relative(path: &str) -> bool {
    !path.is_empty()
        && Path::new(path).components().all(|c| matches!(c, Component::Normal(_)))
        && !path.contains('\\')
}
