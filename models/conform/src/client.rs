//! One SQL connection per session, through the client/server protocol (the `mysql`
//! crate, over the server's Unix socket, no TLS). The connection lives on its own worker
//! thread: [`Conn::send`] hands it a statement, [`Conn::poll`] waits at most as long as
//! asked for the reply, so a statement that blocks leaves its session `waiting` while the
//! harness reads the lock tables from another connection.
//!
//! The harness sends the server exactly what the scenario says, nothing more: a
//! statement's end, its result rows and its error code and message all come from the
//! protocol (no end marker, no `SHOW WARNINGS`), and opening a connection sends no query
//! (the connection id comes from the handshake, `max_allowed_packet` is set, not asked).
//! Extra statements would change what is measured: under the old `mariadb --batch`
//! client, the end marker `SELECT 'MDLDONE<n>'` closed a session's HANDLERs that another
//! session's DDL waited for (sql_handler.cc `mysql_ha_flush`, run at the start of every
//! statement), which MariaDB's own test runner never does.

use super::ConformError;
use mysql::prelude::Queryable;
use std::path::Path;
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError, Sender};
use std::thread::JoinHandle;
use std::time::Duration as StdDuration;

/// The longest a statement expected to finish may take before it counts as hung.
pub const LONG: StdDuration = StdDuration::from_secs(60);

/// `CR_SERVER_LOST`: the connection broke while a statement ran (as the C client says).
pub const SERVER_LOST: u32 = 2013;
/// `CR_SERVER_GONE_ERROR`: a statement sent on a connection that had already broken.
pub const SERVER_GONE: u32 = 2006;

/// The reply to one statement.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Reply {
    /// Result rows (of every result set, in order), one string per column; SQL NULL is
    /// `NULL`, as the command-line client printed it.
    pub rows: Vec<Vec<String>>,
    /// `(code, message)` of a failed statement, from the server's ERR packet.
    pub error: Option<(u32, String)>,
}

impl Reply {
    /// The error of an admin statement (ANALYZE, CHECK, OPTIMIZE, REPAIR TABLE), which the
    /// server reports as result rows (`Table`, `Op`, `Msg_type`, `Msg_text`; sql_admin.cc
    /// `mysql_admin_table`), not as a statement error: the code of the first row whose
    /// `Msg_type` is `Error` (1 for a message not known here). The rows carry the message
    /// only, so its code is found from its text.
    pub fn admin_error(&self) -> Option<u32> {
        let row = self
            .rows
            .iter()
            .find(|r| r.len() == 4 && r[2].eq_ignore_ascii_case("error"))?;
        let m = row[3].as_str();
        Some(if m.starts_with("Query execution was interrupted") {
            1317
        } else if m.starts_with("Lock wait timeout exceeded") {
            1205
        } else if m.starts_with("Deadlock found") {
            1213
        } else if m.contains("was not locked with LOCK TABLES") {
            1100
        } else if m.contains("was locked with a READ lock") {
            1099
        } else if m.contains("doesn't exist") {
            1146
        } else {
            1
        })
    }
}

/// One session's connection; its statements run on the worker thread.
pub struct Conn {
    to: Option<Sender<String>>,
    from: Receiver<Reply>,
    worker: Option<JoinHandle<()>>,
    in_flight: bool,
    opts: mysql::Opts,
    /// `CONNECTION_ID()` (from the handshake): the `THREAD_ID` of `metadata_lock_info`,
    /// the `PROCESSLIST_ID` of `performance_schema.threads`.
    pub id: u64,
}

fn opts(socket: &Path) -> mysql::Opts {
    mysql::OptsBuilder::new()
        .socket(Some(socket.to_string_lossy()))
        .user(Some("root"))
        .db_name(Some("test"))
        .prefer_socket(false)
        // Set, so that connecting does not ask the server (`SELECT @@max_allowed_packet`).
        .max_allowed_packet(Some(64 << 20))
        .stmt_cache_size(Some(0))
        .into()
}

fn cell(v: mysql::Value) -> String {
    match v {
        mysql::Value::NULL => "NULL".to_owned(),
        mysql::Value::Bytes(b) => String::from_utf8_lossy(&b).into_owned(),
        other => other.as_sql(true).trim_matches('\'').to_owned(),
    }
}

/// The reply of a failed statement: the server's error, or a broken connection.
fn failed(e: mysql::Error, alive: &mut bool) -> (u32, String) {
    match e {
        mysql::Error::MySqlError(e) => (u32::from(e.code), e.message),
        other => {
            *alive = false;
            (
                SERVER_LOST,
                format!("Lost connection to server during query ({other})"),
            )
        }
    }
}

