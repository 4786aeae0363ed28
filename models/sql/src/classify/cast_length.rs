//! `CAST(x AS CHAR(N))` / `BINARY(N)` / `NCHAR(N)` with N over `MAX_FIELD_BLOBLENGTH`
//! (4294967295): ER_TOO_BIG_DISPLAYWIDTH (1439) from the parser, which builds the cast
//! item while it reads the statement (`create_func_cast` →
//! `Type_handler_string_result::create_typecast_item`, sql/item_create.cc and
//! sql/sql_type.cc), so before anything is opened (main/type_blob.test:587 `explain
//! select cast(1 as char(4294967296))`; `suite/create-table-parse-errors.mdl` plays it).

use super::{kw_eq, Tok};

/// MAX_FIELD_BLOBLENGTH.
const MAX_FIELD_BLOBLENGTH: u64 = 4_294_967_295;

/// ER_TOO_BIG_DISPLAYWIDTH for a cast's length over the limit, or None.
pub(super) fn error(toks: &[Tok]) -> Option<u32> {
    toks.windows(5).find_map(|w| {
        let cast = kw_eq(&w[0], "as")
            && ["char", "binary", "nchar"].iter().any(|k| kw_eq(&w[1], k))
            && w[2] == Tok::P('(')
            && w[4] == Tok::P(')');
        let Tok::Num(n) = &w[3] else { return None };
        // A number too long for u64 is over the limit too.
        let over = n.parse::<u64>().map_or(true, |v| v > MAX_FIELD_BLOBLENGTH);
        (cast && over).then_some(super::column_types::ER_TOO_BIG_DISPLAYWIDTH)
    })
}
