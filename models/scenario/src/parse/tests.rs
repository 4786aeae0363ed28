use super::*;
use mdl_core::{Duration, LockType, Outcome, WaitOption};

fn ok(text: &str) -> Scenario {
    parse("t.mdl", text).unwrap_or_else(|e| panic!("{e}"))
}

fn bad(text: &str) -> ParseError {
    match parse("t.mdl", text) {
        Ok(_) => panic!("parsed: {text}"),
        Err(e) => e,
    }
}

fn at(text: &str, line: usize, col: usize, needle: &str) {
    if let Some(m) = at_check(text, line, col, needle) {
        panic!("{m}");
    }
}

fn at_check(text: &str, line: usize, col: usize, needle: &str) -> Option<String> {
    let e = bad(text);
    if (e.pos.line, e.pos.col) != (line, col) || !e.msg.contains(needle) {
        return Some(format!("{text:?}: got `{e}`, want {line}:{col} `{needle}`"));
    }
    assert!(e.to_string().starts_with(&format!("t.mdl:{line}:{col}: ")));
    None
}

fn step(s: &Scenario, i: usize) -> &Command {
    match &s.lines[i].item {
        Item::Step { cmd, .. } => cmd,
        o => panic!("not a step: {o:?}"),
    }
}

#[test]
fn setup_and_server_lines() {
    let s = ok("dialect mariadb\nserver 10.11.19-MariaDB\n\
         setup: sql CREATE TABLE shop.t (a INT) ENGINE=MyISAM # made first\n\
         setup:sql CREATE DATABASE x\n\
         s1: sql SELECT * FROM t\n");
    assert_eq!(s.sessions, vec!["s1".to_string()]);
    assert_eq!(s.setup.len(), 2);
    assert_eq!(s.setup[0].1, "CREATE TABLE shop.t (a INT) ENGINE=MyISAM");
    assert_eq!((s.setup[0].0.line, s.setup[0].0.col), (3, 1));
    assert_eq!(s.setup[1].1, "CREATE DATABASE x");
    assert_eq!(s.server.as_ref().unwrap().1, "10.11.19-MariaDB");
    assert_eq!(s.lines.len(), 1);
    // A session named `setup` that does not run `sql` is an ordinary session.
    let s = ok("setup: acquire TABLE a.b SR\n");
    assert_eq!(s.sessions, vec!["setup".to_string()]);
    assert!(s.setup.is_empty());
    at(
        "s1: sql SELECT 1\nsetup: sql SELECT 2\n",
        2,
        1,
        "before the first step",
    );
    at("setup: sql  # nothing\n", 1, 11, "SQL statement");
    at("server\n", 1, 7, "one server version");
    at("server a b\n", 1, 10, "one server version");
    at("server a\nserver b\n", 2, 1, "already set at line 1");
    at(
        "s1: sql SELECT 1\nserver a\n",
        2,
        1,
        "before the first step",
    );
}

