//! Lock keys (`MDL_key`): a namespace plus a database name and an object name.

use crate::decide::dialect::{Dialect, KeyForm, Namespace};
use std::fmt;
use std::hash::{BuildHasherDefault, Hash, Hasher};

/// The key of a lockable object. Cheap to clone (one reference count); hashing writes a
/// precomputed hash. Keys order as MySQL sorts bulk requests: namespace in the dialect's
/// enum order, then the database name, then the object name, byte by byte.
#[derive(Clone)]
pub struct MdlKey(crate::sync::DataArc<KeyData>);

struct KeyData {
    ns: Namespace,
    db: Box<str>,
    name: Box<str>,
    hash: u64,
}

fn fnv(ns: Namespace, db: &str, name: &str) -> u64 {
    // FNV-1a over the MDL_key byte form: namespace, db, NUL, name, NUL.
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut eat = |b: u8| {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    };
    eat(ns.0);
    db.bytes().for_each(&mut eat);
    eat(0);
    name.bytes().for_each(&mut eat);
    eat(0);
    h
}

impl MdlKey {
    /// The key of object `db`.`name` in namespace `ns` (`""` for a part the namespace
    /// does not use). For the built-in namespaces, the dialect's typed constructors
    /// ([`Dialect::table`] and friends) find `ns` by name.
    pub fn new(ns: Namespace, db: &str, name: &str) -> MdlKey {
        MdlKey(crate::sync::DataArc::new(KeyData {
            ns,
            db: db.into(),
            name: name.into(),
            hash: fnv(ns, db, name),
        }))
    }

    /// The key of a namespace with a single unnamed object (GLOBAL, COMMIT, BACKUP).
    pub fn singleton(ns: Namespace) -> MdlKey {
        MdlKey::new(ns, "", "")
    }

    /// Builds a key by namespace name, checking the key form the dialect expects.
    pub fn parse(d: &Dialect, ns: &str, key: &str) -> Result<MdlKey, String> {
        let n = d
            .namespace_by_name(ns)
            .ok_or_else(|| format!("unknown namespace `{ns}` in dialect {}", d.name))?;
        MdlKey::in_namespace(d, n, key)
    }

    /// Builds a key of namespace `n` from its scenario form (`-`, `db`, `db.name`, with
    /// backtick quoting of either part).
    pub fn in_namespace(d: &Dialect, n: Namespace, key: &str) -> Result<MdlKey, String> {
        let info = d.namespace(n);
        let parts = split_key(key)?;
        match (info.key_form, parts.as_slice()) {
            (KeyForm::Single, [p]) if p == "-" => Ok(MdlKey::singleton(n)),
            (KeyForm::Single, _) => Err(format!("namespace {} takes the key `-`", info.name)),
            (KeyForm::Db, [db]) if db != "-" => Ok(MdlKey::new(n, db, "")),
            (KeyForm::Db, _) => Err(format!("namespace {} takes a key `db`", info.name)),
            (KeyForm::Qualified, [db, name]) => Ok(MdlKey::new(n, db, name)),
            (KeyForm::Qualified, _) => {
                Err(format!("namespace {} takes a key `db.name`", info.name))
            }
        }
    }

    /// The key's namespace.
    #[inline]
    pub fn namespace(&self) -> Namespace {
        self.0.ns
    }
    /// The database (schema) part, `""` when the namespace has none.
    pub fn db(&self) -> &str {
        &self.0.db
    }
    /// The object name part, `""` when the namespace has none.
    pub fn name(&self) -> &str {
        &self.0.name
    }
    /// The two keys are one value shared (one allocation): equal without reading it.
    #[inline]
    pub(crate) fn same_value(&self, o: &MdlKey) -> bool {
        crate::sync::DataArc::ptr_eq(&self.0, &o.0)
    }

    /// The key's precomputed hash (FNV-1a over its `MDL_key` byte form).
    #[inline]
    pub fn hash_value(&self) -> u64 {
        self.0.hash
    }

