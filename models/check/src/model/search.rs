//! The explicit-state search of `mdl check`: breadth-first or depth-first over compact
//! canonical states ([`super::encode`]), with partial-order reduction ([`super::por`]),
//! bounded by memory.
//!
//! What it keeps:
//! - per unique state, its 64-bit fingerprint and the index of the state it was first
//!   reached from (12 bytes), and a slot in an open-addressing table of those indices
//!   (8 bytes, with the fingerprint's high half, at a load of at most 70 %): traces are
//!   rebuilt from these parent links, never by a second search;
//! - the states still to expand, as encodings in 1 MiB chunks (a queue for BFS, a stack
//!   for DFS).
//!
//! Before any of these grows, and every few hundred states, the search compares the
//! process's live heap ([`super::mem::heap_bytes`], or its own count of its structures
//! when the counting allocator is not installed) with `--max-memory`: a breadth-first
//! search that passes half of it goes on depth-first (from the same queue, keeping every
//! state seen), and any search stops before passing it, with what it has found so far.

use super::cycle::Graph;
use super::encode::fingerprint;
use super::engine_model::EngineModel;
use super::mem;
use super::model_space::ModelSpace;
use super::por::PorStats;
use std::collections::VecDeque;
use std::io::Write;
use std::time::Instant;

/// How to search.
#[derive(Clone, Debug)]
pub struct SearchOptions {
    /// Depth-first from the start (traces are then not the shortest).
    pub dfs: bool,
    /// Symmetry reduction over interchangeable sessions.
    pub symmetry: bool,
    /// Partial-order reduction.
    pub por: bool,
    /// Keys quiet from a state on ([`super::quiet`]).
    pub dynamic_quiet: bool,
    /// Explore at most this many actions deep.
    pub max_depth: Option<usize>,
    /// Stop after this many unique states.
    pub max_states: Option<u64>,
    /// Stop before the process's heap passes this many bytes.
    pub max_memory: u64,
    /// A live progress line on stderr.
    pub progress: bool,
    /// Threads for breadth-first search (depth-first runs on one).
    pub threads: usize,
    /// Stop after this much time (seconds of the search).
    pub max_time: Option<f64>,
}

/// What a search does beside exploring (both need one thread: they follow the search's
/// order).
#[derive(Clone, Copy, Debug, Default)]
pub struct Mode {
    /// A state's properties count when it is expanded, as in stateright's checker (which
    /// evaluates them when it visits a state): the search stops before expanding the state
    /// that decides the last property, with the states generated until then.
    pub at_expansion: bool,
    /// Record the explored graph (every edge followed, and which states are pending,
    /// [`EngineModel::pending`]) for the cycle search of liveness ([`super::cycle`]): every
    /// state is explored, decided properties or not. The graph (12 bytes an edge, one
    /// byte a state) is not counted against `max_memory`: bound such a search by
    /// `max_states` (the zoo's liveness search stops past 200,000 states).
    pub graph: bool,
    /// Explore every state even when every property is decided (to compare counts with
    /// stateright's checker run the same way).
    pub exhaustive: bool,
}

impl Mode {
    /// The search ends once every property is decided.
    fn stops_decided(self) -> bool {
        !self.graph && !self.exhaustive
    }
}

/// Why a search stopped before it was complete.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stop {
    /// `--max-states`.
    States,
    /// `--max-memory`.
    Memory,
    /// `--max-time`.
    Time,
}

