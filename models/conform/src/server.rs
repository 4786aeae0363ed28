//! A throwaway MariaDB server: a fresh datadir under the temporary directory
//! (`$TMPDIR/mdl-conform/<unique>/`, or under `MDL_CONFORM_DIR`), a Unix socket, no
//! networking, the `metadata_lock_info` plugin and the performance schema's MDL
//! instrument on.
//!
//! Cleaned up on every exit path:
//! - `Drop` (and [`Server::stop`]) stops the server by PID (SIGTERM, then SIGKILL after a
//!   bounded wait) and removes the datadir, so a failing or panicking test leaves nothing;
//! - a *guardian* (`sh`, in its own process group, deaf to SIGINT/SIGTERM/SIGHUP) is
//!   started before the datadir is made and reads a pipe from this process: when this
//!   process dies in any way (SIGKILL included) the pipe reaches end of file and the
//!   guardian kills the server and removes the datadir. A normal stop tells it `done`
//!   first, so it never signals a PID that may have been reused. The server runs in its
//!   own process group too, so a terminal's Ctrl-C reaches only `mdl`.
//!
//! `MDL_CONFORM_KEEP=1` keeps the datadir (for reading `error.log`).

use super::client::Conn;
use super::ConformError;
use mdl_scenario::ServerOptionName;
use std::io::Write;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};

static COUNTER: AtomicU32 = AtomicU32::new(0);
static INSTALL: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Polls of the socket while the server starts (100 ms apart: at most 60 s).
const START_TRIES: u32 = 600;
/// Polls of the process after SIGTERM (50 ms apart: at most 20 s) before SIGKILL.
const STOP_TRIES: u32 = 400;

pub struct Server {
    child: Option<Child>,
    /// The guardian's stdin and process (see the module doc).
    guard: Option<(ChildStdin, Child)>,
    dir: PathBuf,
    socket: PathBuf,
    version: String,
    keep: bool,
    /// The options it was started with, sorted by name ([`Server::start_with`]).
    options: Vec<(ServerOptionName, u64)>,
}

fn find(bin: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .chain([
            "/usr/sbin".into(),
            "/usr/bin".into(),
            "/usr/local/sbin".into(),
        ])
        .map(|d: PathBuf| d.join(bin))
        .find(|p| p.is_file())
}

/// The root under which servers make their datadirs: `MDL_CONFORM_DIR`, or
/// `mdl-conform` under the temporary directory.
pub fn root() -> PathBuf {
    match std::env::var_os("MDL_CONFORM_DIR") {
        Some(d) if !d.is_empty() => PathBuf::from(d),
        _ => std::env::temp_dir().join("mdl-conform"),
    }
}

/// The guardian script: `$1` the datadir, `$2` 1 to keep it. Reads the server's PID, then
/// waits for `done` (a normal stop) or end of file (this process died).
const GUARDIAN: &str = "trap '' INT TERM HUP; read pid; read cmd; \
if [ \"$cmd\" != done ] && [ -n \"$pid\" ]; then kill -9 \"$pid\" 2>/dev/null; sleep 1; fi; \
if [ \"$2\" != 1 ]; then rm -rf \"$1\"; fi";

fn start_guardian(dir: &Path, keep: bool) -> Result<(ChildStdin, Child), ConformError> {
    let mut g = Command::new("sh")
        .arg("-c")
        .arg(GUARDIAN)
        .arg("sh")
        .arg(dir)
        .arg(if keep { "1" } else { "0" })
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .process_group(0)
        .spawn()
        .map_err(|e| ConformError::Server(format!("guardian: {e}")))?;
    let stdin = g.stdin.take().expect("piped");
    Ok((stdin, g))
}

/// Is a MariaDB server installed here?
pub fn available() -> Result<(), ConformError> {
    for b in ["mariadbd", "mariadb-install-db", "mariadb"] {
        if find(b).is_none() {
            return Err(ConformError::Server(format!(
                "`{b}` not found (apt-get install mariadb-server)"
            )));
        }
    }
    Ok(())
}

impl Server {
    /// Makes a datadir, starts the server and waits until its socket answers.
    pub fn start() -> Result<Server, ConformError> {
        Server::start_with(&[])
    }

