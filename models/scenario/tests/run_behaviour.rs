//! Behaviour required by the core issue, as generated scenarios played through the
//! runner on both engines (the table always; the concurrent manager too, with identical
//! transcripts): the reference matrices cell by cell, priorities and starvation, deadlock
//! detection, and misuse.

use mdl_core::dialect::{Dialect, KeyForm};
use mdl_core::{LockType, Outcome, WeightRule};
use mdl_scenario::parse::parse;
use mdl_scenario::runner::{self, Engine, Transcript};
use std::path::PathBuf;
use std::sync::OnceLock;

fn manager_ready() -> bool {
    static READY: OnceLock<bool> = OnceLock::new();
    *READY.get_or_init(|| {
        let sc = parse("probe.mdl", "s1: acquire TABLE a.b SR\n").expect("probe");
        let ok = std::panic::catch_unwind(|| {
            runner::run_engine(&sc, Engine::Manager)
                .valid()
                .map(|t| t.steps().all(|s| s.error.is_none()))
                .unwrap_or(false)
        })
        .unwrap_or(false);
        // Not a skip: the manager engine exists, and one that fails a one-step probe is
        // a failure.
        assert!(ok, "the manager engine fails a one-step probe");
        ok
    })
}

/// Plays `text` on the table and, when it is ready, on the manager; requires the same
/// transcript from both. Returns the table's.
fn play(name: &str, text: &str) -> Transcript {
    let sc = parse(name, text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let a = runner::run_engine(&sc, Engine::Table)
        .valid()
        .unwrap_or_else(|e| panic!("table: {e}"));
    let engines = if manager_ready() {
        &[Engine::Manager, Engine::Threads][..]
    } else {
        &[]
    };
    for &e in engines {
        let b = runner::run_engine(&sc, e)
            .valid()
            .unwrap_or_else(|err| panic!("{e:?}: {err}"));
        if a.text() != b.text() {
            let first = a
                .text()
                .lines()
                .zip(b.text().lines())
                .find(|(x, y)| x != y)
                .map(|(x, y)| format!("table:   {x}\nmanager: {y}"))
                .unwrap_or_else(|| "one transcript is longer".into());
            panic!("{name}: the engines disagree; first difference:\n{first}");
        }
    }
    a
}

/// Plays `text` and requires every expectation to hold.
fn check(name: &str, text: &str) -> Transcript {
    let t = play(name, text);
    let failed: Vec<String> = t
        .expects()
        .filter(|x| !x.ok)
        .map(|x| {
            let src = text.lines().collect::<Vec<_>>();
            let ctx = src[x.line.saturating_sub(4)..x.line.min(src.len())].join("\n    ");
            format!(
                "line {}: expected {} {}, seen {}\n    {ctx}",
                x.line, x.session, x.expected, x.seen
            )
        })
        .take(10)
        .collect();
    assert!(
        failed.is_empty(),
        "{name}: {} expectation(s) failed:\n{}",
        t.expects().filter(|x| !x.ok).count(),
        failed.join("\n")
    );
    t
}

/// The reference matrices: mdl-core's copy of `shared/reference/`, or `MDL_REFERENCE_DIR`.
/// A missing folder is a failure, not a skip.
fn reference_dir() -> Option<PathBuf> {
    let d = std::env::var_os("MDL_REFERENCE_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../mdl-core/tests/reference")
        });
    assert!(
        d.is_dir(),
        "no reference folder at {} (MDL_REFERENCE_DIR)",
        d.display()
    );
    Some(d)
}

/// A reference matrix: `m[req][col]` is true when compatible.
type Matrix = Vec<(LockType, Vec<(LockType, bool)>)>;

fn read_matrix(path: &std::path::Path) -> Matrix {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut header: Vec<LockType> = Vec::new();
    let mut out = Vec::new();
    for l in text.lines() {
        let l = l.trim();
        if l.is_empty() || l.starts_with('#') {
            continue;
        }
        let cells: Vec<&str> = l.split('\t').collect();
        if header.is_empty() {
            header = cells[1..]
                .iter()
                .map(|c| LockType::parse(c).expect("column type"))
                .collect();
            continue;
        }
        let req = LockType::parse(cells[0]).expect("row type");
        let row = header
            .iter()
            .zip(&cells[1..])
            .map(|(c, v)| (*c, *v == "+"))
            .collect();
        out.push((req, row));
    }
    out
}

