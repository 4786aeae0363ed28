//! Dynamic SQL's source: the expression after `PREPARE name FROM` and `EXECUTE IMMEDIATE`,
//! its `USING` parameters, and its value as far as the model can compute it.
//!
//! MariaDB `sql/sql_prepare.cc`: `LEX::get_dynamic_sql_string` fixes the expression and
//! takes its string value; a NULL value (an unset user variable, `CONCAT` of one) becomes
//! the query text `NULL`, which the parser then refuses (ER_PARSE_ERROR). The model computes
//! string literals (with a character set introducer), user variables whose value it knows,
//! `NULL`, `CONCAT`, `CONCAT_WS`, `CONVERT(... USING ...)` and parentheses; anything else
//! (a function of table data, a subquery, `||`) is [`DynValue::Unknown`] with the reason.

/// The value of a dynamic SQL source or of a user variable.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DynValue {
    Str(String),
    Null,
    /// The model cannot compute it: why.
    Unknown(String),
}

/// One token of a source expression.
#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Str(String),
    Var(String),
    Word(String),
    Num(String),
    Punct(char),
}

/// A quoted string from `chars[i]` (the quote) on: its text (doubled quotes and backslash
/// escapes undone) and the index after it.
fn quoted(chars: &[char], mut i: usize) -> Result<(String, usize), String> {
    let q = chars[i];
    let mut out = String::new();
    i += 1;
    while i < chars.len() {
        let c = chars[i];
        if c == '\\' && q != '`' && i + 1 < chars.len() {
            out.push(match chars[i + 1] {
                'n' => '\n',
                't' => '\t',
                'r' => '\r',
                '0' => '\0',
                x => x,
            });
            i += 2;
        } else if c == q && chars.get(i + 1) == Some(&q) {
            out.push(q);
            i += 2;
        } else if c == q {
            return Ok((out, i + 1));
        } else {
            out.push(c);
            i += 1;
        }
    }
    Err(format!("unterminated {q}quote{q}"))
}

fn tokens(src: &str) -> Result<Vec<Tok>, String> {
    let chars: Vec<char> = src.chars().collect();
    let mut out = Vec::new();
    let mut charsets: Vec<String> = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_whitespace() {
            i += 1;
        } else if c == '\'' || c == '"' {
            let (s, j) = quoted(&chars, i)?;
            out.push(Tok::Str(s));
            i = j;
        } else if c == '@' {
            if chars.get(i + 1) == Some(&'@') {
                return Err("a system variable".into());
            }
            let (name, j) = match chars.get(i + 1) {
                Some('`' | '\'' | '"') => quoted(&chars, i + 1)?,
                _ => word_at(&chars, i + 1),
            };
            if name.is_empty() {
                return Err("`@` without a name".into());
            }
            out.push(Tok::Var(name.to_lowercase()));
            i = j;
        } else if c.is_ascii_digit() {
            let (w, j) = word_at(&chars, i);
            out.push(Tok::Num(w));
            i = j;
        } else if c.is_alphanumeric() || c == '_' || c == '$' {
            let (w, j) = word_at(&chars, i);
            let w = w.to_lowercase();
            // `_latin1'...'`, `N'...'`: an introducer before a string literal.
            let introduced =
                (w.starts_with('_') || w == "n") && matches!(chars.get(j), Some('\'' | '"'));
            if !introduced {
                out.push(Tok::Word(w));
            } else if charsets.iter().any(|c| *c != w) {
                // Two explicit character sets: ER_CANT_AGGREGATE_2COLLATIONS in CONCAT or
                // a comparison (main/ps.test, MDEV-10866).
                return Err("string literals of two character sets".into());
            } else {
                charsets.push(w);
            }
            i = j;
        } else {
            out.push(Tok::Punct(c));
            i += 1;
        }
    }
    Ok(out)
}

fn word_at(chars: &[char], mut i: usize) -> (String, usize) {
    let start = i;
    while i < chars.len() && (chars[i].is_alphanumeric() || "_$.".contains(chars[i])) {
        i += 1;
    }
    (chars[start..i].iter().collect(), i)
}

