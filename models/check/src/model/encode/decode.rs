//! Reading an encoding back ([`Codec::decode`]): the sessions' own parts (the model's
//! per-session values, the book, the wait, the bulk resume), then the lock table, then
//! the conflict flag, in the order [`Codec::encode`] writes them.

use super::{Codec, F_BAD_DEADLOCK, F_FORCE_DML, F_GONE, F_RESUME, F_STARVED, F_WAIT};
use crate::model::{Conflict, PerSession, State};
use mdl_core::book::{Held, TicketBook};
use mdl_core::key::MdlKey;
use mdl_core::lock::{LockState, OwnerId, Ticket, TicketId};
use mdl_core::table::{BulkReq, BulkResume, LockTable, Session, Wait, WaitKind};
use mdl_core::{Duration, LockType, Outcome, WaitOption};

/// A lock's soft-edge reorderings: (ticket, the one it went ahead of), (ticket, times
/// passed over).
type Reorders = (Vec<(TicketId, TicketId)>, Vec<(TicketId, u32)>);

/// A reader over an encoding. Encodings are only ever read back by the codec that wrote
/// them, so a short or malformed one is a bug: the reader panics.
struct Reader<'a> {
    b: &'a [u8],
    i: usize,
}

impl Reader<'_> {
    fn u8(&mut self) -> u8 {
        let v = self.b[self.i];
        self.i += 1;
        v
    }
    fn var(&mut self) -> u64 {
        let mut v = 0u64;
        let mut shift = 0;
        loop {
            let b = self.u8();
            v |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                return v;
            }
            shift += 7;
        }
    }
    fn dur(&mut self) -> Duration {
        match self.u8() {
            0 => Duration::Statement,
            1 => Duration::Transaction,
            _ => Duration::Explicit,
        }
    }
    fn outcome(&mut self) -> Option<Outcome> {
        match self.u8() {
            0 => None,
            c => Some(Outcome::ALL[(c - 1) as usize]),
        }
    }
    fn wait_option(&mut self) -> WaitOption {
        match self.u8() {
            0 => WaitOption::NoWait,
            1 => WaitOption::Forever,
            _ => WaitOption::millis(self.var()),
        }
    }
}

/// What a decoding has read so far: the model's per-session values and the lock table's
/// sessions.
struct Decoded {
    pc: PerSession<u16>,
    last: PerSession<Option<Outcome>>,
    kills_left: PerSession<u8>,
    passed: PerSession<u8>,
    shape0: PerSession<u64>,
    jumps: PerSession<u8>,
    starved: u64,
    bad_deadlock: Option<u8>,
    bad_cycle: Option<u8>,
    bad_reorder: Option<u8>,
    bad_jumps: Option<u8>,
    sessions: Vec<Session>,
    /// Ids of session s's book: `bases[s]` + place (place 1-based).
    bases: Vec<u64>,
    /// The last ticket id handed out.
    next: u64,
}

impl Decoded {
    fn with_capacity(n: usize) -> Decoded {
        Decoded {
            pc: PerSession::with_capacity(n),
            last: PerSession::with_capacity(n),
            kills_left: PerSession::with_capacity(n),
            passed: PerSession::with_capacity(n),
            shape0: PerSession::with_capacity(n),
            jumps: PerSession::with_capacity(n),
            starved: 0,
            bad_deadlock: None,
            bad_cycle: None,
            bad_reorder: None,
            bad_jumps: None,
            sessions: Vec::with_capacity(n),
            bases: Vec::with_capacity(n),
            next: n as u64,
        }
    }

    /// Session `s`'s values of the model (up to its flags); returns its flags.
    fn get_model_part(&mut self, r: &mut Reader, s: usize) -> u8 {
        self.pc.push(r.var() as u16);
        self.last.push(r.outcome());
        self.kills_left.push(r.u8());
        self.passed.push(r.u8());
        self.shape0.push(r.var());
        self.jumps.push(r.u8());
        let soft = r.u8();
        if soft & 1 != 0 {
            self.bad_cycle = Some(s as u8);
        }
        if soft & 2 != 0 {
            self.bad_reorder = Some(s as u8);
        }
        if soft & 4 != 0 {
            self.bad_jumps = Some(s as u8);
        }
        let f = r.u8();
        if f & F_BAD_DEADLOCK != 0 {
            self.bad_deadlock = Some(s as u8);
        }
        if f & F_STARVED != 0 {
            self.starved |= 1u64 << s;
        }
        f
    }
}

