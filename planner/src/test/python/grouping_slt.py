#!/usr/bin/env python3
"""Writes planner/src/test/resources/slt/grouping.slt: GROUPING SETS / ROLLUP / CUBE, grouping() and string_agg,
with every expected row computed by DuckDB (an independent engine) over the same Parquet files SltFilesTest
writes (run SltFilesTest once first, so that planner/target/slt-tables exists). From planner/:
    python3 src/test/python/grouping_slt.py src/test/resources/slt/grouping.slt ../it-tests/src/test/resources/slt/grouping.slt
(the second file: a few end-to-end records over the sample data, ~/.cache/quiver/sample-v2.)
The error records at the end are Quiver's own messages (DuckDB words them differently), written here by hand.
"""
import glob, os, sys
import duckdb

from slt_duckdb_check import render  # values printed as SltFilesTest prints them
# d: NULLs in both keys, a NULL value, ties; for NULL-in-the-data vs NULL-because-rolled-up
D = "WITH d(a, b, v, w) AS (VALUES (NULL, 1, 10, 'p'), (1, NULL, 20, 'q'), (1, 1, 30, NULL), (NULL, NULL, 40, 'r'), (1, 1, NULL, 's'), (2, 1, 5, 'q'), (3, 2, NULL, NULL)) "
Q = [
 # --- ROLLUP / CUBE / GROUPING SETS
 ("ROLLUP of two columns with NULL keys in the data: grouping() keeps data NULLs and rolled-up NULLs apart", "nosort",
  "SELECT b, s, count(*), sum(i64), grouping(b, s) FROM t GROUP BY ROLLUP(b, s) ORDER BY grouping(b, s), b NULLS FIRST, s NULLS FIRST"),
 ("CUBE of two columns over data with NULLs in both keys", "rowsort",
  D + "SELECT a, b, sum(v), count(*), count(v), grouping(a), grouping(b), grouping(a, b) FROM d GROUP BY CUBE(a, b)"),
 ("GROUPING SETS ((a, b), (a), ())", "rowsort",
  D + "SELECT a, b, sum(v), grouping(a, b) FROM d GROUP BY GROUPING SETS ((a, b), (a), ())"),
 ("ROLLUP of three expressions (not columns) over a table", "nosort",
  "SELECT n_regionkey, n_nationkey % 3 AS m3, n_nationkey % 2 AS m2, count(*), min(n_name), grouping(n_regionkey, n_nationkey % 3, n_nationkey % 2) AS g FROM nation GROUP BY ROLLUP(n_regionkey, n_nationkey % 3, n_nationkey % 2) ORDER BY g, n_regionkey, m3, m2"),
 ("a plain column crossed with a ROLLUP: GROUP BY b, ROLLUP(i8 > 0, s)", "rowsort",
  "SELECT b, i8 > 0, s, count(*), grouping(i8 > 0, s) FROM t GROUP BY b, ROLLUP(i8 > 0, s)"),
 ("CUBE crossed with a column, the column named by an alias", "rowsort",
  "SELECT r_name AS r, n_regionkey % 2 AS odd, count(*), grouping(r_name) FROM nation JOIN region ON n_regionkey = r_regionkey GROUP BY r, CUBE(n_regionkey % 2)"),
 ("a set listed twice gives its groups twice", "rowsort",
  D + "SELECT a, sum(v), count(*) FROM d GROUP BY GROUPING SETS ((a), (a))"),
 ("the grand total twice, and a set listed twice next to another", "rowsort",
  D + "SELECT a, b, count(*), grouping(a, b) FROM d GROUP BY GROUPING SETS ((), (b), (), (a), (b))"),
 ("ROLLUP with a parenthesized unit: ROLLUP((a, b), w)", "rowsort",
  D + "SELECT a, b, w, sum(v), grouping(a, b, w) FROM d GROUP BY ROLLUP((a, b), w)"),
 ("GROUPING SETS holding ROLLUP and a plain column", "rowsort",
  D + "SELECT a, b, count(*), grouping(a), grouping(b) FROM d GROUP BY GROUPING SETS (ROLLUP(a), b)"),
 ("ROLLUP over DATE, DECIMAL and TINYINT keys with NULLs (the rolled-up NULLs are typed like the column)", "rowsort",
  "SELECT d IS NULL, dec, i8, count(*), sum(dec), min(d), grouping(dec, i8) FROM t WHERE i8 IS NULL OR i8 < 0 GROUP BY ROLLUP(d IS NULL, dec, i8)"),
 ("CUBE over a DATE key, ordered by it", "nosort",
  "SELECT d, count(*) FROM t WHERE d < DATE '2019-04-20' OR d IS NULL GROUP BY CUBE(d) ORDER BY grouping(d), d NULLS FIRST"),
 ("GROUP BY positions inside ROLLUP", "nosort",
  "SELECT n_regionkey, count(*) FROM nation GROUP BY ROLLUP(1) ORDER BY 1 NULLS LAST"),
 ("grouping() with a plain GROUP BY is 0", "nosort",
  "SELECT b, grouping(b), count(*) FROM t GROUP BY b ORDER BY b NULLS FIRST"),
 ("GROUP BY (): one group", "nosort",
  "SELECT count(*), sum(i8) FROM t GROUP BY ()"),
 # --- empty input
 ("empty input: the grand total of ROLLUP is one row, like SELECT count(*) over no rows; the other sets give none", "nosort",
  "SELECT b, s, count(*), sum(i64), grouping(b, s) FROM t WHERE i32 > 2147483647 GROUP BY ROLLUP(b, s)"),
 ("empty input: a grand total listed twice gives two rows; CUBE gives one", "rowsort",
  "SELECT b, count(*), max(s), grouping(b) FROM t WHERE i32 > 2147483647 GROUP BY GROUPING SETS ((b), (), ())"),
 ("empty input, CUBE", "nosort",
  "SELECT b, s, count(*) FROM t WHERE i32 > 2147483647 GROUP BY CUBE(b, s)"),
 ("empty input: HAVING on a grouping column applies to the grand total (it is not pushed below the grouping)", "nosort",
  "SELECT b, count(*) FROM t WHERE i32 > 2147483647 GROUP BY ROLLUP(b) HAVING b IS NOT NULL"),
 ("empty input: HAVING b IS NULL keeps the grand total", "nosort",
  "SELECT b, count(*) FROM t WHERE i32 > 2147483647 GROUP BY ROLLUP(b) HAVING b IS NULL"),
 ("empty input with no grand total: no rows", "nosort",
  "SELECT b, s, count(*) FROM t WHERE i32 > 2147483647 GROUP BY GROUPING SETS ((b), (s))"),
 # --- HAVING, ORDER BY, DISTINCT, WHERE
 ("HAVING on grouping(): only the subtotals", "nosort",
  "SELECT b, s, count(*) FROM t GROUP BY ROLLUP(b, s) HAVING grouping(s) = 1 ORDER BY b NULLS LAST, grouping(b)"),
 ("HAVING b IS NULL keeps the rolled-up rows and the group of NULLs in the data", "nosort",
  "SELECT b, s, count(*), grouping(b), grouping(s) FROM t GROUP BY ROLLUP(b, s) HAVING b IS NULL ORDER BY grouping(b), grouping(s), s NULLS FIRST"),
 ("HAVING on a column every grouping set keeps (it filters the rows below the grouping) and on one ROLLUP leaves out", "rowsort",
  "SELECT b, s, count(*), grouping(s) FROM t GROUP BY GROUPING SETS ((b, s), (b)) HAVING b IS NULL AND (s IS NULL OR s > 's2')"),
 ("HAVING on a column every set keeps, with the grand total of ROLLUP crossed away", "rowsort",
  "SELECT i8, b, count(*), sum(i32) FROM t GROUP BY i8, ROLLUP(b) HAVING i8 > 50 OR i8 IS NULL"),
 ("HAVING on an aggregate and a grouping column together", "rowsort",
  D + "SELECT a, b, sum(v) FROM d GROUP BY CUBE(a, b) HAVING sum(v) > 30 AND b IS NOT NULL"),
 ("ORDER BY grouping() descending with ties broken by count, LIMIT", "nosort",
  "SELECT s, count(*) AS c, grouping(s) FROM t GROUP BY ROLLUP(s) ORDER BY grouping(s) DESC, c DESC, s NULLS FIRST LIMIT 4"),
 ("grouping() in an expression: label the subtotal rows", "nosort",
  "SELECT CASE WHEN grouping(s) = 1 THEN 'all' ELSE coalesce(s, '(null)') END AS label, count(*) FROM t GROUP BY ROLLUP(s) ORDER BY label"),
 ("DISTINCT aggregates per grouping set", "rowsort",
  "SELECT b, count(DISTINCT s), count(DISTINCT i8), sum(DISTINCT i32), count(*) FROM t GROUP BY CUBE(b)"),
 ("WHERE filters before the grouping sets", "rowsort",
  "SELECT b, s, count(*), sum(dec) FROM t WHERE i8 > 0 GROUP BY ROLLUP(b, s)"),
 ("an aggregate over a grouping column reads its value, not the NULL of the set", "rowsort",
  D + "SELECT a, sum(a), count(a), max(b), grouping(a) FROM d GROUP BY ROLLUP(a)"),
 ("SELECT DISTINCT over grouping sets", "rowsort",
  D + "SELECT DISTINCT a FROM d GROUP BY GROUPING SETS ((a), (a, b), ())"),
 ("grouping sets in a derived table, filtered outside", "rowsort",
  "SELECT * FROM (SELECT b, s, count(*) AS c FROM t GROUP BY ROLLUP(b, s)) x WHERE s IS NULL"),
 ("grouping sets on both sides of UNION ALL, and in a CTE joined to a table", "rowsort",
  "WITH r AS (SELECT n_regionkey AS k, count(*) AS c FROM nation GROUP BY ROLLUP(n_regionkey)) SELECT r_name, c FROM r LEFT JOIN region ON k = r_regionkey UNION ALL SELECT s, count(*) FROM t GROUP BY CUBE(s)"),
 ("a scalar subquery in the select list and in HAVING", "rowsort",
  "SELECT s IS NULL AS missing, (SELECT count(*) FROM region) AS regions, count(*) FROM t GROUP BY ROLLUP(s IS NULL) HAVING count(*) > (SELECT count(*) FROM region)"),
 ("a window function over the grouped rows, ORDER BY an aggregate that is not selected", "nosort",
  "SELECT b, count(*), rank() OVER (ORDER BY count(*) DESC) FROM t GROUP BY ROLLUP(b) ORDER BY sum(i8) NULLS FIRST, grouping(b), b"),
 # --- string_agg
 ("string_agg skips NULLs; a group of only NULLs gives NULL", "nosort",
  D + "SELECT b, string_agg(w, ',' ORDER BY w), count(w) FROM d GROUP BY b ORDER BY b NULLS FIRST"),
 ("string_agg with ORDER BY, descending and with a separator of several characters", "nosort",
  "SELECT n_regionkey, string_agg(n_name, ' / ' ORDER BY n_name DESC), string_agg(n_name, '' ORDER BY n_nationkey) FROM nation GROUP BY n_regionkey ORDER BY n_regionkey"),
 ("string_agg of a non-string value, ordered by another column with ties and NULLs", "nosort",
  D + "SELECT string_agg(v, '-' ORDER BY b NULLS FIRST, v DESC) FROM d"),
 ("string_agg over an empty input is NULL", "nosort",
  "SELECT string_agg(s, ',') FROM t WHERE i32 > 2147483647"),
 ("listagg, and string_agg in ROLLUP subtotals", "nosort",
  "SELECT r_name, listagg(n_name, ',' ORDER BY n_name), grouping(r_name) FROM nation JOIN region ON n_regionkey = r_regionkey WHERE n_nationkey < 10 GROUP BY ROLLUP(r_name) ORDER BY r_name NULLS LAST"),
 ("string_agg with FILTER (WHERE ...): the separator and the ORDER BY still apply", "nosort",
  D + "SELECT b, string_agg(w, '; ' ORDER BY w DESC) FILTER (WHERE v > 5), string_agg(v, '+' ORDER BY v) FILTER (WHERE w <> 'q') FROM d GROUP BY ROLLUP(b) ORDER BY grouping(b), b NULLS FIRST"),
 ("string_agg as a window function: a running frame per partition", "nosort",
  "SELECT n_regionkey, n_nationkey, string_agg(n_name, ',') OVER (PARTITION BY n_regionkey ORDER BY n_nationkey) FROM nation WHERE n_nationkey < 12 ORDER BY n_nationkey"),
 ("string_agg as a window function over a sliding frame, skipping NULLs (a frame of NULLs only gives NULL)", "nosort",
  D + "SELECT a, b, v, w, string_agg(w, '' ) OVER (ORDER BY a NULLS FIRST, b NULLS FIRST, v NULLS FIRST ROWS BETWEEN 1 PRECEDING AND CURRENT ROW), string_agg(v, ';') OVER (ORDER BY v DESC NULLS LAST ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) FROM d ORDER BY a NULLS FIRST, b NULLS FIRST, v NULLS FIRST"),
 ("string_agg(DISTINCT ...) of one value a group", "nosort",
  "SELECT i8, string_agg(DISTINCT i8::VARCHAR, ',') FROM t GROUP BY i8 ORDER BY i8 NULLS FIRST"),
]

