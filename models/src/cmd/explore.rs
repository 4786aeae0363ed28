//! `mdl explore`. (Stub: to be implemented.)

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Input files.
    pub files: Vec<std::path::PathBuf>,
}

pub fn main(args: Args) -> i32 {
    eprintln!(
        "mdl explore: not implemented yet ({} files)",
        args.files.len()
    );
    2
}
