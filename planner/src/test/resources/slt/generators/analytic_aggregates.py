#!/usr/bin/env python3
"""Writes ../analytic_aggregates.slt: every expected value in it is DuckDB's (1.5.6), not Quiver's.

Each record's SQL runs in DuckDB (over the same inline VALUES, and over a DuckDB copy of the planner's test table
`t`, built here from TestTables.rows()'s formulas in the same row order); the answer is written in the format of
SltFilesTest (NULL as null, NaN, Infinity, dates ISO, Java-like doubles). Quiver's type letters are written per
record (they are Quiver's contract: DuckDB says UINTEGER or FLOAT where Quiver says BIGINT or DOUBLE), and records
with floating-point columns compare within a relative tolerance (different engines round differently in the last
bits). Where Quiver's spelling or semantics differ on purpose, the DuckDB query is given separately and the reason
is said: approx_quantile / approx_percentile are exact in Quiver (DuckDB's query is quantile_disc);
approx_count_distinct is exact on small inputs in Quiver (DuckDB's query is count(DISTINCT ...): its sketch is
coarser); `every` is Quiver's alias of bool_and. Error records are Quiver's own messages, written as they are.

Run: python3 planner/src/test/resources/slt/generators/analytic_aggregates.py (needs `pip install duckdb`).
"""
import datetime
import decimal
import math
import os
import re

import duckdb

TOL = "tolerance=1e-12"

# the planner's test table t (TestTables.rows(): i32 x f64 cross product), in file order
I32 = [None, -2147483648, -1, 0, 1, 5, 7, 2147483647]
F64 = [None, float("nan"), -0.0, 0.0, 1.5, -1.5, float("inf")]


def java_rem(a, b):
    return int(math.fmod(a, b))


def t_rows():
    rows = []
    n = 0
    for i in I32:
        for f in F64:
            i8 = None if i is None else (i % 200) - 100  # Math.floorMod(i, 200) - 100
            i64 = None if i is None else i * 3
            if f is None or math.isnan(f) or math.isinf(f):
                dec = None
            else:
                dec = math.floor(f * 100 + 0.5) + (0 if i is None else java_rem(i, 1000))  # Math.round
            s = None if n % 4 == 0 else "s" + str(n % 5)
            d = None if n % 6 == 0 else datetime.date(1970, 1, 1) + datetime.timedelta(days=18000 + n)
            b = None if n % 3 == 0 else n % 3 == 1
            rows.append((i8, i, i64, f, None if dec is None else decimal.Decimal(dec).scaleb(-2), s, d, b))
            n += 1
    return rows


# two-argument statistics: groups with several rows, one row, x constant, y constant, no complete pair, large values
PAIRS = """WITH d(g, x, y) AS (VALUES
  (1, 1.0e0, 2.0e0), (1, 2.0e0, 4.5e0), (1, 3.0e0, 7.25e0), (1, 4.0e0, 8.0e0), (1, NULL, 100.0e0), (1, 5.0e0, NULL),
  (1, 10.0e0, 21.0e0), (2, 1.5e0, 3.0e0), (3, 2.0e0, 1.0e0), (3, 2.0e0, 5.0e0), (3, 2.0e0, 9.0e0),
  (4, 1.0e0, 7.0e0), (4, 2.0e0, 7.0e0), (4, 3.0e0, 7.0e0), (5, NULL, 1.0e0), (5, 2.0e0, NULL),
  (6, -3.5e0, 1.0e10), (6, 1000.0e0, -2.5e10), (6, 7.25e0, 3.0e9), (6, 0.0e0, 0.0e0), (6, 100.0e0, 1.0e10),
  (7, 1000000001.0e0, 3.0e0), (7, 1000000002.0e0, 5.0e0), (7, 1000000003.0e0, 4.0e0), (7, 1000000004.0e0, 8.5e0))
"""

