//! The four resource types as one table of properties, and what follows from it: the inputs an
//! import hands back, Check's defaults and Diff.
//!
//! Tokens, names, types, required lists and secret flags are those of `@pulumi/postgresql`
//! (tested against its schema). Defaults, "computed" and "replace on change" are those of the
//! Terraform provider the Pulumi package bridges, because they decide what its state holds and
//! when `pulumi up` shows a diff:
//! - a property with a default (`connectionLimit: -1`, `inherit: true`, `validUntil: "infinity"`,
//!   ...) is left out of an import's inputs when it holds that default; one without a default is
//!   left out when it holds its type's zero value (`""`, `0`, `false`, `[]`). Required
//!   properties (`name`) are always kept. This is the bridge's rule for imported inputs.
//! - a computed property (a database's `owner`, `encoding`, ...) left out of a program takes
//!   whatever the server has, so it never differs.

use serde_json::{json, Map, Value};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ty {
    Bool,
    Int,
    Str,
    StrList,
    /// A list of `SchemaPolicy` objects.
    PolicyList,
}

impl Ty {
    pub fn zero(self) -> Value {
        match self {
            Ty::Bool => json!(false),
            Ty::Int => json!(0),
            Ty::Str => json!(""),
            Ty::StrList | Ty::PolicyList => json!([]),
        }
    }
    pub fn accepts(self, v: &Value) -> bool {
        match self {
            Ty::Bool => v.is_boolean(),
            Ty::Int => v.as_f64().is_some_and(|n| n.fract() == 0.0),
            Ty::Str => v.is_string(),
            Ty::StrList => v.as_array().is_some_and(|a| a.iter().all(Value::is_string)),
            Ty::PolicyList => v.as_array().is_some_and(|a| a.iter().all(Value::is_object)),
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            Ty::Bool => "a boolean",
            Ty::Int => "an integer",
            Ty::Str => "a string",
            Ty::StrList => "a list of strings",
            Ty::PolicyList => "a list of policy objects",
        }
    }
}

pub struct Prop {
    pub name: &'static str,
    pub ty: Ty,
    /// The Terraform provider's default, applied when a program leaves the property out.
    pub default: Option<Value>,
    /// Left out of a program, it takes the server's value.
    pub computed: bool,
    /// A change replaces the resource (Terraform's `ForceNew`).
    pub replaces: bool,
    /// Required by the Terraform schema, so an import always keeps it in the inputs.
    pub required: bool,
    pub secret: bool,
    pub deprecated: Option<&'static str>,
    pub description: &'static str,
}

const fn prop(name: &'static str, ty: Ty, description: &'static str) -> Prop {
    Prop {
        name,
        ty,
        default: None,
        computed: false,
        replaces: false,
        required: false,
        secret: false,
        deprecated: None,
        description,
    }
}

