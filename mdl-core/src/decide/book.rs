//! A context's own bookkeeping (`MDL_context`'s ticket lists and savepoints), as pure
//! decisions: which ticket a request reuses, which tickets a release, commit or rollback
//! to a savepoint gives back, whether an upgrade or downgrade is valid.
//!
//! Both the concurrent manager and the sequential [`crate::table::LockTable`] keep one
//! [`TicketBook`] per context and carry out the plans it returns; so the semantics of every
//! context command live here once.

use crate::decide::dialect::Dialect;
use crate::decide::error::MdlError;
use crate::decide::key::{KeyHashBuilder, MdlKey};
use crate::decide::lock::TicketId;
use crate::decide::types::{LockDuration, LockType};
use std::collections::HashMap;
use std::hash::{Hash, Hasher};

/// The durations in the servers' enum order (`enum_mdl_duration`).
const DURATIONS: [LockDuration; 3] = [
    LockDuration::Statement,
    LockDuration::Transaction,
    LockDuration::Explicit,
];

/// Up to this many held tickets, the book finds a key's tickets by scanning them; beyond,
/// through its per-key counts (`TicketBook::keys`).
const SCAN: usize = 8;

/// A ticket the context holds (granted).
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct Held {
    /// The ticket.
    pub id: TicketId,
    /// The lock's key.
    pub key: MdlKey,
    /// The type held.
    pub ty: LockType,
    /// The duration it is held for.
    pub dur: LockDuration,
    /// Position in the list of its duration: a ticket with a higher `seq` is nearer the
    /// front. MySQL's `MDL_ticket_store::push_front` (and MariaDB's `m_tickets[d]`) put
    /// every new ticket at the front of its duration's list, and `set_lock_duration`
    /// moves a ticket to the front of another list; so `seq` is stamped at `add` and
    /// renewed by `set_duration`. Releases go front first (`release_locks_stored_before`)
    /// and a savepoint is a position in these lists (`MDL_savepoint`).
    pub seq: u32,
}

/// What an acquire does, given what the context already holds
/// (MySQL: sql/mdl.cc, `MDL_context::try_acquire_lock_impl`; MariaDB the same).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum AcquirePlan {
    /// A held ticket of the same duration, not explicit, covers the request: nothing to
    /// do (the server hands out the same ticket).
    Reuse(TicketId),
    /// A held ticket covers it, but of another duration or the request is explicit: add
    /// a granted ticket of the requested type and duration without asking the lock
    /// (`MDL_context::clone_ticket`).
    CloneOf(TicketId),
    /// Ask the lock.
    New,
}

/// What an upgrade does (MySQL: sql/mdl.cc, `MDL_context::upgrade_shared_lock`).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum UpgradePlan {
    /// The strongest held ticket already covers the type (`has_stronger_or_equal_type`:
    /// "do nothing if already upgraded").
    NoOp(TicketId),
    /// This ticket takes the type at once, with no grant decision: the server's
    /// `acquire_lock` for the new type finds a held ticket that covers it (`find_ticket`)
    /// and the merge gives the type to the upgraded ticket. Happens when another ticket
    /// of the session covers the type, and in a strategy marked `upgrade_always`
    /// (MariaDB's BACKUP namespace: "upgrade must always happen") when the ticket itself
    /// covers it.
    Retype(TicketId),
    /// Wait for the type, then give it to this ticket.
    Upgrade(TicketId),
}