/// What a search found and how it went.
#[derive(Debug)]
pub struct SearchResult<N = Vec<Vec<u8>>> {
    /// Per property (the order of the model's properties, [`ModelSpace::fires`]): the first state found
    /// that violates it (`always` properties) or satisfies it (`sometimes` asserts).
    pub found: Vec<Option<u32>>,
    /// States generated (every successor computed, revisits included, and the initial
    /// state).
    pub states: u64,
    pub unique: u64,
    /// The deepest state reached (actions from the initial state).
    pub max_depth: usize,
    /// The depth bound left some state with enabled actions unexplored.
    pub depth_cut: bool,
    pub stop: Option<Stop>,
    /// Every property was decided before the search was complete (it stopped early).
    pub decided_early: bool,
    /// A breadth-first search went on depth-first: at this depth, with this many bytes.
    pub switched_to_dfs: Option<(usize, u64)>,
    pub seconds: f64,
    /// The most bytes the search's own structures took (the states seen, the queue).
    pub search_bytes: u64,
    /// The largest live heap of the process seen during the search (counting allocator).
    pub heap_peak: Option<u64>,
    /// Symmetry reduction was on (set by the model's caller: [`super::check`]).
    pub symmetry: bool,
    /// `None` when the reduction was off.
    pub por: Option<PorStats>,
    /// Why the reduction was off although asked for.
    pub por_off: Option<String>,
    /// What the model kept of the actions taken ([`EngineModel::Notes`]: for lock scenarios,
    /// per session, per step: bit 1 the step was taken, bit 2 with an outcome other than
    /// `error`, symmetric sessions sharing their bits).
    pub notes: N,
    /// The queue was expanded depth-first (from the start or after the switch).
    pub dfs: bool,
    /// Threads that expanded states (breadth-first only; depth-first uses one).
    pub threads: usize,
}

impl<N> SearchResult<N> {
    /// Nothing cut the search short: every reachable state (under the reductions) was
    /// expanded.
    pub fn complete(&self) -> bool {
        self.stop.is_none() && !self.depth_cut && !self.decided_early
    }
}

/// The visited set: open addressing over indices into the fingerprint list. A slot holds
/// the fingerprint's high 32 bits and the index + 1 (0: empty), so a probe reads the
/// fingerprint list only when the high bits match.
struct FpTable {
    slots: Vec<u64>,
    len: usize,
}

impl FpTable {
    fn new() -> FpTable {
        FpTable {
            slots: vec![0; 1 << 12],
            len: 0,
        }
    }
    fn bytes(&self) -> u64 {
        (self.slots.len() * 8) as u64
    }
    /// Grows when it would pass a load of 70 %; the bytes the new table takes.
    fn growth_needed(&self) -> Option<u64> {
        if (self.len + 1) * 10 > self.slots.len() * 7 {
            Some((self.slots.len() * 2 * 8) as u64)
        } else {
            None
        }
    }
    fn slot_of(fp: u64, index: u32) -> u64 {
        (fp & 0xffff_ffff_0000_0000) | u64::from(index + 1)
    }
    fn grow(&mut self, fps: &[u64]) {
        let mut new = vec![0u64; self.slots.len() * 2];
        let mask = new.len() - 1;
        for &s in &self.slots {
            if s != 0 {
                let fp = fps[((s & 0xffff_ffff) - 1) as usize];
                let mut i = fp as usize & mask;
                while new[i] != 0 {
                    i = (i + 1) & mask;
                }
                new[i] = s;
            }
        }
        self.slots = new;
    }
    /// The index of the state with this fingerprint, or the slot to put it in.
    #[inline]
    fn probe(&self, fps: &[u64], fp: u64) -> Result<u32, usize> {
        let mask = self.slots.len() - 1;
        let tag = fp & 0xffff_ffff_0000_0000;
        let mut i = fp as usize & mask;
        loop {
            let s = self.slots[i];
            if s == 0 {
                return Err(i);
            }
            if s & 0xffff_ffff_0000_0000 == tag {
                let idx = (s & 0xffff_ffff) as u32 - 1;
                if fps[idx as usize] == fp {
                    return Ok(idx);
                }
            }
            i = (i + 1) & mask;
        }
    }
    fn fill(&mut self, slot: usize, index: u32, fp: u64) {
        self.slots[slot] = Self::slot_of(fp, index);
        self.len += 1;
    }
}

/// States to expand, as encodings in chunks: `[len u32][state u32][depth u32][bytes]
/// [len u32]`, so that entries can be taken from either end (an encoding may pass 64 KB:
/// a bulk request of 50,000 keys).
struct Queue {
    chunks: VecDeque<(Vec<u8>, usize)>,
    len: u64,
}

const CHUNK: usize = 1 << 20;
const HEADER: usize = 4 + 4 + 4;
const TRAILER: usize = 4;