ERRORS = """
# --- errors (Quiver's messages, written by hand)

statement error ^INVALID_QUERY: grouping\\(\\) is only allowed in the select list, HAVING and ORDER BY of a query with GROUP BY: grouping\\(s\\) at 1:23$
SELECT s FROM t WHERE grouping(s) = 0

statement error ^INVALID_QUERY: grouping\\(\\) needs GROUP BY: grouping\\(s\\) at 1:8$
SELECT grouping(s), count(*) FROM t

statement error ^INVALID_QUERY: argument i8 of grouping\\(\\) is not a GROUP BY expression: grouping\\(s, i8\\) at 1:11$
SELECT s, grouping(s, i8), count(*) FROM t GROUP BY ROLLUP(s)

statement error ^INVALID_QUERY: grouping\\(\\) cannot be inside an aggregate function: grouping\\(s\\) at 1:15$
SELECT s, sum(grouping(s)) FROM t GROUP BY ROLLUP(s)

statement error ^INVALID_QUERY: column i8 must appear in the GROUP BY clause or be used in an aggregate function
SELECT s, i8 FROM t GROUP BY ROLLUP(s)

statement error ^INVALID_QUERY: GROUP BY has 8192 grouping sets; at most 4096 are allowed
SELECT count(*) FROM t GROUP BY CUBE(i8, i32, i64, f64, dec, s, d, b), CUBE(i8, i32, i64, f64, dec)

statement error ^UNSUPPORTED: string_agg with a separator that is not a string constant is not supported at 1:8$
SELECT string_agg(s, s) FROM t

statement error ^UNSUPPORTED: string_agg\\(DISTINCT ... ORDER BY ...\\) is not supported at 1:8$
SELECT string_agg(DISTINCT s, ',' ORDER BY s) FROM t

statement error ^UNSUPPORTED: string_agg with a separator that is not a string constant is not supported at 1:8$
SELECT string_agg(s, s) OVER (ORDER BY s) FROM t
"""