impl Codec {
    /// The state an encoding stands for (with symmetry: the representative of its
    /// class). Ticket ids are handed out afresh: session `s`'s waiting ticket has id
    /// `s + 1`, the granted ones follow in session and book order.
    pub fn decode(&self, bytes: &[u8]) -> State {
        let mut r = Reader { b: bytes, i: 0 };
        let mut d = Decoded::with_capacity(self.n);
        for s in 0..self.n {
            self.get_session(&mut r, s, &mut d);
        }
        let nl = r.var() as usize;
        let mut locks = Vec::with_capacity(nl);
        for _ in 0..nl {
            locks.push(self.get_lock(&mut r, &mut d));
        }
        let bad_grant = self.get_bad_grant(&mut r);
        State {
            table: LockTable::from_parts(
                self.dialect.clone(),
                locks,
                d.sessions,
                d.next + 1,
                self.config,
            ),
            pc: d.pc,
            last: d.last,
            kills_left: d.kills_left,
            passed: d.passed,
            shape0: d.shape0,
            starved: d.starved,
            bad_deadlock: d.bad_deadlock,
            bad_grant,
            jumps: d.jumps,
            bad_cycle: d.bad_cycle,
            bad_reorder: d.bad_reorder,
            bad_jumps: d.bad_jumps,
        }
    }

    /// Session `s`'s own part: the model's values, then the lock table's session.
    fn get_session(&self, r: &mut Reader, s: usize, d: &mut Decoded) {
        let f = d.get_model_part(r, s);
        let victim_count = r.var() as u32;
        let base = d.next;
        d.bases.push(base);
        let book = self.get_book(r, base);
        d.next += book.held().len() as u64;
        let wait = (f & F_WAIT != 0).then(|| self.get_wait(r, s, base));
        let resume = (f & F_RESUME != 0).then(|| {
            let dur = r.dur();
            let rest = self.get_reqs(r);
            let taken = Self::get_places(r, base);
            let wait = r.wait_option();
            BulkResume {
                dur,
                rest,
                taken,
                wait,
            }
        });
        d.sessions.push(Session {
            book,
            wait,
            resume,
            force_dml: f & F_FORCE_DML != 0,
            victim_count,
            gone: f & F_GONE != 0,
            foreign: None,
        });
    }

    /// A book whose tickets have ids `base` + place.
    fn get_book(&self, r: &mut Reader, base: u64) -> TicketBook {
        let nh = r.var() as usize;
        let mut held = Vec::with_capacity(nh);
        for i in 0..nh {
            held.push(Held {
                id: TicketId(base + 1 + i as u64),
                key: self.keys[r.var() as usize].clone(),
                ty: LockType(r.u8()),
                dur: r.dur(),
                seq: r.var() as u32,
            });
        }
        let ns = r.var() as usize;
        let mut savepoints = Vec::with_capacity(ns);
        for _ in 0..ns {
            let name = r.var() as usize;
            let mark = r.var() as u32;
            savepoints.push((self.names.get(name).cloned().unwrap_or_default(), mark));
        }
        let next_seq = r.var() as u32;
        TicketBook::from_parts(held, savepoints, next_seq)
    }

    /// Session `s`'s wait (its ticket has id `s + 1`); its book's ids are `base` + place.
    fn get_wait(&self, r: &mut Reader, s: usize, base: u64) -> Wait {
        let key = self.keys[r.var() as usize].clone();
        let ty = LockType(r.u8());
        let timed = r.u8() != 0;
        let kind = match r.u8() {
            0 => WaitKind::Acquire { dur: r.dur() },
            1 => WaitKind::Upgrade {
                old: match r.var() {
                    0 => TicketId(0),
                    p => TicketId(base + p),
                },
            },
            _ => {
                let dur = r.dur();
                let rest = self.get_reqs(r);
                let taken = Self::get_places(r, base);
                let wait = r.wait_option();
                WaitKind::Bulk {
                    dur,
                    rest,
                    taken,
                    wait,
                }
            }
        };
        Wait {
            key,
            ticket: Ticket {
                id: TicketId(s as u64 + 1),
                owner: OwnerId(s as u32),
                ty,
            },
            kind,
            timed,
        }
    }