fn compatible(m: &Matrix, req: LockType, col: LockType) -> bool {
    m.iter()
        .find(|(r, _)| *r == req)
        .and_then(|(_, row)| row.iter().find(|(c, _)| *c == col))
        .map(|x| x.1)
        .expect("cell")
}

/// A namespace of strategy `si` and a key of it.
fn ns_key(d: &Dialect, si: usize) -> (String, String) {
    let n = d
        .namespaces
        .iter()
        .find(|n| n.strategy == si)
        .expect("a namespace uses the strategy");
    let key = match n.key_form {
        KeyForm::Single => "-",
        KeyForm::Db => "db1",
        KeyForm::Qualified => "db1.t1",
    };
    (n.name.clone(), key.into())
}

#[test]
fn granted_matrix_cell_by_cell() {
    let Some(dir) = reference_dir() else { return };
    for dn in ["mysql-8.0", "mariadb"] {
        let d = Dialect::builtin(dn).expect("dialect");
        for (si, s) in d.strategies.iter().enumerate() {
            let m = read_matrix(&dir.join(format!("{dn}.{}.granted.tsv", s.name)));
            let (ns, key) = ns_key(&d, si);
            let mut text = format!("dialect {dn}\n");
            for a in &s.types {
                for b in &s.types {
                    let want = if compatible(&m, *b, *a) {
                        "granted"
                    } else {
                        "busy"
                    };
                    text.push_str(&format!(
                        "s1: acquire {ns} {key} {a}\ns2: acquire {ns} {key} {b} nowait\n\
                         expect s2 {want}\ns1: commit\ns2: commit\n"
                    ));
                }
            }
            let t = check(&format!("{dn}.{}.granted", s.name), &text);
            assert_eq!(t.expects().count(), s.types.len() * s.types.len());
        }
    }
}

#[test]
fn pending_matrix_cell_by_cell() {
    let Some(dir) = reference_dir() else { return };
    let mut tested = 0;
    for dn in ["mysql-8.0", "mariadb"] {
        let d = Dialect::builtin(dn).expect("dialect");
        for (si, s) in d.strategies.iter().enumerate() {
            let g = read_matrix(&dir.join(format!("{dn}.{}.granted.tsv", s.name)));
            let pf = if s.pending.len() == 1 {
                format!("{dn}.{}.pending.tsv", s.name)
            } else {
                format!("{dn}.{}.pending0.tsv", s.name)
            };
            let p = read_matrix(&dir.join(pf));
            let (ns, key) = ns_key(&d, si);
            let mut text = format!("dialect {dn}\n");
            for a in &s.types {
                for b in &s.types {
                    // s1 holds C, which makes A wait but lets B in.
                    let Some(c) = s
                        .types
                        .iter()
                        .find(|c| !compatible(&g, *a, **c) && compatible(&g, *b, **c))
                    else {
                        continue;
                    };
                    tested += 1;
                    let waits = !compatible(&p, *b, *a);
                    if waits && !compatible(&p, *a, *b) {
                        // Each yields to the other's pending request: a real cycle. The
                        // lighter waiter is the victim, on a tie the requester (s3).
                        let n = d.namespace_by_name(&ns).expect("ns");
                        let s3_victim = d.weight(n, *b, WeightRule::ByTicket, 0)
                            <= d.weight(n, *a, WeightRule::ByTicket, 0);
                        let (o2, o3) = if s3_victim {
                            ("waiting", "deadlock")
                        } else {
                            ("deadlock", "granted")
                        };
                        check(
                            &format!("{dn}.{}.pending.mutual.{a}.{b}", s.name),
                            &format!(
                                "dialect {dn}\ns1: acquire {ns} {key} {c}\n\
                                 s2: acquire {ns} {key} {a}\ns3: acquire {ns} {key} {b}\n\
                                 expect s2 {o2}\nexpect s3 {o3}\n"
                            ),
                        );
                        continue;
                    }
                    text.push_str(&format!(
                        "s1: acquire {ns} {key} {c}\ns2: acquire {ns} {key} {a}\n\
                         expect s2 waiting\ns3: acquire {ns} {key} {b}\n"
                    ));
                    if waits {
                        text.push_str("expect s3 waiting\nkill s3\nexpect s3 killed\n");
                    } else {
                        text.push_str("expect s3 granted\ns3: commit\n");
                    }
                    text.push_str("s1: commit\nexpect s2 granted\ns2: commit\n");
                }
            }
            check(&format!("{dn}.{}.pending", s.name), &text);
        }
    }
    assert!(tested > 200, "only {tested} pending cells testable");
}

