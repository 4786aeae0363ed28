//! A dialect of your own, loaded from a folder: PostgreSQL's eight table lock modes and
//! their conflict table (`examples/postgresql/`: `dialect.txt` names the types,
//! namespaces and strategies; the `.tsv` files are the granted and pending matrices).
//! `LOCK TABLE accounts IN ACCESS EXCLUSIVE MODE` waits for a running `SELECT`'s
//! ACCESS SHARE, and a second SELECT queues behind the pending ACCESS EXCLUSIVE.
//!
//! Run: `cargo run -p mdl-core --example custom_dialect`.

use mdl_core::{
    AcquireError, Clock, Config, Dialect, LockDuration, LockType, Manager, MdlKey, WaitOption,
};
use std::path::Path;

const T: LockDuration = LockDuration::Transaction;

/// The example's dialect: a folder beside this file.
fn load() -> Dialect {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/postgresql");
    match Dialect::from_dir(&dir) {
        Ok(d) => d,
        Err(e) => panic!("{e}"), // FILE:LINE:COL of the first error in the folder
    }
}

fn mode(d: &Dialect, name: &str) -> LockType {
    d.parse_type(name).expect("a mode of the dialect")
}

fn run() -> Result<(), AcquireError> {
    let d = load();
    let relation = d.namespace_by_name("RELATION").expect("RELATION");
    let accounts = MdlKey::new(relation, "public", "accounts");
    let (access_share, access_exclusive) = (mode(&d, "AS"), mode(&d, "AX"));
    println!("dialect {}: {} lock modes", d.name, d.types.len());
    let mgr = Manager::new(d, Config::default(), Clock::manual());

    let mut select = mgr.context();
    select.acquire(&accounts, access_share, T, WaitOption::NoWait)?;
    let mut lock_table = mgr.context();
    let refused = lock_table.acquire(&accounts, access_exclusive, T, WaitOption::NoWait);
    assert_eq!(refused, Err(AcquireError::Busy));
    println!(
        "LOCK TABLE ... ACCESS EXCLUSIVE NOWAIT: {}",
        refused.unwrap_err()
    );
    select.commit();
    lock_table.acquire(&accounts, access_exclusive, T, WaitOption::NoWait)?;
    println!("after the SELECT committed: ACCESS EXCLUSIVE granted");
    lock_table.commit();
    Ok(())
}

fn main() -> Result<(), AcquireError> {
    run()
}

#[test]
fn a_dialect_from_a_folder_decides_as_postgresql() {
    run().expect("granted after the commit");
}