# percentiles: doubles with NULLs and duplicates, integers, decimals, strings, dates; group 4 is all NULL
VALUES = """WITH v(g, x, i, dec, s, dt) AS (VALUES
  (1, 3.5e0, 7, 1.25, 'pear', DATE '2024-03-01'), (1, -1.0e0, 2, 10.50, 'apple', DATE '2023-12-31'),
  (1, NULL, NULL, NULL, NULL, NULL), (1, 10.0e0, 11, 3.75, 'fig', DATE '2024-01-15'),
  (1, 3.5e0, 7, 1.25, 'pear', DATE '2024-03-01'), (1, 0.25e0, -4, 0.05, 'kiwi', DATE '2022-06-30'),
  (2, 100.0e0, 1000, 99.99, 'z', DATE '2000-01-01'), (3, 1.0e0, 1, 1.00, 'a', DATE '2020-01-01'),
  (3, 2.0e0, 2, 2.00, 'b', DATE '2020-01-02'), (4, NULL, NULL, NULL, NULL, NULL),
  (4, NULL, NULL, NULL, NULL, NULL), (5, 8.0e0, 8, 8.00, 'h', DATE '2021-08-08'),
  (5, 6.0e0, 6, 6.00, 'f', DATE '2021-06-06'), (5, 4.0e0, 4, 4.00, 'd', DATE '2021-04-04'),
  (5, 2.0e0, 2, 2.00, 'b', DATE '2021-02-02'))
"""

# 25 values 0..24: where the discrete percentile's position n * f is an integer that DOUBLE arithmetic misses
SEQ = "WITH q(x) AS (VALUES " + ", ".join("(%d)" % i for i in range(25)) + ")\n"

ARGS = """WITH a(g, name, score, day, price) AS (VALUES
  (1, 'ann', 7.5e0, DATE '2024-05-01', 10.25), (1, NULL, 1.0e0, DATE '2024-01-01', 3.00),
  (1, 'bob', NULL, DATE '2023-01-01', 99.99), (1, 'cy', 9.25e0, DATE '2024-07-04', 0.50),
  (1, 'dee', -2.0e0, NULL, 7.00), (2, 'eve', 3.0e0, DATE '2022-02-02', 1.00), (3, NULL, NULL, NULL, NULL),
  (4, 'fay', 5.0e0, DATE '2021-01-01', 2.00), (4, 'gus', 5.0e0, DATE '2021-01-02', 4.00))
"""

STRS = """WITH w(g, s, b) AS (VALUES
  (1, 'b', true), (1, NULL, NULL), (1, 'a', true), (1, 'c', false), (2, NULL, NULL), (2, NULL, true),
  (3, 'x', false), (3, 'x', NULL), (3, 'y', false))
"""


