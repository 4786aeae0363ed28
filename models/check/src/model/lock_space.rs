//! A lock scenario ([`MdlModel`]) for our engine ([`super::space::Space`]): its compact
//! canonical encoding ([`super::encode`], with symmetry and keys quiet from a state on),
//! its partial-order reduction ([`super::por`]), and the steps taken (for the coverage
//! and the warnings of the report).

use super::encode::{Codec, Scratch};
use super::por::{Por, PorStats};
use super::search::SearchOptions;
use super::space::Space;
use super::{Action, MdlModel, PropKind, Record, State};

/// The model with the reductions a search asked for.
pub struct LockSpace<'m> {
    pub m: &'m MdlModel,
    pub codec: Codec,
    por: Option<Por>,
    /// Why the reduction is off although asked for.
    pub por_off: Option<String>,
    pub symmetry: bool,
    props: Vec<(PropKind, bool)>,
}

impl<'m> LockSpace<'m> {
    pub fn new(m: &'m MdlModel, o: &SearchOptions) -> LockSpace<'m> {
        let symmetry = o.symmetry && m.has_symmetry();
        let mut codec = Codec::new(m, symmetry);
        if o.dynamic_quiet {
            codec = codec.with_dynamic_quiet(m);
        }
        let (por, por_off) = if o.por {
            match Por::new(m, &codec) {
                Some(p) => (Some(p), None),
                None => (
                    None,
                    Some(format!(
                        "partial-order reduction off: the scenario names more than {} keys",
                        super::keys::MAX_KEYS
                    )),
                ),
            }
        } else {
            (None, None)
        };
        let props = m
            .prop_kinds()
            .into_iter()
            .map(|(k, _)| {
                let sometimes = matches!(k, PropKind::Assert(i) if m.asserts[i].is_sometimes());
                (k, sometimes)
            })
            .collect();
        LockSpace {
            m,
            codec,
            por,
            por_off,
            symmetry,
            props,
        }
    }
}

impl Space for LockSpace<'_> {
    type State = State;
    type Action = Action;
    type Record = Record;
    type Scratch = Scratch;
    /// Per session, per step: bit 1 the step was taken, bit 2 with an outcome other than
    /// `error`.
    type Notes = Vec<Vec<u8>>;

    fn initial(&self) -> State {
        self.m.initial()
    }
    fn enabled(&self, st: &State, out: &mut Vec<Action>) {
        self.m.enabled(st, out)
    }
    fn apply(&self, st: &State, a: Action) -> Option<(State, Record)> {
        self.m.apply(st, a)
    }
    fn action_of(&self, rec: &Record) -> Action {
        rec.action
    }
    fn props(&self) -> usize {
        self.props.len()
    }
    fn fires(&self, i: usize, st: &State) -> bool {
        let (k, sometimes) = self.props[i];
        self.m.holds_in(k, st) == sometimes
    }
    fn encode(&self, st: &State, scratch: &mut Scratch, out: &mut Vec<u8>) {
        self.codec.encode(st, scratch, out)
    }
    fn load(&self, stored: &[u8]) -> State {
        self.codec.decode(stored)
    }

    /// One action's successor if partial-order reduction finds an invisible, independent
    /// one; every enabled action's otherwise.
    fn successors(
        &self,
        st: &State,
        enabled: &[Action],
        stats: &mut PorStats,
        out: &mut Vec<(State, Record)>,
    ) {
        out.clear();
        if let Some(p) = &self.por {
            let mut cands = Vec::new();
            p.candidates(&self.codec, st, enabled, &mut cands);
            for &a in cands.iter() {
                if let Some((next, rec)) = self.m.apply(st, a) {
                    if Por::invisible(self.m, st, &next, &rec) {
                        stats.reduced += 1;
                        stats.skipped += enabled.len() as u64 - 1;
                        out.clear();
                        out.push((next, rec));
                        return;
                    }
                    // Not chosen: kept, so the full expansion need not take it again.
                    out.push((next, rec));
                }
            }
        }
        let tried = out.len();
        for &a in enabled {
            if out[..tried].iter().any(|(_, r)| r.action == a) {
                continue;
            }
            if let Some(x) = self.m.apply(st, a) {
                out.push(x);
            }
        }
    }
    fn reduces(&self) -> bool {
        self.por.is_some()
    }

    fn order(&self, scratch: &Scratch) -> Vec<usize> {
        self.codec.last_order(scratch).to_vec()
    }
    fn relabel(&self, a: Action, real: &[usize]) -> Action {
        a.with_session(real[a.session()])
    }

    fn new_notes(&self) -> Vec<Vec<u8>> {
        self.m.programs.iter().map(|p| vec![0; p.len()]).collect()
    }
    fn note(&self, rec: &Record, seen: &mut Vec<Vec<u8>>) {
        if let (Action::Step(p), Some(i)) = (rec.action, rec.step) {
            seen[p as usize][i] |= if rec.outcome == Some(mdl_core::Outcome::Error) {
                1
            } else {
                3
            };
        }
    }
    fn merge_notes(&self, into: &mut Vec<Vec<u8>>, from: &Vec<Vec<u8>>) {
        for (a, b) in into.iter_mut().zip(from) {
            for (x, y) in a.iter_mut().zip(b) {
                *x |= *y;
            }
        }
    }
    fn finish_notes(&self, seen: &mut Vec<Vec<u8>>) {
        if !self.symmetry {
            return;
        }
        let mut by: std::collections::BTreeMap<u8, Vec<usize>> = Default::default();
        for (x, c) in self.m.classes.iter().enumerate() {
            by.entry(*c).or_default().push(x);
        }
        for g in by.values().filter(|g| g.len() > 1) {
            let mut bits = vec![0u8; seen[g[0]].len()];
            for &x in g {
                for (b, s) in bits.iter_mut().zip(&seen[x]) {
                    *b |= s;
                }
            }
            for &x in g {
                seen[x].copy_from_slice(&bits);
            }
        }
    }
}
