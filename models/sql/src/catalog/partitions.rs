//! The catalog's partitioned tables: the errors of partition operations on a table that
//! is not partitioned, and ALTER TABLE's PARTITION BY / REMOVE PARTITIONING.

use super::{Catalog, ER_NO_SUCH_TABLE, ER_PARTITION_MGMT_ON_NONPARTITIONED};
use crate::effect::Effect;
use crate::objects::Tbl;

impl Catalog {
    /// The error of a partition effect (routed here by [`Catalog::error_of`]).
    pub(super) fn partition_error(&self, e: &Effect) -> Option<u32> {
        match e {
            // Measured: ALTER TABLE t1 COALESCE PARTITION 2 etc. of the fixture's tables
            // (learned rows `nopart_*`). A table made partitioned under the name while the
            // statement waited is not followed (the model has no row for its work).
            Effect::NotPartitioned(t) => Some(if self.exists(t) {
                ER_PARTITION_MGMT_ON_NONPARTITIONED
            } else {
                ER_NO_SUCH_TABLE
            }),
            // Measured (learned row `nopart_exchange`): both tables opened, then the
            // first's partitioning checked (exchange_partition, sql_partition_admin.cc).
            Effect::ExchangeNotPartitioned(t, swap) => {
                Some(if self.exists(t) && self.exists(swap) {
                    ER_PARTITION_MGMT_ON_NONPARTITIONED
                } else {
                    ER_NO_SUCH_TABLE
                })
            }
            Effect::Repartition(t) | Effect::Unpartition(t) => {
                (!self.exists(t)).then_some(ER_NO_SUCH_TABLE)
            }
            _ => None,
        }
    }

    /// Applies a partition effect (routed here by [`Catalog::apply`]).
    pub(super) fn apply_partition(&mut self, e: &Effect) {
        match e {
            Effect::Repartition(t) if self.exists(t) => self.set_partitioned(t, true),
            Effect::Unpartition(t) => self.set_partitioned(t, false),
            _ => {}
        }
    }

    pub(super) fn set_partitioned(&mut self, t: &Tbl, on: bool) {
        if on {
            self.partitioned.insert(t.clone());
        } else {
            self.partitioned.remove(t);
        }
    }
}