#[test]
fn pending_x_holds_back_sr_and_sw_but_not_sh() {
    for limit in ["", "max_write_lock_count 1\n"] {
        check(
            "pending-x",
            &format!(
                "{limit}s1: acquire TABLE db.t SR\n\
                 s2: acquire TABLE db.t X\nexpect s2 waiting\n\
                 s3: acquire TABLE db.t SR\nexpect s3 waiting\nkill s3\n\
                 s3: acquire TABLE db.t SW\nexpect s3 waiting\nkill s3\n\
                 s3: acquire TABLE db.t SH\nexpect s3 granted\n\
                 s3: commit\ns1: commit\nexpect s2 granted\ns2: commit\n"
            ),
        );
    }
}

/// s1 X, s2 waits X, s3 waits SR; s1 commits (s2's X is a hog granted while SR waits);
/// s1 asks for X again; s2 commits: who goes next?
fn hog_text(dialect: &str, limit: &str, reader_first: bool) -> String {
    let (s3, s1) = if reader_first {
        ("granted", "waiting")
    } else {
        ("waiting", "granted")
    };
    format!(
        "dialect {dialect}\n{limit}\
         s1: acquire TABLE db.t X\ns2: acquire TABLE db.t X\ns3: acquire TABLE db.t SR\n\
         s1: commit\nexpect s2 granted\nexpect s3 waiting\n\
         s1: acquire TABLE db.t X\nexpect s1 waiting\n\
         s2: commit\nexpect s3 {s3}\nexpect s1 {s1}\n"
    )
}

#[test]
fn hogs_give_way_after_the_limit() {
    for d in ["mysql-8.0", "mariadb"] {
        check("hogs-unlimited", &hog_text(d, "", false));
        check(
            "hogs-limit-1",
            &hog_text(d, "max_write_lock_count 1\n", true),
        );
        check(
            "hogs-limit-2",
            &hog_text(d, "max_write_lock_count 2\n", false),
        );
    }
}

#[test]
fn sro_beats_a_stream_of_sw_past_the_piglet_limit() {
    let text = |limit: &str, sro_first: bool| {
        let (s2, s1) = if sro_first {
            ("granted", "waiting")
        } else {
            ("waiting", "granted")
        };
        let sw = if sro_first { "waiting" } else { "granted" };
        format!(
            "{limit}s1: acquire TABLE db.t X\ns2: acquire TABLE db.t SRO\n\
             s3: acquire TABLE db.t SW\ns1: commit\nexpect s3 granted\nexpect s2 waiting\n\
             s1: acquire TABLE db.t SW\nexpect s1 {sw}\n\
             s3: commit\nexpect s2 {s2}\nexpect s1 {s1}\n"
        )
    };
    check("piglets-unlimited", &text("", false));
    check("piglets-limit-1", &text("max_write_lock_count 1\n", true));
}

#[test]
fn a_pending_global_s_holds_back_new_ix() {
    check(
        "grl",
        "s1: acquire GLOBAL - IX statement\ns2: acquire GLOBAL - S explicit\n\
         expect s2 waiting\ns3: acquire GLOBAL - IX statement\nexpect s3 waiting\n\
         s1: end_statement\nexpect s2 granted\nexpect s3 waiting\n\
         s2: release_explicit\nexpect s3 granted\ns3: end_statement\n",
    );
}

#[test]
fn lock_tables_deadlock() {
    let t = check(
        "lock-tables-deadlock",
        "s1: acquire TABLE test.t1 SW explicit\ns2: acquire TABLE test.t2 SNRW explicit\n\
         s1: acquire TABLE test.t2 SW explicit\nexpect s1 waiting\n\
         s2: acquire TABLE test.t1 SNRW explicit\nexpect s1 deadlock\nexpect s2 waiting\n\
         s1: release_explicit\nexpect s2 granted\n",
    );
    let deadlocks: Vec<_> = t
        .events()
        .filter(|e| e.outcome == Outcome::Deadlock)
        .map(|e| e.session.clone())
        .collect();
    assert_eq!(deadlocks, ["s1"]);
}

