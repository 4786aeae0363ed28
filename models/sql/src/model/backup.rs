//! BACKUP STAGE and BACKUP LOCK of a session (`sql/backup.cc`).

use super::SqlModel;
use crate::compose::Step;
use crate::kind::Kind;
use mdl_core::{Duration, LockType};

impl SqlModel {
    /// A BACKUP STAGE that failed (killed, timeout, deadlock) leaves the session at the
    /// last stage it finished (`run_backup_stage`, sql/backup.cc: `current_backup_stage=
    /// previous_stage` for the stage that failed, after the stages before it in the same
    /// statement ran), its lock where that stage left it: a failed upgrade keeps the old
    /// type, and `backup_block_ddl` takes BACKUP_WAIT_FLUSH back down to BACKUP_FLUSH when
    /// its wait for BACKUP_WAIT_DDL fails (`downgrade_lock`: "so that this function can be
    /// called again"). Measured: found/seed-210158 (BLOCK_COMMIT from START killed while
    /// BLOCK_DDL waits: BACKUP_FLUSH, and the session at FLUSH).
    pub(super) fn backup_stage_failed(&mut self, s: usize) {
        let d = self.dialect.clone();
        let id = self.sessions[s].id;
        let held = self.table.session(id).and_then(|x| {
            x.book
                .held()
                .iter()
                .find(|h| {
                    d.namespace(h.key.namespace()).name == "BACKUP" && h.dur == Duration::Explicit
                })
                .map(|h| (h.key.clone(), h.ty))
        });
        let Some((key, mut ty)) = held else {
            return;
        };
        if ty.abbrev() == "BACKUP_WAIT_FLUSH" {
            let flush = LockType::parse("BACKUP_FLUSH").expect("a backup lock type");
            let _ = self.table.downgrade(id, &key, flush);
            ty = flush;
        }
        let stage = match ty.abbrev() {
            "BACKUP_START" => Kind::BackupStart,
            "BACKUP_FLUSH" => Kind::BackupFlush,
            "BACKUP_WAIT_DDL" => Kind::BackupBlockDdl,
            "BACKUP_WAIT_COMMIT" => Kind::BackupBlockCommit,
            _ => return,
        };
        self.sessions[s].session.backup = Some((stage, key, ty));
    }

    pub(super) fn backup_unlock(&mut self, s: usize) {
        if let Some((k, t)) = self.sessions[s].session.backup_lock.take() {
            let _ = self.table.release(self.sessions[s].id, &k, Some(t));
        }
    }

    /// BACKUP STAGE runs every stage between the session's and the one named
    /// (`run_backup_stage`, sql/backup.cc; END jumps there at once), and BLOCK_DDL first
    /// waits for the statements on non-transactional tables (`backup_block_ddl`: the
    /// backup lock up to BACKUP_WAIT_FLUSH, then BACKUP_WAIT_DDL; the learned row shows
    /// only the last). Measured: found/seed-70579 (BLOCK_DDL from START holds
    /// BACKUP_FLUSH and waits for BACKUP_WAIT_FLUSH behind a LOCK TABLES of a MyISAM
    /// table).
    pub(super) fn backup_stages(&self, s: usize, kind: Kind, own: Vec<Step>) -> Vec<Step> {
        const STAGES: &[Kind] = &[Kind::BackupStart, Kind::BackupFlush, Kind::BackupBlockDdl];
        let Some((cur, key, _)) = self.sessions[s].session.backup.clone() else {
            return own;
        };
        let (Some(from), Some(to)) = (
            STAGES.iter().position(|x| *x == cur),
            STAGES
                .iter()
                .position(|x| *x == kind)
                .or((kind == Kind::BackupBlockCommit).then_some(STAGES.len())),
        ) else {
            return own;
        };
        let up = |ty: &str| Step::Upgrade {
            key: key.clone(),
            ty: LockType::parse(ty).expect("a backup lock type"),
            dur: Duration::Explicit,
            from: None,
        };
        let mut out = Vec::new();
        for stage in STAGES.iter().take(to).skip(from + 1) {
            match *stage {
                Kind::BackupFlush => out.push(up("BACKUP_FLUSH")),
                _ => {
                    out.push(up("BACKUP_WAIT_FLUSH"));
                    out.push(up("BACKUP_WAIT_DDL"));
                }
            }
        }
        if kind == Kind::BackupBlockDdl {
            // (Then the learned BACKUP_WAIT_DDL.)
            out.push(up("BACKUP_WAIT_FLUSH"));
        }
        out.extend(own);
        out
    }
}
