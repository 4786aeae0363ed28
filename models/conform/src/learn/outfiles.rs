//! The files a scenario's `SELECT ... INTO OUTFILE 'f'` left in a schema's directory
//! (`create_file` in sql/sql_class.cc puts a name without a directory in the session's
//! schema's directory): removed before the next scenario, which the model starts with no
//! file written (mdl_sql's `classify/into_outfile.rs`; a second write of a name is
//! ER_FILE_EXISTS_ERROR). Only files whose extension is none of the server's own (its
//! engines' table files, `db.opt`, triggers, partitions) go; system schemas are left alone.

use crate::client::Conn;
use crate::ConformError;

/// The extensions of the files the server makes in a schema's directory, as it writes
/// them (sql/handler.cc's `ha_*` engines, sql/sql_trigger.cc, sql/sql_db.cc).
const SERVER_FILES: &[&str] = &[
    "frm", "ibd", "isl", "cfg", "cfp", "opt", "par", "MYD", "MYI", "MAD", "MAI", "TRG", "TRN",
    "CSV", "CSM", "MRG", "ARZ", "ARM", "ARN",
];

const SYSTEM: &[&str] = &["mysql", "performance_schema", "sys", "#innodb_temp"];

/// Removes the files SELECT ... INTO OUTFILE left in the data directory's schemas.
pub(super) fn clear(mon: &mut Conn) -> Result<(), ConformError> {
    let data = mon.query_one("SELECT @@datadir")?;
    let io = |p: &std::path::Path, e: std::io::Error| {
        ConformError::Io(format!(
            "{}: {e} (clearing INTO OUTFILE files)",
            p.display()
        ))
    };
    let root = std::path::Path::new(&data);
    let Ok(schemas) = std::fs::read_dir(root) else {
        // Not this machine's server: nothing the harness can clear.
        return Ok(());
    };
    for schema in schemas.flatten() {
        let dir = schema.path();
        let name = schema.file_name().to_string_lossy().into_owned();
        if !dir.is_dir() || SYSTEM.contains(&name.as_str()) || name.starts_with('#') {
            continue;
        }
        for f in std::fs::read_dir(&dir).map_err(|e| io(&dir, e))?.flatten() {
            let p = f.path();
            let ext = p.extension().map(|e| e.to_string_lossy().into_owned());
            let own = ext.is_some_and(|e| SERVER_FILES.contains(&e.as_str()));
            let temp = f.file_name().to_string_lossy().starts_with('#');
            if p.is_file() && !own && !temp {
                std::fs::remove_file(&p).map_err(|e| io(&p, e))?;
            }
        }
    }
    Ok(())
}
