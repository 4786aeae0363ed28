//! Packages (`CREATE PACKAGE` / `CREATE PACKAGE BODY`, MariaDB's sql_mode=ORACLE
//! packages) as the catalog keeps them, and what package DDL does to them (the
//! statements are read in `classify/package.rs`; their locks are the learned rows
//! `create_package`, `create_package_body`, `drop_package`, `drop_package_body`).
//!
//! A package is two rows of `mysql.proc`, its spec (type PACKAGE) and its body (type
//! PACKAGE BODY), under one MDL key, `MDL_key::PACKAGE_BODY` (`Sp_handler_package_spec::
//! get_mdl_type` and `Sp_handler_package_body::get_mdl_type`, sql/sp.h). The server takes
//! that key's X with BACKUP_DDL and the schema's IX (`lock_object_name`, in
//! `Sp_handler::sp_create_routine` / `sp_drop_routine`, sql/sp.cc) and only then looks at
//! `mysql.proc`:
//!
//! - CREATE of a spec or body that exists: ER_SP_ALREADY_EXISTS (1304); IF NOT EXISTS a
//!   note; OR REPLACE of a spec drops its body too (`sp_create_routine`: `case
//!   SP_TYPE_PACKAGE: sp_handler_package_spec.sp_find_and_drop_routine`);
//! - DROP PACKAGE drops the body with the spec (`Sp_handler_package_spec::
//!   sp_find_and_drop_routine`); DROP of one that does not exist: ER_SP_DOES_NOT_EXIST
//!   (1305), a note with IF EXISTS;
//! - a schema that does not exist: CREATE fails with ER_BAD_DB_ERROR after the locks
//!   (`check_db_dir_existence`), DROP finds nothing (1305).
//!
//! What the server checks while it parses (a body without its spec, a routine of the spec
//! the body does not define) fails before any lock: `classify/package.rs`.

use crate::objects::Tbl;
use crate::routines::{Body, RoutineKind, ER_BAD_DB, ER_SP_ALREADY_EXISTS, ER_SP_DOES_NOT_EXIST};
use std::collections::BTreeMap;

/// The routines a package spec declares (`sp_package::m_routine_declarations`): their
/// kind, name (lower case: routine names compare without case, `eq_routine_name`) and
/// number of parameters (what `sp_head::eq_routine_spec` compares with the body's).
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Spec {
    pub routines: Vec<(RoutineKind, String, usize)>,
}

impl Spec {
    pub fn declares(&self, kind: RoutineKind, name: &str) -> bool {
        self.routines
            .iter()
            .any(|(k, n, _)| *k == kind && n.eq_ignore_ascii_case(name))
    }
}

/// A package body as the model reads it: its routines
/// (`sp_package::m_routine_implementations`) and whether its initialisation section or
/// its variables' defaults use tables (run once per session when the package is first
/// used, `sp_package::instantiate_if_needed`, sql/sp_head.cc).
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct PackageBody {
    /// Kind and lower-case name of each routine it defines, with its body.
    pub routines: Vec<(RoutineKind, String, Body)>,
    /// The initialisation section or a variable's default names a table or a function.
    pub init_uses_tables: bool,
}

impl PackageBody {
    pub fn routine(&self, kind: RoutineKind, name: &str) -> Option<&Body> {
        self.routines
            .iter()
            .find(|(k, n, _)| *k == kind && n.eq_ignore_ascii_case(name))
            .map(|(_, _, b)| b)
    }
}

/// Which of a package's two rows a statement names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Part {
    Spec,
    Body,
}

/// A package DDL statement's effect on the catalog.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PackageOp {
    CreateSpec {
        p: Tbl,
        spec: Spec,
        or_replace: bool,
        if_not_exists: bool,
    },
    CreateBody {
        p: Tbl,
        body: PackageBody,
        or_replace: bool,
        if_not_exists: bool,
    },
    Drop {
        p: Tbl,
        part: Part,
        if_exists: bool,
    },
}

impl PackageOp {
    /// The package the statement names.
    pub fn target(&self) -> &Tbl {
        match self {
            PackageOp::CreateSpec { p, .. }
            | PackageOp::CreateBody { p, .. }
            | PackageOp::Drop { p, .. } => p,
        }
    }
}

/// The packages that exist: their specs and bodies, keyed by schema and lower-case name
/// (package names compare without case, as routine names do).
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Packages {
    specs: BTreeMap<Tbl, Spec>,
    bodies: BTreeMap<Tbl, PackageBody>,
}

fn folded(p: &Tbl) -> Tbl {
    Tbl {
        db: p.db.clone(),
        name: p.name.to_lowercase(),
    }
}

impl Packages {
    pub fn spec(&self, p: &Tbl) -> Option<&Spec> {
        self.specs.get(&folded(p))
    }

    pub fn body(&self, p: &Tbl) -> Option<&PackageBody> {
        self.bodies.get(&folded(p))
    }

