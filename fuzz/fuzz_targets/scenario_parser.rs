//! `mdl_scenario::parse::parse` on arbitrary bytes and near-valid scenario text
//! (the corpus holds the bundled scenarios, `dict/scenario.dict` the keywords): it never
//! panics, and every error has a line and a column of at least 1.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    if let Err(e) = mdl_scenario::parse::parse("fuzz.mdl", &text) {
        assert!(
            e.pos.line >= 1 && e.pos.col >= 1,
            "error without a position: {e:?} for {text:?}"
        );
        let lines = text.lines().count().max(1);
        assert!(
            e.pos.line <= lines + 1,
            "error past the end: {e:?} for {text:?}"
        );
    }
});