def records():
    """(comment, quiver sql, types, options, duckdb sql or None: the same)."""
    r = []

    def q(comment, sql, types, opts="", duck=None):
        r.append((comment, sql, types, opts, duck))

    # --- percentiles
    q("median and percentile_cont over DOUBLE, NULLs skipped; ungrouped",
      VALUES + "SELECT median(x), percentile_cont(0.5) WITHIN GROUP (ORDER BY x), "
      "percentile_cont(0.25) WITHIN GROUP (ORDER BY x), percentile_cont(0.9) WITHIN GROUP (ORDER BY x DESC), "
      "percentile_cont(0) WITHIN GROUP (ORDER BY x), percentile_cont(1) WITHIN GROUP (ORDER BY x) FROM v",
      "RRRRRR", TOL)
    q("grouped: one value, two values, all NULL (NULL), descending order; a DECIMAL is interpolated as DOUBLE (DuckDB's "
      "query casts it: DuckDB interpolates in DECIMAL, truncating to the scale)",
      VALUES + "SELECT g, median(x), median(i), percentile_cont(0.25) WITHIN GROUP (ORDER BY i), "
      "percentile_cont(0.25) WITHIN GROUP (ORDER BY i DESC), percentile_cont(0.1) WITHIN GROUP (ORDER BY dec), "
      "quantile_cont(x, 0.75), median(dec) FROM v GROUP BY g ORDER BY g",
      "IRRRRRRR", TOL,
      VALUES + "SELECT g, median(x), median(i), percentile_cont(0.25) WITHIN GROUP (ORDER BY i), "
      "percentile_cont(0.25) WITHIN GROUP (ORDER BY i DESC), percentile_cont(0.1) WITHIN GROUP (ORDER BY CAST(dec AS DOUBLE)), "
      "quantile_cont(x, 0.75), median(CAST(dec AS DOUBLE)) FROM v GROUP BY g ORDER BY g")
    q("percentile_disc: a value of the data, of the argument's type (integers, decimals, strings, dates)",
      VALUES + "SELECT g, percentile_disc(0.5) WITHIN GROUP (ORDER BY x), percentile_disc(0.5) WITHIN GROUP (ORDER BY i), "
      "percentile_disc(0.25) WITHIN GROUP (ORDER BY dec), percentile_disc(0.5) WITHIN GROUP (ORDER BY s), "
      "percentile_disc(0.75) WITHIN GROUP (ORDER BY dt), percentile_disc(0.25) WITHIN GROUP (ORDER BY i DESC) "
      "FROM v GROUP BY g ORDER BY g",
      "IRINTDI", TOL)
    # DuckDB 1.5.6 marks DESC by negating the fraction, so percentile_disc(0) / percentile_cont(0) WITHIN GROUP
    # (ORDER BY x DESC) lose the DESC (-0 = 0) and answer the least value; the first in descending order is the
    # greatest, which DuckDB answers as the fraction 1 ascending
    q("the fractions 0 and 1 are the first and last values in the order; quantile_disc and quantile are DuckDB's "
      "spellings",
      VALUES + "SELECT percentile_disc(0) WITHIN GROUP (ORDER BY i), percentile_disc(1) WITHIN GROUP (ORDER BY i), "
      "percentile_disc(0) WITHIN GROUP (ORDER BY s DESC), percentile_cont(0) WITHIN GROUP (ORDER BY x DESC), "
      "quantile_disc(dt, 0.1), quantile(s, 0.6) FROM v",
      "IITRDT", TOL,
      VALUES + "SELECT percentile_disc(0) WITHIN GROUP (ORDER BY i), percentile_disc(1) WITHIN GROUP (ORDER BY i), "
      "percentile_disc(1) WITHIN GROUP (ORDER BY s), percentile_cont(1) WITHIN GROUP (ORDER BY x), "
      "quantile_disc(dt, 0.1), quantile(s, 0.6) FROM v")
    q("the discrete position n * f computed exactly: 25 * 0.28 = 7, 25 * 0.56 = 14 (a DOUBLE product is above)",
      SEQ + "SELECT percentile_disc(0.28) WITHIN GROUP (ORDER BY x), quantile_disc(x, 0.56), quantile_disc(x, 0.04), "
      "percentile_disc(0.999) WITHIN GROUP (ORDER BY x), percentile_cont(0.28) WITHIN GROUP (ORDER BY x) FROM q",
      "IIIIR", TOL)
    q("a DOUBLE fraction is DOUBLE arithmetic, as DuckDB's",
      SEQ + "SELECT quantile_disc(x, CAST(0.28 AS DOUBLE)), quantile_disc(x, 2.8e-1), quantile_cont(x, 2.8e-1) FROM q",
      "IIR", TOL)
    q("approx_quantile and approx_percentile are exact: the discrete percentile",
      VALUES + "SELECT g, approx_quantile(i, 0.5), approx_percentile(x, 0.25), approx_quantile(s, 0.9) FROM v "
      "GROUP BY g ORDER BY g",
      "IIRT", TOL,
      VALUES + "SELECT g, quantile_disc(i, 0.5), quantile_disc(x, 0.25), quantile_disc(s, 0.9) FROM v "
      "GROUP BY g ORDER BY g")
    q("over no rows: NULL",
      VALUES + "SELECT median(x), percentile_cont(0.5) WITHIN GROUP (ORDER BY i), percentile_disc(0.5) WITHIN GROUP (ORDER BY s), "
      "quantile_disc(dt, 0.5) FROM v WHERE g > 100",
      "RRTD")
    q("DISTINCT, FILTER, HAVING and ORDER BY on a percentile",
      VALUES + "SELECT g, median(DISTINCT x), median(x) FILTER (WHERE x > 0), quantile_cont(DISTINCT i, 0.25) FROM v "
      "GROUP BY g HAVING median(x) > 1 ORDER BY median(x) DESC",
      "IRRR", TOL)
    # (DuckDB interpolates a DECIMAL in DECIMAL, truncating to its scale: Quiver's percentile_cont is DOUBLE, so
    # DuckDB's query reads the DECIMAL as DOUBLE)
    q("percentiles over the test table t (a Parquet scan): NaN above every number, -0.0, infinities, extreme integers",
      "SELECT s, median(i32), median(f64), percentile_cont(0.75) WITHIN GROUP (ORDER BY i64), "
      "percentile_disc(0.4) WITHIN GROUP (ORDER BY f64), percentile_disc(0.5) WITHIN GROUP (ORDER BY d), "
      "percentile_disc(0.5) WITHIN GROUP (ORDER BY dec DESC), quantile_cont(dec, 0.5) FROM t GROUP BY s",
      "TRRRRDNR", TOL + " rowsort",
      "SELECT s, median(i32), median(f64), percentile_cont(0.75) WITHIN GROUP (ORDER BY i64), "
      "percentile_disc(0.4) WITHIN GROUP (ORDER BY f64), percentile_disc(0.5) WITHIN GROUP (ORDER BY d), "
      "percentile_disc(0.5) WITHIN GROUP (ORDER BY dec DESC), quantile_cont(CAST(dec AS DOUBLE), 0.5) FROM t GROUP BY s")
    q("ungrouped over t, with the aggregates that are split across scan tasks beside them",
      "SELECT count(*), min(i32), sum(dec), median(i8), percentile_disc(0.1) WITHIN GROUP (ORDER BY s), "
      "percentile_cont(0.9) WITHIN GROUP (ORDER BY f64) FROM t",
      "IINRTR", TOL)

    # --- two-argument statistics
    q("corr, covariances and regressions, grouped: rows count only when both arguments are non-NULL; one row, "
      "x constant (corr and regr_slope NaN, regr_intercept and regr_r2 NULL), y constant (regr_r2 1), no pair",
      PAIRS + "SELECT g, regr_count(y, x), corr(y, x), covar_pop(y, x), covar_samp(y, x), regr_slope(y, x), "
      "regr_intercept(y, x), regr_r2(y, x) FROM d GROUP BY g ORDER BY g",
      "IIRRRRRR", TOL)
    q("the sums and averages of the regression",
      PAIRS + "SELECT g, regr_avgx(y, x), regr_avgy(y, x), regr_sxx(y, x), regr_syy(y, x), regr_sxy(y, x) "
      "FROM d GROUP BY g ORDER BY g",
      "IRRRRR", TOL)
    q("ungrouped, and the arguments swapped",
      PAIRS + "SELECT corr(y, x), corr(x, y), covar_samp(x, y), regr_slope(x, y), regr_intercept(x, y), regr_r2(x, y), "
      "regr_count(x, y), regr_sxy(x, y) FROM d",
      "RRRRRRIR", TOL)
    q("over no rows: regr_count 0, the others NULL",
      PAIRS + "SELECT regr_count(y, x), corr(y, x), covar_pop(y, x), covar_samp(y, x), regr_slope(y, x), "
      "regr_intercept(y, x), regr_r2(y, x), regr_avgx(y, x), regr_sxx(y, x) FROM d WHERE g > 100",
      "IRRRRRRRR", TOL)
    q("integer and decimal arguments are read as DOUBLE; FILTER",
      VALUES + "SELECT corr(i, dec), covar_pop(i, x), regr_slope(dec, i), regr_count(i, dec) FILTER (WHERE g <> 1), "
      "corr(x, i) FILTER (WHERE g = 5) FROM v",
      "RRRIR", TOL)
    q("over the test table t",
      "SELECT s, regr_count(i64, dec), corr(i64, dec), regr_slope(i32, i8), regr_intercept(i32, i8), covar_samp(dec, i8) "
      "FROM t WHERE f64 > -2 AND f64 < 2 GROUP BY s",
      "TIRRRR", TOL + " rowsort")

    # --- arg_min / arg_max
    q("arg_min and arg_max: rows with a NULL argument or value skipped; NULL when none; min_by and max_by",
      ARGS + "SELECT g, arg_min(name, score), arg_max(name, score), min_by(name, day), max_by(price, day), "
      "arg_min(day, price), arg_max(score, name) FROM a GROUP BY g ORDER BY g",
      "ITTTNDR", TOL)
    q("ties: the first row met wins (input order)",
      ARGS + "SELECT arg_min(name, score) FILTER (WHERE g = 4), arg_max(name, score) FILTER (WHERE g = 4) FROM a",
      "TT")
    q("arg_max over the test table t: NaN is the greatest value",
      "SELECT arg_max(i32, f64), arg_min(s, i64), arg_max(d, dec), arg_min(b, d) FROM t",
      "ITDB")

    # --- bool_and / bool_or, string_agg
    q("bool_and, bool_or and every: NULLs skipped, NULL over none",
      STRS + "SELECT g, bool_and(b), bool_or(b), every(b) FROM w GROUP BY g ORDER BY g",
      "IBBB", "",
      STRS + "SELECT g, bool_and(b), bool_or(b), bool_and(b) FROM w GROUP BY g ORDER BY g")
    q("string_agg with a separator, in input order or its ORDER BY; NULL over no values",
      STRS + "SELECT g, string_agg(s, '-'), string_agg(s, ', ' ORDER BY s DESC), string_agg(s) FROM w "
      "GROUP BY g ORDER BY g",
      "ITTT")

    # --- approx_count_distinct
    q("approx_count_distinct is exact on small inputs (DuckDB's query: count(DISTINCT ...)); 0 over no rows",
      VALUES + "SELECT g, approx_count_distinct(x), approx_count_distinct(i), approx_count_distinct(s), "
      "approx_count_distinct(dt), approx_count_distinct(dec) FROM v GROUP BY g ORDER BY g",
      "IIIIII", "",
      VALUES + "SELECT g, count(DISTINCT x), count(DISTINCT i), count(DISTINCT s), count(DISTINCT dt), "
      "count(DISTINCT dec) FROM v GROUP BY g ORDER BY g")
    q("over t: -0.0 is 0.0 and every NaN one NaN, as count(DISTINCT) has them; over no rows 0",
      "SELECT approx_count_distinct(f64), approx_count_distinct(i32), approx_count_distinct(s), approx_count_distinct(b), "
      "approx_count_distinct(dec), (SELECT approx_count_distinct(i64) FROM t WHERE i8 > 1000) FROM t",
      "IIIIII", "",
      "SELECT count(DISTINCT f64), count(DISTINCT i32), count(DISTINCT s), count(DISTINCT b), count(DISTINCT dec), "
      "(SELECT count(DISTINCT i64) FROM t WHERE i8 > 1000) FROM t")

    # --- pow / power
    q("pow and power: DOUBLE",
      "SELECT pow(2, 10), power(2.5, 2), pow(2, -2), pow(-8, 3), pow(2, 0.5), pow(0, 0), pow(10, 308), pow(2, 1024)",
      "RRRRRRRR", TOL)
    q("NULL in, NULL out; a negative base to a fractional power is NaN; pow(0, -1) is Infinity; pow(1, NaN) is 1",
      "SELECT pow(NULL, 2), power(2, NULL), pow(-8, 1.0 / 3), pow(0, -1), pow(1, CAST('NaN' AS DOUBLE)), "
      "pow(CAST('NaN' AS DOUBLE), 0)",
      "RRRRRR", TOL)
    q("over a column",
      VALUES + "SELECT g, pow(i, 2), power(x, 0.5), pow(dec, i) FROM v WHERE g IN (3, 5) ORDER BY g, i",
      "IRRR", TOL)
    return r