#[test]
fn a_full_file() {
    let s = ok("# comment\n\
         DIALECT MySQL-8.0   # trailing\n\
         max_write_lock_count 1\n\
         lock_wait_timeout 50\n\
         \n\
         s1: ACQUIRE table test.t1 sr\n\
         s2: acquire TABLE `test`.`#sql-1` MDL_SHARED_WRITE explicit nowait\n\
         s1 : acquire_all statement timeout=5 GLOBAL - IX, TABLE a.b X ,TABLE a.c SR,SCHEMA a S\n\
         s2:upgrade TABLE test.`#sql-1` X timeout=0\n\
         s1: downgrade TABLE a.b SNW\n\
         s1: clone TABLE a.b SR statement\n\
         s1: clone TABLE a.b\n\
         s1: release TABLE a.b SR\n\
         s1: release TABLE a.b\n\
         s1: end_statement\n\
         s1: commit\n\
         s1: rollback\n\
         s1: release_explicit\n\
         s1: savepoint Sp1\n\
         s1: rollback_to Sp1\n\
         s1: set_duration EXPLICIT\n\
         s1: force_dml_weight ON\n\
         s2: force_dml_weight off\n\
         kill s2\n\
         advance 100\n\
         expect s1 Granted\n\
         expect s1 holds TABLE a.b SR\n\
         expect s2 not-holds GLOBAL - X\n\
         assert never * deadlock\n\
         assert sometimes s2 waiting\n\
         s2: sql SELECT '#x' FROM `t#` # comment\n\
         s1: disconnect\n");
    assert_eq!(s.settings.dialect, "mysql-8.0");
    assert_eq!(s.settings.max_write_lock_count, 1);
    assert_eq!(s.settings.lock_wait_timeout, Some(50));
    assert_eq!(s.sessions, vec!["s1", "s2"]);
    assert_eq!(s.lines[0].pos, Pos { line: 6, col: 1 });
    match step(&s, 1) {
        Command::Acquire { key, ty, dur, wait } => {
            assert_eq!(key.name(), "#sql-1");
            assert_eq!(*ty, LockType::SW);
            assert_eq!(*dur, Duration::Explicit);
            assert_eq!(*wait, WaitSpec::Given(WaitOption::NoWait));
        }
        o => panic!("{o:?}"),
    }
    match step(&s, 2) {
        Command::AcquireAll { dur, wait, reqs } => {
            assert_eq!(*dur, Duration::Statement);
            assert_eq!(*wait, WaitSpec::Given(WaitOption::millis(5)));
            let tys: Vec<LockType> = reqs.iter().map(|r| r.1).collect();
            assert_eq!(tys, [LockType::IX, LockType::X, LockType::SR, LockType::S]);
        }
        o => panic!("{o:?}"),
    }
    match step(&s, 0) {
        Command::Acquire { dur, wait, .. } => {
            assert_eq!(*dur, Duration::Transaction);
            assert_eq!(*wait, WaitSpec::Default);
        }
        o => panic!("{o:?}"),
    }
    assert!(matches!(
        step(&s, 6),
        Command::Clone {
            ty: None,
            dur: Duration::Explicit,
            ..
        }
    ));
    match &s.lines[s.lines.len() - 2].item {
        Item::Step {
            cmd: Command::Sql(q),
            session: 1,
        } => assert_eq!(q, "SELECT '#x' FROM `t#`"),
        o => panic!("{o:?}"),
    }
    assert!(matches!(
        s.lines[23].item,
        Item::Assert {
            kind: AssertKind::Never,
            session: None,
            outcome: Outcome::Deadlock,
            at_line: None,
        }
    ));
}

#[test]
fn liveness_asserts_and_lines() {
    let s = ok("s1: acquire TABLE a.b SR\n\
         s1: commit\n\
         assert eventually s1 granted\n\
         assert bounded s1 2 at line 1\n\
         ASSERT sometimes s1 granted AT LINE 1\n");
    let got: Vec<(AssertKind, Option<usize>, Outcome, Option<usize>)> = s
        .lines
        .iter()
        .filter_map(|l| match &l.item {
            Item::Assert {
                kind,
                session,
                outcome,
                at_line,
            } => Some((*kind, *session, *outcome, *at_line)),
            _ => None,
        })
        .collect();
    assert_eq!(
        got,
        vec![
            (AssertKind::Eventually, Some(0), Outcome::Granted, None),
            (AssertKind::Bounded(2), Some(0), Outcome::Granted, Some(1)),
            (AssertKind::Sometimes, Some(0), Outcome::Granted, Some(1)),
        ]
    );
}

#[test]
fn mariadb_backup_and_defaults() {
    let s = ok("dialect mariadb\ns1: acquire BACKUP - BACKUP_DML\ns1: acquire BACKUP - ftwrl1\n");
    assert_eq!(s.settings.dialect, "mariadb");
    assert_eq!(s.settings.max_write_lock_count, u64::MAX);
    let s = ok("s1: commit\n");
    assert_eq!(s.settings, Settings::default());
    // A known type the namespace does not take is left to run time.
    ok("s1: acquire TABLE a.b IX\ns1: acquire GLOBAL - SR\n");
    // CRLF line ends.
    ok("s1: acquire TABLE a.b SR\r\ns1: commit\r\n");
}

