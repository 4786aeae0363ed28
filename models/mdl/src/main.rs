//! `mdl`: run, check and explore lock scenarios; print dialect tables; run the bug zoo,
//! the conformance suite and the benchmarks. Exit codes: 0 all good, 1 a check or an
//! expectation failed, 2 bad input or command line.

use clap::{Parser, Subcommand};
use mdl::cmd;
use mdl_check::model::mem::CountingAlloc;

/// Counts live heap bytes, so that `mdl check --max-memory` bounds the whole process.
/// Over mimalloc: a model-checker search allocates and frees small vectors for every
/// successor state, and glibc's malloc took a fifth of its time (models/MODEL.md).
#[global_allocator]
static ALLOC: CountingAlloc<mimalloc::MiMalloc> = CountingAlloc(mimalloc::MiMalloc);

#[derive(Parser)]
#[command(
    name = "mdl",
    version,
    about = "A verified metadata lock manager: run, check and explore lock scenarios"
)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Play scenario files in written order on the real concurrent lock manager.
    Run(cmd::run::Args),
    /// Explore every interleaving of scenario files with the model checker.
    Check(cmd::check::Args),
    /// Serve stateright's Explorer for a scenario on 127.0.0.1.
    Explore(cmd::explore::Args),
    /// Print a dialect's tables.
    Matrix(cmd::matrix::Args),
    /// Start a dialect folder of your own (`mdl dialect new DIR`).
    Dialect(cmd::dialect::Args),
    /// Run the bug zoo: old designs caught, new designs hold.
    Zoo(cmd::zoo::Args),
    /// Run SQL scenarios on a real MariaDB server and on our manager, and compare.
    Conform(cmd::conform::Args),
    /// Measure the manager against baselines in one run.
    Bench(cmd::bench::Args),
}

fn main() {
    ALLOC.installed();
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let code = if e.use_stderr() { 2 } else { 0 };
            let _ = e.print();
            std::process::exit(code);
        }
    };
    let code = match cli.cmd {
        Cmd::Run(a) => cmd::run::main(a),
        Cmd::Check(a) => cmd::check::main(a),
        Cmd::Explore(a) => cmd::explore::main(a),
        Cmd::Matrix(a) => cmd::matrix::main(a),
        Cmd::Dialect(a) => cmd::dialect::main(a),
        Cmd::Zoo(a) => cmd::zoo::main(a),
        Cmd::Conform(a) => cmd::conform::main(a),
        Cmd::Bench(a) => cmd::bench::main(a),
    };
    std::process::exit(code);
}
