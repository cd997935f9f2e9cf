# Writes planner/src/test/resources/slt/windows.slt with the expected results computed by DuckDB (pip install duckdb):
#   python3 planner/src/test/python/windows_slt.py planner/src/test/resources/slt/windows.slt
import duckdb, sys, math, decimal
D = "WITH d(g, o, v) AS (VALUES ('a', 1, 10), ('a', 2, 20), ('a', 2, NULL), ('a', 4, 40), ('a', NULL, 5), ('b', 1, 1), ('b', 1, 2), ('b', 3, NULL), (NULL, 7, 70), ('c', 5, -3), ('a', 6, 60), ('a', 7, 70)) "
Q = [
 ("row_number, rank, dense_rank over partitions with ties and NULL keys",
  "SELECT g, o, v, row_number() OVER (PARTITION BY g ORDER BY o, v), rank() OVER (PARTITION BY g ORDER BY o), dense_rank() OVER (PARTITION BY g ORDER BY o) FROM d ORDER BY g, o, v"),
 ("percent_rank and cume_dist (one-row partitions give 0 and 1)",
  "SELECT g, o, v, percent_rank() OVER (PARTITION BY g ORDER BY o), cume_dist() OVER (PARTITION BY g ORDER BY o) FROM d ORDER BY g, o, v"),
 ("ntile with more buckets than rows, and uneven buckets",
  "SELECT g, o, v, ntile(3) OVER (PARTITION BY g ORDER BY o, v), ntile(10) OVER (ORDER BY g, o, v) FROM d ORDER BY g, o, v"),
 ("lag and lead: default offset, offset 2, a default value, at partition edges",
  "SELECT g, o, v, lag(v) OVER (PARTITION BY g ORDER BY o, v), lead(v, 2) OVER (PARTITION BY g ORDER BY o, v), lag(v, 1, -1) OVER (PARTITION BY g ORDER BY o, v), lead(o, 1, 0) OVER (PARTITION BY g ORDER BY o, v) FROM d ORDER BY g, o, v"),
 ("first_value, last_value (default frame ends at the current row's peers), nth_value",
  "SELECT g, o, v, first_value(v) OVER (PARTITION BY g ORDER BY o), last_value(v) OVER (PARTITION BY g ORDER BY o, v), nth_value(v, 2) OVER (PARTITION BY g ORDER BY o, v) FROM d ORDER BY g, o, v"),
 ("aggregates over the whole partition (no ORDER BY)",
  "SELECT g, o, v, count(*) OVER (PARTITION BY g), count(v) OVER (PARTITION BY g), sum(v) OVER (PARTITION BY g), min(v) OVER (PARTITION BY g), max(v) OVER (PARTITION BY g), avg(v) OVER (PARTITION BY g) FROM d ORDER BY g, o, v"),
 ("running sum with the default RANGE frame: peers share the value",
  "SELECT g, o, v, sum(v) OVER (PARTITION BY g ORDER BY o), count(*) OVER (PARTITION BY g ORDER BY o) FROM d ORDER BY g, o, v"),
 ("an empty OVER: one partition",
  "SELECT o, v, count(*) OVER (), sum(v) OVER (), max(o) OVER () FROM d ORDER BY o, v"),
 ("ROWS frames: sliding sum, count, avg, min, max",
  "SELECT g, o, v, sum(v) OVER w, count(v) OVER w, avg(v) OVER w, min(v) OVER w, max(v) OVER w FROM d WINDOW w AS (PARTITION BY g ORDER BY o, v ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING) ORDER BY g, o, v"),
 ("ROWS frames entirely before or after the row, and empty at the partition edges",
  "SELECT g, o, v, sum(v) OVER (PARTITION BY g ORDER BY o, v ROWS BETWEEN 3 PRECEDING AND 2 PRECEDING), max(v) OVER (PARTITION BY g ORDER BY o, v ROWS BETWEEN 1 FOLLOWING AND 2 FOLLOWING), count(*) OVER (PARTITION BY g ORDER BY o, v ROWS BETWEEN 2 FOLLOWING AND UNBOUNDED FOLLOWING) FROM d ORDER BY g, o, v"),
 ("ROWS from the current row to the end, and UNBOUNDED PRECEDING short form",
  "SELECT g, o, v, sum(v) OVER (PARTITION BY g ORDER BY o, v ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING), min(v) OVER (PARTITION BY g ORDER BY o, v ROWS UNBOUNDED PRECEDING), last_value(v) OVER (PARTITION BY g ORDER BY o, v ROWS 1 PRECEDING) FROM d ORDER BY g, o, v"),
 ("RANGE with offsets over an integer key (NULL keys frame their peers)",
  "SELECT g, o, v, sum(v) OVER (PARTITION BY g ORDER BY o RANGE BETWEEN 1 PRECEDING AND 1 FOLLOWING), count(*) OVER (PARTITION BY g ORDER BY o RANGE BETWEEN 2 PRECEDING AND CURRENT ROW), min(v) OVER (PARTITION BY g ORDER BY o RANGE BETWEEN CURRENT ROW AND 2 FOLLOWING) FROM d ORDER BY g, o, v"),
 ("RANGE with offsets over a descending key",
  "SELECT g, o, v, sum(v) OVER (PARTITION BY g ORDER BY o DESC RANGE BETWEEN 1 PRECEDING AND 2 FOLLOWING), first_value(v) OVER (PARTITION BY g ORDER BY o DESC RANGE BETWEEN 2 PRECEDING AND CURRENT ROW) FROM d ORDER BY g, o, v"),
 ("RANGE with NULLS FIRST and an offset",
  "SELECT g, o, v, count(*) OVER (PARTITION BY g ORDER BY o NULLS FIRST RANGE BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), sum(v) OVER (PARTITION BY g ORDER BY o NULLS FIRST RANGE BETWEEN 1 FOLLOWING AND UNBOUNDED FOLLOWING) FROM d ORDER BY g, o, v"),
 ("RANGE over the whole partition, and first/last value over it",
  "SELECT g, o, v, first_value(v) OVER (PARTITION BY g ORDER BY o, v RANGE BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING), last_value(v) OVER (PARTITION BY g ORDER BY o, v RANGE BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) FROM d ORDER BY g, o, v"),
 ("a window over an aggregate: the GROUP BY's rows",
  "SELECT g, sum(v), sum(sum(v)) OVER (ORDER BY g), rank() OVER (ORDER BY count(*) DESC) FROM d GROUP BY g ORDER BY g"),
 ("ORDER BY a window function, and an expression over window functions",
  "SELECT g, o, v, row_number() OVER (ORDER BY g, o, v) * 10 + 1 AS r FROM d ORDER BY row_number() OVER (ORDER BY g DESC, o DESC, v DESC) LIMIT 4"),
 ("QUALIFY: the first row of each partition",
  "SELECT g, o, v FROM d QUALIFY row_number() OVER (PARTITION BY g ORDER BY o DESC, v) = 1 ORDER BY g"),
 ("WHERE filters before the window, QUALIFY after",
  "SELECT g, o, v, count(*) OVER (PARTITION BY g) AS c FROM d WHERE v > 5 QUALIFY c > 1 ORDER BY g, o, v"),
 ("a window in a derived table, filtered outside (the filter stays above the window)",
  "SELECT * FROM (SELECT g, o, v, sum(v) OVER (PARTITION BY g ORDER BY o, v) AS s FROM d) x WHERE g = 'a' AND s > 20 ORDER BY o, v"),
 ("a filter outside on a column that is no partition key: the window still counts every row of the partition",
  "SELECT * FROM (SELECT g, o, v, count(*) OVER (PARTITION BY g) AS c, sum(v) OVER (PARTITION BY g ORDER BY o, v) AS s FROM d) x WHERE o > 2 ORDER BY g, o, v"),
 ("bool_and / bool_or and DISTINCT aggregates",
  "SELECT g, o, v, bool_and(v > 5) OVER (PARTITION BY g ORDER BY o, v ROWS BETWEEN 1 PRECEDING AND CURRENT ROW), bool_or(v > 30) OVER (PARTITION BY g ORDER BY o), count(DISTINCT o) OVER (PARTITION BY g) FROM d ORDER BY g, o, v"),
 ("stddev and variance over sliding and running frames",
  "SELECT g, o, v, var_pop(v) OVER (PARTITION BY g ORDER BY o, v ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING), stddev_samp(v) OVER (PARTITION BY g ORDER BY o, v) FROM d WHERE g = 'a' ORDER BY o, v"),
 ("a window over an empty input",
  "SELECT g, row_number() OVER (ORDER BY o), sum(v) OVER () FROM d WHERE v > 1000"),
 ("several windows with different partitions in one query",
  "SELECT g, o, v, sum(v) OVER (PARTITION BY g), sum(v) OVER (PARTITION BY o), sum(v) OVER (), row_number() OVER (ORDER BY v DESC, g, o) FROM d ORDER BY g, o, v"),
 ("partitions by an expression, ordered by an expression",
  "SELECT g, o, v, rank() OVER (PARTITION BY o % 2 ORDER BY -v) FROM d ORDER BY g, o, v"),
 ("SELECT DISTINCT over a window function",
  "SELECT DISTINCT g, count(*) OVER (PARTITION BY g) FROM d ORDER BY g"),
 ("a decimal argument: sums stay exact",
  "SELECT g, o, sum(CAST(v AS DECIMAL(10,2)) / 4) OVER (PARTITION BY g ORDER BY o, v ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) FROM d WHERE g = 'a' ORDER BY o, v"),
 ("doubles: a sliding sum",
  "SELECT g, o, v, sum(v * 0.5e0) OVER (PARTITION BY g ORDER BY o, v ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) FROM d ORDER BY g, o, v"),
 ("GROUPS frames: peer groups before and after",
  "SELECT g, o, v, sum(v) OVER (PARTITION BY g ORDER BY o GROUPS BETWEEN 1 PRECEDING AND 1 FOLLOWING), count(*) OVER (PARTITION BY g ORDER BY o GROUPS BETWEEN CURRENT ROW AND 2 FOLLOWING), max(v) OVER (PARTITION BY g ORDER BY o GROUPS 1 PRECEDING) FROM d ORDER BY g, o, v"),
 ("GROUPS frames that end before the current group",
  "SELECT g, o, v, sum(v) OVER (PARTITION BY g ORDER BY o GROUPS BETWEEN 2 PRECEDING AND 1 PRECEDING), first_value(v) OVER (PARTITION BY g ORDER BY o GROUPS BETWEEN 1 FOLLOWING AND UNBOUNDED FOLLOWING) FROM d ORDER BY g, o, v"),
 ("EXCLUDE CURRENT ROW, GROUP and TIES",
  "SELECT g, o, v, sum(v) OVER (PARTITION BY g ORDER BY o ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING EXCLUDE CURRENT ROW), sum(v) OVER (PARTITION BY g ORDER BY o RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW EXCLUDE GROUP), count(v) OVER (PARTITION BY g ORDER BY o RANGE BETWEEN 1 PRECEDING AND 1 FOLLOWING EXCLUDE TIES) FROM d ORDER BY g, o, v"),
 ("EXCLUDE with value functions and min/max, and EXCLUDE NO OTHERS",
  "SELECT g, o, v, first_value(v) OVER (PARTITION BY g ORDER BY o, v ROWS BETWEEN CURRENT ROW AND 2 FOLLOWING EXCLUDE CURRENT ROW), last_value(v) OVER (PARTITION BY g ORDER BY o ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW EXCLUDE TIES), min(v) OVER (PARTITION BY g ORDER BY o GROUPS BETWEEN 1 PRECEDING AND 1 FOLLOWING EXCLUDE GROUP), max(v) OVER (PARTITION BY g ORDER BY o, v ROWS 1 PRECEDING EXCLUDE NO OTHERS) FROM d ORDER BY g, o, v"),
 ("a named window with a GROUPS frame and EXCLUDE",
  "SELECT g, o, v, sum(v) OVER w, count(*) OVER w FROM d WINDOW w AS (PARTITION BY g ORDER BY o GROUPS BETWEEN 1 PRECEDING AND CURRENT ROW EXCLUDE CURRENT ROW) ORDER BY g, o, v"),
 ("windows refining a named one: OVER (w ORDER BY ...) and OVER (w ROWS ...)",
  "SELECT g, o, v, sum(v) OVER (w ORDER BY o, v), count(*) OVER w, row_number() OVER (w ORDER BY v DESC, o), sum(v) OVER (x ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) FROM d WINDOW w AS (PARTITION BY g), x AS (PARTITION BY g ORDER BY o, v) ORDER BY g, o, v"),
 ("nth_value over a sliding frame, past the frame's end",
  "SELECT g, o, v, nth_value(v, 3) OVER (PARTITION BY g ORDER BY o, v ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING), nth_value(o, 1) OVER (PARTITION BY g ORDER BY o, v ROWS BETWEEN 2 FOLLOWING AND 3 FOLLOWING) FROM d ORDER BY g, o, v"),
 ("lag with an offset past the partition, lead with a column default, offset 0",
  "SELECT g, o, v, lag(v, 5) OVER (PARTITION BY g ORDER BY o, v), lead(v, 1, o) OVER (PARTITION BY g ORDER BY o, v), lag(v, 0) OVER (PARTITION BY g ORDER BY o, v) FROM d ORDER BY g, o, v"),
 ("RANGE offsets over a DOUBLE key with a fractional offset",
  "SELECT g, o, v, sum(v) OVER (PARTITION BY g ORDER BY o * 0.5e0 RANGE BETWEEN 0.5 PRECEDING AND 0.25 FOLLOWING) FROM d ORDER BY g, o, v"),
 ("RANGE offsets over a DECIMAL key",
  "SELECT g, o, v, count(*) OVER (PARTITION BY g ORDER BY CAST(o AS DECIMAL(6,1)) / 2 RANGE BETWEEN 1.5 PRECEDING AND CURRENT ROW) FROM d ORDER BY g, o, v"),
 ("offsets far beyond the partition",
  "SELECT g, o, v, sum(v) OVER (PARTITION BY g ORDER BY o, v ROWS BETWEEN 9223372036854775807 PRECEDING AND 9223372036854775807 FOLLOWING), count(*) OVER (PARTITION BY g ORDER BY o GROUPS BETWEEN 9223372036854775807 PRECEDING AND CURRENT ROW), lead(v, 9223372036854775807, -1) OVER (ORDER BY g, o, v) FROM d ORDER BY g, o, v"),
 ("window functions over a join",
  "SELECT d.g, d.o, e.v, rank() OVER (PARTITION BY d.g ORDER BY e.v DESC) FROM d JOIN d AS e ON d.o = e.o AND d.g = e.g WHERE d.g = 'b' ORDER BY 1, 2, 3"),
 ("a window whose partition is the whole input: ORDER BY only",
  "SELECT o, v, sum(v) OVER (ORDER BY o, v ROWS BETWEEN 2 PRECEDING AND 2 FOLLOWING), avg(o) OVER (ORDER BY v RANGE BETWEEN 10 PRECEDING AND 10 FOLLOWING) FROM d ORDER BY o, v"),
]
def fmt(x):
    if x is None: return "null"
    if isinstance(x, bool): return "true" if x else "false"
    if isinstance(x, float):
        if math.isnan(x): return "NaN"
        if x == int(x) and abs(x) < 1e7: return repr(float(x))
        r = repr(x)
        if 'e' in r: raise Exception("sci " + r)
        return r
    if isinstance(x, decimal.Decimal): return str(x)
    if isinstance(x, str): return x if x else "(empty)"
    return str(x)
con = duckdb.connect()
out = ["# Window functions. Expected results computed by DuckDB (planner/src/test/python/windows_slt.py), not by Quiver.",
       "# d: partitions 'a' (ties in o, a NULL o and a NULL v), 'b', 'c' (one row) and NULL; ordered output.", ""]
for title, q in Q:
    sql = D + q
    rows = con.execute(sql).fetchall()
    ncol = len(con.description)
    out.append("# " + title)
    out.append("query " + "?"*ncol + " nosort")
    out.append(sql)
    out.append("----")
    for r in rows: out.append(" | ".join(fmt(x) for x in r))
    out.append("")
open(sys.argv[1], "w").write("\n".join(out))
