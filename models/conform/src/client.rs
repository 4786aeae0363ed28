//! One SQL connection as a `mariadb` client subprocess (batch mode, stderr merged into
//! stdout so that an error line comes in order before the end marker). A statement is
//! sent with an end marker (`SELECT 'MDLDONE<n>'`); its reply is the lines before the
//! marker. A statement that blocks simply has no marker yet: [`Conn::poll`] says so
//! without waiting longer than asked, which is how the harness leaves a session
//! `waiting` while it reads the lock tables from another connection.

use super::ConformError;
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::Duration as StdDuration;

/// The longest a statement expected to finish may take before it counts as hung.
pub const LONG: StdDuration = StdDuration::from_secs(60);

/// The reply to one statement.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Reply {
    /// Result rows, tab-separated columns.
    pub rows: Vec<Vec<String>>,
    /// `(code, message)` of a failed statement.
    pub error: Option<(u32, String)>,
}

impl Reply {
    /// The error of an admin statement (ANALYZE, CHECK, OPTIMIZE, REPAIR TABLE), which the
    /// server reports as result rows (`Msg_type` `Error`), not as a statement error: the
    /// code of the first such row's message (1 for a message not known here).
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

pub struct Conn {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
    seq: u64,
    in_flight: Option<(u64, Reply)>,
    /// `CONNECTION_ID()`: the `THREAD_ID` of `metadata_lock_info`, the `PROCESSLIST_ID`
    /// of `performance_schema.threads`.
    pub id: u64,
}

fn parse_error(line: &str) -> Option<(u32, String)> {
    let rest = line.strip_prefix("ERROR ")?;
    let (code, rest) = rest.split_once(' ')?;
    let code: u32 = code.parse().ok()?;
    let msg = rest.split_once(": ").map(|(_, m)| m).unwrap_or(rest);
    Some((code, msg.to_owned()))
}

impl Conn {
    pub fn open(socket: &Path) -> Result<Conn, ConformError> {
        let cmd = format!(
            "exec mariadb --no-defaults --socket='{}' -uroot --batch --skip-column-names \
             --unbuffered --force --skip-reconnect test 2>&1",
            socket.display()
        );
        let mut child = Command::new("sh")
            .arg("-c")
            .arg(cmd)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| ConformError::Server(format!("mariadb client: {e}")))?;
        let stdin = child.stdin.take().expect("piped");
        let out = child.stdout.take().expect("piped");
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for l in BufReader::new(out).lines() {
                let Ok(l) = l else { break };
                if tx.send(l).is_err() {
                    break;
                }
            }
        });
        let mut c = Conn {
            child,
            stdin,
            lines: rx,
            seq: 0,
            in_flight: None,
            id: 0,
        };
        let id = c.query_one("SELECT CONNECTION_ID()")?;
        c.id = id
            .parse()
            .map_err(|_| ConformError::Server(format!("bad connection id `{id}`")))?;
        Ok(c)
    }

    /// Sends a statement; its reply comes through [`Conn::poll`].
    pub fn send(&mut self, sql: &str) -> Result<(), ConformError> {
        if self.in_flight.is_some() {
            return Err(ConformError::Server(
                "a statement is still running on this connection".into(),
            ));
        }
        self.seq += 1;
        let sql = sql.trim().trim_end_matches(';');
        if sql.contains('\n') {
            return Err(ConformError::Server("a statement must be one line".into()));
        }
        let text = format!("{sql};\nSELECT 'MDLDONE{}';\n", self.seq);
        self.stdin
            .write_all(text.as_bytes())
            .and_then(|_| self.stdin.flush())
            .map_err(|e| ConformError::Server(format!("client gone: {e}")))?;
        self.in_flight = Some((self.seq, Reply::default()));
        Ok(())
    }

    pub fn busy(&self) -> bool {
        self.in_flight.is_some()
    }

    /// The reply of the statement in flight, if it comes within `wait`.
    pub fn poll(&mut self, wait: StdDuration) -> Result<Option<Reply>, ConformError> {
        let Some((seq, _)) = &self.in_flight else {
            return Err(ConformError::Server("no statement in flight".into()));
        };
        let marker = format!("MDLDONE{seq}");
        let deadline = std::time::Instant::now() + wait;
        loop {
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(l) => {
                    let (_, reply) = self.in_flight.as_mut().expect("in flight");
                    if l == marker {
                        let (_, r) = self.in_flight.take().expect("in flight");
                        return Ok(Some(r));
                    }
                    if let Some(e) = parse_error(&l) {
                        reply.error.get_or_insert(e);
                    } else {
                        reply.rows.push(l.split('\t').map(str::to_owned).collect());
                    }
                }
                Err(RecvTimeoutError::Timeout) => return Ok(None),
                Err(RecvTimeoutError::Disconnected) => {
                    return Err(ConformError::Server("client exited".into()))
                }
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
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn error_lines() {
        assert_eq!(
            super::parse_error("ERROR 1205 (HY000) at line 3: Lock wait timeout exceeded"),
            Some((1205, "Lock wait timeout exceeded".into()))
        );
        assert_eq!(super::parse_error("1\t2"), None);
    }
}
