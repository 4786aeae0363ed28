//! `mdl_core::deadlock::detect` against a brute-force search on random wait-for graphs
//! (MDL and foreign edges): the same answer on whether a cycle through the start exists,
//! a real cycle, the same cycle as the first simple path in depth-first order, and the
//! victim by the weight rule (lowest weight; tie: the start, then the nearest to it).
//! With the servers' depth cap (`max_search_depth`), the same path, ending and victim as
//! the search written as the servers write it (`brute::capped_search`).
#![no_main]

use libfuzzer_sys::fuzz_target;
use mdl_fuzz::{Core, FGraph};
use mdl_scenario::oracle::brute;

fuzz_target!(|f: FGraph| {
    let FGraph { g, start } = f;
    let waits: Vec<bool> = g.succ.iter().map(|s| !s.is_empty()).collect();
    for depth in [2, 3, 5] {
        let core = mdl_core::deadlock::detect_with(&Core(&g), start, Some(depth));
        let brute = brute::capped_search(&g, &waits, start, depth);
        match (core, brute) {
            (None, None) => {}
            (Some(d), Some((path, capped))) => {
                assert_eq!(d.cycle, path, "capped search, depth {depth}: {g:?}");
                assert_eq!(d.capped, capped, "capped search, depth {depth}: {g:?}");
                assert_eq!(d.victim, brute::victim(&g, &path), "depth {depth}: {g:?}");
            }
            (c, b) => panic!("depth {depth} from {start}: core {c:?}, brute {b:?} on {g:?}"),
        }
    }
    let core = mdl_core::deadlock::detect(&Core(&g), start);
    let exists = brute::reaches_start(&g, start);
    let first = brute::first_cycle(&g, start);
    assert_eq!(
        first.is_some(),
        exists,
        "brute-force searches disagree on {g:?}"
    );
    match (core, first) {
        (None, None) => {}
        (Some(d), Some(c)) => {
            let cy = &d.cycle;
            assert_eq!(cy[0], start, "the cycle starts at the start: {g:?} {cy:?}");
            for (i, &n) in cy.iter().enumerate() {
                let next = cy[(i + 1) % cy.len()];
                assert!(
                    g.succ[n].contains(&next),
                    "{n} -> {next} is no edge: {g:?} {cy:?}"
                );
                assert!(!cy[..i].contains(&n), "the cycle repeats {n}: {g:?} {cy:?}");
            }
            assert_eq!(
                d.victim,
                brute::victim(&g, cy),
                "victim rule on {g:?} {cy:?}"
            );
            assert_eq!(cy, &c, "not the first cycle in depth-first order: {g:?}");
        }
        (c, b) => panic!("cycle through {start}: core {c:?}, brute force {b:?} on {g:?}"),
    }
});
