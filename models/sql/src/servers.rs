//! The foreign servers of `mysql.servers` as the catalog keeps them (`CREATE` / `ALTER` /
//! `DROP SERVER`, classified in `classify/servers.rs`): the names made since the fixture
//! (the harness's server starts with none). The errors are found when the statement is
//! classified, as the server finds them before it opens `mysql.servers`.

use std::collections::BTreeSet;

/// ER_CANT_CREATE_FEDERATED_TABLE: a `mysql` wrapper with neither HOST nor SOCKET.
pub const ER_CANT_CREATE_FEDERATED_TABLE: u32 = 1434;
/// ER_FOREIGN_SERVER_EXISTS.
pub const ER_FOREIGN_SERVER_EXISTS: u32 = 1476;
/// ER_FOREIGN_SERVER_DOESNT_EXIST.
pub const ER_FOREIGN_SERVER_DOESNT_EXIST: u32 = 1477;

/// What a SERVER statement that opens `mysql.servers` does.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ServerOp {
    Create(String),
    Alter,
    Drop(String),
}

/// The servers that exist, by name (lower case).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Servers(BTreeSet<String>);

impl Servers {
    pub fn contains(&self, name: &str) -> bool {
        self.0.contains(name)
    }

    pub fn apply(&mut self, op: &ServerOp) {
        match op {
            ServerOp::Create(n) => {
                self.0.insert(n.clone());
            }
            ServerOp::Alter => {}
            ServerOp::Drop(n) => {
                self.0.remove(n);
            }
        }
    }
}