    /// The error the statement gives once its locks are taken, or none; `has_schema`:
    /// whether the package's schema exists.
    pub fn error(&self, op: &PackageOp, has_schema: bool) -> Option<u32> {
        match op {
            PackageOp::CreateSpec { .. } | PackageOp::CreateBody { .. } if !has_schema => {
                Some(ER_BAD_DB)
            }
            PackageOp::CreateSpec {
                p,
                or_replace,
                if_not_exists,
                ..
            } => (self.spec(p).is_some() && !or_replace && !if_not_exists)
                .then_some(ER_SP_ALREADY_EXISTS),
            PackageOp::CreateBody {
                p,
                or_replace,
                if_not_exists,
                ..
            } => (self.body(p).is_some() && !or_replace && !if_not_exists)
                .then_some(ER_SP_ALREADY_EXISTS),
            PackageOp::Drop { p, part, if_exists } => {
                let missing = match part {
                    Part::Spec => self.spec(p).is_none(),
                    Part::Body => self.body(p).is_none(),
                };
                (missing && !if_exists).then_some(ER_SP_DOES_NOT_EXIST)
            }
        }
    }

    pub fn apply(&mut self, op: &PackageOp, has_schema: bool) {
        if self.error(op, has_schema).is_some() {
            return;
        }
        match op {
            PackageOp::CreateSpec {
                p,
                spec,
                if_not_exists,
                ..
            } => {
                if *if_not_exists && self.spec(p).is_some() {
                    return;
                }
                // OR REPLACE of a spec drops its body (`sp_create_routine`).
                self.bodies.remove(&folded(p));
                self.specs.insert(folded(p), spec.clone());
            }
            PackageOp::CreateBody {
                p,
                body,
                if_not_exists,
                ..
            } => {
                if *if_not_exists && self.body(p).is_some() {
                    return;
                }
                self.bodies.insert(folded(p), body.clone());
            }
            PackageOp::Drop {
                p,
                part: Part::Spec,
                ..
            } => {
                self.specs.remove(&folded(p));
                self.bodies.remove(&folded(p));
            }
            PackageOp::Drop {
                p,
                part: Part::Body,
                ..
            } => {
                self.bodies.remove(&folded(p));
            }
        }
    }

    /// DROP DATABASE drops the schema's packages with its routines (`sp_drop_db_routines`
    /// deletes every `mysql.proc` row of the schema).
    pub fn drop_schema(&mut self, db: &str) {
        self.specs.retain(|p, _| p.db != db);
        self.bodies.retain(|p, _| p.db != db);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pkg() -> Tbl {
        Tbl {
            db: "test".into(),
            name: "Pkg1".into(),
        }
    }

    fn spec(or_replace: bool) -> PackageOp {
        PackageOp::CreateSpec {
            p: pkg(),
            spec: Spec {
                routines: vec![(RoutineKind::Procedure, "p1".into(), 0)],
            },
            or_replace,
            if_not_exists: false,
        }
    }

    fn body() -> PackageOp {
        PackageOp::CreateBody {
            p: pkg(),
            body: PackageBody::default(),
            or_replace: false,
            if_not_exists: false,
        }
    }

    fn drop(part: Part, if_exists: bool) -> PackageOp {
        PackageOp::Drop {
            p: pkg(),
            part,
            if_exists,
        }
    }

    #[test]
    fn drop_package_drops_the_body_and_or_replace_too() {
        let mut c = Packages::default();
        assert_eq!(
            c.error(&drop(Part::Spec, false), true),
            Some(ER_SP_DOES_NOT_EXIST)
        );
        assert_eq!(c.error(&drop(Part::Spec, true), true), None);
        c.apply(&spec(false), true);
        assert_eq!(c.error(&spec(false), true), Some(ER_SP_ALREADY_EXISTS));
        c.apply(&body(), true);
        assert_eq!(c.error(&body(), true), Some(ER_SP_ALREADY_EXISTS));
        // OR REPLACE of the spec: the body is gone.
        c.apply(&spec(true), true);
        assert!(c.spec(&pkg()).is_some() && c.body(&pkg()).is_none());
        c.apply(&body(), true);
        assert_eq!(c.error(&drop(Part::Body, false), true), None);
        c.apply(&drop(Part::Spec, false), true);
        assert!(c.spec(&pkg()).is_none() && c.body(&pkg()).is_none());
        assert_eq!(c.error(&spec(false), false), Some(ER_BAD_DB));
    }

    #[test]
    fn names_compare_without_case() {
        let mut c = Packages::default();
        c.apply(&spec(false), true);
        let lower = Tbl {
            db: "test".into(),
            name: "pkg1".into(),
        };
        assert!(c
            .spec(&lower)
            .is_some_and(|s| s.declares(RoutineKind::Procedure, "P1")));
    }
}
