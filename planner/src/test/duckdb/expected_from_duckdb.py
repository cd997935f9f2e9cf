"""Prints sqllogictest records whose expected rows DuckDB computes, over the Parquet files the planner's slt tests
read (planner/target/slt-tables, written when SltFilesTest runs).

    python3 planner/src/test/duckdb/expected_from_duckdb.py CASES_FILE > records.slt

CASES_FILE holds cases separated by blank lines: optional '# comment' lines, then the SQL (one or more lines).
A case whose SQL starts with 'rowsort:' is emitted as 'query ... rowsort'. A line '-- duckdb:' ends the SQL of the
record; DuckDB then runs the equivalent SQL after it instead (for a shape DuckDB cannot plan as written). Values print as the slt runner prints
them: null, true/false, integers, decimals with their scale, an empty string as (empty).
"""
import decimal
import sys
from pathlib import Path

import duckdb

TABLES = Path(__file__).resolve().parents[3] / "target" / "slt-tables"


def fmt(v):
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, decimal.Decimal)):
        return str(v)
    if isinstance(v, str):
        return v if v else "(empty)"
    if isinstance(v, float):
        raise SystemExit("floats print differently in Java; avoid them: %r" % v)
    return str(v)


def letter(values):
    for v in values:
        if v is None:
            continue
        if isinstance(v, bool):
            return "B"
        if isinstance(v, int):
            return "I"
        if isinstance(v, decimal.Decimal):
            return "N"
        if isinstance(v, str):
            return "T"
        return "?"
    return "?"


def main():
    con = duckdb.connect()
    for p in sorted(TABLES.glob("*.parquet")):
        con.execute("CREATE VIEW %s AS SELECT * FROM read_parquet('%s')" % (p.stem, p))
    text = Path(sys.argv[1]).read_text()
    for block in text.strip().split("\n\n"):
        lines = block.strip().splitlines()
        comments = [l for l in lines if l.startswith("#")]
        sql = "\n".join(l for l in lines if not l.startswith("#"))
        # "-- duckdb:" on its own line: the SQL after it is an equivalent DuckDB runs instead (one it cannot plan
        # as written, e.g. a correlated subquery in an outer join's ON); the record shows the SQL before it
        run = None
        if "\n-- duckdb:\n" in sql:
            sql, run = sql.split("\n-- duckdb:\n", 1)
        rowsort = sql.startswith("rowsort:")
        if rowsort:
            sql = sql[len("rowsort:"):].lstrip()
        rows = con.execute(run if run is not None else sql).fetchall()
        types = "".join(letter([r[i] for r in rows]) for i in range(len(con.description)))
        out = [" | ".join(fmt(v) for v in r) for r in rows]
        if rowsort:
            out.sort()
        print("\n".join(comments))
        print("query " + types + (" rowsort" if rowsort else ""))
        print(sql)
        print("----")
        print("\n".join(out))
        print()


main()
