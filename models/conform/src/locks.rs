//! What a server's lock tables say, per connection, in the `mariadb` dialect's words.
//!
//! Two sources, because neither is complete in MariaDB 10.11:
//! - `information_schema.metadata_lock_info` lists granted tickets with their *current*
//!   type (after upgrades), but no durations (NULL) and no waiting tickets;
//! - `performance_schema.metadata_locks` lists PENDING tickets too and durations, but
//!   keeps the type and duration a ticket was *created* with (an upgraded FTWRL1 still
//!   shows as BACKUP_FTWRL1, LOCK TABLES' locks still show TRANSACTION).
//!
//! So granted locks come from the first, pending ones from the second; a PENDING row
//! whose lock the owner already holds granted (a waiter just woken, whose PFS status
//! the waiter thread has not updated yet) is not counted as pending.

use super::client::Conn;
use super::ConformError;
use mdl_core::{Duration, LockType};
use mdl_sql::key_text::key_text;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

/// One lock of one connection.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct LockRow {
    /// Namespace name of the `mariadb` dialect (`BACKUP`, `SCHEMA`, `TABLE`, ...).
    pub ns: String,
    pub db: String,
    pub name: String,
    pub ty: LockType,
    pub pending: bool,
}

impl LockRow {
    /// The key as scenarios write it: `-`, `db`, `db.name` (`.name` for a user lock).
    pub fn key_text(&self) -> String {
        key_text(&self.ns, &self.db, &self.name)
    }
}

impl fmt::Display for LockRow {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {} {}", self.ns, self.key_text(), self.ty)?;
        if self.pending {
            f.write_str(" (pending)")?;
        }
        Ok(())
    }
}

/// A granted lock with the duration the performance schema shows for it.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Observed {
    pub row: LockRow,
    pub pfs_duration: Option<Duration>,
}

/// Maps a `LOCK_TYPE` of metadata_lock_info or an `OBJECT_TYPE` of PFS to a namespace.
pub fn namespace_of(s: &str) -> Option<&'static str> {
    let l = s.to_ascii_lowercase();
    Some(if l.contains("backup") {
        "BACKUP"
    } else if l.contains("schema") {
        "SCHEMA"
    } else if l.contains("package") {
        "PACKAGE_BODY"
    } else if l.contains("function") {
        "FUNCTION"
    } else if l.contains("procedure") {
        "PROCEDURE"
    } else if l.contains("trigger") {
        "TRIGGER"
    } else if l.contains("event") {
        "EVENT"
    } else if l.contains("user") {
        "USER_LOCK"
    } else if l.contains("table") {
        "TABLE"
    } else {
        return None;
    })
}

fn null(s: &str) -> String {
    if s == "NULL" {
        String::new()
    } else {
        s.to_owned()
    }
}

/// Locks that are not about the scenario's objects: the system schemas and the
/// temporary `#sql-...` tables of ALTER.
pub fn ignored(r: &LockRow) -> bool {
    matches!(
        r.db.as_str(),
        "mysql" | "performance_schema" | "information_schema" | "sys"
    ) || r.name.starts_with("#sql")
}

const QUERY: &str = "SELECT 'G', THREAD_ID, LOCK_MODE, LOCK_TYPE, IFNULL(TABLE_SCHEMA,''), \
IFNULL(TABLE_NAME,''), '' FROM information_schema.metadata_lock_info \
WHERE THREAD_ID <> CONNECTION_ID() UNION ALL \
SELECT IF(m.LOCK_STATUS='PENDING','P','D'), t.PROCESSLIST_ID, m.LOCK_TYPE, m.OBJECT_TYPE, \
IFNULL(m.OBJECT_SCHEMA,''), IFNULL(m.OBJECT_NAME,''), m.LOCK_DURATION \
FROM performance_schema.metadata_locks m JOIN performance_schema.threads t \
ON t.THREAD_ID = m.OWNER_THREAD_ID WHERE t.PROCESSLIST_ID <> CONNECTION_ID()";

/// Every connection's locks, by connection id.
#[derive(Clone, Debug, Default)]
pub struct Snapshot {
    pub by_conn: BTreeMap<u64, Vec<Observed>>,
}