#[derive(Clone, Default, Debug)]
pub struct TicketBook {
    /// In acquisition order.
    held: Vec<Held>,
    /// How many tickets are held per key, so that a request for a key not held (the
    /// common case) is planned without walking every ticket: kept only while more than
    /// `SCAN` tickets are held (`indexed`); with fewer, `held` itself is scanned by the
    /// keys' precomputed hashes, which costs less than a probe (a connection holds a
    /// few tickets most of the time).
    /// (Keyed by the key's precomputed hash, a filter: a key with no count or a count of
    /// 0 is not held, one with a count is looked for in `held`. So a lookup costs one
    /// hash, no string comparison and no key reference count. A count that falls to 0
    /// stays, so that a connection that takes and gives back the same locks again and
    /// again does not insert and erase map entries each time; the zeros are swept when
    /// they outnumber the held tickets. While not `indexed` every count is 0. Apart from
    /// those zeros it is a function of `held`, so `Hash` and `PartialEq` skip it.)
    keys: HashMap<u64, u32, KeyHashBuilder>,
    /// `keys` counts the held tickets (set when more than `SCAN` are held, cleared when
    /// none is: a cache, `Hash`/`PartialEq` skip it).
    indexed: bool,
    /// Most tickets held since the book was last empty (kept while `indexed`, the only
    /// time it is read): the zeros of `keys` are kept up to that many (or 64), so a
    /// connection that repeats one big transaction finds its keys' entries in place. (A cache, like `keys`' zeros: `Hash`/`PartialEq` skip it.)
    round_peak: usize,
    savepoints: Vec<(String, u32)>,
    next_seq: u32,
    /// A setting: `keys` is built when a by-key question needs it ([`TicketBook::index_now`])
    /// instead of as soon as more than `SCAN` tickets are held. The concurrent manager's
    /// books: its context's pins already tell whether a key is held (a pin's use count,
    /// `manager/pins.rs`), so its acquires of keys not held plan without the book
    /// (`Context::begin_acquire`) and a round that only acquires and commits never pays
    /// for the filter (models/BENCH.md, issue 30, sixth round). Not part of the book's
    /// value: `Hash`/`PartialEq` skip it.
    on_demand: bool,
}

impl PartialEq for TicketBook {
    fn eq(&self, o: &Self) -> bool {
        // `keys` is derived from `held` (up to counts of 0, which mean "not held").
        self.held == o.held && self.savepoints == o.savepoints && self.next_seq == o.next_seq
    }
}
impl Eq for TicketBook {}

impl Hash for TicketBook {
    fn hash<H: Hasher>(&self, h: &mut H) {
        // `keys` is derived from `held`: equal books have equal `keys`.
        self.held.hash(h);
        self.savepoints.hash(h);
        self.next_seq.hash(h);
    }
}

impl TicketBook {
    pub fn new() -> TicketBook {
        TicketBook::default()
    }

    /// A book whose key filter is built on demand ([`TicketBook::index_now`]): for an
    /// owner that knows by other means which keys it holds (the manager's pins).
    pub fn with_filter_on_demand() -> TicketBook {
        TicketBook {
            on_demand: true,
            ..TicketBook::default()
        }
    }

    /// Builds the key filter now if more than `SCAN` tickets are held and it is not
    /// built (with [`TicketBook::with_filter_on_demand`], before a by-key question in a
    /// big round; without it the filter is always built by then). Answers never depend
    /// on it: without the filter a by-key question walks every held ticket.
    #[inline]
    pub fn index_now(&mut self) {
        self.index_if_many();
    }

    /// At most `SCAN` tickets are held: a by-key question scans them (no filter).
    #[inline]
    pub fn is_small(&self) -> bool {
        self.held.len() <= SCAN
    }

    /// A book from its parts, as [`TicketBook::held`], [`TicketBook::savepoints`] and
    /// [`TicketBook::next_seq`] return them (for the model checker, which stores states
    /// compactly and rebuilds them to take a step). The key filter is rebuilt.
    pub fn from_parts(held: Vec<Held>, savepoints: Vec<(String, u32)>, next_seq: u32) -> Self {
        let mut b = TicketBook {
            round_peak: 0,
            held,
            keys: HashMap::default(),
            indexed: false,
            savepoints,
            next_seq,
            on_demand: false,
        };
        b.index_if_many();
        b
    }

    /// Starts counting the held tickets per key in `keys` once more than `SCAN` are held
    /// (its counts are all 0 until then).
    #[inline]
    fn index_if_many(&mut self) {
        if self.indexed || self.held.len() <= SCAN {
            return;
        }
        // Until now the round held at most `SCAN`: its peak is now.
        self.indexed = true;
        self.round_peak = self.held.len();
        for h in &self.held {
            *self.keys.entry(h.key.hash_value()).or_insert(0) += 1;
        }
    }

    /// Savepoints in the order taken: name and position (a `seq` value).
    pub fn savepoints(&self) -> &[(String, u32)] {
        &self.savepoints
    }

