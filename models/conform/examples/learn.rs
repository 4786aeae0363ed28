//! `learn OUT [KIND...]`: learns the whole table, or only the kinds named into the
//! committed one (development aid; `mdl conform --learn` is the tool).
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let server = mdl_conform::server::Server::start().unwrap();
    let mut err = std::io::stderr();
    let m = if args.len() > 2 {
        let base = mdl_sql::mapping::Mapping::load().unwrap();
        mdl_conform::learn::learn_only(&server, &base, &args[2..], &mut err).unwrap()
    } else {
        mdl_conform::learn::learn(&server, &mut err).unwrap()
    };
    std::fs::write(&args[1], m.to_text()).unwrap();
}
