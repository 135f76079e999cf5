//! The skills extension (`io.modelcontextprotocol/skills`, SEP-2640): agent skills served
//! as resources.
//!
//! A skill is a directory of files under a root URI (`skill://add-numbers`) whose
//! `SKILL.md` starts with YAML frontmatter naming it (`name`, `description`). Registering
//! one with [`Server::add_skill`](crate::Server::add_skill):
//! - serves each file as a resource (`SKILL.md` listed with the frontmatter's name and
//!   description, `text/markdown`);
//! - advertises the extension with `directoryRead`;
//! - serves `skills/list` and `skills/get` (each skill with its frontmatter and a manifest of
//!   every file: URI, `sha256:` digest, size) and `resources/directory/read` (the direct
//!   children of a skill directory, subdirectories as `inode/directory`).
//!
//! Digests and sizes are computed here from the bytes served, so they cannot drift. The
//! frontmatter is parsed with `serde_norway` (a maintained fork of `serde_yaml`).

use std::collections::BTreeSet;
use std::path::Path;
use std::sync::{Arc, RwLock};

use base64::Engine as _;
use serde_json::{json, Map, Value};
use sha2::{Digest, Sha256};

use crate::protocol::model::{ReadResourceResult, Resource, ResourceContents};
use crate::protocol::ErrorObject;
use crate::server::{ConfigError, HandlerError, RequestContext, Server, TemplateVariables};
use crate::sync::{read, write};

/// The extension's id.
pub const EXTENSION_ID: &str = "io.modelcontextprotocol/skills";
/// The MIME type of a directory resource.
pub const DIRECTORY_MIME_TYPE: &str = "inode/directory";
/// At most this many files per skill.
pub const MAX_FILES: usize = 512;
/// At most this many bytes per skill.
pub const MAX_TOTAL_BYTES: usize = 16 * 1024 * 1024;

/// Why a skill was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SkillError {
    /// The root URI is not `scheme://path` without a trailing slash.
    #[error("skill root {0:?} must look like skill://name (no trailing slash)")]
    Root(String),
    /// No `SKILL.md` at the skill's root.
    #[error("a skill needs a SKILL.md at its root")]
    NoSkillMd,
    /// `SKILL.md` does not start with `---` frontmatter, or it is not a YAML mapping.
    #[error("SKILL.md frontmatter: {0}")]
    Frontmatter(String),
    /// The frontmatter's `name` breaks the naming rules or differs from the root's last
    /// segment.
    #[error("skill name {0:?}: {1}")]
    Name(String, &'static str),
    /// A file path is empty, absolute, or climbs out of the skill.
    #[error("file path {0:?} must be relative, without empty, '.' or '..' segments")]
    Path(String),
    /// Over the limits of the extension.
    #[error("a skill holds at most {MAX_FILES} files and {MAX_TOTAL_BYTES} bytes")]
    TooLarge,
    /// The directory could not be read.
    #[error("reading the skill directory: {0}")]
    Io(String),
}

#[derive(Clone)]
struct SkillFile {
    /// Relative path inside the skill (`SKILL.md`, `references/EXAMPLES.md`).
    path: String,
    bytes: Vec<u8>,
    mime_type: String,
    digest: String,
}

/// A skill ready to serve.
pub struct Skill {
    root: String,
    frontmatter: Map<String, Value>,
    files: Vec<SkillFile>,
}

impl std::fmt::Debug for Skill {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Skill").field("root", &self.root).field("files", &self.files.len()).finish()
    }
}

fn mime_of(path: &str) -> &'static str {
    let ext = path.rsplit_once('.').map(|(_, e)| e.to_ascii_lowercase()).unwrap_or_default();
    match ext.as_str() {
        "md" | "markdown" => "text/markdown",
        "txt" => "text/plain",
        "json" => "application/json",
        "yaml" | "yml" => "application/yaml",
        "py" => "text/x-python",
        "js" | "mjs" => "text/javascript",
        "ts" => "text/x-typescript",
        "sh" => "text/x-shellscript",
        "html" => "text/html",
        "csv" => "text/csv",
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "svg" => "image/svg+xml",
        "pdf" => "application/pdf",
        _ => "application/octet-stream",
    }
}

