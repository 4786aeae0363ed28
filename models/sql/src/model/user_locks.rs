//! A SELECT of several user-lock functions (`classify/user_locks.rs`) as a sequence of
//! steps within one statement, each call as the server evaluates it (sql/item_func.cc):
//! - `Item_func_get_lock::val_int`: a name the session holds is taken again at once (its
//!   `ull_hash` entry counts one more); otherwise `MDL_context::acquire_lock` of USER_LOCK
//!   with explicit duration and the call's own timeout. A timeout gives 0 and the statement
//!   goes on (`Lock_wait_timeout_handler` swallows ER_LOCK_WAIT_TIMEOUT); a kill gives NULL
//!   and goes on (it swallows ER_QUERY_INTERRUPTED), the session still killed, so a later
//!   GET_LOCK that would wait ends at once with NULL; a deadlock is an error and ends the
//!   statement (`Protocol::send_result_set_row` stops at the first error). The locks taken
//!   before stay (explicit duration).
//! - `Item_func_release_lock::val_int`: 1 and one count less when the session holds it, 0
//!   when another does, NULL when no one does; `Item_func_release_all_locks::val_int`:
//!   every lock of the session, the sum of their counts.
//! - `IS_FREE_LOCK` / `IS_USED_LOCK` (`get_lock_owner`): no lock.
//! - GET_LOCK with a negative or NULL timeout: NULL and no lock (MDEV-4017); not a kill.
//!
//! The statement's outcome reads its GET_LOCK columns as the harness reads the server's
//! row (`scenario::outcome_of`): a NULL is `killed`, else a 0 is `timeout`, else `ok`. The
//! row itself is [`super::SqlSession::last_row`] (IS_USED_LOCK's connection id as `id`).

use super::{Outcome, SqlModel};
use crate::classify::UserLockCall;
use std::collections::VecDeque;

/// A user-lock SELECT in progress.
#[derive(Clone, Debug)]
pub(super) struct UserLocksRun {
    calls: VecDeque<UserLockCall>,
    /// The values so far, and whether each is a GET_LOCK's.
    row: Vec<(String, bool)>,
    /// A KILL QUERY reached the statement.
    killed: bool,
}

impl SqlModel {
    /// RELEASE_ALL_LOCKS (statement or function): every user lock of the session given
    /// back, each name once whatever its count (`Item_func_release_all_locks::val_int`,
    /// sql/item_func.cc).
    pub(super) fn release_all_user_locks(&mut self, s: usize) {
        let names: Vec<String> = self.sessions[s]
            .session
            .user_locks
            .keys()
            .cloned()
            .collect();
        self.sessions[s].session.user_locks.clear();
        for name in names {
            self.release_user_lock(s, &name);
        }
    }

    /// Starts the statement: its calls one after the other until one waits.
    pub(super) fn user_locks_start(&mut self, s: usize, calls: Vec<UserLockCall>) -> Outcome {
        self.sessions[s].user_locks_run = Some(UserLocksRun {
            calls: calls.into(),
            row: Vec::new(),
            killed: false,
        });
        self.user_locks_next(s)
    }

    /// A statement of session `s` ended with `out`: when it was a GET_LOCK of a user-lock
    /// SELECT, its value is noted and the SELECT goes on (`Waiting` when its next call
    /// waits); any other outcome is the statement's own.
    pub(super) fn user_locks_after(&mut self, s: usize, out: Outcome) -> Outcome {
        if out == Outcome::Waiting || self.sessions[s].user_locks_run.is_none() {
            return out;
        }
        let value = match out {
            Outcome::Ok | Outcome::Granted => "1",
            Outcome::Timeout => "0",
            Outcome::Killed => "NULL",
            // A deadlock or an error ends the statement (the locks taken stay).
            _ => {
                self.sessions[s].user_locks_run = None;
                return out;
            }
        };
        let ul = self.sessions[s].user_locks_run.as_mut().expect("checked");
        ul.row.push((value.into(), true));
        ul.killed |= out == Outcome::Killed;
        self.user_locks_next(s)
    }

    fn user_locks_next(&mut self, s: usize) -> Outcome {
        loop {
            let Some(ul) = self.sessions[s].user_locks_run.as_mut() else {
                return Outcome::Ok;
            };
            let Some(call) = ul.calls.pop_front() else {
                return self.user_locks_end(s);
            };
            let value = match call {
                UserLockCall::Get(name, plan) => {
                    if let Some(n) = self.sessions[s].session.user_locks.get_mut(&name) {
                        *n += 1;
                        "1".to_string()
                    } else {
                        let killed = self.sessions[s]
                            .user_locks_run
                            .as_ref()
                            .is_some_and(|u| u.killed);
                        let o = self.run_plan(s, *plan).unwrap_or(Outcome::Error);
                        if o == Outcome::Waiting {
                            if killed {
                                // Still killed: the wait ends at once (MDL_wait::timed_wait
                                // checks the owner's kill flag); `pump` takes the event.
                                self.table.kill(self.sessions[s].id);
                            }
                            return Outcome::Waiting;
                        }
                        let o = self.user_locks_after(s, o);
                        return o;
                    }
                }
                UserLockCall::BadTimeout => "NULL".into(),
                UserLockCall::Release(name) => self.user_lock_release(s, &name),
                UserLockCall::ReleaseAll => {
                    let n: u32 = if cfg!(mdl_bug = "conform_user_lock_rows") {
                        // Seeded bug: the names, not their counts.
                        self.sessions[s].session.user_locks.len() as u32
                    } else {
                        self.sessions[s].session.user_locks.values().sum()
                    };
                    self.release_all_user_locks(s);
                    n.to_string()
                }
                UserLockCall::IsFree(name) => match self.user_lock_owner(&name) {
                    Some(_) => "0".into(),
                    None => "1".into(),
                },
                UserLockCall::IsUsed(name) => match self.user_lock_owner(&name) {
                    Some(_) => "id".into(),
                    None => "NULL".into(),
                },
            };
            if let Some(ul) = self.sessions[s].user_locks_run.as_mut() {
                ul.row.push((value, false));
            }
        }
    }

    /// RELEASE_LOCK's value: 1 (one count less, the lock given back at the last), 0 held by
    /// another session, NULL held by none.
    fn user_lock_release(&mut self, s: usize, name: &str) -> String {
        match self.sessions[s].session.user_locks.get(name).copied() {
            Some(n) if n > 1 => {
                self.sessions[s]
                    .session
                    .user_locks
                    .insert(name.into(), n - 1);
                "1".into()
            }
            Some(_) => {
                self.sessions[s].session.user_locks.remove(name);
                self.release_user_lock(s, name);
                "1".into()
            }
            None if self.user_lock_owner(name).is_some() => "0".into(),
            None => "NULL".into(),
        }
    }

    /// The session holding user lock `name`.
    fn user_lock_owner(&self, name: &str) -> Option<usize> {
        self.sessions
            .iter()
            .position(|x| x.session.user_locks.contains_key(name))
    }

    fn user_locks_end(&mut self, s: usize) -> Outcome {
        let Some(ul) = self.sessions[s].user_locks_run.take() else {
            return Outcome::Ok;
        };
        let gets: Vec<&str> = ul
            .row
            .iter()
            .filter(|(_, g)| *g)
            .map(|(v, _)| v.as_str())
            .collect();
        let out = if gets.contains(&"NULL") || ul.killed {
            Outcome::Killed
        } else if gets.contains(&"0") {
            Outcome::Timeout
        } else {
            Outcome::Ok
        };
        self.sessions[s].session.last_row = Some(ul.row.into_iter().map(|(v, _)| v).collect());
        out
    }
}