/// Evaluates a source expression; `var` gives a user variable's value (`None`: unset,
/// which is NULL).
pub fn eval(src: &str, var: &dyn Fn(&str) -> Option<DynValue>) -> DynValue {
    let toks = match tokens(src) {
        Ok(t) => t,
        Err(e) => return DynValue::Unknown(e),
    };
    let mut p = Parser { toks, at: 0, var };
    let v = p.expr();
    if p.at < p.toks.len() {
        return DynValue::Unknown(format!(
            "`{}` is an expression the model does not compute",
            src.trim()
        ));
    }
    v
}

struct Parser<'a> {
    toks: Vec<Tok>,
    at: usize,
    var: &'a dyn Fn(&str) -> Option<DynValue>,
}

impl Parser<'_> {
    fn next(&mut self) -> Option<Tok> {
        let t = self.toks.get(self.at).cloned();
        self.at += 1;
        t
    }

    fn eat(&mut self, p: char) -> bool {
        if self.toks.get(self.at) == Some(&Tok::Punct(p)) {
            self.at += 1;
            return true;
        }
        false
    }

    /// A primary, then adjacent string literals concatenated (`'a' 'b'`).
    fn expr(&mut self) -> DynValue {
        let mut v = self.primary();
        while let Some(Tok::Str(s)) = self.toks.get(self.at).cloned() {
            self.at += 1;
            if let DynValue::Str(x) = &mut v {
                x.push_str(&s);
            }
        }
        v
    }

    fn primary(&mut self) -> DynValue {
        let unknown = |what: String| DynValue::Unknown(what);
        match self.next() {
            Some(Tok::Str(s)) => DynValue::Str(s),
            Some(Tok::Num(n)) if n.chars().all(|c| c.is_ascii_digit() || c == '.') => {
                DynValue::Str(n)
            }
            // `0x53454C4543542031`: a hex literal is a string in a string context
            // (Item_hex_string; main/ps.test runs it as `SELECT 1`).
            Some(Tok::Num(n)) if hex_text(&n).is_some() => {
                DynValue::Str(hex_text(&n).unwrap_or_default())
            }
            Some(Tok::Var(n)) => (self.var)(&n).unwrap_or(DynValue::Null),
            Some(Tok::Word(w)) if w == "null" => DynValue::Null,
            Some(Tok::Punct('(')) => {
                let v = self.expr();
                if !self.eat(')') {
                    return unknown("a parenthesised expression the model does not compute".into());
                }
                v
            }
            Some(Tok::Word(w)) if self.eat('(') => self.call(&w),
            Some(t) => unknown(format!("{t:?} in a dynamic SQL source is not computed")),
            None => unknown("an empty expression".into()),
        }
    }

    /// `CONCAT`, `CONCAT_WS`, `CONVERT(x USING cs)` (after the `(`).
    fn call(&mut self, f: &str) -> DynValue {
        let mut args = vec![self.expr()];
        if f == "convert" {
            let cs = matches!(self.next(), Some(Tok::Word(w)) if w == "using")
                && matches!(self.next(), Some(Tok::Word(_)));
            if !cs || !self.eat(')') {
                return DynValue::Unknown("CONVERT other than CONVERT(x USING charset)".into());
            }
            return args.remove(0);
        }
        while self.eat(',') {
            args.push(self.expr());
        }
        if !self.eat(')') {
            return DynValue::Unknown(format!("{f}( ... ) the model does not compute"));
        }
        if let Some(u) = args.iter().find(|a| matches!(a, DynValue::Unknown(_))) {
            return u.clone();
        }
        match f {
            "concat" => concat(&args, ""),
            "concat_ws" => match args.split_first() {
                Some((DynValue::Str(sep), rest)) => {
                    let kept: Vec<DynValue> = rest
                        .iter()
                        .filter(|a| **a != DynValue::Null)
                        .cloned()
                        .collect();
                    concat(&kept, sep)
                }
                _ => DynValue::Null,
            },
            // COALESCE: the first argument that is not NULL (Item_func_coalesce).
            "coalesce" => args
                .iter()
                .find(|a| **a != DynValue::Null)
                .cloned()
                .unwrap_or(DynValue::Null),
            // TRIM(s): the spaces off both ends (Item_func_trim).
            "trim" => match args.as_slice() {
                [DynValue::Str(x)] => DynValue::Str(x.trim_matches(' ').to_owned()),
                [DynValue::Null] => DynValue::Null,
                _ => DynValue::Unknown("TRIM of several arguments".into()),
            },
            _ => DynValue::Unknown(format!("the function {f}() in a dynamic SQL source")),
        }
    }
}