    /// The key as a scenario writes it (`-`, `db`, `db.name`, quoted where needed).
    pub fn key_text(&self, d: &Dialect) -> String {
        match d.namespace(self.0.ns).key_form {
            KeyForm::Single => "-".into(),
            KeyForm::Db => quote(self.db()),
            KeyForm::Qualified => format!("{}.{}", quote(self.db()), quote(self.name())),
        }
    }

    /// `NAMESPACE key` as a scenario writes it.
    pub fn display(&self, d: &Dialect) -> String {
        format!("{} {}", d.namespace(self.0.ns).name, self.key_text(d))
    }
}

fn quote(s: &str) -> String {
    let plain = !s.is_empty()
        && s != "-"
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$');
    if plain {
        s.to_owned()
    } else {
        format!("`{s}`")
    }
}

/// Splits `db.name` into its parts, honouring backtick quotes.
pub fn split_key(key: &str) -> Result<Vec<String>, String> {
    let mut parts = Vec::new();
    let mut cur = String::new();
    let mut chars = key.chars().peekable();
    let mut quoted_part = false;
    while let Some(c) = chars.next() {
        match c {
            '`' => {
                if !cur.is_empty() || quoted_part {
                    return Err("a backtick may only open a key part".into());
                }
                let mut closed = false;
                for q in chars.by_ref() {
                    if q == '`' {
                        closed = true;
                        break;
                    }
                    if q == '\n' {
                        break;
                    }
                    cur.push(q);
                }
                if !closed {
                    return Err("unclosed backtick in key".into());
                }
                quoted_part = true;
                if let Some(&n) = chars.peek() {
                    if n != '.' {
                        return Err("expected `.` after a quoted key part".into());
                    }
                }
            }
            '.' => {
                if cur.is_empty() && !quoted_part {
                    return Err("empty key part".into());
                }
                parts.push(std::mem::take(&mut cur));
                quoted_part = false;
            }
            c => {
                if quoted_part {
                    return Err("expected `.` after a quoted key part".into());
                }
                cur.push(c)
            }
        }
    }
    if cur.is_empty() && !quoted_part {
        return Err("empty key part".into());
    }
    parts.push(cur);
    Ok(parts)
}

/// A [`Hasher`] for maps keyed by [`MdlKey`] (or by its `hash_value`): a key hashes
/// itself with one `write_u64` of its precomputed hash, which passes straight through;
/// any other input is folded FNV-style.
#[derive(Default)]
pub struct KeyHasher(u64);

impl Hasher for KeyHasher {
    #[inline]
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 = (self.0 ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3);
        }
    }
    #[inline]
    fn write_u64(&mut self, v: u64) {
        self.0 = v;
    }
}

/// The `BuildHasher` of [`KeyHasher`]: `HashMap<MdlKey, V, KeyHashBuilder>`.
pub type KeyHashBuilder = BuildHasherDefault<KeyHasher>;

impl PartialEq for MdlKey {
    #[inline]
    fn eq(&self, o: &Self) -> bool {
        crate::sync::DataArc::ptr_eq(&self.0, &o.0)
            || (self.0.hash == o.0.hash
                && self.0.ns == o.0.ns
                && self.0.db == o.0.db
                && self.0.name == o.0.name)
    }
}
impl Eq for MdlKey {}

impl Hash for MdlKey {
    #[inline]
    fn hash<H: Hasher>(&self, h: &mut H) {
        h.write_u64(self.0.hash)
    }
}

impl PartialOrd for MdlKey {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for MdlKey {
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        // The same key object (a clone): equal without comparing the names.
        if crate::sync::DataArc::ptr_eq(&self.0, &o.0) {
            return std::cmp::Ordering::Equal;
        }
        (self.0.ns, self.0.db.as_bytes(), self.0.name.as_bytes()).cmp(&(
            o.0.ns,
            o.0.db.as_bytes(),
            o.0.name.as_bytes(),
        ))
    }
}

impl fmt::Debug for MdlKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}.{}", self.0.ns.0, self.0.db, self.0.name)
    }
}