ERRORS = [
    ("percentile_cont needs WITHIN GROUP",
     "SELECT percentile_cont(0.5) FROM t",
     "INVALID_QUERY: percentile_cont needs WITHIN GROUP (ORDER BY ...): percentile_cont(0.5) (or quantile_cont(x, fraction)) at 1:8"),
    ("the fraction is a constant from 0 to 1",
     "SELECT quantile_cont(i32, 1.5) FROM t",
     "INVALID_QUERY: the fraction of quantile_cont must be a constant from 0 to 1, not 1.5 at 1:8"),
    ("",
     "SELECT percentile_disc(i32) WITHIN GROUP (ORDER BY i32) FROM t",
     "INVALID_QUERY: the fraction of percentile_disc must be a constant from 0 to 1, not i32 at 1:8"),
    ("",
     "SELECT quantile_disc(i32) FROM t",
     "INVALID_QUERY: function quantile_disc takes a value and a fraction: quantile_disc(i32) at 1:8"),
    ("percentile_cont and median take numbers",
     "SELECT median(s) FROM t",
     "INVALID_QUERY: function median is not defined for VARCHAR: median(s) at 1:8"),
    ("two-argument aggregates",
     "SELECT corr(i32) FROM t",
     "INVALID_QUERY: function corr takes exactly two arguments: corr(i32) at 1:8"),
    ("",
     "SELECT regr_slope(i32, s) FROM t",
     "INVALID_QUERY: function regr_slope is not defined for VARCHAR: regr_slope(i32, s) at 1:8"),
    ("",
     "SELECT arg_min(s, i32, 2) FROM t",
     "INVALID_QUERY: function arg_min takes exactly two arguments: arg_min(s, i32, 2) at 1:8"),
    ("",
     "SELECT covar_pop(DISTINCT i32, i64) FROM t",
     "UNSUPPORTED: covar_pop(DISTINCT ...) is not supported at 1:8"),
    ("one-argument aggregates name their position too",
     "SELECT avg(i32, i64) FROM t",
     "INVALID_QUERY: function avg takes exactly one argument: avg(i32, i64) at 1:8"),
    ("",
     "SELECT approx_count_distinct(*) FROM t",
     "INVALID_QUERY: approx_count_distinct(*) is not valid; only count(*) is at 1:8"),
    ("not (yet) window functions",
     "SELECT median(i32) OVER (PARTITION BY s) FROM t",
     "UNSUPPORTED: median as a window function (OVER) is not supported at 1:8"),
    ("",
     "SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY i32) OVER () FROM t",
     "UNSUPPORTED: WITHIN GROUP OVER on percentile_cont is not supported at 1:8"),
    ("WITHIN GROUP takes a percentile",
     "SELECT sum(1) WITHIN GROUP (ORDER BY i32) FROM t",
     "UNSUPPORTED: WITHIN GROUP on sum (only percentile_cont and percentile_disc take it) is not supported at 1:8"),
    ("pow takes numbers",
     "SELECT pow(s, 2) FROM t",
     "INVALID_QUERY: function pow is not defined for VARCHAR: pow(s, 2) at 1:8"),
]