    /// The `seq` the next ticket taken will get.
    pub fn next_seq(&self) -> u32 {
        self.next_seq
    }

    pub fn held(&self) -> &[Held] {
        &self.held
    }

    pub fn is_empty(&self) -> bool {
        self.held.is_empty()
    }

    pub fn get(&self, id: TicketId) -> Option<&Held> {
        self.held.iter().find(|h| h.id == id)
    }

    pub fn on_key<'a>(&'a self, key: &'a MdlKey) -> impl Iterator<Item = &'a Held> + 'a {
        let all: &[Held] = if self.may_hold(key) { &self.held } else { &[] };
        all.iter().filter(move |h| &h.key == key)
    }

    /// False when no held ticket is on `key` (true: maybe, look in `held`).
    #[inline]
    fn may_hold(&self, key: &MdlKey) -> bool {
        let hv = key.hash_value();
        if self.indexed {
            self.keys.get(&hv).is_some_and(|n| *n > 0)
        } else {
            self.held.iter().any(|h| h.key.hash_value() == hv)
        }
    }

    /// Checks that the namespace of `key` takes `ty`.
    #[inline]
    pub fn check_type(d: &Dialect, key: &MdlKey, ty: LockType) -> Result<(), MdlError> {
        if d.allows(key.namespace(), ty) {
            Ok(())
        } else {
            Err(MdlError::TypeNotInNamespace {
                ty,
                namespace: d.namespace(key.namespace()).name.clone(),
            })
        }
    }

    /// A held ticket that covers `ty` on `key`, as `MDL_context::find_ticket` finds it
    /// (MySQL: sql/mdl.cc, `MDL_ticket_store::find_in_lists`; MariaDB: `find_ticket`):
    /// the lists of durations `dur`, `dur + 1`, `dur + 2` (mod 3, in the order statement,
    /// transaction, explicit), each from its front (the highest `seq`); the first ticket
    /// of at least the requested strength.
    #[inline(always)]
    pub fn find_covering<'a>(
        &'a self,
        d: &Dialect,
        key: &'a MdlKey,
        ty: LockType,
        dur: LockDuration,
    ) -> Option<&'a Held> {
        if !self.may_hold(key) {
            // The common case, a key not held: one probe, not one per duration.
            return None;
        }
        let s = d.strategy(key.namespace());
        let first = DURATIONS.iter().position(|x| *x == dur).unwrap_or(0);
        (0..3).find_map(|i| {
            let du = DURATIONS[(first + i) % 3];
            self.on_key(key)
                .filter(|h| h.dur == du && s.covers(h.ty, ty))
                .max_by_key(|h| h.seq)
        })
    }

    #[inline(always)]
    pub fn plan_acquire(
        &self,
        d: &Dialect,
        key: &MdlKey,
        ty: LockType,
        dur: LockDuration,
    ) -> Result<AcquirePlan, MdlError> {
        TicketBook::check_type(d, key, ty)?;
        // MySQL: sql/mdl.cc, MDL_context::try_acquire_lock_impl: "if ((found_duration !=
        // mdl_request->duration || mdl_request->duration == MDL_EXPLICIT) &&
        // clone_ticket(mdl_request))": an explicit request never shares a ticket (a
        // HANDLER CLOSE must not release another alias's lock).
        Ok(match self.find_covering(d, key, ty, dur) {
            Some(h) if h.dur == dur && dur != LockDuration::Explicit => AcquirePlan::Reuse(h.id),
            Some(h) => AcquirePlan::CloneOf(h.id),
            None => AcquirePlan::New,
        })
    }

    /// The context's strongest ticket on `key`: one that covers every other, or else the
    /// latest of the highest enum rank.
    pub fn strongest<'a>(&'a self, d: &Dialect, key: &'a MdlKey) -> Option<&'a Held> {
        let s = d.strategy(key.namespace());
        let all: Vec<&Held> = self.on_key(key).collect();
        all.iter()
            .rev()
            .find(|h| all.iter().all(|o| s.covers(h.ty, o.ty)))
            // `max_by_key` returns the last maximum: the latest of the highest rank.
            .or_else(|| all.iter().max_by_key(|h| s.rank(h.ty)))
            .copied()
    }

    pub fn plan_upgrade(
        &self,
        d: &Dialect,
        key: &MdlKey,
        ty: LockType,
    ) -> Result<UpgradePlan, MdlError> {
        TicketBook::check_type(d, key, ty)?;
        let h = self.strongest(d, key).ok_or(MdlError::NotHeld)?;
        let s = d.strategy(key.namespace());
        if s.covers(h.ty, ty) {
            // MySQL: sql/mdl.cc, MDL_context::upgrade_shared_lock: "Do nothing if already
            // upgraded". MariaDB: not in the BACKUP namespace, where "upgrade must always
            // happen": its acquire_lock finds this very ticket and the merge retypes it.
            if s.upgrade_always && h.ty != ty {
                return Ok(UpgradePlan::Retype(h.id));
            }
            return Ok(UpgradePlan::NoOp(h.id));
        }
        // An upgrade to a type of lower rank that the ticket does not cover is our misuse
        // rule (the servers have no such check). Not in MariaDB's BACKUP namespace, whose
        // callers ask for one: sql/backup.cc, `backup_reset_alter_copy_lock` upgrades a
        // copying ALTER's BACKUP_ALTER_COPY back to BACKUP_DDL, which waits for a granted
        // BACKUP_WAIT_DDL and then retypes the ticket (MDL_context::upgrade_shared_lock).
        if s.rank(ty) < s.rank(h.ty) && !s.upgrade_always {
            return Err(MdlError::UpgradeToWeaker {
                held: h.ty,
                requested: ty,
            });
        }
        // upgrade_shared_lock acquires the new type with `acquire_lock`, whose
        // `find_ticket` takes any held ticket that covers it without asking the lock.
        if self
            .find_covering(d, key, ty, LockDuration::Transaction)
            .is_some()
        {
            return Ok(UpgradePlan::Retype(h.id));
        }
        Ok(UpgradePlan::Upgrade(h.id))
    }

    /// The ticket a downgrade changes, or `None` when the downgrade does nothing (MySQL
    /// and MariaDB: sql/mdl.cc, `MDL_ticket::downgrade_lock`: "Do nothing if already
    /// downgraded ... might even try to downgrade a weak lock to a stronger one": the new
    /// type equal to the held one or not covered by it). From a type the server does not
    /// downgrade (its debug assertion) it is an error.
    pub fn plan_downgrade(
        &self,
        d: &Dialect,
        key: &MdlKey,
        ty: LockType,
    ) -> Result<Option<TicketId>, MdlError> {
        TicketBook::check_type(d, key, ty)?;
        let h = self.strongest(d, key).ok_or(MdlError::NotHeld)?;
        let s = d.strategy(key.namespace());
        if h.ty == ty || !s.covers(h.ty, ty) {
            return Ok(None);
        }
        if !s.downgrade_from.contains(h.ty) {
            return Err(MdlError::DowngradeFrom { held: h.ty });
        }
        Ok(Some(h.id))
    }

    /// The ticket a clone copies, and the type of the clone.
    pub fn plan_clone(
        &self,
        d: &Dialect,
        key: &MdlKey,
        ty: Option<LockType>,
    ) -> Result<(TicketId, LockType), MdlError> {
        let h = self.strongest(d, key).ok_or(MdlError::NotHeld)?;
        let ty = ty.unwrap_or(h.ty);
        TicketBook::check_type(d, key, ty)?;
        let s = d.strategy(key.namespace());
        let src = self
            .on_key(key)
            .filter(|x| s.covers(x.ty, ty))
            .last()
            .ok_or(MdlError::CloneStronger {
                held: h.ty,
                requested: ty,
            })?;
        Ok((src.id, ty))
    }

    /// The tickets `release NS KEY [TYPE]` gives back: the latest of that type, or all on
    /// the key, list by list (statement, transaction, explicit), each from its front
    /// (MySQL: sql/mdl.cc, `MDL_context::release_all_locks_for_name` walks the explicit
    /// list from its front).
    pub fn plan_release(
        &self,
        key: &MdlKey,
        ty: Option<LockType>,
    ) -> Result<Vec<TicketId>, MdlError> {
        let ids: Vec<TicketId> = match ty {
            Some(t) => self
                .on_key(key)
                .filter(|h| h.ty == t)
                .last()
                .map(|h| vec![h.id])
                .unwrap_or_default(),
            None => {
                let mut v = Vec::new();
                for du in DURATIONS {
                    self.list_into(du, |h| &h.key == key, &mut v);
                }
                v
            }
        };
        if ids.is_empty() {
            Err(MdlError::NotHeld)
        } else {
            Ok(ids)
        }
    }

    /// Appends the tickets of duration `dur` that pass `keep` to `out`, from the front of
    /// that duration's list (the highest `seq` first). `held` is in acquisition order,
    /// which is list order until a `set_duration` moved tickets: read backwards it is
    /// then already front first, and nothing is allocated or sorted.
    #[inline]
    fn list_into(&self, dur: LockDuration, keep: impl Fn(&Held) -> bool, out: &mut Vec<TicketId>) {
        let start = out.len();
        let mut last = u32::MAX;
        let mut in_order = true;
        for h in self.held.iter().rev().filter(|h| h.dur == dur && keep(h)) {
            in_order &= h.seq <= last;
            last = h.seq;
            out.push(h.id);
        }
        if !in_order {
            let mut v: Vec<(u32, TicketId)> = self
                .held
                .iter()
                .filter(|h| h.dur == dur && keep(h))
                .map(|h| (h.seq, h.id))
                .collect();
            v.sort_by_key(|(seq, _)| std::cmp::Reverse(*seq));
            out.truncate(start);
            out.extend(v.into_iter().map(|(_, id)| id));
        }
    }

    /// Tickets of the given durations, in the order the server releases them: one
    /// duration after the other, each list from its front (MySQL: sql/mdl.cc,
    /// `MDL_context::release_transactional_locks` = `release_locks_stored_before`
    /// statement, then transaction).
    pub fn of_durations(&self, durs: &[LockDuration]) -> Vec<TicketId> {
        let mut out = Vec::new();
        self.of_durations_into(durs, &mut out);
        out
    }

    /// Appends the tickets of the given durations to `out`, in release order (as
    /// [`TicketBook::of_durations`], into a reused vector).
    #[inline]
    pub fn of_durations_into(&self, durs: &[LockDuration], out: &mut Vec<TicketId>) {
        if self.is_one_list_of(durs) {
            out.extend(self.held.iter().rev().map(|h| h.id));
            return;
        }
        for d in durs {
            self.list_into(*d, |_| true, out);
        }
    }

    /// The common case of a commit: some ticket is held, every ticket held is of one of
    /// `durs`, the same one, and `held` is in its list's order; then the release order
    /// of [`TicketBook::of_durations`] is `held` from the back (every ticket, as
    /// [`TicketBook::pop_latest`] gives them).
    #[inline]
    pub fn is_one_list_of(&self, durs: &[LockDuration]) -> bool {
        let Some(last) = self.held.last() else {
            return false;
        };
        let d = last.dur;
        if !durs.contains(&d) {
            return false;
        }
        let mut prev = u32::MAX;
        self.held.iter().rev().all(|h| {
            let ok = h.dur == d && h.seq <= prev;
            prev = h.seq;
            ok
        })
    }

    /// Everything: the statement, transaction and explicit lists, each from its front.
    pub fn all(&self) -> Vec<TicketId> {
        self.of_durations(&DURATIONS)
    }

    /// Statement and transaction tickets in front of savepoint `name` in their lists,
    /// statement list first, each from its front (MySQL: sql/mdl.cc,
    /// `MDL_context::rollback_to_savepoint`).
    pub fn plan_rollback_to(&self, name: &str) -> Result<Vec<TicketId>, MdlError> {
        let mark = self
            .savepoints
            .iter()
            .rev()
            .find(|(n, _)| n == name)
            .map(|(_, m)| *m)
            .ok_or_else(|| MdlError::UnknownSavepoint(name.to_owned()))?;
        let mut out = Vec::new();
        for du in [LockDuration::Statement, LockDuration::Transaction] {
            self.list_into(du, |h| h.seq >= mark, &mut out);
        }
        Ok(out)
    }

    // --- changes, made by the manager once the lock side agrees -----------------------

    #[inline(always)]
    pub fn add(&mut self, id: TicketId, key: MdlKey, ty: LockType, dur: LockDuration) {
        let seq = self.next_seq;
        self.next_seq += 1;
        if self.indexed {
            *self.keys.entry(key.hash_value()).or_insert(0) += 1;
            self.round_peak = self.round_peak.max(self.held.len() + 1);
        }
        self.push_held(id, key, ty, dur, seq);
        if !self.on_demand {
            self.index_if_many();
        }
    }

    /// `held.push(Held { .. })`, the fields stored one by one into the vector's slot.
    /// `push` built the `Held` in a stack slot with stores of 4, 1 and 1 bytes and
    /// copied it into the vector with loads of 8 and 16 bytes: a load that spans
    /// several pending stores cannot take its data from the store buffer and waits
    /// for them to reach the cache (a failed store-to-load forwarding, some ten cycles
    /// on the AMD EPYC guest; models/BENCH.md, issue 30, fourth round).
    #[inline(always)]
    fn push_held(&mut self, id: TicketId, key: MdlKey, ty: LockType, dur: LockDuration, seq: u32) {
        // The field list below is exhaustive (no `..`): a field added to `Held` breaks
        // this line at compile time, before it could be left unwritten below or leaked
        // by `pop_latest_parts`.
        let _every_field = |h: Held| {
            let Held {
                id: _,
                key: _,
                ty: _,
                dur: _,
                seq: _,
            } = h;
        };
        self.held.reserve(1);
        let len = self.held.len();
        // SAFETY: `reserve(1)` leaves room for one more element, so slot `len` is inside
        // the allocation and holds no element; every field of the `Held` there is
        // written (padding needs none; `_every_field` above proves the list complete)
        // before `set_len` counts it, and nothing between can panic.
        unsafe {
            let p = self.held.as_mut_ptr().add(len);
            std::ptr::addr_of_mut!((*p).id).write(id);
            std::ptr::addr_of_mut!((*p).key).write(key);
            std::ptr::addr_of_mut!((*p).ty).write(ty);
            std::ptr::addr_of_mut!((*p).dur).write(dur);
            std::ptr::addr_of_mut!((*p).seq).write(seq);
            self.held.set_len(len + 1);
        }
    }

    #[inline(always)]
    pub fn remove(&mut self, id: TicketId) -> Option<Held> {
        // Releases come latest first (commit, rollback): search from the back, so giving
        // back n tickets costs O(n), not O(n^2).
        let i = self.held.iter().rposition(|h| h.id == id)?;
        let h = if i + 1 == self.held.len() {
            self.held.pop()?
        } else {
            self.held.remove(i)
        };
        Some(self.unindex(h))
    }

    /// Removes the ticket added last (the front of its list when
    /// [`TicketBook::is_one_list_of`] holds), as [`TicketBook::remove`] of its id.
    #[inline(always)]
    pub fn pop_latest(&mut self) -> Option<Held> {
        let h = self.held.pop()?;
        Some(self.unindex(h))
    }

    /// [`TicketBook::pop_latest`]'s id and key (what a release needs), read field by
    /// field out of the vector's last slot: moving the whole `Held` out through an
    /// `Option` copied it through the stack with loads wider than its stores (see
    /// [`TicketBook::push_held`]).
    #[inline(always)]
    pub fn pop_latest_parts(&mut self) -> Option<(TicketId, MdlKey)> {
        if self.indexed {
            return self.pop_latest().map(|h| (h.id, h.key));
        }
        // Not indexed: `unindex` has nothing to do.
        let len = self.held.len().checked_sub(1)?;
        // SAFETY: slot `len` holds an initialised `Held`; `set_len(len)` first makes the
        // vector forget it, so it is read (and its key moved out) exactly once; its other
        // fields are `Copy` and need no drop.
        unsafe {
            self.held.set_len(len);
            let p = self.held.as_ptr().add(len);
            Some((
                std::ptr::addr_of!((*p).id).read(),
                std::ptr::addr_of!((*p).key).read(),
            ))
        }
    }

    /// The key filter's bookkeeping for a ticket that left `held`.
    #[inline(always)]
    fn unindex(&mut self, h: Held) -> Held {
        if !self.indexed {
            return h;
        }
        if let Some(n) = self.keys.get_mut(&h.key.hash_value()) {
            *n = n.saturating_sub(1);
        }
        if self.held.is_empty() {
            // The end of a round: every count is 0 again; keep the zeros if they are no
            // more than the round needed.
            self.indexed = false;
            if self.keys.len() > self.round_peak.max(64) {
                self.keys.clear();
            }
            self.round_peak = 0;
        } else if self.keys.len() > 2 * (self.held.len() + self.round_peak) + 64 {
            self.keys.retain(|_, n| *n > 0);
        }
        h
    }

    pub fn set_type(&mut self, id: TicketId, ty: LockType) {
        if let Some(h) = self.held.iter_mut().find(|h| h.id == id) {
            h.ty = ty;
        }
    }

    /// `set_duration`: every ticket moves to `dur`, the lists rebuilt as the server
    /// rebuilds them (MySQL: sql/mdl.cc, `MDL_ticket_store::move_all_to_explicit_duration`
    /// and `move_explicit_to_transaction_duration`; MariaDB:
    /// `MDL_context::set_explicit_duration_for_all_locks`,
    /// `set_transaction_duration_for_all_locks`): the target list is swapped with the
    /// transaction (resp. explicit) list, then the tickets of the other lists are pushed
    /// to its front one by one, each list from its front. Moving to the statement
    /// duration, which the servers never do, pushes the transaction then the explicit
    /// list the same way.
    pub fn set_duration_all(&mut self, dur: LockDuration) {
        let list = |b: &TicketBook, du: LockDuration| {
            let mut v = Vec::new();
            b.list_into(du, |_| true, &mut v);
            v
        };
        // The target list, front first, after the swap; then the lists pushed onto it.
        let (mut front_first, pushed): (Vec<TicketId>, Vec<Vec<TicketId>>) = match dur {
            LockDuration::Explicit => (
                list(self, LockDuration::Transaction),
                vec![
                    list(self, LockDuration::Statement),
                    list(self, LockDuration::Explicit),
                ],
            ),
            LockDuration::Transaction => (
                list(self, LockDuration::Explicit),
                vec![
                    list(self, LockDuration::Transaction),
                    list(self, LockDuration::Statement),
                ],
            ),
            LockDuration::Statement => (
                list(self, LockDuration::Statement),
                vec![
                    list(self, LockDuration::Transaction),
                    list(self, LockDuration::Explicit),
                ],
            ),
        };
        for l in pushed {
            for id in l {
                front_first.insert(0, id);
            }
        }
        let n = front_first.len() as u32;
        let base = self.next_seq;
        self.next_seq += n;
        for (i, id) in front_first.iter().enumerate() {
            if let Some(h) = self.held.iter_mut().find(|h| h.id == *id) {
                h.dur = dur;
                h.seq = base + (n - 1 - i as u32);
            }
        }
    }

    /// Moves one ticket to the front of another duration's list (MySQL: sql/mdl.cc,
    /// `MDL_context::set_lock_duration`).
    pub fn set_duration(&mut self, id: TicketId, dur: LockDuration) {
        let seq = self.next_seq;
        if let Some(h) = self.held.iter_mut().find(|h| h.id == id) {
            h.dur = dur;
            h.seq = seq;
            self.next_seq += 1;
        }
    }

    /// Remembers the current position under `name` (replacing an older one of that name).
    pub fn savepoint(&mut self, name: &str) {
        self.savepoints.retain(|(n, _)| n != name);
        self.savepoints.push((name.to_owned(), self.next_seq));
    }

    /// After a rollback to `name`: later savepoints are gone, `name` stays.
    pub fn forget_savepoints_after(&mut self, name: &str) {
        if let Some(i) = self.savepoints.iter().rposition(|(n, _)| n == name) {
            self.savepoints.truncate(i + 1);
        }
    }

    /// At commit or rollback every savepoint is gone.
    #[inline]
    pub fn clear_savepoints(&mut self) {
        self.savepoints.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The key filter, scanned or indexed, answers as a walk of `held` would: through
    /// rounds that cross `SCAN` both ways, with tickets given back out of order.
    #[test]
    fn the_key_filter_agrees_with_held_across_scan() {
        key_filter_agrees(TicketBook::new(), 0);
    }

    /// The same with the filter built on demand (the manager's books): unbuilt, every
    /// question walks `held`; built by `index_now` now and then (every 7th step here),
    /// it counts as the eager one does until the round ends.
    #[test]
    fn the_filter_on_demand_agrees_with_held() {
        key_filter_agrees(TicketBook::with_filter_on_demand(), 7);
    }

    /// Drives `b` through growing and draining rounds, calling `index_now` every
    /// `index_every` steps (0: never), and checks every by-key answer against `held`.
    fn key_filter_agrees(mut b: TicketBook, index_every: usize) {
        let on_demand = b.on_demand;
        let d = Dialect::mysql80();
        let keys: Vec<MdlKey> = (0..6)
            .map(|i| MdlKey::parse(&d, "TABLE", &format!("db.t{i}")).unwrap())
            .collect();
        let mut next = 0u64;
        let mut r = 0x2545_f491_4f6c_dd1du64;
        let mut rnd = |n: usize| {
            r ^= r << 13;
            r ^= r >> 7;
            r ^= r << 17;
            (r % n as u64) as usize
        };
        for step in 0..4000 {
            // Rounds grow to about 3 * SCAN, then drain.
            let grow = (step / 40) % 2 == 0;
            if grow || b.is_empty() {
                next += 1;
                let k = keys[rnd(keys.len())].clone();
                b.add(TicketId(next), k, LockType::SR, LockDuration::Transaction);
            } else {
                let i = rnd(b.held().len());
                let id = b.held()[i].id;
                assert!(b.remove(id).is_some());
            }
            if index_every != 0 && step % index_every == 0 {
                b.index_now();
            }
            for k in &keys {
                let n = b.held().iter().filter(|h| &h.key == k).count();
                assert_eq!(b.may_hold(k), n > 0, "step {step}");
                assert_eq!(b.on_key(k).count(), n, "step {step}");
                let counted = b.keys.get(&k.hash_value()).copied().unwrap_or(0);
                let want = if b.indexed { n as u32 } else { 0 };
                assert_eq!(counted, want, "step {step}: counts of {k:?}");
            }
            assert!(
                on_demand || b.indexed || b.held().len() <= SCAN,
                "step {step}"
            );
        }
    }

    /// The field-by-field push and pop (`push_held`, `pop_latest_parts`) keep `held` as
    /// `Vec::push` and [`TicketBook::pop_latest`] would: every field of every ticket
    /// added comes back, latest first, below and above `SCAN`.
    #[test]
    fn the_fieldwise_push_and_pop_keep_every_field() {
        let d = Dialect::mysql80();
        let key = MdlKey::parse(&d, "TABLE", "db.t0").unwrap();
        let tys = [LockType::SR, LockType::SW, LockType::SU, LockType::X];
        let durs = [
            LockDuration::Statement,
            LockDuration::Transaction,
            LockDuration::Explicit,
        ];
        let mut b = TicketBook::new();
        for n in [1, SCAN, 3 * SCAN] {
            let base = b.next_seq;
            for i in 0..n {
                let (ty, dur) = (tys[i % tys.len()], durs[i % durs.len()]);
                b.add(TicketId(100 + i as u64), key.clone(), ty, dur);
                let h = b.held().last().unwrap();
                assert_eq!((h.id, h.ty, h.dur), (TicketId(100 + i as u64), ty, dur));
                assert_eq!((h.seq, &h.key), (base + i as u32, &key));
            }
            assert_eq!(b.held().len(), n);
            for i in (0..n).rev() {
                let (id, k) = b.pop_latest_parts().unwrap();
                assert_eq!((id, &k), (TicketId(100 + i as u64), &key), "n {n}");
                assert_eq!(b.held().len(), i);
            }
            assert!(b.pop_latest_parts().is_none());
            assert!(b.is_empty() && !b.indexed);
            assert!(b.keys.values().all(|&c| c == 0), "n {n}");
        }
    }
}