#[test]
fn sessions_in_order_of_first_step() {
    let s = ok("expect b ok\na: commit\nb: commit\na: commit\nkill a\n");
    assert_eq!(s.sessions, vec!["a", "b"]);
    assert!(matches!(s.lines[0].item, Item::Expect { session: 1, .. }));
}

#[test]
fn errors() {
    let mut bad_cases = Vec::new();
    let mut at = |t: &str, l: usize, c: usize, n: &str| bad_cases.extend(at_check(t, l, c, n));
    at(
        "s1: acquire TABLE a.b Q\n",
        1,
        23,
        "expected a lock type, found `Q`",
    );
    at(
        "s1: acquire TABLE a.b\n",
        1,
        22,
        "expected a lock type, found end of line",
    );
    at(
        "s1: acquire NOPE a.b SR\n",
        1,
        13,
        "expected a namespace of mysql-8.0",
    );
    at("s1: acquire TABLE t1 SR\n", 1, 19, "takes a key `db.name`");
    at("s1: acquire GLOBAL x IX\n", 1, 20, "takes the key `-`");
    at("s1: acquire TABLE `a.b SR\n", 1, 19, "unclosed backtick");
    at("s1: acquire TABLE\n", 1, 18, "expected a key");
    at(
        "s1: acquire TABLE a.b SR forever\n",
        1,
        26,
        "expected a duration",
    );
    at(
        "s1: acquire TABLE a.b SR timeout=x\n",
        1,
        34,
        "milliseconds after `timeout=`",
    );
    at(
        "s1: acquire TABLE a.b SR nowait nowait\n",
        1,
        33,
        "given twice",
    );
    at(
        "s1: acquire TABLE a.b SR explicit statement\n",
        1,
        35,
        "given twice",
    );
    at("s1: frobnicate\n", 1, 5, "expected a command");
    at("s1:\n", 1, 4, "expected a command");
    at("1x: commit\n", 1, 1, "not a session name");
    at(": commit\n", 1, 1, "expected a session name");
    at("hello world\n", 1, 1, "expected `SESSION: COMMAND`");
    at(
        "s1: commit now\n",
        1,
        12,
        "expected end of line, found `now`",
    );
    at(
        "s1: acquire_all TABLE a.b SR TABLE a.c SR\n",
        1,
        30,
        "expected `,`",
    );
    at(
        "s1: acquire_all TABLE a.b SR,\n",
        1,
        30,
        "expected a namespace",
    );
    at("s1: acquire_all\n", 1, 16, "expected a namespace");
    at(
        "s1: acquire_all nowait TABLE a.b Q\n",
        1,
        34,
        "expected a lock type",
    );
    at(
        "s1: upgrade TABLE a.b X explicit\n",
        1,
        25,
        "expected a wait option",
    );
    at("s1: downgrade TABLE a.b\n", 1, 24, "expected a lock type");
    at(
        "s1: clone TABLE a.b Z\n",
        1,
        21,
        "expected a lock type, a duration",
    );
    at("s1: clone TABLE a.b SR SW\n", 1, 24, "given twice");
    at("s1: release TABLE a.b Q\n", 1, 23, "expected a lock type");
    at("s1: savepoint\n", 1, 14, "savepoint name");
    at("s1: rollback_to\n", 1, 16, "savepoint name");
    at("s1: set_duration forever\n", 1, 18, "expected a duration");
    at(
        "s1: force_dml_weight maybe\n",
        1,
        22,
        "expected `on` or `off`",
    );
    at("s1: sql   # nothing\n", 1, 8, "SQL statement");
    at(
        "s1: disconnect\ns1: commit\n",
        2,
        1,
        "disconnected at line 1",
    );
    at(
        "s1: commit\ndialect mariadb\n",
        2,
        1,
        "before the first step",
    );
    at("dialect oracle\n", 1, 9, "expected a dialect");
    at("dialect\n", 1, 8, "expected a dialect");
    at(
        "dialect mariadb\ndialect mariadb\n",
        2,
        1,
        "already set at line 1",
    );
    at("max_write_lock_count lots\n", 1, 22, "expected a count");
    at("max_write_lock_count 0\n", 1, 22, "must be at least 1");
    at("lock_wait_timeout -1\n", 1, 19, "milliseconds");
    at("lock_wait_timeout 5 6\n", 1, 21, "expected end of line");
    at("s1: commit\nkill s9\n", 2, 6, "unknown session `s9`");
    at("s1: commit\nkill\n", 2, 5, "expected a session name");
    at("s1: commit\nkill 9x\n", 2, 6, "expected a session name");
    at("s1: commit\nadvance soon\n", 2, 9, "milliseconds");
    at(
        "s1: commit\nexpect s1 happy\n",
        2,
        11,
        "expected an outcome",
    );
    at("s1: commit\nexpect s1\n", 2, 10, "expected an outcome");
    at(
        "s1: commit\nexpect s1 holds TABLE a.b\n",
        2,
        26,
        "expected a lock type",
    );
    at(
        "s1: commit\nexpect s1 not-holds TABLE a.b Q\n",
        2,
        31,
        "expected a lock type",
    );
    at(
        "s1: commit\nassert always s1 ok\n",
        2,
        8,
        "expected `never`, `sometimes`, `eventually` or `bounded`",
    );
    at(
        "s1: commit\nassert eventually * granted\n",
        2,
        19,
        "expected a session name, found `*`",
    );
    at(
        "s1: commit\nassert eventually s1 waiting\n",
        2,
        22,
        "expected `granted`",
    );
    at(
        "s1: commit\nassert bounded s1 many\n",
        2,
        19,
        "expected a number of grants",
    );
    at(
        "s1: commit\nassert never s1 ok at 3\n",
        2,
        23,
        "expected `line` after `at`",
    );
    at(
        "s1: commit\nassert never s1 ok at line\n",
        2,
        27,
        "expected a line number",
    );
    at(
        "s1: commit\nassert never s1 fine\n",
        2,
        17,
        "expected an outcome",
    );
    at(
        "s1: commit\nassert never * ok extra\n",
        2,
        19,
        "expected end of line",
    );
    at(
        "dialect mariadb\ns1: acquire GLOBAL - S\n",
        2,
        13,
        "namespace of mariadb",
    );
    assert!(bad_cases.is_empty(), "{}", bad_cases.join("\n"));
}

