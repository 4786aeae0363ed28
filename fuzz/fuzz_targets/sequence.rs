//! `mdl_core::table::LockTable` against the reference oracle: random programs of 2-4
//! sessions on 1-3 keys, both dialects; every step's outcome, events, granted sets,
//! queues, counters, held tickets and victims must agree.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mdl_fuzz::FProgram;

fuzz_target!(|p: FProgram| {
    if let Err(e) = mdl_scenario::oracle::run(&p.0) {
        panic!("lock table and oracle disagree:\n{e}\nprogram: {:?}", p.0);
    }
});
