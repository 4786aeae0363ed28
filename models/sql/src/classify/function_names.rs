//! What a word before `(` is: a native function, a reserved word or operator, or a stored
//! function's name. The table is data, measured on the server
//! (`models/conformance/function-names.tsv`, with how it was measured): the server decides
//! in sql_yacc.yy (`function_call_keyword`, `function_call_nonkeyword`,
//! `function_call_conflict`, and `function_call_generic`, which asks item_create.cc's
//! `find_native_function_builder` and otherwise builds `Create_sp_func`, a stored call).

use std::collections::BTreeMap;
use std::sync::OnceLock;

/// The measured table, compiled in: a build without it fails, it is never "empty".
const TABLE: &str = include_str!("../../../conformance/function-names.tsv");

/// What `word(` is on the server.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Callee {
    /// A native function (item_create.cc or the grammar's own): no routine, no lock.
    Native,
    /// A reserved word or an operator (`IN (`, `REGEXP (`): not a call at all.
    Syntax,
    /// A stored function's name; `keyword` when the name is a non-reserved keyword (a
    /// missing one fails with ER_FUNC_INEXISTENT_NAME_COLLISION, 1630, not 1305).
    Stored { keyword: bool },
}

fn table() -> &'static BTreeMap<&'static str, Callee> {
    static T: OnceLock<BTreeMap<&'static str, Callee>> = OnceLock::new();
    T.get_or_init(|| {
        TABLE
            .lines()
            .filter(|l| !l.starts_with('#') && !l.starts_with("word\t"))
            .filter_map(|l| {
                let mut f = l.split('\t');
                let (w, k) = (f.next()?, f.next()?);
                let c = match k {
                    "native" => Callee::Native,
                    "syntax" => Callee::Syntax,
                    "keyword" => Callee::Stored { keyword: true },
                    _ => return None,
                };
                Some((w, c))
            })
            .collect()
    })
}

/// What `word(` calls (case-insensitive); a word the table does not list is a stored
/// function's name.
pub(super) fn callee(word: &str) -> Callee {
    table()
        .get(word.to_ascii_lowercase().as_str())
        .copied()
        .unwrap_or(Callee::Stored { keyword: false })
}

/// sql_yacc.yy's `geometry_function`: POINT, LINESTRING, ... are the grammar's
/// constructors when the call has arguments (`POINT(1,1)`); with none the grammar has no
/// such rule and `function_call_generic` makes the word a stored function's call
/// (measured on 10.11.19: `SELECT point()` is 1305, which is why the table's
/// zero-argument probes do not list them; `CREATE VIEW v1 AS SELECT POINT(1,1) AS p`
/// is ok, main/gis.test:1483).
const GEOMETRY_CONSTRUCTORS: &[&str] = &[
    "point",
    "linestring",
    "polygon",
    "multipoint",
    "multilinestring",
    "multipolygon",
    "geometrycollection",
];

/// What `word(` calls, knowing whether the call has arguments (`word()` has none).
pub(super) fn callee_of_call(word: &str, has_args: bool) -> Callee {
    let l = word.to_ascii_lowercase();
    if has_args && GEOMETRY_CONSTRUCTORS.contains(&l.as_str()) {
        return Callee::Native;
    }
    callee(&l)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_measured_table_reads_and_answers() {
        assert!(table().len() > 1000, "{}", table().len());
        assert_eq!(callee("ROWNUM"), Callee::Native);
        assert_eq!(callee("json_overlaps"), Callee::Native);
        assert_eq!(callee("regexp"), Callee::Syntax);
        assert_eq!(callee_of_call("POINT", true), Callee::Native);
        assert_eq!(
            callee_of_call("point", false),
            Callee::Stored { keyword: false }
        );
        assert_eq!(callee("xor"), Callee::Syntax);
        assert_eq!(callee("action"), Callee::Stored { keyword: true });
        assert_eq!(callee("f1"), Callee::Stored { keyword: false });
    }
}
