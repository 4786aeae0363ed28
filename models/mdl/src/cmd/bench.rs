//! `mdl bench [--quick] [--json] [--threads N] [--smoke]`: our manager and the baselines
//! (a `parking_lot::RwLock`, a `DashMap` of them, a naive global-mutex manager) measured
//! in the same run; prints ns/op or ops/s and the target ratios. See `models/BENCH.md`.
//! Exit status 0 when the benchmarks ran (targets are reported, not enforced), 2 on a
//! bad command line.

use mdl_bench as bench;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// A tenth of the operations and 3 runs instead of 11 (a few seconds).
    #[arg(long)]
    pub quick: bool,
    /// A handful of operations of each benchmark: checks that everything runs, means nothing.
    #[arg(long)]
    pub smoke: bool,
    /// Print the report as JSON on stdout.
    #[arg(long)]
    pub json: bool,
    /// Threads of the contended benchmarks.
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u16).range(1..=256))]
    pub threads: u16,
    /// Run only these groups (repeatable).
    #[arg(long, value_enum)]
    pub only: Vec<Group>,
    /// Write SVG plots of the DDL and OLTP groups into this folder.
    #[arg(long, value_name = "DIR")]
    pub plots: Option<std::path::PathBuf>,
    /// Print each result on stderr as it is measured.
    #[arg(long, short)]
    pub verbose: bool,
    /// Instead of the timings: the abort rate of a random DDL/DML mix with the victim
    /// rule and with soft-edge resolution, over this many runs (a count, deterministic).
    #[arg(long, value_name = "RUNS", value_parser = clap::value_parser!(u32).range(1..))]
    pub abort_mix: Option<u32>,
    /// Sessions per run of `--abort-mix`.
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u16).range(1..=64))]
    pub mix_sessions: u16,
    /// Tables of `--abort-mix`.
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u16).range(1..=1000))]
    pub mix_tables: u16,
    /// Percent of DDL transactions in `--abort-mix`.
    #[arg(long, default_value_t = 25, value_parser = clap::value_parser!(u32).range(0..=100))]
    pub mix_ddl: u32,
    /// First seed of `--abort-mix`.
    #[arg(long, default_value_t = 1)]
    pub mix_seed: u64,
}

/// A group of benchmarks.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Group {
    /// Uncontended acquire + commit, and the baselines.
    Single,
    /// N threads on one table and on distinct tables.
    Threads,
    /// n locks in one context, then commit.
    Many,
    /// Deadlock search in chains and cycles.
    Deadlock,
    /// The first DDL on a table after 10 .. 10,000 contexts used it on the fast path.
    Ddl,
    /// A mixed OLTP workload (reads, writes, ALTER, FTWRL) on 1, 2, 4, 8 threads.
    Oltp,
    /// Async against blocking acquire + commit, uncontended.
    Async,
    /// A simulation of same-table throughput at 2, 16 and 64 cores (no measurement).
    Scaling,
}

impl Group {
    fn name(self) -> &'static str {
        match self {
            Group::Single => "single",
            Group::Threads => "threads",
            Group::Many => "many",
            Group::Deadlock => "deadlock",
            Group::Ddl => "ddl",
            Group::Oltp => "oltp",
            Group::Async => "async",
            Group::Scaling => "scaling",
        }
    }
}

pub fn main(args: Args) -> i32 {
    if let Some(runs) = args.abort_mix {
        let o = bench::abort_mix::MixOptions {
            runs,
            sessions: usize::from(args.mix_sessions),
            tables: usize::from(args.mix_tables),
            ddl_percent: args.mix_ddl,
            seed: args.mix_seed,
            ..Default::default()
        };
        let r = bench::abort_mix::run(o);
        if args.json {
            match serde_json::to_string_pretty(&r) {
                Ok(s) => println!("{s}"),
                Err(e) => {
                    eprintln!("mdl bench: cannot write JSON: {e}");
                    return 2;
                }
            }
        } else {
            print!("{}", bench::abort_mix::render(&r));
        }
        return 0;
    }
    let threads = usize::from(args.threads);
    let only: Vec<&'static str> = args.only.iter().map(|g| g.name()).collect();
    let mut opts = if args.smoke {
        bench::Options {
            threads,
            ..bench::Options::smoke()
        }
    } else if args.quick {
        bench::Options::quick(threads)
    } else {
        bench::Options::full(threads)
    };
    // The options outlive the run; a handful of bytes leaked once per process.
    opts.only = Vec::leak(only);
    let report = bench::run(opts, args.verbose);
    if args.json {
        match serde_json::to_string_pretty(&report) {
            Ok(s) => println!("{s}"),
            Err(e) => {
                eprintln!("mdl bench: cannot write JSON: {e}");
                return 2;
            }
        }
    } else {
        print!("{}", bench::render(&report));
    }
    if let Some(dir) = &args.plots {
        match bench::plot::write(&report, dir, opts.pinners, opts.oltp_threads) {
            Ok(files) => {
                for f in files {
                    eprintln!("mdl bench: wrote {}", f.display());
                }
            }
            Err(e) => {
                eprintln!("mdl bench: plots: {e}");
                return 1;
            }
        }
    }
    0
}