#[test]
fn columns_count_characters() {
    // Two-byte characters before the error: the column counts characters.
    at("s1: acquire TABLE `é`.`ü` Q\n", 1, 27, "found `Q`");
    at("s1: acquire TABLE é.ü Q\n", 1, 23, "found `Q`");
}

#[test]
fn never_panics_on_odd_input() {
    let odd = [
        "",
        "\n\n",
        "#",
        "`",
        "s1: `",
        ":",
        "::",
        "s1::",
        "s1: acquire `",
        "s1: acquire TABLE ``.`` SR",
        "s1: acquire_all ,",
        "s1: acquire_all TABLE a.b SR,,",
        "\u{0}: x",
        "é: commit",
        "s1: acquire TABLE a.b SR timeout=",
        "s1: acquire TABLE a.b SR timeout=é",
        "expect",
        "assert",
        "assert never",
        "assert never *",
        "s1 : ",
        "s1 :acquire",
        "s1: sql '",
        "s1: clone",
        "s1: release",
        "s1: acquire TABLE a.`b`c SR",
        "\u{feff}s1: commit",
        "s1:\u{3000}commit",
        "s1: acquire TABLE `a`.`b",
        "timeout=é",
        "kill é",
        "s1: acquire TABLE a.b SR timeout=99999999999999999999999",
    ];
    for t in odd {
        let _ = parse("odd.mdl", t);
    }
    // Every prefix of a valid file at every character boundary.
    let full = "dialect mariadb\ns1: acquire_all explicit nowait TABLE `é`.`#x` SR, BACKUP - DML\nexpect s1 holds TABLE `é`.`#x` SR\n";
    for (i, _) in full.char_indices() {
        let _ = parse("p.mdl", &full[..i]);
    }
}