fn outcomes(t: &Transcript, o: Outcome) -> Vec<String> {
    t.steps()
        .filter(|s| s.outcome == o)
        .map(|s| s.session.clone())
        .chain(
            t.events()
                .filter(|e| e.outcome == o)
                .map(|e| e.session.clone()),
        )
        .collect()
}

#[test]
fn no_deadlock_without_a_cycle() {
    // A chain of 200 waits, far deeper than the servers' search depth of 32.
    let n = 200;
    let mut text = String::new();
    for i in 0..n {
        text.push_str(&format!("s{i}: acquire TABLE db.t{i} X\n"));
    }
    for i in 0..n - 1 {
        text.push_str(&format!(
            "s{i}: acquire TABLE db.t{} X\nexpect s{i} waiting\n",
            i + 1
        ));
    }
    for i in (0..n).rev() {
        if i + 1 < n {
            text.push_str(&format!("expect s{i} granted\n"));
        }
        text.push_str(&format!("s{i}: commit\n"));
    }
    let t = check("chain-200", &text);
    assert!(outcomes(&t, Outcome::Deadlock).is_empty());
    // Waits through pending requests that form no cycle: s2 waits for s1 (granted SR),
    // s3 for s2's pending X; s1 then asks for an unrelated lock.
    let t = check(
        "pending-chain",
        "s1: acquire TABLE db.t SR\ns2: acquire TABLE db.t X\ns3: acquire TABLE db.t SR\n\
         expect s3 waiting\ns1: acquire TABLE db.u X\nexpect s1 granted\ns1: commit\n\
         expect s2 granted\ns2: commit\nexpect s3 granted\n",
    );
    assert!(outcomes(&t, Outcome::Deadlock).is_empty());
}

#[test]
fn a_cycle_through_a_pending_request_is_a_deadlock() {
    // s1 holds SR t and waits for u; s2 waits X t (for s1); s3 holds u and waits SR t
    // behind s2's pending X: s1 -> s3 -> s2 -> s1.
    let t = check(
        "pending-cycle",
        "s1: acquire TABLE db.t SR\ns3: acquire TABLE db.u SW\ns2: acquire TABLE db.t X\n\
         s3: acquire TABLE db.t SR\nexpect s3 waiting\ns1: acquire TABLE db.u SNW\n\
         expect s2 waiting\n",
    );
    assert_eq!(outcomes(&t, Outcome::Deadlock).len(), 1, "{}", t.text());
}

#[test]
fn a_ring_of_200_sessions_has_one_victim() {
    let n = 200;
    let mut text = String::new();
    for i in 0..n {
        text.push_str(&format!("s{i}: acquire TABLE db.t{i} X\n"));
    }
    for i in 0..n {
        text.push_str(&format!("s{i}: acquire TABLE db.t{} X\n", (i + 1) % n));
    }
    // Equal weights: the requester that closed the ring is the victim.
    text.push_str(&format!("expect s{} deadlock\n", n - 1));
    for i in 0..n - 1 {
        text.push_str(&format!("expect s{i} waiting\n"));
    }
    text.push_str(&format!("s{}: commit\nexpect s{} granted\n", n - 1, n - 2));
    let t = check("ring-200", &text);
    assert_eq!(outcomes(&t, Outcome::Deadlock), [format!("s{}", n - 1)]);
}