impl Queue {
    fn new() -> Queue {
        Queue {
            chunks: VecDeque::new(),
            len: 0,
        }
    }
    fn bytes(&self) -> u64 {
        self.chunks.iter().map(|c| c.0.capacity() as u64).sum()
    }
    /// Would a push need a new chunk?
    fn needs_chunk(&self, len: usize) -> bool {
        self.chunks
            .back()
            .is_none_or(|c| c.0.len() + len + HEADER + TRAILER > c.0.capacity())
    }
    fn push(&mut self, state: u32, depth: u32, bytes: &[u8]) {
        let need = bytes.len() + HEADER + TRAILER;
        if self.needs_chunk(bytes.len()) {
            self.chunks
                .push_back((Vec::with_capacity(CHUNK.max(need)), 0));
        }
        let c = &mut self.chunks.back_mut().expect("a chunk").0;
        let l = (bytes.len() as u32).to_le_bytes();
        c.extend_from_slice(&l);
        c.extend_from_slice(&state.to_le_bytes());
        c.extend_from_slice(&depth.to_le_bytes());
        c.extend_from_slice(bytes);
        c.extend_from_slice(&l);
        self.len += 1;
    }
    fn read(c: &[u8], at: usize, out: &mut Vec<u8>) -> (u32, u32, usize) {
        let word = |i: usize| u32::from_le_bytes(c[i..i + 4].try_into().expect("4 bytes"));
        let l = word(at) as usize;
        let state = word(at + 4);
        let depth = word(at + 8);
        out.clear();
        out.extend_from_slice(&c[at + HEADER..at + HEADER + l]);
        (state, depth, l + HEADER + TRAILER)
    }
    fn pop_front(&mut self, out: &mut Vec<u8>) -> Option<(u32, u32)> {
        loop {
            let (c, start) = self.chunks.front_mut()?;
            if *start < c.len() {
                let (s, d, used) = Self::read(c, *start, out);
                *start += used;
                self.len -= 1;
                return Some((s, d));
            }
            self.chunks.pop_front();
        }
    }
    fn pop_back(&mut self, out: &mut Vec<u8>) -> Option<(u32, u32)> {
        loop {
            let (c, start) = self.chunks.back_mut()?;
            if c.len() > *start {
                let e = c.len();
                let l = u32::from_le_bytes(c[e - 4..e].try_into().expect("4 bytes")) as usize;
                let at = e - TRAILER - l - HEADER;
                let (s, d, _) = Self::read(c, at, out);
                c.truncate(at);
                self.len -= 1;
                return Some((s, d));
            }
            self.chunks.pop_back();
        }
    }
}

/// States expanded per thread in one batch of the parallel breadth-first search.
const BATCH: usize = 512;

/// Seeded bug `mdl_bug="search_drops_state"`: every 7th new state is marked as seen but
/// never put on the queue, so nothing behind it is explored. The comparison with
/// stateright's checker (models/mdl/tests/engines_agree.rs) catches it.
#[cfg(mdl_bug = "search_drops_state")]
fn dropped(idx: u32) -> bool {
    idx % 7 == 6
}
#[cfg(not(mdl_bug = "search_drops_state"))]
fn dropped(_: u32) -> bool {
    false
}

/// The live heap when the counting allocator is installed, else the search's own count.
fn used(own: u64) -> u64 {
    mem::heap_bytes().map_or(own, |h| h as u64)
}

/// A successor found by a worker of the parallel search.
struct Succ {
    parent: u32,
    depth: u32,
    fp: u64,
    /// Its encoding in the batch's bytes.
    at: (usize, usize),
    /// The properties whose predicate the state satisfies (an `always` one violated, a
    /// `sometimes` one met).
    fire: u128,
}

/// One worker's part of a batch.
struct Batch<M: EngineModel> {
    bytes: Vec<u8>,
    succs: Vec<Succ>,
    /// The successors themselves, when the model's queue keeps states
    /// (its encoding does not decode: [`EngineModel::DECODES`]).
    states: Vec<Option<M::State>>,
    notes: M::Notes,
    stats: PorStats,
    expansions: u64,
    depth_cut: bool,
    max_depth: usize,
    scratch: M::Scratch,
}

