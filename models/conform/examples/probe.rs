//! Exploration: runs `SESSION: SQL` lines on a throwaway server; after each prints every
//! session's state and locks. `kill SESSION`, `sleep MS` too.
use mdl_conform::client::Conn;
use mdl_conform::learn::{settle_all, Settled};
use mdl_conform::locks::Snapshot;
use mdl_conform::server::Server;
use std::collections::BTreeMap;

fn main() {
    let path = std::env::args().nth(1).expect("file");
    let text = std::fs::read_to_string(&path).unwrap();
    let server = Server::start().unwrap();
    println!("server {}", server.version());
    let mut mon = server.connect().unwrap();
    mon.query(mdl_sql::mapping::FIXTURE).unwrap();
    let mut conns: BTreeMap<String, Conn> = BTreeMap::new();
    for line in text.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if let Some(ms) = line.strip_prefix("sleep ") {
            std::thread::sleep(std::time::Duration::from_millis(ms.parse().unwrap()));
        } else if let Some(s) = line.strip_prefix("kill ") {
            let id = conns[s].id;
            mon.query(&format!("KILL QUERY {id}")).unwrap();
        } else {
            let (s, q) = line.split_once(':').unwrap();
            let s = s.trim().to_string();
            if !conns.contains_key(&s) {
                conns.insert(s.clone(), server.connect().unwrap());
            }
            let c = conns.get_mut(&s).unwrap();
            if c.busy() {
                println!("!! {s} busy");
                continue;
            }
            c.send(q.trim()).unwrap();
        }
        let mut bn = Vec::new();
        let mut refs: Vec<&mut Conn> = Vec::new();
        for (n, c) in conns.iter_mut() {
            if c.busy() {
                bn.push(n.clone());
                refs.push(c);
            }
        }
        let st = settle_all(&mut mon, &mut refs).unwrap();
        drop(refs);
        println!("> {line}");
        for (n, x) in bn.iter().zip(st) {
            match x {
                Some(Settled::Done(r)) => {
                    println!("    {n} done: rows {:?} err {:?}", r.rows, r.error)
                }
                Some(o) => println!("    {n} {o:?}"),
                None => {}
            }
        }
        let snap = Snapshot::take(&mut mon).unwrap();
        for (n, c) in conns.iter() {
            println!("    {n}: {:?}", snap.set_of(c.id));
        }
    }
}
