//! A blocking engine: one thread per connection. A SELECT holds a shared read lock on
//! `test.t1` until its transaction commits; an ALTER TABLE takes the locks MySQL's ALTER
//! takes (GLOBAL IX and SCHEMA IX for the statement, TABLE SU), copies the table, then
//! upgrades SU to X to swap it in, and that upgrade waits for the SELECT to commit.
//!
//! Run: `cargo run -p mdl-core --example blocking_engine`.

use mdl_core::{
    AcquireError, Clock, Config, Context, Dialect, LockDuration, LockType, Manager, WaitOption,
};
use std::time::Duration;

const WAIT: WaitOption = WaitOption::Timeout(Duration::from_secs(50));

/// `ALTER TABLE test.t1 ...` on connection `ctx`.
fn alter_table(ctx: &mut Context) -> Result<(), AcquireError> {
    let d = ctx.manager().dialect().clone();
    let (global, schema) = (
        d.global().expect("GLOBAL"),
        d.schema("test").expect("SCHEMA"),
    );
    let t1 = d.table("test", "t1").expect("TABLE");
    ctx.acquire(&global, LockType::IX, LockDuration::Statement, WAIT)?;
    ctx.acquire(&schema, LockType::IX, LockDuration::Transaction, WAIT)?;
    ctx.acquire(&t1, LockType::SU, LockDuration::Transaction, WAIT)?;
    println!("alter: holds SU on test.t1, copying the table (readers go on)");
    ctx.upgrade(&t1, LockType::X, WAIT)?; // waits for the SELECT's SR
    println!("alter: upgraded to X, swapping the table in");
    ctx.end_statement();
    ctx.commit();
    Ok(())
}

fn run() -> Result<(), AcquireError> {
    let mgr = Manager::new(Dialect::mysql80(), Config::default(), Clock::System);
    let t1 = mgr.dialect().table("test", "t1").expect("TABLE");

    let mut select = mgr.context();
    select.acquire(&t1, LockType::SR, LockDuration::Transaction, WAIT)?;
    println!("select: holds SR on test.t1 (transaction open)");

    let mut alter = mgr.context();
    let alter_handle = alter.handle();
    std::thread::scope(|s| {
        let ddl = s.spawn(move || alter_table(&mut alter));
        while !alter_handle.is_waiting() {
            std::thread::yield_now();
        }
        println!("select: the ALTER waits for us; committing");
        select.commit();
        ddl.join().expect("the ALTER thread")
    })?;
    assert!(mgr.snapshot().is_empty());
    println!("done: no locks left");
    Ok(())
}

fn main() -> Result<(), AcquireError> {
    run()
}

#[test]
fn the_alter_waits_for_the_select_then_commits() {
    run().expect("every lock granted");
}