# end to end, through the Flight SQL JDBC driver against the sample data (it-tests/src/test/resources/slt/grouping.slt)
IT = [
 ("ROLLUP over lineitem: the two-phase aggregation in the scan's tasks, grouping() telling the levels apart", "",
  "SELECT l_returnflag, l_linestatus, count(*), sum(l_quantity), grouping(l_returnflag, l_linestatus) FROM lineitem GROUP BY ROLLUP(l_returnflag, l_linestatus) ORDER BY 5, 1, 2"),
 ("CUBE over a join with string_agg and a DISTINCT aggregate", "",
  "SELECT r_name, n_nationkey % 2 AS odd, count(DISTINCT n_name), string_agg(n_name, ',' ORDER BY n_name) FROM nation JOIN region ON n_regionkey = r_regionkey WHERE r_regionkey < 2 GROUP BY CUBE(r_name, n_nationkey % 2) ORDER BY grouping(r_name, n_nationkey % 2), r_name, odd"),
 ("the grand total of an empty input", "",
  "SELECT l_returnflag, count(*), sum(l_quantity), string_agg(l_comment, ',') FROM lineitem WHERE l_quantity < 0 GROUP BY GROUPING SETS ((l_returnflag), ())"),
]

def write(con, queries, path, header):
    out = header + [""]
    for title, sort, sql in queries:
        rows = con.execute(sql).fetchall()
        ncol = len(con.description)
        out.append("# " + title)
        out.append("query " + "?" * ncol + (" " + sort if sort else ""))
        out.append(sql)
        out.append("----")
        for r in rows: out.append(" | ".join(render(x) for x in r))
        out.append("")
    open(path, "w").write("\n".join(out))