impl<M: EngineModel> Batch<M> {
    fn new(space: &ModelSpace<M>) -> Batch<M> {
        Batch {
            bytes: Vec::new(),
            succs: Vec::new(),
            states: Vec::new(),
            notes: space.m.new_notes(),
            stats: PorStats::default(),
            expansions: 0,
            depth_cut: false,
            max_depth: 0,
            scratch: M::Scratch::default(),
        }
    }
}

/// The properties a state fires.
fn fires<M: EngineModel>(space: &ModelSpace<M>, st: &M::State) -> u128 {
    (0..space.props()).fold(
        0u128,
        |f, i| {
            if space.fires(i, st) {
                f | 1 << i
            } else {
                f
            }
        },
    )
}

/// What the workers share.
struct Ctx<'a, M: EngineModel> {
    space: &'a ModelSpace<'a, M>,
    max_depth: Option<usize>,
}

impl<M: EngineModel> Ctx<'_, M> {
    /// Expands a slice of a batch into `b`.
    fn expand(&self, slice: &[(u32, u32, usize, usize)], bytes: &[u8], b: &mut Batch<M>) {
        b.bytes.clear();
        b.succs.clear();
        b.states.clear();
        b.stats = PorStats::default();
        b.expansions = 0;
        b.depth_cut = false;
        b.max_depth = 0;
        let mut enabled = Vec::new();
        let mut succs = Vec::new();
        let mut enc = Vec::new();
        for &(node, depth, a, e) in slice {
            let depth = depth as usize;
            b.max_depth = b.max_depth.max(depth);
            let st = self.space.load(&bytes[a..e]);
            enabled.clear();
            self.space.m.actions(&st, &mut enabled);
            if enabled.is_empty() {
                continue;
            }
            if self.max_depth.is_some_and(|d| depth >= d) {
                b.depth_cut = true;
                continue;
            }
            b.expansions += 1;
            self.space
                .m
                .successors(&st, &enabled, &mut b.stats, &mut succs);
            for (next, rec) in succs.drain(..) {
                self.space.m.note(&rec, &mut b.notes);
                self.space.m.encode(&next, &mut b.scratch, &mut enc);
                let fire = fires(self.space, &next);
                let at = (b.bytes.len(), b.bytes.len() + enc.len());
                b.bytes.extend_from_slice(&enc);
                b.succs.push(Succ {
                    parent: node,
                    depth: depth as u32 + 1,
                    fp: fingerprint(&enc),
                    at,
                    fire,
                });
                b.states.push((!M::DECODES).then_some(next));
            }
        }
    }
}

/// The state of a search in progress.
struct Walk<M: EngineModel> {
    found: Vec<Option<u32>>,
    undecided: usize,
    notes: M::Notes,
    table: FpTable,
    queue: Queue,
    stats: PorStats,
    states: u64,
    max_depth: usize,
    depth_cut: bool,
    stop: Option<Stop>,
    expansions: u64,
    search_bytes: u64,
    heap_peak: Option<u64>,
    /// A new state's queue entry.
    stored: Vec<u8>,
    /// Buffers of the one-thread expansion.
    bufs: Bufs<M>,
}

struct Bufs<M: EngineModel> {
    enabled: Vec<M::Action>,
    succs: Vec<(M::State, M::Record)>,
    enc: Vec<u8>,
    scratch: M::Scratch,
}

impl<M: EngineModel> Default for Bufs<M> {
    fn default() -> Self {
        Bufs {
            enabled: Vec::new(),
            succs: Vec::new(),
            enc: Vec::new(),
            scratch: M::Scratch::default(),
        }
    }
}

/// What [`Walk::expand_one`] did.
enum Expand {
    Done,
    /// The state had no enabled action or was at the depth bound.
    Skipped,
    /// No room for a new state (`stop` is set).
    Stop,
}

impl<M: EngineModel> Walk<M> {
    /// What the search's own structures take.
    fn own(&self, s: &Search<M>) -> u64 {
        (s.fps.capacity() * 8 + s.parents.capacity() * 4) as u64
            + self.table.bytes()
            + self.queue.bytes()
    }