/// Runs one statement (or several, `;`-separated: the server's multi-statements) and
/// reads every result set.
fn run(c: &mut mysql::Conn, sql: &str, alive: &mut bool) -> Reply {
    let mut reply = Reply::default();
    let mut res = match c.query_iter(sql) {
        Ok(r) => r,
        Err(e) => {
            reply.error = Some(failed(e, alive));
            return reply;
        }
    };
    while let Some(set) = res.iter() {
        for row in set {
            match row {
                // `Row::unwrap`: the row's values (none taken before), not a panic.
                Ok(r) => reply.rows.push(r.unwrap().into_iter().map(cell).collect()),
                Err(e) => {
                    reply.error.get_or_insert(failed(e, alive));
                }
            }
        }
    }
    drop(res);
    if cfg!(mdl_bug = "conform_end_marker") && *alive {
        // Seeded bug: the old harness's end marker, a statement the scenario did not say.
        let _ = c.query_drop("SELECT 'MDLDONE'");
    }
    reply
}

/// The worker: one statement at a time, until the harness drops its end of the channel.
fn serve(mut c: mysql::Conn, rx: Receiver<String>, tx: Sender<Reply>) {
    let mut alive = true;
    for sql in rx {
        let reply = if alive {
            run(&mut c, &sql, &mut alive)
        } else {
            Reply {
                rows: Vec::new(),
                error: Some((SERVER_GONE, "Server has gone away".into())),
            }
        };
        if tx.send(reply).is_err() {
            break;
        }
    }
}

impl Conn {
    pub fn open(socket: &Path) -> Result<Conn, ConformError> {
        let opts = opts(socket);
        let c = mysql::Conn::new(opts.clone())
            .map_err(|e| ConformError::Server(format!("connect {}: {e}", socket.display())))?;
        let id = u64::from(c.connection_id());
        let (to, rx) = channel();
        let (tx, from) = channel();
        let worker = std::thread::Builder::new()
            .name(format!("mdl-conn-{id}"))
            .spawn(move || serve(c, rx, tx))
            .map_err(|e| ConformError::Server(format!("client thread: {e}")))?;
        Ok(Conn {
            to: Some(to),
            from,
            worker: Some(worker),
            in_flight: false,
            opts,
            id,
        })
    }

    /// Sends a statement; its reply comes through [`Conn::poll`].
    pub fn send(&mut self, sql: &str) -> Result<(), ConformError> {
        if self.in_flight {
            return Err(ConformError::Server(
                "a statement is still running on this connection".into(),
            ));
        }
        let sql = sql.trim().trim_end_matches(';').trim_end();
        let to = self.to.as_ref().expect("open until dropped");
        to.send(sql.to_owned())
            .map_err(|_| ConformError::Server("client thread gone".into()))?;
        self.in_flight = true;
        Ok(())
    }

    pub fn busy(&self) -> bool {
        self.in_flight
    }

    /// The reply of the statement in flight, if it comes within `wait`.
    pub fn poll(&mut self, wait: StdDuration) -> Result<Option<Reply>, ConformError> {
        if !self.in_flight {
            return Err(ConformError::Server("no statement in flight".into()));
        }
        match self.from.recv_timeout(wait) {
            Ok(r) => {
                self.in_flight = false;
                Ok(Some(r))
            }
            Err(RecvTimeoutError::Timeout) => Ok(None),
            Err(RecvTimeoutError::Disconnected) => {
                Err(ConformError::Server("client thread exited".into()))
            }
        }
    }

    /// Runs a statement that is expected to finish.
    pub fn exec(&mut self, sql: &str) -> Result<Reply, ConformError> {
        self.send(sql)?;
        self.poll(LONG)?
            .ok_or_else(|| ConformError::Server(format!("`{sql}` did not finish")))
    }

    /// Runs a statement that must succeed; its rows.
    pub fn query(&mut self, sql: &str) -> Result<Vec<Vec<String>>, ConformError> {
        let r = self.exec(sql)?;
        match r.error {
            Some((c, m)) => Err(ConformError::Server(format!("`{sql}`: error {c}: {m}"))),
            None => Ok(r.rows),
        }
    }

    /// The first column of the first row.
    pub fn query_one(&mut self, sql: &str) -> Result<String, ConformError> {
        self.query(sql)?
            .into_iter()
            .next()
            .and_then(|r| r.into_iter().next())
            .ok_or_else(|| ConformError::Server(format!("`{sql}` gave no rows")))
    }
}

impl Drop for Conn {
    /// Closes the connection. One whose statement still runs (waits for a lock) is
    /// killed from a connection of its own (`KILL CONNECTION`), as the old client's
    /// process was, so that its locks and its wait go away with it; the worker thread
    /// then ends by itself.
    fn drop(&mut self) {
        self.to = None;
        if self.in_flight {
            if let Ok(mut k) = mysql::Conn::new(self.opts.clone()) {
                let _ = k.query_drop(format!("KILL CONNECTION {}", self.id));
            }
            return;
        }
        if let Some(w) = self.worker.take() {
            let _ = w.join();
        }
    }
}