fn valid_name(name: &str) -> bool {
    let b = name.as_bytes();
    !b.is_empty()
        && b.len() <= 64
        && !name.contains("--")
        && b.iter().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == b'-')
        && b[0] != b'-'
        && b[b.len() - 1] != b'-'
}

/// The YAML frontmatter of a `SKILL.md`, as a JSON object.
fn frontmatter(text: &str) -> Result<Map<String, Value>, SkillError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let rest = text
        .strip_prefix("---\n")
        .or_else(|| text.strip_prefix("---\r\n"))
        .ok_or_else(|| SkillError::Frontmatter("SKILL.md must start with a --- line".into()))?;
    let end = rest
        .match_indices("\n---")
        .find(|(i, _)| {
            let after = &rest[i + 4..];
            after.is_empty() || after.starts_with('\n') || after.starts_with("\r\n") || after.starts_with([' ', '\t'])
        })
        .map(|(i, _)| i)
        .ok_or_else(|| SkillError::Frontmatter("no closing --- line".into()))?;
    let yaml = rest[..end].trim_end_matches('\r');
    let v: Value = serde_norway::from_str(yaml).map_err(|e| SkillError::Frontmatter(e.to_string()))?;
    match v {
        Value::Object(m) => Ok(m),
        _ => Err(SkillError::Frontmatter("it must be a mapping of keys to values".into())),
    }
}

impl Skill {
    /// A skill at `root` (`skill://add-numbers`) made of `files` (relative path, bytes).
    /// `SKILL.md` must be among them, with frontmatter whose `name` (the naming rules:
    /// lowercase letters, digits and single hyphens, at most 64) equals the root's last
    /// segment, and a `description`.
    pub fn new(root: &str, files: impl IntoIterator<Item = (String, Vec<u8>)>) -> Result<Skill, SkillError> {
        let (scheme, path) = root.split_once("://").ok_or_else(|| SkillError::Root(root.to_owned()))?;
        if scheme.is_empty() || path.is_empty() || path.ends_with('/') || path.split('/').any(str::is_empty) {
            return Err(SkillError::Root(root.to_owned()));
        }
        let mut files: Vec<SkillFile> = files
            .into_iter()
            .map(|(path, bytes)| {
                let p = path.replace('\\', "/");
                if p.is_empty() || p.starts_with('/') || p.split('/').any(|s| s.is_empty() || s == "." || s == "..") {
                    return Err(SkillError::Path(path));
                }
                let digest = format!("sha256:{:x}", Sha256::digest(&bytes));
                Ok(SkillFile { mime_type: mime_of(&p).to_owned(), path: p, bytes, digest })
            })
            .collect::<Result<_, _>>()?;
        if files.len() > MAX_FILES || files.iter().map(|f| f.bytes.len()).sum::<usize>() > MAX_TOTAL_BYTES {
            return Err(SkillError::TooLarge);
        }
        // SKILL.md first, the rest in URI order.
        files.sort_by(|a, b| (a.path != "SKILL.md", &a.path).cmp(&(b.path != "SKILL.md", &b.path)));
        files.dedup_by(|a, b| a.path == b.path);
        let skill_md = files.first().filter(|f| f.path == "SKILL.md").ok_or(SkillError::NoSkillMd)?;
        let text = std::str::from_utf8(&skill_md.bytes)
            .map_err(|_| SkillError::Frontmatter("SKILL.md is not UTF-8".into()))?;
        let frontmatter = frontmatter(text)?;
        let name = frontmatter.get("name").and_then(Value::as_str).unwrap_or_default().to_owned();
        if !valid_name(&name) {
            return Err(SkillError::Name(name, "use lowercase letters, digits and single hyphens (at most 64)"));
        }
        if path.rsplit('/').next() != Some(name.as_str()) {
            return Err(SkillError::Name(name, "must equal the last segment of the skill's root URI"));
        }
        if frontmatter.get("description").and_then(Value::as_str).is_none_or(str::is_empty) {
            return Err(SkillError::Frontmatter("a non-empty description is required".into()));
        }
        Ok(Skill { root: root.to_owned(), frontmatter, files })
    }