    /// Adds a state reached from `parent` unless it was seen: its index, or `None` (seen
    /// before, or no room: then `stop` is set).
    fn insert(
        &mut self,
        s: &mut Search<M>,
        fp: u64,
        parent: u32,
        enc_len: usize,
        limit: u64,
    ) -> Option<u32> {
        let slot = self.table.probe(&s.fps, fp).err()?;
        // Room for one more state: check before anything grows.
        let grow_t = self.table.growth_needed();
        let grow_v =
            (s.fps.len() == s.fps.capacity()).then(|| (s.fps.capacity().max(1024) / 2 * 12) as u64);
        let grow_q = self.queue.needs_chunk(enc_len).then_some(CHUNK as u64);
        if grow_t.is_some() || grow_v.is_some() || grow_q.is_some() {
            let extra = grow_t.unwrap_or(0) + grow_v.unwrap_or(0) + grow_q.unwrap_or(0);
            if used(self.own(s)) + extra > limit / 100 * 95 {
                self.stop = Some(Stop::Memory);
                return None;
            }
        }
        let idx = s.fps.len() as u32;
        if s.fps.len() == s.fps.capacity() {
            let add = s.fps.capacity().max(1024) / 2;
            s.fps.reserve_exact(add);
            s.parents.reserve_exact(add);
        }
        s.fps.push(fp);
        s.parents.push(parent);
        if grow_t.is_some() {
            self.table.grow(&s.fps);
            let slot = self
                .table
                .probe(&s.fps, fp)
                .expect_err("not in the table yet");
            self.table.fill(slot, idx, fp);
        } else {
            self.table.fill(slot, idx, fp);
        }
        Some(idx)
    }

    /// Every property was decided by a state up to `node` (in the order of the queue).
    fn decided_by(&self, node: u32) -> bool {
        self.found.iter().all(|f| f.is_some_and(|i| i <= node))
    }

    /// Expands one state (`at`: its index and depth) on this thread.
    fn expand_one(
        &mut self,
        s: &mut Search<M>,
        st: &M::State,
        at: (u32, usize),
        max_depth: Option<usize>,
        limit: u64,
    ) -> Expand {
        let (node, depth) = at;
        let space = s.space;
        let mut b = std::mem::take(&mut self.bufs);
        self.max_depth = self.max_depth.max(depth);
        b.enabled.clear();
        space.m.actions(st, &mut b.enabled);
        if b.enabled.is_empty() {
            self.bufs = b;
            return Expand::Skipped;
        }
        if max_depth.is_some_and(|d| depth >= d) {
            self.depth_cut = true;
            self.bufs = b;
            return Expand::Skipped;
        }
        self.expansions += 1;
        space
            .m
            .successors(st, &b.enabled, &mut self.stats, &mut b.succs);
        let mut out = Expand::Done;
        for (next, rec) in b.succs.drain(..) {
            self.states += 1;
            space.m.note(&rec, &mut self.notes);
            space.m.encode(&next, &mut b.scratch, &mut b.enc);
            let fp = fingerprint(&b.enc);
            let idx = match self.insert(s, fp, node, b.enc.len(), limit) {
                Some(idx) => {
                    self.fire(idx, fires(space, &next));
                    s.note_pending(&next);
                    self.push(s, idx, (depth + 1) as u32, Some(next), &b.enc);
                    idx
                }
                None if self.stop.is_some() => {
                    out = Expand::Stop;
                    break;
                }
                None => match self.table.probe(&s.fps, fp) {
                    Ok(idx) if s.graph.is_some() => idx,
                    _ => continue,
                },
            };
            if let Some(g) = s.graph.as_mut() {
                g.edges.push((node, space.m.action_of(&rec), idx));
            }
        }
        b.succs.clear();
        self.bufs = b;
        out
    }

    /// Notes the properties a new state fires.
    fn fire(&mut self, idx: u32, fire: u128) {
        if fire == 0 {
            return;
        }
        for (i, f) in self.found.iter_mut().enumerate() {
            if f.is_none() && fire & (1 << i) != 0 {
                *f = Some(idx);
                self.undecided -= 1;
            }
        }
    }

    /// Puts a new state on the queue (what the model keeps of it).
    fn push(&mut self, s: &Search<M>, idx: u32, depth: u32, st: Option<M::State>, enc: &[u8]) {
        if dropped(idx) {
            return;
        }
        if !M::DECODES {
            let mut stored = std::mem::take(&mut self.stored);
            s.space.store(st, enc, &mut stored);
            self.queue.push(idx, depth, &stored);
            self.stored = stored;
        } else {
            self.queue.push(idx, depth, enc);
        }
    }