impl Prop {
    fn default(mut self, v: Value) -> Prop {
        self.default = Some(v);
        self
    }
    fn computed(mut self) -> Prop {
        self.computed = true;
        self
    }
    fn replaces(mut self) -> Prop {
        self.replaces = true;
        self
    }
    fn required(mut self) -> Prop {
        self.required = true;
        self
    }
    fn secret(mut self) -> Prop {
        self.secret = true;
        self
    }
    fn deprecated(mut self, message: &'static str) -> Prop {
        self.deprecated = Some(message);
        self
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Role,
    Database,
    Schema,
    Extension,
}

pub const KINDS: [Kind; 4] = [Kind::Role, Kind::Database, Kind::Schema, Kind::Extension];

impl Kind {
    pub fn from_token(token: &str) -> Option<Kind> {
        KINDS.into_iter().find(|k| k.token() == token)
    }
    pub fn token(self) -> &'static str {
        match self {
            Kind::Role => "postgresql:index/role:Role",
            Kind::Database => "postgresql:index/database:Database",
            Kind::Schema => "postgresql:index/schema:Schema",
            Kind::Extension => "postgresql:index/extension:Extension",
        }
    }
    /// The import ID format, as the real provider documents it.
    pub fn id_format(self) -> &'static str {
        match self {
            Kind::Role => "the role's name",
            Kind::Database => "the database's name",
            Kind::Schema => "`<database>.<schema>`",
            Kind::Extension => "`<database>.<extension>`",
        }
    }
    /// `id_format` as a template of properties (`<database>.<name>`).
    pub fn import_id_template(self) -> &'static str {
        match self {
            Kind::Role | Kind::Database => "<name>",
            Kind::Schema | Kind::Extension => "<database>.<name>",
        }
    }
    pub fn description(self) -> &'static str {
        match self {
            Kind::Role => "A role (user or group) of the PostgreSQL server. Import with the role's name as the ID.",
            Kind::Database => "A database of the PostgreSQL server. Import with the database's name as the ID.",
            Kind::Schema => "A schema in one database. Import with `<database>.<schema>` as the ID.",
            Kind::Extension => "An extension installed in one database. Import with `<database>.<extension>` as the ID.",
        }
    }
    /// Output properties the schema lists as always present.
    pub fn required_outputs(self) -> &'static [&'static str] {
        match self {
            Kind::Role => &["name"],
            Kind::Database => &[
                "encoding",
                "isTemplate",
                "lcCollate",
                "lcCtype",
                "name",
                "owner",
                "tablespaceName",
                "template",
            ],
            Kind::Schema => &["database", "name", "owner", "policies"],
            Kind::Extension => &["database", "name", "schema", "version"],
        }
    }
    /// The filter `List` takes (the schema's `listInputs`).
    pub fn list_inputs(self) -> Value {
        let prefix =
            json!({"type": "string", "description": "Only objects whose name starts with this."});
        match self {
            Kind::Role | Kind::Database => json!({"properties": {"namePrefix": prefix}}),
            Kind::Schema | Kind::Extension => json!({"properties": {
                "namePrefix": prefix,
                "database": {"type": "string", "description": "Only this database; every database that accepts connections when left out."}
            }}),
        }
    }

    pub fn props(self) -> Vec<Prop> {
        match self {
            Kind::Role => vec![
                prop("assumeRole", Ty::Str, "The role to switch to at login (`SET ROLE`)."),
                prop("bypassRowLevelSecurity", Ty::Bool, "Whether the role bypasses every row-level security policy. Default: false.").default(json!(false)),
                prop("connectionLimit", Ty::Int, "How many connections the role may hold at once; -1 for no limit. Default: -1.").default(json!(-1)),
                prop("createDatabase", Ty::Bool, "Whether the role may create databases. Default: false.").default(json!(false)),
                prop("createRole", Ty::Bool, "Whether the role may create roles. Default: false.").default(json!(false)),
                prop("encrypted", Ty::Str, "Older name of `encryptedPassword`.")
                    .deprecated("Rename PostgreSQL role resource attribute \"encrypted\" to \"encrypted_password\""),
                prop("encryptedPassword", Ty::Bool, "Whether the password is stored encrypted. Default: true.").default(json!(true)),
                prop("idleInTransactionSessionTimeout", Ty::Int, "Milliseconds a session may stay idle in a transaction; 0 for no limit."),
                prop("inherit", Ty::Bool, "Whether the role inherits the privileges of the roles it is a member of. Default: true.").default(json!(true)),
                prop("login", Ty::Bool, "Whether the role may log in. Default: false.").default(json!(false)),
                prop("name", Ty::Str, "The role's name, unique on the server.").required(),
                prop("password", Ty::Str, "The role's password.").secret(),
                prop("passwordWo", Ty::Str, "A write-only password, never kept in state.").secret(),
                prop("passwordWoVersion", Ty::Str, "Changing it sets `passwordWo` again."),
                prop("replication", Ty::Bool, "Whether the role may start streaming replication. Default: false.").default(json!(false)),
                prop("roles", Ty::StrList, "The roles this role is a member of."),
                prop("searchPaths", Ty::StrList, "The role's `search_path`."),
                prop("skipDropRole", Ty::Bool, "Leave the role on the server when the resource is deleted. Default: false.").default(json!(false)),
                prop("skipReassignOwned", Ty::Bool, "Skip `REASSIGN OWNED`/`DROP OWNED` when the resource is deleted. Default: false.").default(json!(false)),
                prop("statementTimeout", Ty::Int, "Milliseconds after which a statement is cancelled; 0 for no limit."),
                prop("superuser", Ty::Bool, "Whether the role is a superuser. Default: false.").default(json!(false)),
                prop("validUntil", Ty::Str, "When the role's password stops being valid. Default: `infinity`.").default(json!("infinity")),
            ],
            Kind::Database => vec![
                prop("allowConnections", Ty::Bool, "Whether anyone may connect to the database. Default: true.").default(json!(true)),
                prop("alterObjectOwnership", Ty::Bool, "Whether changing the owner also reassigns the objects the old owner had. Default: false.")
                    .default(json!(false)),
                prop("connectionLimit", Ty::Int, "How many connections the database accepts at once; -1 for no limit. Default: -1.").default(json!(-1)),
                prop("encoding", Ty::Str, "The character set encoding, such as `UTF8`.").computed().replaces(),
                prop("isTemplate", Ty::Bool, "Whether any role with CREATEDB may clone the database.").computed(),
                prop("lcCollate", Ty::Str, "The collation order (`LC_COLLATE`).").computed().replaces(),
                prop("lcCtype", Ty::Str, "The character classification (`LC_CTYPE`).").computed().replaces(),
                prop("name", Ty::Str, "The database's name, unique on the server.").required(),
                prop("owner", Ty::Str, "The role that owns the database.").computed(),
                prop("tablespaceName", Ty::Str, "The database's default tablespace.").computed(),
                prop("template", Ty::Str, "The template the database was created from. Default: `template0`.").computed().replaces(),
            ],
            Kind::Schema => vec![
                prop("database", Ty::Str, "The database the schema is in. Default: the provider's database.").computed().replaces(),
                prop("dropCascade", Ty::Bool, "Also drop the schema's objects when it is deleted. Default: false.").default(json!(false)),
                prop("ifNotExists", Ty::Bool, "Take over the schema if it already exists. Default: true.").default(json!(true)),
                prop("name", Ty::Str, "The schema's name, unique in its database.").required(),
                prop("owner", Ty::Str, "The role that owns the schema.").computed(),
                prop("policies", Ty::PolicyList, "Privileges on the schema, one entry per role.")
                    .computed()
                    .deprecated("Use postgresql_grant resource instead (with object_type=\"schema\")"),
            ],
            Kind::Extension => vec![
                prop("createCascade", Ty::Bool, "Also create the extensions this one needs. Default: false.").default(json!(false)),
                prop("database", Ty::Str, "The database the extension is in. Default: the provider's database.").computed().replaces(),
                prop("dropCascade", Ty::Bool, "Also drop what depends on the extension when it is deleted. Default: false.").default(json!(false)),
                prop("name", Ty::Str, "The extension's name.").required().replaces(),
                prop("schema", Ty::Str, "The schema the extension's objects are in.").computed(),
                prop("version", Ty::Str, "The extension's version.").computed(),
            ],
        }
    }
}

