//! The fixture every learner probe, matrix cell and SQL scenario starts from.

/// The tables of the fixture and their engines, in schema `test`.
pub const FIXTURE_TABLES: &[(&str, &str)] = &[
    ("t0", "InnoDB"),
    ("t1", "InnoDB"),
    ("t2", "InnoDB"),
    ("m1", "MyISAM"),
    ("m2", "MyISAM"),
];

/// The fixture every learner probe, matrix cell and SQL scenario starts from. (A
/// scenario may leave a foreign key between fixture tables, t2 a child of t1: the DROP
/// runs without foreign key checks, which are on again after it.)
pub const FIXTURE: &str = "DROP DATABASE IF EXISTS db1; DROP VIEW IF EXISTS v1, v2; \
SET FOREIGN_KEY_CHECKS=0; DROP TABLE IF EXISTS t0, t1, t2, t3, t4, m1, m2; \
SET FOREIGN_KEY_CHECKS=1; \
CREATE TABLE t0 (a INT PRIMARY KEY) ENGINE=InnoDB; \
CREATE TABLE t1 (a INT AUTO_INCREMENT PRIMARY KEY, b INT) ENGINE=InnoDB; \
INSERT INTO t1 VALUES (1,1),(2,2),(3,3),(4,4); \
CREATE TABLE t2 LIKE t1; INSERT INTO t2 SELECT * FROM t1; \
CREATE TABLE m1 (a INT AUTO_INCREMENT PRIMARY KEY, b INT) ENGINE=MyISAM; \
INSERT INTO m1 VALUES (1,1),(2,2),(3,3),(4,4); \
CREATE TABLE m2 LIKE m1; INSERT INTO m2 SELECT * FROM m1";
