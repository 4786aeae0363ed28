//! Measures the algorithm MariaDB picks for ALTER TABLE operations: for each `op: SPEC`
//! line, the table of the last `create: SQL` line (made again before each operation) is
//! altered with `SPEC, ALGORITHM=INSTANT`, then NOCOPY, INPLACE, COPY; the first one the
//! server accepts is printed (`SPEC\tALGORITHM`, or the error of COPY).
use mdl_conform::server::Server;

fn main() {
    let path = std::env::args().nth(1).expect("file");
    let text = std::fs::read_to_string(&path).expect("read");
    let server = Server::start().expect("server");
    println!("# {}", server.version());
    let mut c = server.connect().expect("connect");
    c.exec("CREATE DATABASE IF NOT EXISTS m").expect("db");
    c.exec("USE m").expect("use");
    let mut create = String::new();
    for line in text.lines().map(str::trim) {
        if let Some(sql) = line.strip_prefix("create:") {
            create = sql.trim().to_owned();
            continue;
        }
        let Some(spec) = line.strip_prefix("op:") else {
            continue;
        };
        let spec = spec.trim();
        let mut got = String::new();
        for algo in ["INSTANT", "NOCOPY", "INPLACE", "COPY"] {
            c.exec("DROP TABLE IF EXISTS x").expect("drop");
            let r = c.exec(&create).expect("create");
            assert!(r.error.is_none(), "{create}: {:?}", r.error);
            c.exec("INSERT INTO x () VALUES (), (), ()").expect("rows");
            let r = c
                .exec(&format!("ALTER TABLE x {spec}, ALGORITHM={algo}"))
                .expect("alter");
            match r.error {
                None => {
                    got = algo.to_owned();
                    break;
                }
                Some((code, msg)) => got = format!("error {code} {msg}"),
            }
        }
        println!("{spec}\t{got}");
    }
}