    /// A skill from a directory on disk: every file under `dir` (recursively).
    pub fn from_dir(root: &str, dir: &Path) -> Result<Skill, SkillError> {
        fn walk(base: &Path, dir: &Path, out: &mut Vec<(String, Vec<u8>)>) -> Result<(), SkillError> {
            let entries = std::fs::read_dir(dir).map_err(|e| SkillError::Io(format!("{}: {e}", dir.display())))?;
            for entry in entries {
                let entry = entry.map_err(|e| SkillError::Io(e.to_string()))?;
                let p = entry.path();
                if p.is_dir() {
                    walk(base, &p, out)?;
                } else {
                    let rel = p.strip_prefix(base).map_err(|e| SkillError::Io(e.to_string()))?;
                    let bytes = std::fs::read(&p).map_err(|e| SkillError::Io(format!("{}: {e}", p.display())))?;
                    out.push((rel.to_string_lossy().into_owned(), bytes));
                }
            }
            Ok(())
        }
        let mut files = Vec::new();
        walk(dir, dir, &mut files)?;
        Skill::new(root, files)
    }

    /// The skill's name.
    pub fn name(&self) -> &str {
        self.frontmatter.get("name").and_then(Value::as_str).unwrap_or_default()
    }

    /// The URI of its `SKILL.md`.
    pub fn uri(&self) -> String {
        format!("{}/SKILL.md", self.root)
    }

    fn file_uri(&self, f: &SkillFile) -> String {
        format!("{}/{}", self.root, f.path)
    }

    /// The skill's root (`skill://add-numbers`).
    pub(crate) fn root(&self) -> &str {
        &self.root
    }

    /// The same skill served under another root (a mounted child's, under the parent's
    /// prefix).
    pub(crate) fn rerooted(&self, root: String) -> Skill {
        Skill { root, frontmatter: self.frontmatter.clone(), files: self.files.clone() }
    }

    /// The `skills/list` entry.
    fn entry(&self) -> Value {
        let resources: Vec<Value> = self
            .files
            .iter()
            .map(|f| json!({ "uri": self.file_uri(f), "digest": f.digest, "size": f.bytes.len() }))
            .collect();
        json!({ "uri": self.uri(), "frontmatter": self.frontmatter, "resources": resources })
    }

    fn resource(&self, f: &SkillFile) -> Resource {
        let mut r = Resource::new(self.file_uri(f), f.path.rsplit('/').next().unwrap_or(&f.path))
            .with_mime_type(f.mime_type.clone());
        r.size = Some(f.bytes.len() as u64);
        if f.path == "SKILL.md" {
            r.name = self.name().to_owned();
            r.description = self.frontmatter.get("description").and_then(Value::as_str).map(str::to_owned);
        }
        r
    }

    /// The direct children of directory `uri` of this skill, if it is one.
    fn children(&self, uri: &str) -> Option<Vec<Resource>> {
        let dir = if uri == self.root { "" } else { uri.strip_prefix(&self.root)?.strip_prefix('/')? };
        let prefix = if dir.is_empty() { String::new() } else { format!("{dir}/") };
        if !dir.is_empty() && !self.files.iter().any(|f| f.path.starts_with(&prefix)) {
            return None;
        }
        let mut subdirs = BTreeSet::new();
        let mut out = Vec::new();
        for f in &self.files {
            let Some(rest) = f.path.strip_prefix(&prefix) else { continue };
            match rest.split_once('/') {
                None => out.push(self.resource(f)),
                Some((sub, _)) => {
                    subdirs.insert(sub.to_owned());
                }
            }
        }
        for sub in subdirs {
            let mut r = Resource::new(format!("{}/{}{sub}", self.root, prefix), sub.clone());
            r.mime_type = Some(DIRECTORY_MIME_TYPE.to_owned());
            out.push(r);
        }
        Some(out)
    }
}

/// The skills a server serves, shared by its extension methods.
#[derive(Default)]
pub(crate) struct SkillSet {
    skills: RwLock<Vec<Arc<Skill>>>,
}

/// The methods a skill set serves (a mounted child's are not copied as its custom methods:
/// the parent serves the child's skills from its own set, under their rewritten roots).
pub(crate) const METHODS: [&str; 3] = ["skills/list", "skills/get", "resources/directory/read"];

impl SkillSet {
    /// Every skill in the set.
    pub(crate) fn all(&self) -> Vec<Arc<Skill>> {
        read(&self.skills).clone()
    }

