//! Memory: a counting global allocator (installed by the `mdl` binary), the machine's
//! memory, and the process's peak resident size.
//!
//! The search bounds itself by [`heap_bytes`] when the allocator is installed (every
//! byte the process has allocated and not freed, whoever allocated it), and by its own
//! count of its structures otherwise (a library user, the tests).

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicBool, AtomicIsize, Ordering};

/// An allocator (`A`: the system's by default; the `mdl` binary gives it mimalloc),
/// counting live bytes. Each thread sums its changes locally and adds them to the shared
/// count once they pass [`SLACK`] bytes, so the shared count is within `SLACK` per thread
/// of the truth and an allocation costs no atomic operation.
pub struct CountingAlloc<A = System>(pub A);

/// How far a thread's uncounted change may grow before it is added to the shared count.
pub const SLACK: isize = 256 * 1024;

static LIVE: AtomicIsize = AtomicIsize::new(0);
static INSTALLED: AtomicBool = AtomicBool::new(false);

thread_local! {
    static DELTA: Cell<isize> = const { Cell::new(0) };
}

fn count(d: isize) {
    let ok = DELTA.try_with(|c| {
        let v = c.get() + d;
        if v.abs() > SLACK {
            LIVE.fetch_add(v, Ordering::Relaxed);
            c.set(0);
        } else {
            c.set(v);
        }
    });
    if ok.is_err() {
        LIVE.fetch_add(d, Ordering::Relaxed);
    }
}

// SAFETY: every call is passed to the inner allocator unchanged; the counting touches no
// memory the caller owns.
unsafe impl<A: GlobalAlloc> GlobalAlloc for CountingAlloc<A> {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        // SAFETY: the caller's contract for `alloc` is the inner allocator's.
        let p = unsafe { self.0.alloc(l) };
        if !p.is_null() {
            count(l.size() as isize);
        }
        p
    }
    unsafe fn alloc_zeroed(&self, l: Layout) -> *mut u8 {
        // SAFETY: as for `alloc`.
        let p = unsafe { self.0.alloc_zeroed(l) };
        if !p.is_null() {
            count(l.size() as isize);
        }
        p
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        // SAFETY: `p` was allocated by the inner allocator with layout `l` (through us).
        unsafe { self.0.dealloc(p, l) };
        count(-(l.size() as isize));
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, new: usize) -> *mut u8 {
        // SAFETY: as for `dealloc` and `alloc`.
        let q = unsafe { self.0.realloc(p, l, new) };
        if !q.is_null() {
            count(new as isize - l.size() as isize);
        }
        q
    }
}

impl<A> CountingAlloc<A> {
    /// Marks the allocator as installed (the `mdl` binary calls this first thing).
    pub fn installed(&'static self) {
        INSTALLED.store(true, Ordering::Relaxed);
    }
}

/// Live heap bytes of the whole process, when the counting allocator is installed.
pub fn heap_bytes() -> Option<usize> {
    if INSTALLED.load(Ordering::Relaxed) {
        Some(LIVE.load(Ordering::Relaxed).max(0) as usize)
    } else {
        None
    }
}

fn proc_kb(file: &str, field: &str) -> Option<u64> {
    let text = std::fs::read_to_string(file).ok()?;
    let line = text.lines().find(|l| l.starts_with(field))?;
    line[field.len()..]
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()
}

/// The machine's memory (`MemTotal` of `/proc/meminfo`), in bytes.
pub fn mem_total() -> Option<u64> {
    proc_kb("/proc/meminfo", "MemTotal:").map(|k| k * 1024)
}

/// The default `--max-memory`: half of the machine's memory (4 GiB if it cannot be
/// read).
pub fn default_max_memory() -> u64 {
    mem_total().map_or(4 << 30, |t| t / 2)
}

/// The process's peak resident size so far (`VmHWM` of `/proc/self/status`), in bytes:
/// everything the command did, start-up and output included.
pub fn peak_rss() -> Option<u64> {
    proc_kb("/proc/self/status", "VmHWM:").map(|k| k * 1024)
}

/// CPU time this process has used so far (user and system, all threads), in seconds,
/// from `/proc/self/stat` (clock ticks of 1/100 s). On a loaded machine it says what a
/// search cost better than the wall clock does.
pub fn cpu_seconds() -> Option<f64> {
    let text = std::fs::read_to_string("/proc/self/stat").ok()?;
    // The command name (field 2) may hold spaces: count fields after its `)`.
    let rest = &text[text.rfind(')')? + 1..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    // Fields 14 and 15 of the line are the 12th and 13th after the name.
    let utime: f64 = f.get(11)?.parse().ok()?;
    let stime: f64 = f.get(12)?.parse().ok()?;
    Some((utime + stime) / 100.0)
}

/// Parses a size: a number of bytes with an optional `K`, `M`, `G` or `T` (powers of
/// 1024, an optional `B` or `iB` after it): `512M`, `2G`, `1.5GiB`.
pub fn parse_size(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let lower = t.to_ascii_lowercase();
    let body = lower
        .strip_suffix("ib")
        .or_else(|| lower.strip_suffix('b'))
        .unwrap_or(&lower);
    let (num, mul) = match body.chars().last() {
        Some('k') => (&body[..body.len() - 1], 1u64 << 10),
        Some('m') => (&body[..body.len() - 1], 1 << 20),
        Some('g') => (&body[..body.len() - 1], 1 << 30),
        Some('t') => (&body[..body.len() - 1], 1 << 40),
        _ => (body, 1),
    };
    let v: f64 = num
        .trim()
        .parse()
        .map_err(|_| format!("`{s}` is not a size (e.g. 512M, 2G)"))?;
    if !v.is_finite() || v <= 0.0 {
        return Err(format!("`{s}` is not a positive size"));
    }
    Ok((v * mul as f64) as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes() {
        assert_eq!(parse_size("512M"), Ok(512 << 20));
        assert_eq!(parse_size("2G"), Ok(2 << 30));
        assert_eq!(parse_size("1.5GiB"), Ok(3 << 29));
        assert_eq!(parse_size("1000"), Ok(1000));
        assert_eq!(parse_size("64kb"), Ok(64 << 10));
        assert!(parse_size("lots").is_err());
        assert!(parse_size("0").is_err());
        assert!(parse_size("-1G").is_err());
    }

    #[test]
    fn machine() {
        // On Linux both are readable; elsewhere the defaults apply.
        if std::path::Path::new("/proc/meminfo").exists() {
            assert!(mem_total().unwrap() > 0);
            assert!(peak_rss().unwrap() > 0);
        }
        assert!(default_max_memory() > 0);
    }
}