    fn get_reqs(&self, r: &mut Reader) -> Vec<BulkReq> {
        let n = r.var() as usize;
        (0..n)
            .map(|_| BulkReq {
                key: self.keys[r.var() as usize].clone(),
                ty: LockType(r.u8()),
            })
            .collect()
    }

    /// Ticket ids from book places (`base` + place; 0, no place, gives id 0, which no
    /// ticket has).
    fn get_places(r: &mut Reader, base: u64) -> Vec<TicketId> {
        let n = r.var() as usize;
        (0..n)
            .map(|_| match r.var() {
                0 => TicketId(0),
                p => TicketId(base + p),
            })
            .collect()
    }

    /// One lock of the table: its granted tickets (ids from their owners' books), its
    /// waiting ones (a session's own waiting ticket where it is one), its counters and
    /// its soft-edge reorderings.
    fn get_lock(&self, r: &mut Reader, d: &mut Decoded) -> (MdlKey, LockState) {
        let key = self.keys[r.var() as usize].clone();
        let (granted, unplaced) = Self::get_granted(r, d);
        let nw = r.var() as usize;
        let mut waiting = Vec::with_capacity(nw);
        for _ in 0..nw {
            let o = r.u8() as usize;
            let ty = LockType(r.u8());
            let own = d.sessions[o]
                .wait
                .as_ref()
                .filter(|w| w.key == key && w.ticket.ty == ty)
                .map(|w| w.ticket.id);
            let id = own.unwrap_or_else(|| {
                d.next += 1;
                TicketId(d.next)
            });
            waiting.push(Ticket {
                id,
                owner: OwnerId(o as u32),
                ty,
            });
        }
        let hog = r.var() as u32;
        let piglet = r.var() as u32;
        let idx = r.u8();
        let (ahead, jumped) = Self::get_reorders(r, &waiting);
        let state = LockState::from_parts(granted, waiting, hog, piglet, idx)
            .with_reorders(ahead, jumped)
            .with_unplaced(unplaced);
        (key, state)
    }

    /// A lock's granted tickets and, among them, the unplaced ones.
    fn get_granted(r: &mut Reader, d: &mut Decoded) -> (Vec<Ticket>, Vec<TicketId>) {
        let ng = r.var() as usize;
        let mut granted = Vec::with_capacity(ng);
        let mut unplaced = Vec::new();
        for _ in 0..ng {
            let o = r.u8() as usize;
            let p = r.var();
            let ty = LockType(r.u8());
            let is_unplaced = r.u8() != 0;
            let id = if p == 0 {
                // Not in its owner's book (only a bug makes one): an id of its own.
                d.next += 1;
                d.next
            } else {
                d.bases[o] + p
            };
            granted.push(Ticket {
                id: TicketId(id),
                owner: OwnerId(o as u32),
                ty,
            });
            if is_unplaced {
                unplaced.push(TicketId(id));
            }
        }
        (granted, unplaced)
    }

    /// A lock's soft-edge reorderings, waiting tickets named by their place in `waiting`.
    fn get_reorders(r: &mut Reader, waiting: &[Ticket]) -> Reorders {
        let id_at = |p: u64| {
            waiting
                .get(p as usize)
                .map_or(TicketId(u64::MAX), |t: &Ticket| t.id)
        };
        let na = r.var() as usize;
        let ahead = (0..na)
            .map(|_| {
                let a = id_at(r.var());
                (a, id_at(r.var()))
            })
            .collect();
        let nj = r.var() as usize;
        let jumped = (0..nj)
            .map(|_| {
                let t = id_at(r.var());
                (t, r.var() as u32)
            })
            .collect();
        (ahead, jumped)
    }

    /// The conflict flag: a grant against the granted matrix, if the last action made one.
    fn get_bad_grant(&self, r: &mut Reader) -> Option<Conflict> {
        match r.u8() {
            0 => None,
            _ => {
                let k = self.keys[r.var() as usize].clone();
                let a = r.u8() as usize;
                let ta = LockType(r.u8());
                let b = r.u8() as usize;
                let tb = LockType(r.u8());
                Some((k, a, ta, b, tb))
            }
        }
    }
}
