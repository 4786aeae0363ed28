//! The command line's file path on arbitrary bytes: the one scenario reader, then, for a
//! small valid scenario, `mdl run` on both engines (one transcript) and a bounded
//! `mdl check` with its reports (`mdl_fuzz::cli`). Corpus: the bundled scenarios;
//! dictionary: `dict/scenario.dict`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| mdl_fuzz::cli::one(data));