/// The text of a hex literal `0x...` (an even number of digits, ASCII bytes only: other
/// bytes are read in the connection's character set, which the model does not follow).
fn hex_text(n: &str) -> Option<String> {
    let h = n.strip_prefix("0x").or_else(|| n.strip_prefix("0X"))?;
    if h.is_empty() || h.len() % 2 != 0 {
        return None;
    }
    let bytes: Option<Vec<u8>> = (0..h.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(h.get(i..i + 2)?, 16).ok())
        .collect();
    let bytes = bytes?;
    if !bytes.iter().all(u8::is_ascii) {
        return None;
    }
    String::from_utf8(bytes).ok()
}

/// CONCAT: NULL when any argument is.
fn concat(args: &[DynValue], sep: &str) -> DynValue {
    let mut parts = Vec::new();
    for a in args {
        match a {
            DynValue::Str(s) => parts.push(s.as_str()),
            _ => return DynValue::Null,
        }
    }
    DynValue::Str(parts.join(sep))
}

/// Splits `s` at its top-level commas (outside parentheses and quotes).
pub fn split_top(s: &str, sep: char) -> Vec<String> {
    let mut out = vec![String::new()];
    let (mut depth, mut quote) = (0i32, None::<char>);
    let mut prev = ' ';
    for c in s.chars() {
        match quote {
            Some(q) if c == q && prev != '\\' => quote = None,
            Some(_) => {}
            None if "'\"`".contains(c) => quote = Some(c),
            None if c == '(' => depth += 1,
            None if c == ')' => depth -= 1,
            None if c == sep && depth == 0 => {
                out.push(String::new());
                prev = c;
                continue;
            }
            None => {}
        }
        out.last_mut().expect("one").push(c);
        prev = if prev == '\\' && c == '\\' { ' ' } else { c };
    }
    out
}

/// The byte offset of the word `kw` (any case) at the top level of `s` (outside
/// parentheses and quotes).
pub fn find_top_word(s: &str, kw: &str) -> Option<usize> {
    let (mut depth, mut quote) = (0i32, None::<char>);
    let bytes = s.as_bytes();
    let mut prev = b' ';
    for (i, c) in s.char_indices() {
        match quote {
            Some(q) if c == q && prev != b'\\' => quote = None,
            Some(_) => {}
            None if "'\"`".contains(c) => quote = Some(c),
            None if c == '(' => depth += 1,
            None if c == ')' => depth -= 1,
            None if depth == 0
                && !(prev.is_ascii_alphanumeric() || prev == b'_' || prev == b'@')
                && s[i..].len() >= kw.len()
                && s.is_char_boundary(i + kw.len())
                && s[i..i + kw.len()].eq_ignore_ascii_case(kw)
                && !bytes
                    .get(i + kw.len())
                    .is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_') =>
            {
                return Some(i);
            }
            None => {}
        }
        prev = if prev == b'\\' && c == '\\' {
            b' '
        } else {
            c as u32 as u8
        };
    }
    None
}

/// The source of a dynamic statement: what follows the word `kw` (`FROM`, `IMMEDIATE`),
/// up to a top-level `USING`, and the `USING` parameters.
pub fn source_after(sql: &str, kw: &str) -> Option<(String, Option<Vec<String>>)> {
    let body = sql.trim().trim_end_matches(';').trim_end();
    let at = find_top_word(body, kw)? + kw.len();
    let rest = &body[at..];
    match find_top_word(rest, "using") {
        Some(u) => {
            let params = split_top(&rest[u + 5..], ',');
            Some((
                rest[..u].trim().to_owned(),
                Some(params.into_iter().map(|p| p.trim().to_owned()).collect()),
            ))
        }
        None => Some((rest.trim().to_owned(), None)),
    }
}