impl Snapshot {
    pub fn take(mon: &mut Conn) -> Result<Snapshot, ConformError> {
        let rows = mon.query(QUERY)?;
        let mut granted: BTreeMap<u64, Vec<LockRow>> = BTreeMap::new();
        let mut pending: BTreeMap<u64, Vec<LockRow>> = BTreeMap::new();
        let mut durs: BTreeMap<u64, Vec<(LockRow, Option<Duration>)>> = BTreeMap::new();
        for r in rows {
            if r.len() < 7 {
                continue;
            }
            let Ok(id) = r[1].parse::<u64>() else {
                continue;
            };
            let (Some(ns), Some(ty)) = (namespace_of(&r[3]), LockType::parse(&r[2])) else {
                continue;
            };
            let (mut db, mut name) = (null(&r[4]), null(&r[5]));
            if ns == "USER_LOCK" && db.is_empty() {
                // PFS shows a user lock's name as OBJECT_NAME, metadata_lock_info as
                // TABLE_SCHEMA; the MDL key has it as the db part.
                std::mem::swap(&mut db, &mut name);
            }
            let row = LockRow {
                ns: ns.into(),
                db,
                name,
                ty,
                pending: r[0] == "P",
            };
            if ignored(&row) {
                continue;
            }
            match r[0].as_str() {
                "G" => granted.entry(id).or_default().push(row),
                "P" => pending.entry(id).or_default().push(row),
                _ => durs
                    .entry(id)
                    .or_default()
                    .push((row, Duration::parse(&r[6]))),
            }
        }
        let mut by_conn: BTreeMap<u64, Vec<Observed>> = BTreeMap::new();
        for (id, g) in granted {
            let d = durs.get(&id).cloned().unwrap_or_default();
            for row in g {
                let same_key: Vec<_> = d
                    .iter()
                    .filter(|(x, _)| x.ns == row.ns && x.db == row.db && x.name == row.name)
                    .collect();
                let pfs = same_key
                    .iter()
                    .find(|(x, _)| x.ty == row.ty)
                    .or(same_key.first())
                    .and_then(|(_, du)| *du);
                by_conn.entry(id).or_default().push(Observed {
                    row,
                    pfs_duration: pfs,
                });
            }
        }
        for (id, p) in pending {
            let list = by_conn.entry(id).or_default();
            for mut row in p {
                let woken = list.iter().any(|o| {
                    o.row.ns == row.ns
                        && o.row.db == row.db
                        && o.row.name == row.name
                        && o.row.ty == row.ty
                });
                if !woken {
                    row.pending = true;
                    list.push(Observed {
                        row,
                        pfs_duration: None,
                    });
                }
            }
        }
        Ok(Snapshot { by_conn })
    }

    /// The lock set of one connection, as text lines (sorted, duplicates merged).
    pub fn set_of(&self, conn: u64) -> BTreeSet<String> {
        self.by_conn
            .get(&conn)
            .map(|v| v.iter().map(|o| o.row.to_string()).collect())
            .unwrap_or_default()
    }

    pub fn has_pending(&self, conn: u64) -> bool {
        self.by_conn
            .get(&conn)
            .is_some_and(|v| v.iter().any(|o| o.row.pending))
    }

    pub fn of(&self, conn: u64) -> &[Observed] {
        self.by_conn.get(&conn).map(Vec::as_slice).unwrap_or(&[])
    }
}

/// Processlist states and InnoDB lock waits: what a running statement that holds no
/// PENDING metadata lock waits for, if anything.
const STATES: &str = "SELECT ID, IFNULL(STATE,'') FROM information_schema.PROCESSLIST \
WHERE ID <> CONNECTION_ID()";
const INNODB_WAITS: &str = "SELECT TRX_MYSQL_THREAD_ID FROM information_schema.INNODB_TRX \
WHERE TRX_STATE = 'LOCK WAIT'";

/// What each connection's thread is doing, beyond its metadata locks: the evidence that
/// tells a statement blocked outside MDL from one that is only slow (a commit's fsync on a
/// loaded machine), so that only the first counts as blocked.
#[derive(Clone, Debug, Default)]
pub struct Activity {
    /// Processlist `STATE` by connection id.
    pub states: BTreeMap<u64, String>,
    /// Connections whose InnoDB transaction waits for a row or table lock
    /// (`INNODB_TRX.TRX_STATE = 'LOCK WAIT'`), when asked.
    pub innodb_waits: BTreeSet<u64>,
}

impl Activity {
    /// `innodb`: also read `INNODB_TRX`. InnoDB serves that table from a cache it refreshes
    /// only when the last read is more than 100 ms old (`trx_i_s_possibly_fetch_data_into_cache`,
    /// `storage/innobase/trx/trx0i_s.cc`): read every snapshot, it never changes, so callers
    /// ask for it at most every 150 ms.
    pub fn take(mon: &mut Conn, innodb: bool) -> Result<Activity, ConformError> {
        let mut a = Activity::default();
        for r in mon.query(STATES)? {
            if let (Some(Ok(id)), Some(st)) = (r.first().map(|x| x.parse::<u64>()), r.get(1)) {
                a.states.insert(id, null(st));
            }
        }
        if innodb {
            for r in mon.query(INNODB_WAITS)? {
                if let Some(Ok(id)) = r.first().map(|x| x.parse::<u64>()) {
                    a.innodb_waits.insert(id);
                }
            }
        }
        Ok(a)
    }

    /// What a connection with no PENDING metadata lock waits for, if the server shows a
    /// wait: an InnoDB row or table lock, or a `Waiting ...` state. Measured on 10.11.19:
    /// a MyISAM table-level lock (THR_LOCK, `thr_lock.c`'s `wait_for_lock`) shows `Waiting
    /// for table level lock`, or, under LOCK TABLES, `Waiting for table metadata lock`
    /// with no PENDING ticket (the stage of `MDL_context::acquire_lock` left on; also
    /// while InnoDB waits for a table lock under LOCK TABLES); a flush wait shows `Waiting
    /// for table flush`. A statement that is only slow shows `Update`, `Commit`, `query
    /// end`, `User sleep` and the like: no wait.
    pub fn waits_outside_mdl(&self, conn: u64) -> Option<String> {
        if self.innodb_waits.contains(&conn) {
            return Some("an InnoDB lock wait".into());
        }
        self.states
            .get(&conn)
            .filter(|s| s.starts_with("Waiting"))
            .cloned()
    }
}
