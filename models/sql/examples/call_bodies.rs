//! Plays `CREATE PROCEDURE` then a `CALL` of it, each pair on a fresh model over the
//! fixture, and prints per pair whether the CALL is played or refused (and why): the
//! figure of `models/sql/README.md`'s CALL section. Input on stdin: records separated by
//! U+001E, each `create` U+001F `call` U+001F `label`.
//!
//! ```sh
//! cargo run -p mdl-sql --example call_bodies < pairs.txt
//! ```

use mdl_sql::mapping::Mapping;
use mdl_sql::model::SqlModel;
use std::io::Read;

fn main() {
    let map = Mapping::load().expect("statements.tsv");
    let mut input = String::new();
    std::io::stdin()
        .read_to_string(&mut input)
        .expect("stdin is text");
    for rec in input.split('\u{1e}').filter(|r| !r.trim().is_empty()) {
        let mut f = rec.split('\u{1f}');
        let (create, call, label) = (
            f.next().unwrap_or(""),
            f.next().unwrap_or(""),
            f.next().unwrap_or(""),
        );
        let mut m = SqlModel::new(map.clone());
        let a = m.add_session();
        let verdict = match m.step(a, create) {
            Err(e) => format!("create-refused\t{e}"),
            Ok(_) => match m.step(a, call) {
                Ok(o) => format!("played\t{o:?}"),
                Err(e) => format!("call-refused\t{e}"),
            },
        };
        println!("{}\t{}", label.trim(), verdict.replace('\n', " "));
    }
}
