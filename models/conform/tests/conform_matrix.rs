//! Our predictions for the statement compatibility matrix against the committed measured
//! matrix (no server needed): every cell agrees except those `matrix-explained.tsv` lists
//! as outside MDL, and that list holds no stale entry.
//!
//! Seeded bug `mdl_bug="conform_ignore_upgrades"` (RUSTFLAGS='--cfg
//! mdl_bug="conform_ignore_upgrades"'): the SQL model skips learned upgrades (LOCK TABLES
//! READ keeps SR instead of SRO, FTWRL keeps FTWRL1, ...); the comparison must catch it.

use mdl_conform::matrix::{compare, load_explained, predict, Matrix};
use mdl_sql::mapping::Mapping;

fn unexplained() -> (usize, usize, Vec<String>, Vec<String>) {
    let map = Mapping::load().unwrap();
    let measured = Matrix::load().unwrap();
    let predicted = predict(&map).unwrap();
    let (ok, diff) = compare(&measured, &predicted);
    let explained = load_explained().unwrap();
    let unexplained: Vec<String> = diff
        .iter()
        .filter(|(a, b, _, _)| !explained.contains_key(&(a.clone(), b.clone())))
        .map(|(a, b, m, p)| format!("{a} then {b}: server {m}, ours {p}"))
        .collect();
    let stale: Vec<String> = explained
        .keys()
        .filter(|k| !diff.iter().any(|(a, b, _, _)| (a, b) == (&k.0, &k.1)))
        .map(|k| format!("{} then {}", k.0, k.1))
        .collect();
    (ok, diff.len(), unexplained, stale)
}

#[cfg(not(mdl_bug = "conform_ignore_upgrades"))]
#[test]
fn predictions_match_the_measured_matrix() {
    let measured = Matrix::load().unwrap();
    let n = mdl_sql::mapping::matrix_kinds().count();
    assert_eq!(measured.kinds.len(), n, "the matrix has every matrix kind");
    assert_eq!(measured.cells.len(), n * n);
    let (ok, ndiff, unexplained, stale) = unexplained();
    println!("{ok}/{} cells agree", ok + ndiff);
    assert!(
        unexplained.is_empty(),
        "unexplained differences: {unexplained:#?}"
    );
    assert!(
        stale.is_empty(),
        "explained cells that agree now: {stale:#?}"
    );
}

#[cfg(mdl_bug = "conform_ignore_upgrades")]
#[test]
fn seeded_bug_conform_ignore_upgrades_is_caught() {
    let (_, _, unexplained, _) = unexplained();
    assert!(
        !unexplained.is_empty(),
        "the matrix comparison missed the seeded bug"
    );
}

#[test]
fn matrix_file_round_trips() {
    let m = Matrix::load().unwrap();
    assert_eq!(Matrix::parse("x", &m.to_text()).unwrap(), m);
    assert!(Matrix::parse("x", "A\\B\ta\nx\t-\t-\n").is_err());
}
