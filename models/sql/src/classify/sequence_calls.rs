//! What the CREATE TABLE forms with a sequence function share (`sequence.rs`,
//! `sequence_ctas.rs`): the statement without its calls, and the plan bound to the new
//! table and the sequence it opens.

use super::{Bind, Effect, Part, Plan, SetTarget, Tbl, Tok};
use crate::kind::Kind;

/// The statement's tokens with each sequence function call (`spans`, in order) replaced
/// by `0`, so that the rest classifies as the statement would without the sequence.
pub(super) fn calls_as_zero(
    toks: &[Tok],
    spans: impl Iterator<Item = std::ops::Range<usize>>,
) -> Vec<Tok> {
    let mut rest = Vec::new();
    let mut i = 0;
    for span in spans {
        rest.extend(toks[i..span.start].iter().cloned());
        rest.push(Tok::Num("0".into()));
        i = span.end;
    }
    rest.extend(toks[i..].iter().cloned());
    rest
}

/// A CREATE TABLE's plan made the learned row `kind`: the new table and the sequence it
/// opens (`None`: the plan does not create a table).
pub(super) fn creating_with_sequence(mut p: Plan, kind: Kind, seq: &Tbl) -> Option<Plan> {
    let Effect::CreateTable { t, src, .. } = &mut p.effect else {
        return None;
    };
    let new = t.clone();
    src.push(seq.clone());
    p.kind = kind;
    p.parts = vec![Part {
        row: kind.as_str().to_owned(),
        kind,
        bind: Bind {
            n: Some(new),
            t: Some(seq.clone()),
            ..Bind::default()
        },
        set_target: SetTarget::NotInList,
    }];
    Some(p)
}