#[test]
fn version_2_additions() {
    // `max_search_depth N` (before the first step, once, a number from 1).
    let s = parse("t.mdl", "max_search_depth 32\ns1: commit\n").expect("parses");
    assert_eq!(s.settings.max_search_depth, Some(32));
    assert_eq!(
        parse("t.mdl", "s1: commit\n")
            .expect("parses")
            .settings
            .max_search_depth,
        None
    );
    at("max_search_depth 0\n", 1, 18, "max_search_depth must be");
    at("max_search_depth deep\n", 1, 18, "max_search_depth must be");
    at("max_search_depth\n", 1, 17, "expected a search depth");
    at("max_search_depth 3 4\n", 1, 20, "expected end of line");
    at(
        "s1: commit\nmax_search_depth 3\n",
        2,
        1,
        "before the first step",
    );
    at(
        "max_search_depth 3\nmax_search_depth 4\ns1: commit\n",
        2,
        1,
        "already set",
    );
    // `deadlock_resolution victim|soft_edges` (issue 19).
    let s = parse("t.mdl", "deadlock_resolution soft_edges\ns1: commit\n").expect("parses");
    assert_eq!(s.settings.soft_edges, Some(true));
    let s = parse("t.mdl", "deadlock_resolution victim\ns1: commit\n").expect("parses");
    assert_eq!(s.settings.soft_edges, Some(false));
    at(
        "deadlock_resolution soft\n",
        1,
        21,
        "deadlock_resolution must be",
    );
    at(
        "deadlock_resolution\n",
        1,
        20,
        "expected `victim` or `soft_edges`",
    );
    assert!(crate::print::settings_text(
        &parse("t.mdl", "deadlock_resolution soft_edges\ns1: commit\n")
            .unwrap()
            .settings
    )
    .contains("deadlock_resolution soft_edges\n"));
    // `expect SESSION tickets [NS KEY] N`.
    let s = parse(
        "t.mdl",
        "s1: commit\nexpect s1 tickets 0\nexpect s1 tickets TABLE a.b 2\n",
    )
    .expect("parses");
    let ex: Vec<&Expectation> = s
        .lines
        .iter()
        .filter_map(|l| match &l.item {
            Item::Expect { what, .. } => Some(what),
            _ => None,
        })
        .collect();
    assert!(matches!(ex[0], Expectation::Tickets { key: None, n: 0 }));
    assert!(matches!(ex[1], Expectation::Tickets { key: Some(_), n: 2 }));
    at(
        "s1: commit\nexpect s1 tickets\n",
        2,
        18,
        "expected a number of tickets",
    );
    at(
        "s1: commit\nexpect s1 tickets x\n",
        2,
        19,
        "expected a number of tickets",
    );
    at(
        "s1: commit\nexpect s1 tickets TABLE a.b\n",
        2,
        19,
        "a number of tickets",
    );
    at(
        "s1: commit\nexpect s1 tickets NOPE a.b 1\n",
        2,
        19,
        "expected a namespace",
    );
    at(
        "s1: commit\nexpect s1 tickets TABLE a.b 1 2\n",
        2,
        31,
        "expected end of line",
    );
    at("s1: commit\nexpect s1 ticket 1\n", 2, 11, "`tickets`");
}