def java_double(x):
    """Double.toString's form of x, from the shortest digits that read back as x (Java 17 may print a longer
    tail: records with doubles compare numbers within a tolerance)."""
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "Infinity" if x > 0 else "-Infinity"
    if x == 0:
        return "-0.0" if math.copysign(1, x) < 0 else "0.0"
    d = decimal.Decimal(repr(x))
    if 1e-3 <= abs(x) < 1e7:
        s = format(d, "f")
        return s if "." in s else s + ".0"
    t = d.normalize().as_tuple()
    ds = "".join(map(str, t.digits))
    return ("-" if t.sign else "") + ds[0] + "." + (ds[1:] or "0") + "E" + str(len(ds) - 1 + t.exponent)


def cell(v):
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return java_double(v)
    if isinstance(v, decimal.Decimal):
        return format(v, "f")
    if isinstance(v, (datetime.date, datetime.datetime)):
        return v.isoformat()
    s = str(v)
    return s if s else "(empty)"


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    out_path = os.path.join(os.path.dirname(here), "analytic_aggregates.slt")
    con = duckdb.connect()
    con.execute("SET threads TO 1")  # ties (arg_min, string_agg without ORDER BY) in input order
    con.execute("CREATE TABLE t (i8 TINYINT, i32 INTEGER, i64 BIGINT, f64 DOUBLE, dec DECIMAL(10, 2), s VARCHAR, "
                "d DATE, b BOOLEAN)")
    con.executemany("INSERT INTO t VALUES (?, ?, ?, ?, ?, ?, ?, ?)", t_rows())
    lines = [
        "# The aggregate and scalar functions analytics reaches for (issue 27 item 6): percentiles, two-argument",
        "# statistics, arg_min/arg_max, bool_and/bool_or, string_agg, approx_count_distinct, pow.",
        "# GENERATED by generators/analytic_aggregates.py from DuckDB 1.5.6's answers (see its notes on where the",
        "# DuckDB query differs); do not edit by hand: change the script and run it again.",
        "",
    ]
    for comment, sql, types, opts, duck in records():
        rows = con.execute(duck or sql).fetchall()
        body = [" | ".join(cell(v) for v in row) for row in rows]
        if "rowsort" in opts:
            body.sort()
        if comment:
            lines.append("# " + comment)
        lines.append(" ".join(x for x in ["query", types, opts] if x))
        lines.append(sql.strip())
        lines.append("----")
        lines.extend(body)
        lines.append("")
    lines.append("# errors (Quiver's messages)")
    lines.append("")
    for comment, sql, message in ERRORS:
        if comment:
            lines.append("# " + comment)
        lines.extend(["error", sql, "----", message, ""])
    with open(out_path, "w") as f:
        f.write("\n".join(lines).rstrip("\n") + "\n")
    print("wrote", out_path, len(records()), "queries,", len(ERRORS), "errors")


if __name__ == "__main__":
    main()
