//! The explicit-state search of `mdl check`: breadth-first or depth-first over compact
//! canonical states ([`super::encode`]), with partial-order reduction ([`super::por`]),
//! bounded by memory.
//!
//! What it keeps:
//! - per unique state, its 64-bit fingerprint and the index of the state it was first
//!   reached from (12 bytes), and a slot in an open-addressing table of those indices
//!   (4 bytes at a load of at most 70 %): traces are rebuilt from these parent links,
//!   never by a second search;
//! - the states still to expand, as encodings in 1 MiB chunks (a queue for BFS, a stack
//!   for DFS).
//!
//! Before any of these grows, and every few hundred states, the search compares the
//! process's live heap ([`super::mem::heap_bytes`], or its own count of its structures
//! when the counting allocator is not installed) with `--max-memory`: a breadth-first
//! search that passes half of it goes on depth-first (from the same queue, keeping every
//! state seen), and any search stops before passing it, with what it has found so far.

use super::encode::{fingerprint, Codec, Scratch};
use super::mem;
use super::por::{Por, PorStats};
use super::{Action, MdlModel, PropKind, State};
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
    /// Explore at most this many actions deep.
    pub max_depth: Option<usize>,
    /// Stop after this many unique states.
    pub max_states: Option<u64>,
    /// Stop before the process's heap passes this many bytes.
    pub max_memory: u64,
    /// A live progress line on stderr.
    pub progress: bool,
}

/// Why a search stopped before it was complete.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stop {
    /// `--max-states`.
    States,
    /// `--max-memory`.
    Memory,
}

/// What a search found and how it went.
#[derive(Debug)]
pub struct SearchResult {
    /// Per property (the model's [`MdlModel::prop_kinds`] order): the first state found
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
    pub symmetry: bool,
    /// `None` when the reduction was off.
    pub por: Option<PorStats>,
    /// Why the reduction was off although asked for.
    pub por_off: Option<String>,
    /// Per session, per step: bit 1 the step was taken, bit 2 with an outcome other
    /// than `error` (symmetric sessions share their bits).
    pub steps_seen: Vec<Vec<u8>>,
    /// The queue was expanded depth-first (from the start or after the switch).
    pub dfs: bool,
}

impl SearchResult {
    /// Nothing cut the search short: every reachable state (under the reductions) was
    /// expanded.
    pub fn complete(&self) -> bool {
        self.stop.is_none() && !self.depth_cut && !self.decided_early
    }
}

/// The visited set: open addressing over indices into the fingerprint list.
struct FpTable {
    /// 0: empty; otherwise a state's index + 1.
    slots: Vec<u32>,
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
        (self.slots.len() * 4) as u64
    }
    /// Grows when it would pass a load of 70 %; the bytes the new table takes.
    fn growth_needed(&self) -> Option<u64> {
        if (self.len + 1) * 10 > self.slots.len() * 7 {
            Some((self.slots.len() * 2 * 4) as u64)
        } else {
            None
        }
    }
    fn grow(&mut self, fps: &[u64]) {
        let mut new = vec![0u32; self.slots.len() * 2];
        let mask = new.len() - 1;
        for &s in &self.slots {
            if s != 0 {
                let mut i = fps[(s - 1) as usize] as usize & mask;
                while new[i] != 0 {
                    i = (i + 1) & mask;
                }
                new[i] = s;
            }
        }
        self.slots = new;
    }
    /// The index of the state with this fingerprint, or the slot to put it in.
    fn probe(&self, fps: &[u64], fp: u64) -> Result<u32, usize> {
        let mask = self.slots.len() - 1;
        let mut i = fp as usize & mask;
        loop {
            let s = self.slots[i];
            if s == 0 {
                return Err(i);
            }
            if fps[(s - 1) as usize] == fp {
                return Ok(s - 1);
            }
            i = (i + 1) & mask;
        }
    }
    fn fill(&mut self, slot: usize, index: u32) {
        self.slots[slot] = index + 1;
        self.len += 1;
    }
}

/// States to expand, as encodings in chunks: `[len u16][state u32][depth u32][bytes]
/// [len u16]`, so that entries can be taken from either end.
struct Queue {
    chunks: VecDeque<(Vec<u8>, usize)>,
    len: u64,
}

