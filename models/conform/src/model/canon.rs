//! The lock table's part of the SQL model's fingerprint, canonical in its numberings
//! (as `mdl check`'s lock-scenario encoding is, `models/check/src/model/encode.rs`):
//!
//! - **Ticket ids** are hashed as labels: a granted ticket as its owner and its place in
//!   the owner's book, a waiting one as its owner (a session waits for one ticket at a
//!   time). `LockTable` compares ticket ids only for equality, and a new ticket gets an
//!   id above every id in use; the SQL model keeps ids only to find them again (`Run::new`,
//!   `Waiting::before`, the locking reads: `contains`, `retain`, `==`). So two states that
//!   differ only in their ticket ids behave alike; without this, two orders of the same
//!   statements that take the same locks stay distinct states forever.
//! - **Acquisition numbers** (`Held::seq`) are hashed as their rank within the session's
//!   book, and a savepoint's mark as where it falls among them: only their order is
//!   compared (`book.rs`); the next number is left out (it is above every one in use),
//!   and so is the next ticket id.
//!
//! Everything else of the table is hashed in full, in its order (the granted and waiting
//! lists in list order: the deadlock search and the grants read those orders).

use mdl_core::book::TicketBook;
use mdl_core::lock::TicketId;
use mdl_core::table::{LockTable, WaitKind};
use std::collections::HashMap;
use std::hash::{Hash, Hasher};

/// The labels of the tickets in use: owner + 1 in the high bits, place in the book + 1
/// (or all ones for a waiting ticket) in the low ones.
pub(super) struct Labels(HashMap<TicketId, u64>);

const WAITING: u64 = 0xff_ffff;

impl Labels {
    pub(super) fn of(t: &LockTable) -> Labels {
        let mut m = HashMap::new();
        for (s, x) in t.sessions().iter().enumerate() {
            let top = (s as u64 + 1) << 24;
            for (i, h) in x.book.held().iter().enumerate() {
                m.insert(h.id, top | (i as u64 + 1));
            }
            if let Some(w) = &x.wait {
                m.insert(w.ticket.id, top | WAITING);
            }
        }
        Labels(m)
    }

    /// A ticket's label; an id not in use keeps its own number (apart from every label).
    pub(super) fn get(&self, id: TicketId) -> u64 {
        self.0.get(&id).copied().unwrap_or(id.0 | 1 << 63)
    }
}

fn ids(l: &Labels, ids: &[TicketId], h: &mut impl Hasher) {
    ids.len().hash(h);
    for i in ids {
        l.get(*i).hash(h);
    }
}

fn book(b: &TicketBook, h: &mut impl Hasher) {
    let mut seqs: Vec<u32> = b.held().iter().map(|x| x.seq).collect();
    seqs.sort_unstable();
    b.held().len().hash(h);
    for x in b.held() {
        (&x.key, x.ty, x.dur).hash(h);
        seqs.binary_search(&x.seq).unwrap_or(usize::MAX).hash(h);
    }
    // A savepoint is a mark among the acquisition numbers (`MDL_savepoint`): where it
    // falls among the held ones.
    b.savepoints().len().hash(h);
    for (name, m) in b.savepoints() {
        let below = seqs.partition_point(|s| s < m);
        let upto = seqs.partition_point(|s| s <= m);
        (name, below, upto).hash(h);
    }
}

/// Hashes the table with its ticket ids and acquisition numbers canonical.
pub(super) fn hash_table(t: &LockTable, l: &Labels, h: &mut impl Hasher) {
    t.config().hash(h);
    t.sessions().len().hash(h);
    for x in t.sessions() {
        book(&x.book, h);
        (x.force_dml, x.victim_count, x.gone, &x.foreign).hash(h);
        match &x.wait {
            None => 0u8.hash(h),
            Some(w) => {
                1u8.hash(h);
                (&w.key, w.ticket.owner, w.ticket.ty, w.timed).hash(h);
                match &w.kind {
                    WaitKind::Acquire { dur } => (0u8, dur).hash(h),
                    WaitKind::Upgrade { old } => (1u8, l.get(*old)).hash(h),
                    WaitKind::Bulk {
                        dur,
                        rest,
                        taken,
                        wait,
                    } => {
                        (2u8, dur, rest, wait).hash(h);
                        ids(l, taken, h);
                    }
                }
            }
        }
        match &x.resume {
            None => 0u8.hash(h),
            Some(r) => {
                (1u8, r.dur, &r.rest, r.wait).hash(h);
                ids(l, &r.taken, h);
            }
        }
    }
    t.locks().count().hash(h);
    for (k, s) in t.locks() {
        k.hash(h);
        for list in [s.granted(), s.waiting()] {
            list.len().hash(h);
            for x in list {
                (l.get(x.id), x.owner, x.ty).hash(h);
            }
        }
        (s.hog_count(), s.piglet_count(), s.pending_index()).hash(h);
        for (a, b) in s.ahead() {
            (l.get(*a), l.get(*b)).hash(h);
        }
        for (a, n) in s.jumped() {
            (l.get(*a), n).hash(h);
        }
        ids(l, s.unplaced(), h);
    }
}

/// `text` (a `Debug` text) with every `TicketId(N)` written as its label.
pub(super) fn relabel_debug(text: &str, l: &Labels) -> String {
    const TAG: &str = "TicketId(";
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find(TAG) {
        let after = &rest[i + TAG.len()..];
        let digits = after.bytes().take_while(u8::is_ascii_digit).count();
        out.push_str(&rest[..i + TAG.len()]);
        match after[..digits].parse::<u64>() {
            Ok(n) => out.push_str(&format!("L{}", l.get(TicketId(n)))),
            Err(_) => out.push_str(&after[..digits]),
        }
        rest = &after[digits..];
    }
    out.push_str(rest);
    out
}
