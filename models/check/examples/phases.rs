//! What one step of the search costs, phase by phase, on a state a few actions into a
//! scenario: cloning a state, taking an action (clone included), encoding, fingerprinting,
//! decoding, the property predicates. A measuring aid for `models/MODEL.md`, not a test:
//!
//!     cargo run --release -p mdl-check --example phases -- models/scale/backup6.mdl

use mdl_check::model::encode::{fingerprint, Codec, Scratch};
use mdl_check::model::MdlModel;
use std::time::Instant;
/// Times each phase over 200,000 rounds on one state.
fn main() {
    let path = std::env::args().nth(1).unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    let sc = mdl_scenario::parse::parse(&path, &text).unwrap();
    let m = MdlModel::new(&sc).unwrap();
    let codec = Codec::new(&m, true);
    // Walk a few steps in.
    let mut st = m.initial();
    let mut acts = Vec::new();
    for _ in 0..6 {
        acts.clear();
        m.enabled(&st, &mut acts);
        if acts.is_empty() {
            break;
        }
        st = m.apply(&st, acts[acts.len() / 2]).unwrap().0;
    }
    acts.clear();
    m.enabled(&st, &mut acts);
    let n = 200_000;
    let mut sc = Scratch::default();
    let mut enc = Vec::new();
    codec.encode(&st, &mut sc, &mut enc);
    println!("encoding {} bytes, {} actions", enc.len(), acts.len());
    let t = Instant::now();
    for _ in 0..n {
        let c = st.clone();
        std::hint::black_box(&c);
    }
    println!(
        "clone+drop {:.0} ns",
        t.elapsed().as_nanos() as f64 / n as f64
    );
    let t = Instant::now();
    for i in 0..n {
        let r = m.apply(&st, acts[i % acts.len()]);
        std::hint::black_box(&r);
    }
    println!("apply {:.0} ns", t.elapsed().as_nanos() as f64 / n as f64);
    let t = Instant::now();
    for _ in 0..n {
        codec.encode(&st, &mut sc, &mut enc);
        std::hint::black_box(&enc);
    }
    println!("encode {:.0} ns", t.elapsed().as_nanos() as f64 / n as f64);
    let t = Instant::now();
    for _ in 0..n {
        let f = fingerprint(&enc);
        std::hint::black_box(f);
    }
    println!(
        "fingerprint {:.0} ns",
        t.elapsed().as_nanos() as f64 / n as f64
    );
    let t = Instant::now();
    for _ in 0..n {
        let d = codec.decode(&enc);
        std::hint::black_box(&d);
    }
    println!(
        "decode+drop {:.0} ns",
        t.elapsed().as_nanos() as f64 / n as f64
    );
    let t = Instant::now();
    for _ in 0..n {
        for k in m.prop_kinds() {
            std::hint::black_box(m.holds_in(k.0, &st));
        }
    }
    println!("props {:.0} ns", t.elapsed().as_nanos() as f64 / n as f64);
}