const CHUNK: usize = 1 << 20;
const HEADER: usize = 2 + 4 + 4;

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
            .is_none_or(|c| c.0.len() + len + HEADER + 2 > c.0.capacity())
    }
    fn push(&mut self, state: u32, depth: u32, bytes: &[u8]) {
        let need = bytes.len() + HEADER + 2;
        if self.needs_chunk(bytes.len()) {
            self.chunks
                .push_back((Vec::with_capacity(CHUNK.max(need)), 0));
        }
        let c = &mut self.chunks.back_mut().expect("a chunk").0;
        let l = (bytes.len() as u16).to_le_bytes();
        c.extend_from_slice(&l);
        c.extend_from_slice(&state.to_le_bytes());
        c.extend_from_slice(&depth.to_le_bytes());
        c.extend_from_slice(bytes);
        c.extend_from_slice(&l);
        self.len += 1;
    }
    fn read(c: &[u8], at: usize, out: &mut Vec<u8>) -> (u32, u32, usize) {
        let l = u16::from_le_bytes([c[at], c[at + 1]]) as usize;
        let state = u32::from_le_bytes(c[at + 2..at + 6].try_into().expect("4 bytes"));
        let depth = u32::from_le_bytes(c[at + 6..at + 10].try_into().expect("4 bytes"));
        out.clear();
        out.extend_from_slice(&c[at + HEADER..at + HEADER + l]);
        (state, depth, l + HEADER + 2)
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
                let l = u16::from_le_bytes([c[e - 2], c[e - 1]]) as usize;
                let at = e - 2 - l - HEADER;
                let (s, d, _) = Self::read(c, at, out);
                c.truncate(at);
                self.len -= 1;
                return Some((s, d));
            }
            self.chunks.pop_back();
        }
    }
}

/// A search over one model; keeps the states seen so that traces can be rebuilt.
pub struct Search<'m> {
    pub m: &'m MdlModel,
    pub codec: Codec,
    fps: Vec<u64>,
    parents: Vec<u32>,
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

