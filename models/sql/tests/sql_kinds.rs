//! Statement kinds: parsed once from the statement tables, an unknown kind is an error
//! with its position, and the tables read back to the same text.

use mdl_sql::kind::{parse_row, Kind, RowVariant};
use mdl_sql::mapping::{Mapping, KINDS};
use mdl_sql::SqlError;

#[test]
fn an_unknown_kind_is_an_error_at_its_column() {
    let text = "kind\tselect\tno\tSELECT * FROM t1\nkind\tselect_everything\tno\tSELECT 1\n";
    let e = Mapping::parse("x.tsv", text).expect_err("an unknown kind");
    assert_eq!(
        e,
        SqlError::Data {
            file: "x.tsv".into(),
            line: 2,
            col: 6,
            msg: "unknown statement kind `select_everything`".into(),
        }
    );
    assert_eq!(
        e.to_string(),
        "x.tsv:2:6: unknown statement kind `select_everything`"
    );
    let myisam = "kind\tselect.innodb\tno\tSELECT 1\n";
    assert!(Mapping::parse("y.tsv", myisam).is_err());
}

#[test]
fn the_tables_read_back_to_the_same_text() {
    for dialect in ["mariadb", "mysql-8.0"] {
        let m = Mapping::load_for(dialect).expect("the committed table");
        let file = mdl_sql::mapping::statements_file(dialect).expect("a table");
        let text = std::fs::read_to_string(mdl_sql::data_dir().join(file)).expect("read");
        let again = Mapping::parse(file, &m.to_text()).expect("its own text");
        assert_eq!(again, m, "{dialect}");
        for k in &m.kinds {
            assert_eq!(k.kind.row_name(k.variant), k.name, "{dialect}");
        }
        if dialect == "mariadb" {
            assert_eq!(m.to_text(), text, "the learned table is written as read");
        }
    }
}

#[test]
fn every_learner_kind_is_a_row_of_the_table() {
    let m = Mapping::load().expect("the learned table");
    for k in KINDS {
        let row = m
            .kind(k.name())
            .unwrap_or_else(|| panic!("{} not learned", k.name()));
        assert_eq!((row.kind, row.variant), (k.kind, k.variant));
        assert_eq!(parse_row(k.name()), Ok((k.kind, k.variant)));
    }
    assert_eq!(Kind::Select.row_name(RowVariant::MyIsam), "select.myisam");
}