    /// Put `new` (a mount's skills) in place of `old` (what the mount put here before); one
    /// whose root the set already serves otherwise (the server's own) is left out.
    pub(crate) fn replace(&self, old: &[Arc<Skill>], new: &[Arc<Skill>]) {
        let mut skills = write(&self.skills);
        skills.retain(|s| !old.iter().any(|o| Arc::ptr_eq(s, o)));
        for skill in new {
            if !skills.iter().any(|s| s.root == skill.root) {
                skills.push(skill.clone());
            }
        }
    }
}

fn no_cursor(params: &Map<String, Value>) -> Result<(), HandlerError> {
    match params.get("cursor") {
        None | Some(Value::Null) => Ok(()),
        Some(_) => Err(ErrorObject::invalid_params("Invalid cursor: everything fits one page").into()),
    }
}

fn uri_param(params: &Map<String, Value>, method: &str) -> Result<String, HandlerError> {
    params
        .get("uri")
        .and_then(Value::as_str)
        .map(str::to_owned)
        .ok_or_else(|| ErrorObject::invalid_params(format!("{method}: uri (a string) is required")).into())
}

impl Server {
    /// Serve a skill (see [`crate::skills`]): its files as resources, the extension
    /// advertised, `skills/list`, `skills/get` and `resources/directory/read` served. A
    /// skill with the same root replaces the previous one.
    pub fn add_skill(&self, skill: Skill) -> Result<(), ConfigError> {
        let skill = Arc::new(skill);
        let set = self.skill_set()?;
        for f in &skill.files {
            let resource = skill.resource(f);
            let (skill, path) = (skill.clone(), f.path.clone());
            self.add_resource(resource, move |uri: String, _v: TemplateVariables, _ctx: RequestContext| {
                let f = skill.files.iter().find(|f| f.path == path);
                let contents = f.map(|f| match std::str::from_utf8(&f.bytes) {
                    Ok(text) if f.mime_type.starts_with("text/") || f.mime_type.ends_with("json") => {
                        ResourceContents::text(uri.clone(), Some(&f.mime_type), text)
                    }
                    _ => ResourceContents::blob(
                        uri.clone(),
                        Some(&f.mime_type),
                        base64::engine::general_purpose::STANDARD.encode(&f.bytes),
                    ),
                });
                async move { Ok(ReadResourceResult { contents: contents.into_iter().collect(), meta: None }) }
            });
        }
        let mut skills = write(&set.skills);
        skills.retain(|s| s.root != skill.root);
        skills.push(skill);
        Ok(())
    }

