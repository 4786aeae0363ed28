//! The universe of lock types is one table per process: the 25 built-in types, then at
//! most 39 declared ones. This test has a process of its own (an integration test binary)
//! because it fills the table.

use mdl_core::dialect::Dialect;
use mdl_core::LockType;

#[test]
fn declared_types_fill_the_table_once_and_then_are_refused() {
    // Threads declaring the same names get the same type.
    let same: Vec<LockType> = std::thread::scope(|s| {
        let hs: Vec<_> = (0..4)
            .map(|_| s.spawn(|| LockType::declare("Q", "QUERY", None).unwrap()))
            .collect();
        hs.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert!(same.iter().all(|t| *t == same[0] && !t.is_builtin()));
    // Fill the rest.
    let room = LockType::MAX - LockType::COUNT;
    let mut got = vec![same[0]];
    for i in 1..room {
        got.push(LockType::declare(&format!("T{i}"), &format!("TYPE_{i}"), None).unwrap());
    }
    let idx: Vec<usize> = got.iter().map(|t| t.0 as usize).collect();
    assert_eq!(idx, (LockType::COUNT..LockType::MAX).collect::<Vec<_>>());
    // Full: a new type is refused, a known one is still found, a built-in one too.
    let e = LockType::declare("ONE_MORE", "ONE_MORE", None).unwrap_err();
    assert!(e.contains("at most 39"), "{e}");
    assert_eq!(LockType::declare("T7", "TYPE_7", None), Ok(got[7]));
    assert_eq!(LockType::declare("X", "EXCLUSIVE", None), Ok(LockType::X));
    assert_eq!(got[7].long_name(), "TYPE_7");
    // A folder past the limit: refused at its `type` line.
    let e = Dialect::parse(&|f| {
        (f == "dialect.txt").then(|| "name full\n\ntype NEW NEW_TYPE\n".to_owned())
    })
    .unwrap_err();
    assert_eq!(
        (e.file.as_str(), e.line, e.col),
        ("dialect.txt", 3, 6),
        "{e}"
    );
    assert!(e.msg.starts_with("too many lock types"), "{e}");
}
