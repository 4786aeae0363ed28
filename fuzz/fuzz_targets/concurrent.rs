//! The real concurrent `mdl_core::Manager` against the reference oracle, on the same
//! programs with every request made non-blocking (`nowait` or `timeout=0`), one context
//! per session, driven from this one thread (so no wait ever starts and the run is
//! deterministic): outcomes, held tickets and granted locks must agree at every step.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mdl_core::Config;
use mdl_core::{Clock, Dialect, Manager, MdlKey, Outcome, WaitOption};
use mdl_fuzz::FProgram;
use mdl_scenario::oracle::{Cmd, Oracle};

fn nonblocking(w: WaitOption) -> WaitOption {
    match w {
        WaitOption::Timeout(_) => WaitOption::millis(0),
        _ => WaitOption::NoWait,
    }
}

fuzz_target!(|p: FProgram| {
    let p = p.0;
    let n = p.session_count();
    let mut o = Oracle::new(p.dialect(), p.max_write_lock_count(), n).expect("oracle");
    let d = Dialect::builtin(p.dialect()).expect("dialect");
    let m = Manager::new(
        d,
        Config::builder()
            .max_write_lock_count(p.max_write_lock_count())
            .build(),
        Clock::manual(),
    );
    let mut ctx: Vec<Option<mdl_core::Context>> = (0..n).map(|_| Some(m.context())).collect();
    let keys = p.key_list(&o);
    let mut trace = String::new();
    for cmd in p.commands(&o) {
        let cmd = match cmd {
            Cmd::Acquire {
                s,
                key,
                ty,
                dur,
                wait,
            } => Cmd::Acquire {
                s,
                key,
                ty,
                dur,
                wait: nonblocking(wait),
            },
            Cmd::AcquireAll { s, reqs, dur, wait } => Cmd::AcquireAll {
                s,
                reqs,
                dur,
                wait: nonblocking(wait),
            },
            Cmd::Upgrade { s, key, ty, wait } => Cmd::Upgrade {
                s,
                key,
                ty,
                wait: nonblocking(wait),
            },
            // Nobody waits: kill and timeout have nothing to act on.
            Cmd::Kill { .. } | Cmd::Timeout { .. } => continue,
            c => c,
        };
        let Some((s, command, wait)) = cmd.command() else {
            unreachable!("kill and timeout are skipped above")
        };
        if ctx[s].is_none() {
            // Disconnected: the oracle refuses too.
            assert_eq!(o.step(&cmd).0, Outcome::Error);
            continue;
        }
        let got = command
            .apply_to_context(&mut ctx[s], wait, &mut || {})
            .unwrap_or(Outcome::Error);
        let (want, events) = o.step(&cmd);
        trace.push_str(&format!("{cmd:?} -> manager {got}, oracle {want}\n"));
        assert_eq!(got, want, "outcome differs\n{trace}");
        assert!(events.is_empty(), "nobody waits, yet {events:?}\n{trace}");
        for (i, c) in ctx.iter().enumerate() {
            let mut mh: Vec<(MdlKey, mdl_core::LockType, mdl_core::Duration)> = c
                .as_ref()
                .map(|c| {
                    c.held()
                        .iter()
                        .map(|h| (h.key.clone(), h.ty, h.dur))
                        .collect()
                })
                .unwrap_or_default();
            let mut oh: Vec<(MdlKey, mdl_core::LockType, mdl_core::Duration)> = o
                .held(i)
                .iter()
                .map(|h| (h.key.clone(), h.ty, h.dur))
                .collect();
            mh.sort();
            oh.sort();
            assert_eq!(mh, oh, "session {i} holds differ\n{trace}");
        }
        for k in &keys {
            let mut mg: Vec<(u32, mdl_core::LockType)> = m
                .snapshot()
                .into_iter()
                .filter(|r| &r.key == k)
                .map(|r| {
                    assert!(r.granted, "a pending request with no waits\n{trace}");
                    (r.owner.0, r.ty)
                })
                .collect();
            let mut og: Vec<(u32, mdl_core::LockType)> = o
                .lock(k)
                .map(|l| l.granted.iter().map(|g| (g.owner as u32, g.ty)).collect())
                .unwrap_or_default();
            mg.sort();
            og.sort();
            assert_eq!(mg, og, "granted on {k:?} differ\n{trace}");
        }
    }
});