impl<'m> Search<'m> {
    /// Runs a search.
    pub fn run(m: &'m MdlModel, o: &SearchOptions) -> (Search<'m>, SearchResult) {
        let start = Instant::now();
        let symmetry = o.symmetry && m.has_symmetry();
        let codec = Codec::new(m, symmetry);
        let (por, por_off) = if o.por {
            match Por::new(m, &codec) {
                Some(p) => (Some(p), None),
                None => (
                    None,
                    Some(format!(
                        "partial-order reduction off: the scenario names more than {} keys",
                        super::por::MAX_KEYS
                    )),
                ),
            }
        } else {
            (None, None)
        };
        let mut s = Search {
            m,
            codec,
            fps: Vec::new(),
            parents: Vec::new(),
        };
        let props = m.prop_kinds();
        let sometimes: Vec<bool> = props
            .iter()
            .map(|(k, _)| matches!(k, PropKind::Assert(i) if m.asserts[*i].is_sometimes()))
            .collect();
        let mut found: Vec<Option<u32>> = vec![None; props.len()];
        let mut undecided = props.len();
        let mut steps_seen: Vec<Vec<u8>> = m.programs.iter().map(|p| vec![0; p.len()]).collect();
        let mut table = FpTable::new();
        let mut queue = Queue::new();
        let mut scratch = Scratch::default();
        let mut enc = Vec::new();
        let mut popped = Vec::new();
        let mut enabled = Vec::new();
        let mut cands = Vec::new();
        let mut succs: Vec<(State, super::Record)> = Vec::new();
        let mut stats = PorStats::default();
        let mut states = 0u64;
        let mut max_depth = 0usize;
        let mut depth_cut = false;
        let mut stop = None;
        let mut decided_early = false;
        let mut dfs = o.dfs;
        let mut switched = None;
        let mut search_bytes = 0u64;
        let mut heap_peak: Option<u64> = None;
        let limit = o.max_memory;
        let mut last_progress = Instant::now();
        let mut expansions = 0u64;

        // What the search's own structures take, and what the process takes.
        let own = |s: &Search, t: &FpTable, q: &Queue| -> u64 {
            (s.fps.capacity() * 8 + s.parents.capacity() * 4) as u64 + t.bytes() + q.bytes()
        };
        let used = |own: u64| -> u64 { mem::heap_bytes().map_or(own, |h| h as u64) };

        // The initial state.
        let init = m.initial();
        s.codec.encode(&init, &mut scratch, &mut enc);
        let fp0 = fingerprint(&enc);
        s.fps.push(fp0);
        s.parents.push(ROOT);
        if let Err(slot) = table.probe(&s.fps, fp0) {
            table.fill(slot, 0);
        }
        states += 1;
        for (i, (k, _)) in props.iter().enumerate() {
            if m.holds_in(*k, &init) == sometimes[i] {
                found[i] = Some(0);
                undecided -= 1;
            }
        }
        queue.push(0, 0, &enc);

        'search: loop {
            if undecided == 0 {
                decided_early = queue.len > 0;
                break;
            }
            let next = if dfs {
                queue.pop_back(&mut popped)
            } else {
                queue.pop_front(&mut popped)
            };
            let Some((node, depth)) = next else { break };
            let depth = depth as usize;
            max_depth = max_depth.max(depth);
            let st = s.codec.decode(&popped);
            enabled.clear();
            m.enabled(&st, &mut enabled);
            if enabled.is_empty() {
                continue;
            }
            if o.max_depth.is_some_and(|d| depth >= d) {
                depth_cut = true;
                continue;
            }
            expansions += 1;
            // Partial-order reduction: one invisible, independent action if there is one.
            succs.clear();
            if let Some(p) = &por {
                p.candidates(&s.codec, &st, &enabled, &mut cands);
                for &a in &cands {
                    if let Some((next, rec)) = m.apply(&st, a) {
                        if Por::invisible(m, &st, &next, &rec) {
                            stats.reduced += 1;
                            stats.skipped += enabled.len() as u64 - 1;
                            succs.push((next, rec));
                            break;
                        }
                    }
                }
            }
            if succs.is_empty() {
                for &a in &enabled {
                    if let Some(x) = m.apply(&st, a) {
                        succs.push(x);
                    }
                }
            }
            for (next, rec) in succs.drain(..) {
                states += 1;
                if let (Action::Step(p), Some(i)) = (rec.action, rec.step) {
                    let ok = if rec.outcome == Some(mdl_core::Outcome::Error) {
                        1
                    } else {
                        3
                    };
                    steps_seen[p as usize][i] |= ok;
                }
                s.codec.encode(&next, &mut scratch, &mut enc);
                let fp = fingerprint(&enc);
                let slot = match table.probe(&s.fps, fp) {
                    Ok(_) => continue,
                    Err(slot) => slot,
                };
                // Room for one more state: check before anything grows.
                let grow_t = table.growth_needed();
                let grow_v = if s.fps.len() == s.fps.capacity() {
                    Some((s.fps.capacity().max(1024) / 2 * 12) as u64)
                } else {
                    None
                };
                let grow_q = if queue.needs_chunk(enc.len()) {
                    Some(CHUNK as u64)
                } else {
                    None
                };
                if grow_t.is_some() || grow_v.is_some() || grow_q.is_some() {
                    let extra = grow_t.unwrap_or(0) + grow_v.unwrap_or(0) + grow_q.unwrap_or(0);
                    let now = used(own(&s, &table, &queue));
                    if now + extra > limit / 100 * 95 {
                        stop = Some(Stop::Memory);
                        break 'search;
                    }
                }
                let idx = s.fps.len() as u32;
                if s.fps.len() == s.fps.capacity() {
                    let add = s.fps.capacity().max(1024) / 2;
                    s.fps.reserve_exact(add);
                    s.parents.reserve_exact(add);
                }
                s.fps.push(fp);
                s.parents.push(node);
                if grow_t.is_some() {
                    table.grow(&s.fps);
                    let slot = table.probe(&s.fps, fp).expect_err("not in the table yet");
                    table.fill(slot, idx);
                } else {
                    table.fill(slot, idx);
                }
                for (i, (k, _)) in props.iter().enumerate() {
                    if found[i].is_none() && m.holds_in(*k, &next) == sometimes[i] {
                        found[i] = Some(idx);
                        undecided -= 1;
                    }
                }
                queue.push(idx, (depth + 1) as u32, &enc);
                if o.max_states.is_some_and(|x| s.fps.len() as u64 >= x) {
                    stop = Some(Stop::States);
                    break 'search;
                }
            }
            if expansions % 256 == 0 {
                let ownb = own(&s, &table, &queue);
                search_bytes = search_bytes.max(ownb);
                let now = used(ownb);
                if let Some(h) = mem::heap_bytes() {
                    heap_peak = Some(heap_peak.unwrap_or(0).max(h as u64));
                }
                if !dfs && now > limit / 2 {
                    dfs = true;
                    switched = Some((depth, now));
                }
                if now > limit / 100 * 90 {
                    stop = Some(Stop::Memory);
                    break 'search;
                }
                if o.progress && last_progress.elapsed().as_millis() >= 200 {
                    last_progress = Instant::now();
                    progress_line(
                        states,
                        s.fps.len() as u64,
                        max_depth,
                        queue.len,
                        start.elapsed().as_secs_f64(),
                    );
                }
            }
        }
        if o.progress {
            eprint!("\r\x1b[2K");
            let _ = std::io::stderr().flush();
        }
        search_bytes = search_bytes.max(own(&s, &table, &queue));
        if let Some(h) = mem::heap_bytes() {
            heap_peak = Some(heap_peak.unwrap_or(0).max(h as u64));
        }
        // Interchangeable sessions share what their steps did.
        if symmetry {
            let mut by: std::collections::BTreeMap<u8, Vec<usize>> = Default::default();
            for (x, c) in m.classes.iter().enumerate() {
                by.entry(*c).or_default().push(x);
            }
            for g in by.values().filter(|g| g.len() > 1) {
                let len = steps_seen[g[0]].len();
                for i in 0..len {
                    let bits = g.iter().fold(0, |b, &x| b | steps_seen[x][i]);
                    for &x in g {
                        steps_seen[x][i] = bits;
                    }
                }
            }
        }
        let unique = s.fps.len() as u64;
        drop(table);
        let r = SearchResult {
            found,
            states,
            unique,
            max_depth,
            depth_cut,
            stop,
            decided_early,
            switched_to_dfs: switched,
            seconds: start.elapsed().as_secs_f64(),
            search_bytes,
            heap_peak,
            symmetry,
            por: por.as_ref().map(|_| stats),
            por_off,
            steps_seen,
            dfs,
        };
        (s, r)
    }

    /// The actions from the initial state to state `node`: rebuilt from the parent
    /// links. It walks the states the search expanded (decoded representatives), taking
    /// at each the action whose successor has the next fingerprint, exactly as the search
    /// did; with symmetry it keeps track of which real session each representative's
    /// session stands for, and returns the actions of the real sessions.
    pub fn path(&self, node: u32) -> Option<Vec<Action>> {
        let mut chain = vec![node];
        let mut at = node;
        while self.parents[at as usize] != ROOT {
            at = self.parents[at as usize];
            chain.push(at);
        }
        chain.reverse();
        let mut scratch = Scratch::default();
        let mut enc = Vec::new();
        let init = self.m.initial();
        self.codec.encode(&init, &mut scratch, &mut enc);
        // real[j]: the real session that session j of the representative stands for.
        let mut real: Vec<usize> = self.codec.last_order(&scratch).to_vec();
        let mut st = self.codec.decode(&enc);
        let mut acts = Vec::new();
        let mut out = Vec::new();
        for w in chain.windows(2) {
            let want = self.fps[w[1] as usize];
            acts.clear();
            self.m.enabled(&st, &mut acts);
            let mut found = false;
            for &a in &acts {
                let Some((x, _)) = self.m.apply(&st, a) else {
                    continue;
                };
                self.codec.encode(&x, &mut scratch, &mut enc);
                if fingerprint(&enc) != want {
                    continue;
                }
                out.push(a.with_session(real[a.session()]));
                let order = self.codec.last_order(&scratch);
                real = order.iter().map(|&o| real[o]).collect();
                st = self.codec.decode(&enc);
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