    /// Merges a worker's successors, in order.
    fn merge_batch(&mut self, s: &mut Search<M>, b: &mut Batch<M>, limit: u64) {
        self.stats.reduced += b.stats.reduced;
        self.stats.skipped += b.stats.skipped;
        self.expansions += b.expansions;
        self.depth_cut |= b.depth_cut;
        self.max_depth = self.max_depth.max(b.max_depth);
        s.space.m.merge_notes(&mut self.notes, &b.notes);
        for (x, st) in b.succs.iter().zip(b.states.iter_mut()) {
            self.states += 1;
            let enc = &b.bytes[x.at.0..x.at.1];
            let Some(idx) = self.insert(s, x.fp, x.parent, enc.len(), limit) else {
                if self.stop.is_some() {
                    return;
                }
                continue;
            };
            self.fire(idx, x.fire);
            self.push(s, idx, x.depth, st.take(), enc);
        }
    }
}

/// How a search went, for its result.
struct Ran {
    decided_early: bool,
    switched: Option<(usize, u64)>,
    dfs: bool,
    threads: usize,
    seconds: f64,
}

/// The buffers of the parallel breadth-first search.
struct Par<M: EngineModel> {
    batch_in: Vec<(u32, u32, usize, usize)>,
    batch_bytes: Vec<u8>,
    batches: Vec<Batch<M>>,
}

impl<M: EngineModel> Walk<M> {
    fn new(space: &ModelSpace<M>) -> Walk<M> {
        let nprops = space.props();
        Walk {
            found: vec![None; nprops],
            undecided: nprops,
            notes: space.m.new_notes(),
            table: FpTable::new(),
            queue: Queue::new(),
            stats: PorStats::default(),
            states: 0,
            max_depth: 0,
            depth_cut: false,
            stop: None,
            expansions: 0,
            search_bytes: 0,
            heap_peak: None,
            stored: Vec::new(),
            bufs: Bufs::default(),
        }
    }

    /// The initial state: state 0, on the queue.
    fn add_initial(&mut self, s: &mut Search<M>) {
        let space = s.space;
        let init = space.initial();
        let mut enc = Vec::new();
        space.m.encode(&init, &mut M::Scratch::default(), &mut enc);
        let fp0 = fingerprint(&enc);
        s.fps.push(fp0);
        s.parents.push(ROOT);
        if let Err(slot) = self.table.probe(&s.fps, fp0) {
            self.table.fill(slot, 0, fp0);
        }
        self.states += 1;
        self.fire(0, fires(space, &init));
        s.note_pending(&init);
        self.push(s, 0, 0, Some(init), &enc);
    }

    /// Breadth-first on several threads: a batch from the front of the queue, expanded in
    /// slices, merged in queue order (so the result is the same as on one thread).
    /// `Skipped`: the queue was empty.
    fn expand_batch(
        &mut self,
        s: &mut Search<M>,
        par: &mut Par<M>,
        max_depth: Option<usize>,
        limit: u64,
    ) -> Expand {
        let threads = par.batches.len();
        let (batch_in, batch_bytes) = (&mut par.batch_in, &mut par.batch_bytes);
        batch_in.clear();
        batch_bytes.clear();
        let mut popped = Vec::new();
        while batch_in.len() < BATCH * threads {
            let Some((node, depth)) = self.queue.pop_front(&mut popped) else {
                break;
            };
            let a = batch_bytes.len();
            batch_bytes.extend_from_slice(&popped);
            batch_in.push((node, depth, a, batch_bytes.len()));
        }
        if batch_in.is_empty() {
            return Expand::Skipped;
        }
        let per = batch_in.len().div_ceil(threads);
        let ctx = Ctx {
            space: s.space,
            max_depth,
        };
        std::thread::scope(|sc| {
            for (slice, b) in batch_in.chunks(per).zip(par.batches.iter_mut()) {
                let bytes = &*batch_bytes;
                let ctx = &ctx;
                sc.spawn(move || ctx.expand(slice, bytes, b));
            }
        });
        let used_batches = batch_in.len().div_ceil(per);
        for b in par.batches.iter_mut().take(used_batches) {
            self.merge_batch(s, b, limit);
            if self.stop.is_some() {
                return Expand::Stop;
            }
        }
        Expand::Done
    }