    /// [`Server::start`] with `--NAME=VALUE` for each option (a scenario's `server_option`
    /// lines), checked once the server answers (`SELECT @@NAME`).
    pub fn start_with(options: &[(ServerOptionName, u64)]) -> Result<Server, ConformError> {
        let mut options = options.to_vec();
        options.sort();
        options.dedup();
        available()?;
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.subsec_nanos())
            .unwrap_or(0);
        let mut dir = root().join(format!("{}-{n}-{nanos:x}", std::process::id()));
        // A Unix socket path must fit in 108 bytes.
        if dir.join("sock").as_os_str().len() > 100 {
            dir = std::env::temp_dir().join(format!("mdl-conform-{}-{n}", std::process::id()));
        }
        let _ = std::fs::remove_dir_all(&dir);
        let keep = std::env::var_os("MDL_CONFORM_KEEP").is_some();
        std::fs::create_dir_all(&dir)
            .map_err(|e| ConformError::Server(format!("mkdir {}: {e}", dir.display())))?;
        let dir = dir.canonicalize().unwrap_or(dir);
        let mut guard = Some(start_guardian(&dir, keep)?);
        let data = dir.join("data");
        let socket = dir.join("sock");
        // Each server has its own tmpdir, and installs run one at a time: concurrent
        // bootstraps sharing /tmp were seen to fail.
        let tmp = dir.join("tmp");
        std::fs::create_dir_all(&tmp).map_err(|e| ConformError::Server(e.to_string()))?;
        let _guard = INSTALL.lock().unwrap_or_else(|p| p.into_inner());
        let log = std::fs::File::create(dir.join("install.log"))
            .map_err(|e| ConformError::Server(e.to_string()))?;
        let st = Command::new(find("mariadb-install-db").expect("checked"))
            .arg("--no-defaults")
            .arg(format!("--datadir={}", data.display()))
            .arg(format!("--tmpdir={}", tmp.display()))
            .arg("--auth-root-authentication-method=normal")
            .arg("--user=root")
            .stdout(
                log.try_clone()
                    .map_err(|e| ConformError::Server(e.to_string()))?,
            )
            .stderr(log)
            .status()
            .map_err(|e| ConformError::Server(format!("mariadb-install-db: {e}")))?;
        if !st.success() {
            if let Some((mut i, mut g)) = guard.take() {
                let _ = writeln!(i, "\ndone");
                drop(i);
                let _ = g.wait();
            }
            return Err(ConformError::Server(format!(
                "mariadb-install-db failed ({st}); see {}",
                dir.join("install.log").display()
            )));
        }
        let child = Command::new(find("mariadbd").expect("checked"))
            .arg("--no-defaults")
            .arg(format!("--datadir={}", data.display()))
            .arg(format!("--socket={}", socket.display()))
            .arg(format!("--pid-file={}", dir.join("pid").display()))
            .arg(format!("--tmpdir={}", tmp.display()))
            .arg(format!("--log-error={}", dir.join("error.log").display()))
            .args([
                "--skip-networking",
                "--user=root",
                "--plugin-load-add=metadata_lock_info",
                "--performance-schema=ON",
                "--performance-schema-instrument=wait/lock/metadata/sql/mdl=ON",
                "--innodb-buffer-pool-size=16M",
                "--innodb-log-file-size=8M",
                "--skip-log-bin",
                "--max-connections=64",
            ])
            .args(options.iter().map(|(n, v)| format!("--{}={v}", n.as_str())))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .process_group(0)
            .spawn()
            .map_err(|e| ConformError::Server(format!("mariadbd: {e}")))?;
        if let Some((i, _)) = guard.as_mut() {
            let _ = writeln!(i, "{}", child.id());
            let _ = i.flush();
        }
        let mut s = Server {
            child: Some(child),
            guard,
            dir,
            socket,
            version: String::new(),
            keep,
            options,
        };
        s.wait_ready()?;
        s.check_options()?;
        Ok(s)
    }

    /// The server took every option with the value asked for.
    fn check_options(&self) -> Result<(), ConformError> {
        let mut c = self.connect()?;
        for (n, v) in &self.options {
            let got = c.query_one(&format!("SELECT @@GLOBAL.{}", n.as_str()))?;
            if got != v.to_string() {
                return Err(ConformError::Server(format!(
                    "started with --{}={v}, the server has {got}",
                    n.as_str()
                )));
            }
        }
        Ok(())
    }

    /// The options the server was started with, sorted by name.
    pub fn options(&self) -> &[(ServerOptionName, u64)] {
        &self.options
    }

    fn wait_ready(&mut self) -> Result<(), ConformError> {
        for _ in 0..START_TRIES {
            if let Some(c) = self.child.as_mut() {
                if let Ok(Some(st)) = c.try_wait() {
                    return Err(ConformError::Server(format!(
                        "mariadbd exited ({st}); see {}",
                        self.dir.join("error.log").display()
                    )));
                }
            }
            if self.socket.exists() {
                if let Ok(mut c) = Conn::open(&self.socket) {
                    if let Ok(v) = c.query_one("SELECT VERSION()") {
                        self.version = v;
                        return Ok(());
                    }
                }
            }
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
        Err(ConformError::Server(
            "mariadbd did not answer on its socket in time".into(),
        ))
    }

    pub fn socket(&self) -> &Path {
        &self.socket
    }

    pub fn version(&self) -> &str {
        &self.version
    }

    /// The server's directory (datadir, socket, logs).
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The server process's id, while it runs.
    pub fn pid(&self) -> Option<u32> {
        self.child.as_ref().map(|c| c.id())
    }

    pub fn connect(&self) -> Result<Conn, ConformError> {
        Conn::open(&self.socket)
    }

    /// Stops the server (also done by `Drop`).
    pub fn stop(&mut self) {
        let Some(mut child) = self.child.take() else {
            return;
        };
        let pid = child.id() as libc::pid_t;
        // SAFETY: signalling a child process we started and have not reaped yet.
        unsafe {
            libc::kill(pid, libc::SIGTERM);
        }
        let mut done = false;
        for _ in 0..STOP_TRIES {
            if let Ok(Some(_)) = child.try_wait() {
                done = true;
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        if !done {
            let _ = child.kill();
            let _ = child.wait();
        }
        if !self.keep {
            let _ = std::fs::remove_dir_all(&self.dir);
        }
        if let Some((mut i, mut g)) = self.guard.take() {
            let _ = writeln!(i, "done");
            drop(i);
            let _ = g.wait();
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop();
    }
}
