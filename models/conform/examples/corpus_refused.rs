//! Prints `file:line\tfamily\treason\tsql` for each statement of the offline corpus whose family starts with the second argument (`A` accepted with its outcome, `R` refused with the reason): `cargo run -p mdl-conform --example corpus_refused -- DIR "ALTER TABLE"`.
use mdl_conform::corpus;
use mdl_sql::mapping::Mapping;
use std::path::Path;

fn main() {
    let dir = std::env::args().nth(1).expect("dir");
    let fam_filter = std::env::args().nth(2).unwrap_or_default();
    let map = Mapping::load().unwrap();
    let dir = Path::new(&dir);
    let list = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../conformance")
        .join(corpus::LIST_FILE);
    let files = corpus::files(dir, &list).unwrap();
    let es = corpus::statements(dir, &files).unwrap();
    for e in es {
        let fam = corpus::family(&e.sql);
        if !fam.starts_with(&fam_filter) {
            continue;
        }
        match corpus::offline(&map, &e.sql) {
            Err(r) => println!(
                "R\t{}:{}\t{}\t{}\t{}",
                e.file,
                e.line,
                fam,
                corpus::reason(&r),
                e.sql.replace('\n', " ")
            ),
            Ok(o) => println!(
                "A\t{}:{}\t{}\t{:?}\t{}",
                e.file,
                e.line,
                fam,
                o,
                e.sql.replace('\n', " ")
            ),
        }
    }
}