def main():
    here = os.path.dirname(os.path.abspath(__file__))
    planner = os.path.dirname(os.path.dirname(os.path.dirname(here)))
    tables = os.path.join(planner, "target", "slt-tables")
    con = duckdb.connect()
    for f in glob.glob(os.path.join(tables, "*.parquet")):
        name = os.path.basename(f)[:-8]
        con.execute(f"CREATE VIEW {name} AS SELECT * FROM read_parquet('{f}')")
    out = ["# GROUPING SETS, ROLLUP, CUBE, grouping() and string_agg. Expected rows computed by DuckDB over the same",
           "# tables (planner/src/test/python/grouping_slt.py), not by Quiver. d: NULLs in both keys, a NULL value, ties.", ""]
    for title, sort, sql in Q:
        rows = con.execute(sql).fetchall()
        ncol = len(con.description)
        out.append("# " + title)
        out.append("query " + "?" * ncol + " " + sort)
        out.append(sql)
        out.append("----")
        lines = [" | ".join(render(x) for x in r) for r in rows]
        if sort == "rowsort": lines.sort()  # a stable file: DuckDB's order of unordered rows varies
        out.extend(lines)
        out.append("")
    open(sys.argv[1], "w").write("\n".join(out) + ERRORS)
    if len(sys.argv) > 2:  # the it-tests' file, over the sample data
        sample = os.path.expanduser("~/.cache/quiver/sample-v2")
        con = duckdb.connect()
        for f in glob.glob(os.path.join(sample, "*.parquet")):
            con.execute(f"CREATE VIEW {os.path.basename(f)[:-8]} AS SELECT * FROM read_parquet('{f}')")
        write(con, IT, sys.argv[2], ["# Grouping sets and string_agg end to end. Expected rows computed by DuckDB over the sample data",
                                     "# (planner/src/test/python/grouping_slt.py), not by Quiver."])

main()