pub type Props = Map<String, Value>;

/// The inputs an import hands back for the outputs `Read` found: the bridge's rule (see the
/// module comment).
pub fn import_inputs(kind: Kind, outputs: &Props) -> Props {
    let mut inputs = Props::new();
    for p in kind.props() {
        let Some(v) = outputs.get(p.name) else { continue };
        if v.is_null() {
            continue;
        }
        let keep = p.required
            || !p.default.as_ref().map_or_else(|| equal(v, &p.ty.zero()), |d| equal(v, d));
        if keep {
            inputs.insert(p.name.into(), v.clone());
        }
    }
    inputs
}

/// Check: type errors are failures by property; a missing `name` is generated from the
/// resource's URN name, as Pulumi's auto-naming does; defaults are filled in.
pub fn check(kind: Kind, urn_name: &str, news: &Props) -> (Props, Vec<(String, String)>) {
    let props = kind.props();
    let mut failures = Vec::new();
    for (k, v) in news {
        if k.starts_with("__") || v.is_null() {
            continue;
        }
        match props.iter().find(|p| p.name == k) {
            None => {
                failures.push((k.clone(), format!("`{k}` is not a property of {}", kind.token())))
            }
            Some(p) if !p.ty.accepts(v) => {
                failures.push((k.clone(), format!("`{k}` must be {}, found {v}", p.ty.name())))
            }
            Some(_) => {}
        }
    }
    let mut checked: Props = news
        .iter()
        .filter(|(k, v)| !k.starts_with("__") && !v.is_null())
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    if !checked.contains_key("name") {
        let suffix: u32 = rand::random::<u32>() & 0x0fff_ffff;
        checked.insert("name".into(), json!(format!("{urn_name}-{suffix:07x}")));
    }
    for p in &props {
        if let (Some(d), false) = (&p.default, checked.contains_key(p.name)) {
            checked.insert(p.name.into(), d.clone());
        }
    }
    if let Some(Value::Number(n)) = checked.get("connectionLimit") {
        if n.as_f64().is_some_and(|n| n < -1.0) {
            failures.push(("connectionLimit".into(), "must be -1 (no limit) or more".into()));
        }
    }
    (checked, failures)
}