/// The number of `?` parameter markers in a statement's text (outside quotes and
/// comments).
pub fn placeholders(text: &str) -> usize {
    let chars: Vec<char> = text.chars().collect();
    let (mut n, mut i) = (0, 0);
    while i < chars.len() {
        match chars[i] {
            '\'' | '"' | '`' => i = quoted(&chars, i).map(|(_, j)| j).unwrap_or(chars.len()),
            '/' if chars.get(i + 1) == Some(&'*') && chars.get(i + 2) != Some(&'!') => {
                let rest: String = chars[i + 2..].iter().collect();
                i = rest
                    .find("*/")
                    .map(|j| i + 2 + rest[..j].chars().count() + 2)
                    .unwrap_or(chars.len());
            }
            '#' => {
                i = chars[i..]
                    .iter()
                    .position(|c| *c == '\n')
                    .map(|j| i + j)
                    .unwrap_or(chars.len())
            }
            '?' => {
                n += 1;
                i += 1;
            }
            _ => i += 1,
        }
    }
    n
}

/// Why a `USING` parameter is not modelled (`None`: a literal, a user variable, NULL or a
/// function of them, which the server evaluates without a table). `DEFAULT` / `IGNORE`
/// depend on where the marker stands (ER_INVALID_DEFAULT_PARAM elsewhere than a value).
pub fn param_refused(p: &str) -> Option<String> {
    if super::execute_params::system_variable(p) {
        return None;
    }
    let toks = match tokens(p) {
        Ok(t) if !t.is_empty() => t,
        _ => return Some(format!("the parameter `{p}`")),
    };
    // Built-in functions only: a stored function or a subquery is
    // ER_SUBQUERIES_NOT_SUPPORTED (main/ps.test, MDEV-10585), ROW() ER_OPERAND_COLUMNS.
    let calls = [
        "concat", "cast", "convert", "now", "repeat", "char", "lpad", "rpad",
    ];
    let lits = [
        "null",
        "true",
        "false",
        "date",
        "time",
        "timestamp",
        "using",
        "as",
    ];
    for (i, t) in toks.iter().enumerate() {
        let Tok::Word(w) = t else { continue };
        let call = toks.get(i + 1) == Some(&Tok::Punct('('));
        if (w == "default" || w == "ignore") && toks.len() == 1 {
            continue;
        }
        let prev = match i.checked_sub(1).map(|k| &toks[k]) {
            Some(Tok::Word(x)) => Some(x.as_str()),
            _ => None,
        };
        let str_next = matches!(toks.get(i + 1), Some(Tok::Str(_)));
        let known = if call {
            calls.contains(&w.as_str())
        } else {
            lits.contains(&w.as_str()) || is_type_word(w)
        } || super::execute_params::value_word(w, prev, call, str_next);
        if !known {
            return Some(format!(
                "the parameter `{p}` (a column, a subquery or a function the model does not know)"
            ));
        }
    }
    None
}

/// A `USING DEFAULT` or `USING IGNORE` parameter (MDEV-11360).
pub fn is_default_param(p: &str) -> bool {
    let p = p.trim();
    p.eq_ignore_ascii_case("default") || p.eq_ignore_ascii_case("ignore")
}

/// Whether the `i`-th `?` marker of `text` stands alone as a value, where DEFAULT and
/// IGNORE may stand: a value of `INSERT ... VALUES (...)` or `col = ?` of `UPDATE` /
/// `INSERT ... SET` (`Item_param::set_default` / `set_ignore` and the checks of the
/// items that use them, MariaDB `sql/item.cc`: elsewhere ER_INVALID_DEFAULT_PARAM).
pub fn marker_alone(text: &str, i: usize) -> bool {
    let Ok(toks) = tokens(text) else { return false };
    let Some(j) = toks
        .iter()
        .enumerate()
        .filter(|(_, t)| **t == Tok::Punct('?'))
        .nth(i)
        .map(|(j, _)| j)
    else {
        return false;
    };
    let p = |k: usize, c: char| toks.get(k) == Some(&Tok::Punct(c));
    let word =
        |k: usize, w: &[&str]| matches!(toks.get(k), Some(Tok::Word(x)) if w.contains(&x.as_str()));
    let first = |w: &[&str]| word(0, w);
    let ends = p(j + 1, ',') || p(j + 1, ')') || j + 1 == toks.len();
    // The paren that encloses the marker, and the depth there.
    let mut depth = 0i32;
    let mut open = None;
    for k in (0..j).rev() {
        if p(k, ')') {
            depth += 1;
        } else if p(k, '(') {
            if depth == 0 {
                open = Some(k);
                break;
            }
            depth -= 1;
        }
    }
    match open {
        Some(o) => {
            first(&["insert", "replace"])
                && (p(j - 1, '(') || p(j - 1, ','))
                && (p(j + 1, ',') || p(j + 1, ')'))
                && o > 0
                && (word(o - 1, &["values", "value"]) || p(o - 1, ','))
        }
        None => {
            first(&["update", "insert", "replace"])
                && j >= 2
                && p(j - 1, '=')
                && matches!(toks[j - 2], Tok::Word(_))
                && (ends || word(j + 1, &["where", "order", "limit"]))
        }
    }
}