    /// The shared skill set, created (with the extension and its methods) on first use.
    pub(crate) fn skill_set(&self) -> Result<Arc<SkillSet>, ConfigError> {
        if let Some(s) = self.skills() {
            return Ok(s);
        }
        let set = Arc::new(SkillSet::default());
        self.add_extension(EXTENSION_ID, json!({ "directoryRead": true }))?;
        let s = set.clone();
        let server = self.downgrade();
        self.add_method("skills/list", move |params: Map<String, Value>, _ctx: RequestContext| {
            let result = no_cursor(&params).map(|()| {
                let skills: Vec<Value> = read(&s.skills).iter().map(|k| k.entry()).collect();
                let hint = server.upgrade().map(|s| s.cache_hints().resources_list).unwrap_or_default();
                json!({ "skills": skills, "ttlMs": hint.ttl_ms, "cacheScope": hint.cache_scope })
            });
            async move { result }
        })?;
        let s = set.clone();
        let server = self.downgrade();
        self.add_method("skills/get", move |params: Map<String, Value>, _ctx: RequestContext| {
            let result = uri_param(&params, "skills/get").and_then(|uri| {
                let found = read(&s.skills).iter().find(|k| k.uri() == uri).map(|k| k.entry());
                let entry = found.ok_or_else(|| ErrorObject::invalid_params(format!("No skill is served at {uri}")))?;
                let hint = server.upgrade().map(|s| s.cache_hints().resources_list).unwrap_or_default();
                Ok(json!({ "skill": entry, "ttlMs": hint.ttl_ms, "cacheScope": hint.cache_scope }))
            });
            async move { result }
        })?;
        let s = set.clone();
        self.add_method("resources/directory/read", move |params: Map<String, Value>, _ctx: RequestContext| {
            let result = uri_param(&params, "resources/directory/read").and_then(|uri| {
                no_cursor(&params)?;
                let children = read(&s.skills).iter().find_map(|k| k.children(&uri));
                let children = children
                    .ok_or_else(|| ErrorObject::invalid_params(format!("{uri} is not a directory resource")))?;
                Ok(json!({ "resources": children }))
            });
            async move { result }
        })?;
        self.set_skills(set.clone());
        Ok(set)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SKILL_MD: &str = "---\nname: add-numbers\ndescription: Add two integers with the add tool and report the sum\n---\n\n# Add numbers\n\nCall the add tool with integer arguments a and b, then report the sum.\nWorked examples are in references/EXAMPLES.md.\n";
    const EXAMPLES: &str = "# Examples\n\n- add(a=2, b=3) returns 5\n- add(a=-4, b=10) returns 6\n";

    fn fixture() -> Skill {
        Skill::new(
            "skill://add-numbers",
            [
                ("references/EXAMPLES.md".to_owned(), EXAMPLES.as_bytes().to_vec()),
                ("SKILL.md".to_owned(), SKILL_MD.as_bytes().to_vec()),
            ],
        )
        .unwrap()
    }

    #[test]
    fn digests_and_sizes_are_of_the_bytes_served() {
        let e = fixture().entry();
        assert_eq!(e["uri"], "skill://add-numbers/SKILL.md");
        assert_eq!(e["frontmatter"]["name"], "add-numbers");
        let r = &e["resources"];
        assert_eq!(r[0]["uri"], "skill://add-numbers/SKILL.md");
        assert_eq!(r[0]["size"], 227);
        assert_eq!(r[0]["digest"], "sha256:4ddd6ac76b1e3a33f5baac1beaae502daeeaa331e73c229871a843c1f3a1ec0a");
        assert_eq!(r[1]["uri"], "skill://add-numbers/references/EXAMPLES.md");
        assert_eq!(r[1]["size"], 66);
        assert_eq!(r[1]["digest"], "sha256:ca933a353c549b9d4d927b59ffa38f6f40b9a5c3692edaae1358c8ae198412f8");
    }

    #[test]
    fn directories_list_direct_children() {
        let s = fixture();
        let root: Vec<(String, Option<String>)> =
            s.children("skill://add-numbers").unwrap().into_iter().map(|r| (r.uri, r.mime_type)).collect();
        assert_eq!(
            root,
            vec![
                ("skill://add-numbers/SKILL.md".to_owned(), Some("text/markdown".to_owned())),
                ("skill://add-numbers/references".to_owned(), Some(DIRECTORY_MIME_TYPE.to_owned())),
            ]
        );
        assert_eq!(s.children("skill://add-numbers/references").unwrap().len(), 1);
        assert!(s.children("skill://add-numbers/SKILL.md").is_none(), "a file is no directory");
        assert!(s.children("skill://add-numbers/nope").is_none());
        assert!(s.children("skill://other").is_none());
    }

    #[test]
    fn bad_skills_are_refused_with_the_reason() {
        let md = |s: &str| vec![("SKILL.md".to_owned(), s.as_bytes().to_vec())];
        assert_eq!(Skill::new("skill://x", vec![]).unwrap_err(), SkillError::NoSkillMd);
        assert!(matches!(Skill::new("skill://x", md("no frontmatter")), Err(SkillError::Frontmatter(_))));
        assert!(matches!(Skill::new("skill://x", md("---\nname: x\n---\n")), Err(SkillError::Frontmatter(_))));
        assert!(matches!(
            Skill::new("skill://y", md("---\nname: x\ndescription: d\n---\n")),
            Err(SkillError::Name(_, _))
        ));
        assert!(matches!(
            Skill::new("skill://Bad--Name", md("---\nname: Bad--Name\ndescription: d\n---\n")),
            Err(SkillError::Name(_, _))
        ));
        assert!(matches!(
            Skill::new("skill://x/", md("---\nname: x\ndescription: d\n---\n")),
            Err(SkillError::Root(_))
        ));
        let mut files = md("---\nname: x\ndescription: d\n---\n");
        files.push(("../escape".into(), vec![]));
        assert!(matches!(Skill::new("skill://x", files), Err(SkillError::Path(_))));
        assert!(Skill::new("skill://acme/x", md("---\nname: x\ndescription: d\n---\n")).is_ok(), "nested roots");
    }
}