/// One property that differs, and whether the change replaces the resource.
#[derive(Debug, PartialEq)]
pub struct Change {
    pub name: &'static str,
    pub replaces: bool,
}

/// What a program's (checked) inputs change against the resource's current outputs.
pub fn diff(kind: Kind, olds: &Props, news: &Props) -> Vec<Change> {
    let mut changes = Vec::new();
    for p in kind.props() {
        // Write-only and delete-time settings never differ from the server.
        if matches!(p.name, "passwordWo" | "encrypted") {
            continue;
        }
        let new = match news.get(p.name).filter(|v| !v.is_null()) {
            Some(v) => v.clone(),
            None if p.computed => continue,
            None => p.default.clone().unwrap_or_else(|| p.ty.zero()),
        };
        let old = olds
            .get(p.name)
            .filter(|v| !v.is_null())
            .cloned()
            .unwrap_or_else(|| p.default.clone().unwrap_or_else(|| p.ty.zero()));
        if !same(p.name, &old, &new) {
            changes.push(Change { name: p.name, replaces: p.replaces });
        }
    }
    changes
}

fn same(name: &str, old: &Value, new: &Value) -> bool {
    match (name, old, new) {
        // A role's memberships are a set.
        ("roles", Value::Array(a), Value::Array(b)) => {
            let mut a: Vec<&Value> = a.iter().collect();
            let mut b: Vec<&Value> = b.iter().collect();
            a.sort_by_key(|v| v.to_string());
            b.sort_by_key(|v| v.to_string());
            a == b
        }
        ("validUntil", Value::String(a), Value::String(b)) => a.eq_ignore_ascii_case(b),
        _ => equal(old, new),
    }
}

/// JSON equality where numbers compare by value: the wire carries every number as a double, so
/// `5.0` from the engine is the `5` the server has.
fn equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| equal(x, y))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| equal(v, w)))
        }
        _ => a == b,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn obj(v: Value) -> Props {
        v.as_object().cloned().unwrap()
    }

    #[test]
    fn import_inputs_leave_out_defaults_and_zero_values_but_keep_the_name() {
        let outputs = obj(json!({
            "id": "app", "name": "app", "connectionLimit": -1, "inherit": true, "login": false, "validUntil": "infinity",
            "password": "", "roles": [], "statementTimeout": 0, "createDatabase": true, "superuser": false
        }));
        assert_eq!(
            import_inputs(Kind::Role, &outputs),
            obj(json!({"createDatabase": true, "name": "app"}))
        );
        // A value that differs from the default is kept, even when it is its type's zero.
        let outputs = obj(json!({"name": "ops", "inherit": false, "connectionLimit": 0}));
        assert_eq!(
            import_inputs(Kind::Role, &outputs),
            obj(json!({"connectionLimit": 0, "inherit": false, "name": "ops"}))
        );
    }

    #[test]
    fn check_fills_defaults_names_unknown_properties_and_wrong_types() {
        let (checked, failures) = check(
            Kind::Database,
            "db",
            &obj(json!({"name": "db", "connectionLimit": "ten", "colour": "red"})),
        );
        assert_eq!(checked["allowConnections"], json!(true));
        assert_eq!(checked["alterObjectOwnership"], json!(false));
        let props: Vec<&str> = failures.iter().map(|(p, _)| p.as_str()).collect();
        assert_eq!(props, ["connectionLimit", "colour"]);
        let (checked, _) = check(Kind::Role, "web", &Props::new());
        assert!(
            checked["name"].as_str().unwrap().starts_with("web-"),
            "a missing name is generated from the URN name"
        );
    }

    #[test]
    fn diff_compares_numbers_by_value_sets_as_sets_and_skips_computed_properties() {
        let olds = obj(
            json!({"name": "app", "connectionLimit": 5, "roles": ["a", "b"], "validUntil": "infinity", "owner": "x"}),
        );
        let news = obj(
            json!({"name": "app", "connectionLimit": 5.0, "roles": ["b", "a"], "validUntil": "INFINITY"}),
        );
        assert_eq!(diff(Kind::Role, &olds, &news), vec![]);
        let changed = diff(
            Kind::Database,
            &obj(json!({"name": "d", "encoding": "UTF8", "owner": "x"})),
            &obj(json!({"name": "d", "encoding": "LATIN1"})),
        );
        assert_eq!(
            changed,
            vec![Change { name: "encoding", replaces: true }],
            "owner is computed: left out, it does not differ"
        );
    }
}