fn is_type_word(w: &str) -> bool {
    [
        "char", "signed", "unsigned", "decimal", "double", "binary", "utf8", "utf8mb4", "latin1",
    ]
    .contains(&w)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ev(src: &str) -> DynValue {
        let var = |n: &str| (n == "s").then(|| DynValue::Str("SELECT 1".into()));
        eval(src, &var)
    }

    #[test]
    fn literals_variables_and_concat_are_computed() {
        assert_eq!(ev("'SELECT ''a'''"), DynValue::Str("SELECT 'a'".into()));
        assert_eq!(ev("_latin1'SELECT 1'"), DynValue::Str("SELECT 1".into()));
        assert_eq!(ev("@s"), DynValue::Str("SELECT 1".into()));
        assert_eq!(ev("@unset"), DynValue::Null);
        assert_eq!(
            ev("CONCAT('SELECT ', 'a FROM ', 't1')"),
            DynValue::Str("SELECT a FROM t1".into())
        );
        assert_eq!(ev("CONCAT('SELECT ', @unset)"), DynValue::Null);
        assert_eq!(
            ev("CONVERT(@s USING utf8)"),
            DynValue::Str("SELECT 1".into())
        );
        assert_eq!(
            ev("CONCAT_WS(' ', 'SELECT', NULL, '2')"),
            DynValue::Str("SELECT 2".into())
        );
        assert!(matches!(ev("(SELECT a FROM t1)"), DynValue::Unknown(_)));
        assert!(matches!(ev("'SELECT' || '1'"), DynValue::Unknown(_)));
        assert!(matches!(ev("0xD182"), DynValue::Unknown(_)));
        assert!(matches!(ev("_cp1257 0xD182"), DynValue::Unknown(_)));
        assert_eq!(ev("0x53454C4543542031"), DynValue::Str("SELECT 1".into()));
        assert_eq!(ev("COALESCE(NULL, 'x')"), DynValue::Str("x".into()));
        assert_eq!(ev("TRIM('  x ')"), DynValue::Str("x".into()));
        assert!(matches!(
            ev("CONCAT(_latin1'SELECT 1 FROM ', _latin2 'DUAL')"),
            DynValue::Unknown(_)
        ));
        assert!(param_refused("f1()").is_some());
        assert!(param_refused("_latin1'a'=_latin2'a'").is_some());
        assert_eq!(param_refused("IGNORE"), None);
        assert!(marker_alone("INSERT INTO t1 VALUES (?,?)", 1));
        assert!(marker_alone("UPDATE t1 SET a=?,b=?", 0));
        assert!(!marker_alone("INSERT INTO t1 VALUES (?+1)", 0));
        assert!(!marker_alone("INSERT INTO t1 VALUES (CONCAT(?,?))", 0));
        assert!(!marker_alone("UPDATE t1 SET a=?+1", 0));
        assert!(!marker_alone("SELECT ?", 0));
        assert_eq!(param_refused("@a"), None);
        assert_eq!(param_refused("TIME'10:20:30'"), None);
    }

    #[test]
    fn the_source_ends_at_a_top_level_using() {
        let (src, ps) = source_after(
            "EXECUTE IMMEDIATE CONCAT('a', CONVERT(@t USING utf8)) USING 1, @a",
            "immediate",
        )
        .unwrap();
        assert_eq!(src, "CONCAT('a', CONVERT(@t USING utf8))");
        assert_eq!(ps.unwrap(), vec!["1", "@a"]);
        assert_eq!(placeholders("SELECT ?, '?', /* ? */ ?"), 2);
    }
}
