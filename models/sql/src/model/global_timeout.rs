//! `SET GLOBAL lock_wait_timeout` (`crate::classify::global_timeout`): the value a session
//! starts with. A scenario's session connects at its first statement (the harness's
//! `Play::connect`), so a session that has run nothing yet takes the global value then;
//! the ones that ran a statement keep theirs. `None`: the server's default (waits are
//! unbounded here).

use super::SqlModel;

impl SqlModel {
    /// `SET GLOBAL lock_wait_timeout = secs` (`None`: DEFAULT).
    pub(super) fn set_global_lock_wait_timeout(&mut self, secs: Option<u64>) {
        self.global_lock_wait_timeout = secs;
    }

    /// Session `s` connects at its first statement with the global value.
    pub(super) fn connect_session(&mut self, s: usize) {
        if self.sessions[s].session.connected {
            return;
        }
        let global = self.global_lock_wait_timeout;
        let st = &mut self.sessions[s].session;
        st.connected = true;
        st.lock_wait_timeout = global;
    }
}
