//! Some groups of `mdl bench` without building the `mdl` CLI (which builds every model):
//! `groups quick|full GROUP...` runs those groups (`single`, `threads`, `many`, ...; none:
//! all) with `mdl bench --quick` or the full plan, 2 threads, and prints the same report.

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let opts = match args.first().map(String::as_str) {
        Some("quick") => mdl_bench::Options::quick(2),
        Some("full") => mdl_bench::Options::full(2),
        _ => {
            eprintln!("usage: groups quick|full [GROUP...]");
            std::process::exit(2);
        }
    };
    let only: Vec<&'static str> = args[1..]
        .iter()
        .map(|g| &*Box::leak(g.clone().into_boxed_str()))
        .collect();
    let opts = mdl_bench::Options {
        only: Box::leak(only.into_boxed_slice()),
        ..opts
    };
    print!("{}", mdl_bench::render(&mdl_bench::run(opts, false)));
}