    /// The result of a search that ended.
    fn result(mut self, s: &Search<M>, run: Ran) -> SearchResult<M::Notes> {
        let space = s.space;
        space.m.finish_notes(&mut self.notes);
        let unique = s.fps.len() as u64;
        SearchResult {
            found: self.found,
            states: self.states,
            unique,
            max_depth: self.max_depth,
            depth_cut: self.depth_cut,
            stop: self.stop,
            decided_early: run.decided_early,
            switched_to_dfs: run.switched,
            seconds: run.seconds,
            search_bytes: self.search_bytes,
            heap_peak: self.heap_peak,
            symmetry: false,
            por: space.m.reduces().then_some(self.stats),
            por_off: None,
            notes: self.notes,
            dfs: run.dfs,
            threads: run.threads,
        }
    }
}

/// A search over one model; keeps the states seen so that traces can be rebuilt.
pub struct Search<'s, M: EngineModel> {
    pub space: &'s ModelSpace<'s, M>,
    fps: Vec<u64>,
    parents: Vec<u32>,
    /// The explored graph, with [`Mode::graph`].
    pub graph: Option<Graph<M::Action>>,
}

const ROOT: u32 = u32::MAX;

fn progress_line(states: u64, unique: u64, depth: usize, queue: u64, secs: f64) {
    let rate = if secs > 0.0 {
        states as f64 / secs
    } else {
        0.0
    };
    eprint!(
        "\r\x1b[2K{states} states ({unique} unique), {rate:.0} states/s, depth {depth}, \
         queue {queue}, {secs:.1} s"
    );
    let _ = std::io::stderr().flush();
}

impl<'s, M: EngineModel> Search<'s, M> {
    /// Runs a search. (`o.symmetry`, `o.por` and `o.dynamic_quiet` are the model's to
    /// apply: [`super::lock_model::LockScenario::new`]; the result's `symmetry` and
    /// `por_off` are its caller's to fill in.)
    pub fn run(
        space: &'s ModelSpace<'s, M>,
        o: &SearchOptions,
    ) -> (Search<'s, M>, SearchResult<M::Notes>) {
        Search::run_mode(space, o, Mode::default())
    }