#[test]
fn misuse_gives_error_and_changes_nothing() {
    let held = "expect s1 holds TABLE db.t1 SW\nexpect s1 holds TABLE db.t2 SRO\n\
                expect s1 holds TABLE db.t3 SNW\nexpect s1 holds GLOBAL - IX\n\
                expect s1 not-holds TABLE db.t9 S\nexpect s1 not-holds TABLE db.t3 X\n\
                expect s2 waiting\n";
    let misuses = [
        "release TABLE db.t9",
        "release TABLE db.t1 X",
        "rollback_to nosuch",
        "upgrade TABLE db.t2 SU",
        "upgrade TABLE db.t9 X",
        "acquire TABLE db.t9 IX",
        "acquire GLOBAL - SR",
        "acquire_all TABLE db.t8 SR, TABLE db.t9 IX",
        "acquire_all nowait TABLE db.t8 SR, SCHEMA db S, GLOBAL - SW",
        "downgrade TABLE db.t1 SR",
        "downgrade TABLE db.t9 S",
        "downgrade TABLE db.t3 IX",
        "clone TABLE db.t1 X",
        "clone TABLE db.t9",
        "clone TABLE db.t2 IX",
        "release GLOBAL - S",
    ];
    let mut text = String::from(
        "s1: acquire GLOBAL - IX\ns1: acquire TABLE db.t1 SW\ns1: acquire TABLE db.t2 SRO\n\
         s1: acquire TABLE db.t3 SNW\ns2: acquire TABLE db.t3 SR\ns2: commit\n\
         s2: acquire TABLE db.t3 SW\n",
    );
    text.push_str(held);
    for m in misuses {
        text.push_str(&format!("s1: {m}\nexpect s1 error\n{held}"));
    }
    // Not a misuse: a downgrade to a type that is not weaker does nothing (MySQL and
    // MariaDB: MDL_ticket::downgrade_lock, "Do nothing if already downgraded").
    text.push_str(&format!(
        "s1: downgrade TABLE db.t3 X\nexpect s1 ok\n{held}"
    ));
    let t = check("misuse", &text);
    let errors: Vec<_> = t.steps().filter(|s| s.outcome == Outcome::Error).collect();
    assert_eq!(errors.len(), misuses.len());
    assert!(errors
        .iter()
        .all(|s| s.error.as_deref().is_some_and(|m| !m.is_empty())));
    // A type the namespace does not take, in the mariadb dialect.
    check(
        "misuse-mariadb",
        "dialect mariadb\ns1: acquire TABLE db.t BACKUP_DML\nexpect s1 error\n\
         s1: acquire BACKUP - SR\nexpect s1 error\ns1: acquire BACKUP - BACKUP_DML\n\
         expect s1 granted\ns1: acquire SCHEMA db SW\nexpect s1 error\n\
         expect s1 holds BACKUP - BACKUP_DML\n",
    );
}

#[test]
fn a_step_while_waiting_makes_the_scenario_invalid() {
    let text = "s1: acquire TABLE db.t X\ns2: acquire TABLE db.t X\ns2: commit\n";
    let sc = parse("busy.mdl", text).expect("parses");
    for e in [Engine::Table, Engine::Manager, Engine::Threads] {
        if e != Engine::Table && !manager_ready() {
            continue;
        }
        let err = runner::run_engine(&sc, e).valid().expect_err("invalid");
        assert_eq!((err.pos.line, err.pos.col), (3, 1));
        assert!(err.to_string().starts_with("busy.mdl:3:1: "), "{err}");
        assert!(err.msg.contains("still waiting"), "{err}");
    }
}

#[test]
fn timeouts_follow_the_scenario_clock() {
    check(
        "timeouts",
        "lock_wait_timeout 100\n\
         s1: acquire TABLE db.t X\ns2: acquire TABLE db.t SR\ns3: acquire TABLE db.t SR timeout=30\n\
         advance 29\nexpect s3 waiting\nadvance 1\nexpect s3 timeout\nexpect s2 waiting\n\
         advance 69\nexpect s2 waiting\nadvance 1\nexpect s2 timeout\n\
         s2: acquire TABLE db.t SR timeout=0\nexpect s2 timeout\n\
         s3: acquire_all timeout=5 TABLE db.a SR, TABLE db.t SR\nexpect s3 waiting\n\
         expect s3 holds TABLE db.a SR\nadvance 5\nexpect s3 timeout\n\
         expect s3 not-holds TABLE db.a SR\n",
    );
}

#[test]
fn sql_steps_are_errors_outside_the_conformance_harness() {
    let t = check(
        "sql",
        "s1: sql LOCK TABLES t1 WRITE\nexpect s1 error\ns1: acquire TABLE db.t SR\n\
         expect s1 granted\n",
    );
    let first = t.steps().next().expect("a step");
    assert_eq!(first.command, "sql LOCK TABLES t1 WRITE");
    assert!(first
        .error
        .as_deref()
        .is_some_and(|m| m.contains("mdl conform")));
}