/// Typed key constructors: the key of an object in the namespace the dialect names so
/// (`None` when the dialect has no such namespace; the built-in dialects have `TABLE`,
/// `SCHEMA`, `FUNCTION`, `PROCEDURE`, `TRIGGER`, `EVENT`; `GLOBAL` and `COMMIT` are
/// MySQL's, `BACKUP` MariaDB's).
impl Dialect {
    fn key_in(&self, ns: &str, db: &str, name: &str) -> Option<MdlKey> {
        self.namespace_by_name(ns).map(|n| MdlKey::new(n, db, name))
    }
    /// `TABLE db.name` (tables and views).
    pub fn table(&self, db: &str, name: &str) -> Option<MdlKey> {
        self.key_in("TABLE", db, name)
    }
    /// `SCHEMA db`.
    pub fn schema(&self, db: &str) -> Option<MdlKey> {
        self.key_in("SCHEMA", db, "")
    }
    /// `FUNCTION db.name` (a stored function).
    pub fn function(&self, db: &str, name: &str) -> Option<MdlKey> {
        self.key_in("FUNCTION", db, name)
    }
    /// `PROCEDURE db.name` (a stored procedure).
    pub fn procedure(&self, db: &str, name: &str) -> Option<MdlKey> {
        self.key_in("PROCEDURE", db, name)
    }
    /// `TRIGGER db.name`.
    pub fn trigger(&self, db: &str, name: &str) -> Option<MdlKey> {
        self.key_in("TRIGGER", db, name)
    }
    /// `EVENT db.name`.
    pub fn event(&self, db: &str, name: &str) -> Option<MdlKey> {
        self.key_in("EVENT", db, name)
    }
    /// MySQL's `GLOBAL` read lock scope (`FLUSH TABLES WITH READ LOCK`).
    pub fn global(&self) -> Option<MdlKey> {
        self.key_in("GLOBAL", "", "")
    }
    /// MySQL's `COMMIT` scope.
    pub fn commit(&self) -> Option<MdlKey> {
        self.key_in("COMMIT", "", "")
    }
    /// MariaDB's `BACKUP` scope (`BACKUP STAGE`, `FLUSH TABLES WITH READ LOCK`).
    pub fn backup(&self) -> Option<MdlKey> {
        self.key_in("BACKUP", "", "")
    }
    /// A user-level lock (`GET_LOCK(name)`): MySQL's `USER_LEVEL_LOCK`, MariaDB's
    /// `USER_LOCK`.
    pub fn user_lock(&self, name: &str) -> Option<MdlKey> {
        self.key_in("USER_LEVEL_LOCK", "", name)
            .or_else(|| self.key_in("USER_LOCK", "", name))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_keys() {
        let d = Dialect::mysql80();
        let k = MdlKey::parse(&d, "table", "test.t1").unwrap();
        assert_eq!((k.db(), k.name()), ("test", "t1"));
        let k = MdlKey::parse(&d, "TABLE", "`test`.`#sql-alter-1a2b`").unwrap();
        assert_eq!(k.name(), "#sql-alter-1a2b");
        assert_eq!(k.display(&d), "TABLE test.`#sql-alter-1a2b`");
        assert!(MdlKey::parse(&d, "GLOBAL", "-").is_ok());
        assert!(MdlKey::parse(&d, "GLOBAL", "x").is_err());
        assert!(MdlKey::parse(&d, "SCHEMA", "db").is_ok());
        assert!(MdlKey::parse(&d, "TABLE", "t1").is_err());
        assert!(MdlKey::parse(&d, "TABLE", "`a.b").is_err());
        assert!(MdlKey::parse(&d, "NOPE", "a.b").is_err());
        let a = MdlKey::parse(&d, "TABLE", "a.b").unwrap();
        let g = MdlKey::parse(&d, "GLOBAL", "-").unwrap();
        assert!(g < a, "GLOBAL sorts before TABLE");
        assert_eq!(a, MdlKey::parse(&d, "TABLE", "a.b").unwrap());
    }
}
