//! `mdl explore FILE [--addr 127.0.0.1:3000]`: serve stateright's Explorer for one
//! scenario's model, on a loopback address only.

use mdl_check::model::explore::ExploreModel;
use mdl_check::model::MdlModel;
use mdl_check::sql::explore::ExploreSql;
use stateright::Model;
use std::net::{SocketAddr, ToSocketAddrs};
use std::path::PathBuf;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The scenario file (`.mdl`).
    pub file: PathBuf,
    /// Where to listen; must be a loopback address.
    #[arg(long, default_value = "127.0.0.1:3000")]
    pub addr: String,
    /// Read the file in this dialect: a built-in one (mysql-8.0, mariadb) or a dialect
    /// folder (models/docs/dialect-format.md); it replaces the file's `dialect` line.
    #[arg(long, value_name = "NAME|DIR")]
    pub dialect: Option<String>,
}

/// The address to serve on, if it is a loopback one.
pub fn loopback(addr: &str) -> Result<SocketAddr, String> {
    let a = addr
        .to_socket_addrs()
        .map_err(|e| format!("bad address `{addr}`: {e}"))?
        .next()
        .ok_or_else(|| format!("bad address `{addr}`"))?;
    if !a.ip().is_loopback() {
        return Err(format!(
            "refusing to serve on {a}: the Explorer listens on loopback addresses only"
        ));
    }
    Ok(a)
}

pub fn main(args: Args) -> i32 {
    let addr = match loopback(&args.addr) {
        Ok(a) => a,
        Err(e) => {
            eprintln!("mdl explore: {e}");
            return 2;
        }
    };
    let opts = match super::dialect_option("explore", args.dialect.as_deref()) {
        Ok(o) => o,
        Err(code) => return code,
    };
    let file = match mdl_scenario::read::read_file_with(&args.file, &opts) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("{e}");
            return 2;
        }
    };
    if mdl_check::sql::is_sql(&file.scenario) {
        let m = match mdl_check::sql::SqlCheck::new(&file.scenario) {
            Ok(m) => m,
            Err(e) => {
                eprintln!("{}", file.error(&e));
                return 2;
            }
        };
        if let Err(e) = std::net::TcpListener::bind(addr) {
            eprintln!("mdl explore: cannot listen on {addr}: {e}");
            return 2;
        }
        eprintln!(
            "mdl explore: serving the SQL model of {} on http://{addr}/ (Ctrl-C to stop)",
            args.file.display()
        );
        ExploreSql::new(m).checker().serve(addr);
        return 0;
    }
    let m: MdlModel = match MdlModel::new(&file.scenario).map_err(|e| file.error(&e)) {
        Ok(m) => m,
        Err(e) => {
            eprintln!("{e}");
            return 2;
        }
    };
    // tiny_http panics on a port in use: find out first, as an error value.
    if let Err(e) = std::net::TcpListener::bind(addr) {
        eprintln!("mdl explore: cannot listen on {addr}: {e}");
        return 2;
    }
    eprintln!(
        "mdl explore: serving the model of {} on http://{addr}/ (Ctrl-C to stop)",
        args.file.display()
    );
    ExploreModel::new(m).checker().serve(addr);
    0
}