    /// Runs a search in a [`Mode`].
    pub fn run_mode(
        space: &'s ModelSpace<'s, M>,
        o: &SearchOptions,
        mode: Mode,
    ) -> (Search<'s, M>, SearchResult<M::Notes>) {
        let start = Instant::now();
        let mut s = Search {
            space,
            fps: Vec::new(),
            parents: Vec::new(),
            graph: mode.graph.then(Graph::default),
        };
        let mut w: Walk<M> = Walk::new(space);
        let mut popped = Vec::new();
        let mut decided_early = false;
        let mut dfs = o.dfs;
        let mut switched = None;
        let limit = o.max_memory;
        let mut last_progress = Instant::now();
        let threads = if mode.graph || mode.at_expansion {
            1
        } else {
            o.threads.max(1)
        };

        w.add_initial(&mut s);
        let mut par = Par {
            batch_in: Vec::new(),
            batch_bytes: Vec::new(),
            batches: (0..threads).map(|_| Batch::new(space)).collect(),
        };
        'search: loop {
            if w.undecided == 0 && !mode.at_expansion && mode.stops_decided() {
                decided_early = w.queue.len > 0;
                break;
            }
            if threads > 1 && !dfs {
                match w.expand_batch(&mut s, &mut par, o.max_depth, limit) {
                    Expand::Done => {}
                    Expand::Skipped => break,
                    Expand::Stop => break 'search,
                }
            } else {
                let next = if dfs {
                    w.queue.pop_back(&mut popped)
                } else {
                    w.queue.pop_front(&mut popped)
                };
                let Some((node, depth)) = next else { break };
                if mode.at_expansion && mode.stops_decided() && w.decided_by(node) {
                    decided_early = w.queue.len > 0;
                    break;
                }
                let st = space.load(&popped);
                match w.expand_one(&mut s, &st, (node, depth as usize), o.max_depth, limit) {
                    Expand::Done => {}
                    Expand::Skipped => continue,
                    Expand::Stop => break 'search,
                }
            }
            if o.max_states.is_some_and(|x| s.fps.len() as u64 >= x) {
                w.stop = Some(Stop::States);
                break;
            }
            // The clock is read every 64 expansions (every batch on several threads): an
            // expansion of a 30-session state takes well under a millisecond.
            if (w.expansions.is_multiple_of(64) || threads > 1)
                && o.max_time
                    .is_some_and(|t| start.elapsed().as_secs_f64() >= t)
            {
                w.stop = Some(Stop::Time);
                break;
            }
            if w.expansions.is_multiple_of(256) || threads > 1 {
                let ownb = w.own(&s);
                w.search_bytes = w.search_bytes.max(ownb);
                let now = used(ownb);
                if let Some(h) = mem::heap_bytes() {
                    w.heap_peak = Some(w.heap_peak.unwrap_or(0).max(h as u64));
                }
                if !dfs && now > limit / 2 {
                    dfs = true;
                    switched = Some((w.max_depth, now));
                }
                if now > limit / 100 * 90 {
                    w.stop = Some(Stop::Memory);
                    break 'search;
                }
                if o.progress && last_progress.elapsed().as_millis() >= 200 {
                    last_progress = Instant::now();
                    progress_line(
                        w.states,
                        s.fps.len() as u64,
                        w.max_depth,
                        w.queue.len,
                        start.elapsed().as_secs_f64(),
                    );
                }
            }
        }
        if o.progress {
            eprint!("\r\x1b[2K");
            let _ = std::io::stderr().flush();
        }
        w.search_bytes = w.search_bytes.max(w.own(&s));
        if let Some(h) = mem::heap_bytes() {
            w.heap_peak = Some(w.heap_peak.unwrap_or(0).max(h as u64));
        }
        let run = Ran {
            decided_early,
            switched,
            dfs,
            threads: if o.dfs { 1 } else { threads },
            seconds: start.elapsed().as_secs_f64(),
        };
        let r = w.result(&s, run);
        (s, r)
    }

    /// With [`Mode::graph`]: notes whether a new state is pending.
    fn note_pending(&mut self, st: &M::State) {
        if let Some(g) = self.graph.as_mut() {
            g.pending.push(self.space.m.pending(st));
        }
    }

    /// The actions from the initial state to state `node`: rebuilt from the parent
    /// links. It walks the states the search expanded (decoded representatives), taking
    /// at each the action whose successor has the next fingerprint, exactly as the search
    /// did; with symmetry it keeps track of which real session each representative's
    /// session stands for, and returns the actions of the real sessions.
    pub fn path(&self, node: u32) -> Option<Vec<M::Action>> {
        let mut chain = vec![node];
        let mut at = node;
        while self.parents[at as usize] != ROOT {
            at = self.parents[at as usize];
            chain.push(at);
        }
        chain.reverse();
        let space = self.space;
        let mut scratch = M::Scratch::default();
        let mut enc = Vec::new();
        let mut st = space.initial();
        space.m.encode(&st, &mut scratch, &mut enc);
        // real[j]: the real session that session j of the representative stands for.
        let mut real: Vec<usize> = space.m.order(&scratch);
        if M::DECODES {
            st = space.load(&enc);
        }
        let mut acts = Vec::new();
        let mut out = Vec::new();
        for w in chain.windows(2) {
            let want = self.fps[w[1] as usize];
            acts.clear();
            space.m.actions(&st, &mut acts);
            let mut found = false;
            for &a in &acts {
                let Some((x, _)) = space.m.step(&st, a) else {
                    continue;
                };
                space.m.encode(&x, &mut scratch, &mut enc);
                if fingerprint(&enc) != want {
                    continue;
                }
                out.push(space.m.relabel(a, &real));
                let order = space.m.order(&scratch);
                real = order.iter().map(|&o| real[o]).collect();
                st = if !M::DECODES { x } else { space.load(&enc) };
                found = true;
                break;
            }
            if !found {
                return None;
            }
        }
        Some(out)
    }
}