proptest::proptest! {
    #[test]
    fn never_panics_on_word_soup(
        s in "(s1: |s2:|acquire |acquire_all |upgrade |clone |release |expect |assert \
              |kill |advance |dialect |mariadb |TABLE |GLOBAL |BACKUP |- |a.b |`x`.`y` \
              |`é#`.z |SR |X |DML |, |,|nowait |timeout=|statement |[0-9]{1,3}|#|`|:| \
              |\t|\n|\r|é|holds |never |\\* |[\\PC]){0,40}"
    ) {
        let _ = parse("p.mdl", &s);
    }

    #[test]
    fn never_panics_on_lossy_bytes(b in proptest::collection::vec(proptest::num::u8::ANY, 0..200)) {
        let _ = parse("p.mdl", &String::from_utf8_lossy(&b));
    }
}
#[test]
fn version_5_error_codes() {
    // `expect SESSION error N`: the server's error code; `error` alone any code.
    let s = ok("s1: sql SELECT 1\nexpect s1 error 1064\nexpect s1 error\n");
    let ex: Vec<&Expectation> = s
        .lines
        .iter()
        .filter_map(|l| match &l.item {
            Item::Expect { what, .. } => Some(what),
            _ => None,
        })
        .collect();
    assert!(matches!(ex[0], Expectation::ErrorCode(1064)));
    assert!(matches!(ex[1], Expectation::Outcome(Outcome::Error)));
    at(
        "s1: sql SELECT 1\nexpect s1 error x\n",
        2,
        17,
        "expected an error code after `error`",
    );
    at(
        "s1: sql SELECT 1\nexpect s1 error 1064 2\n",
        2,
        22,
        "expected end of line",
    );
    at(
        "s1: sql SELECT 1\nexpect s1 error 99999999999\n",
        2,
        28,
        "error code too large",
    );
}

#[test]
fn server_options_version_5() {
    let s = ok("dialect mariadb\n\
                server_option max_write_lock_count 1\n\
                server_option LOCK_WAIT_TIMEOUT 5\n\
                server_option innodb_lock_wait_timeout 2\n\
                s1: sql SELECT 1\n");
    let got: Vec<_> = s
        .server_options
        .iter()
        .map(|o| (o.name, o.value, o.pos.line))
        .collect();
    assert_eq!(
        got,
        vec![
            (ServerOptionName::MaxWriteLockCount, 1, 2),
            (ServerOptionName::LockWaitTimeout, 5, 3),
            (ServerOptionName::InnodbLockWaitTimeout, 2, 4),
        ]
    );
    // The model runs with the same values.
    assert_eq!(s.settings.max_write_lock_count, 1);
    assert_eq!(s.settings.lock_wait_timeout, Some(5000));
    assert_eq!(s.lines.len(), 1);
    // Without the lines, nothing changes (earlier files keep their meaning).
    let s = ok("s1: sql SELECT 1\n");
    assert!(s.server_options.is_empty());
    assert_eq!(s.settings.max_write_lock_count, u64::MAX);
    // `server_option:` is a step of a session of that name, as before version 5.
    let s = ok("server_option: acquire TABLE db.t SR\n");
    assert_eq!(s.sessions, vec!["server_option".to_string()]);
}

#[test]
fn server_option_errors() {
    at("server_option\n", 1, 14, "expected a server option");
    at(
        "server_option sort_buffer_size 1\n",
        1,
        15,
        "found `sort_buffer_size`",
    );
    at(
        "server_option max_write_lock_count\n",
        1,
        35,
        "expected a number",
    );
    at("server_option max_write_lock_count 0\n", 1, 36, "from 1 to");
    at(
        "server_option lock_wait_timeout 31536001\n",
        1,
        33,
        "from 0 to 31536000",
    );
    at(
        "server_option lock_wait_timeout 1 2\n",
        1,
        35,
        "expected end of line",
    );
    at(
        "server_option lock_wait_timeout 1\nserver_option lock_wait_timeout 2\n",
        2,
        15,
        "already set at line 1",
    );
    at(
        "max_write_lock_count 2\nserver_option max_write_lock_count 1\n",
        2,
        15,
        "not both",
    );
    at(
        "s1: sql SELECT 1\nserver_option lock_wait_timeout 1\n",
        2,
        1,
        "before the first step (line 1)",
    );
}
