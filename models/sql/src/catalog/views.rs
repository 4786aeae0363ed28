//! The catalog's views: CREATE / ALTER VIEW and DROP VIEW, their errors and changes.

use super::{
    Catalog, Obj, ER_BAD_DB, ER_NO_SUCH_TABLE, ER_TABLE_EXISTS, ER_UNKNOWN_VIEW, ER_WRONG_OBJECT,
};
use crate::effect::Effect;
use crate::objects::ViewMode;

impl Catalog {
    /// The error of a view effect (routed here by [`Catalog::error_of`]).
    pub(super) fn view_error(&self, e: &Effect) -> Option<u32> {
        match e {
            Effect::CreateView { v, def, mode } => {
                // mysql_create_view: the tables read are opened first (ER_NO_SUCH_TABLE),
                // then ALTER reads the view (fill_defined_view_parts) and
                // mysql_register_view checks the name.
                if def.bases.iter().any(|t| !self.exists(t)) {
                    Some(ER_NO_SUCH_TABLE)
                } else if !self.has_schema(&v.db) {
                    // check_db_dir_existence (measured: lock_view.test's view of a
                    // schema that does not exist).
                    Some(ER_BAD_DB)
                } else {
                    match (mode, self.exists(v), self.is_view(v)) {
                        (ViewMode::Alter, false, _) => Some(ER_NO_SUCH_TABLE),
                        (ViewMode::Create, true, _) => Some(ER_TABLE_EXISTS),
                        (_, true, false) => Some(ER_WRONG_OBJECT),
                        _ => None,
                    }
                }
            }
            Effect::DropView { vs, if_exists } => {
                // mysql_drop_view: every name that is not a view (a table too, measured
                // on 10.11: views-drop-several.mdl) is in ER_UNKNOWN_VIEW's list.
                (!if_exists && vs.iter().any(|v| !self.is_view(v))).then_some(ER_UNKNOWN_VIEW)
            }
            _ => None,
        }
    }

    /// Applies a view effect (routed here by [`Catalog::apply`]).
    pub(super) fn apply_view(&mut self, e: &Effect) {
        match e {
            Effect::CreateView { v, def, .. } if self.view_error(e).is_none() => {
                self.objects.insert(v.clone(), Obj::View(def.clone()));
            }
            Effect::DropView { vs, .. } => {
                // The views that exist are dropped even when the statement fails.
                for v in vs {
                    if self.is_view(v) {
                        self.objects.remove(v);
                    }
                }
            }
            _ => {}
        }
    }
}
