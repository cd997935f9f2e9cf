#!/usr/bin/env python3
"""Answers from footer statistics (issue 27, item 3), Quiver against DuckDB (2 threads) in the same run.

usage: python3 bench/scripts/statistics_answers.py DATA_DIR... [--jar JAR] [--before JAR]

DATA_DIR: TPC-H directories with lineitem.parquet (e.g. /tmp/quiver-tpch-sf1.0 and /tmp/quiver-tpch-sf10.0, made by
`bench tpch --sf N`). For each, starts Quiver (JAR: server/target/quiver-server.jar; with --before also a build
without the feature, one server at a time, no warm-up, no console), and times through pyarrow the per-query floor
(`SELECT 1`), `count(*)` and `count(*)` with two min/max pairs over lineitem: 5 warm-ups, median of 21, answers
compared with DuckDB's. Prints Markdown rows.
"""
import sys
import duckdb
from flightbench import quiver, timed

PORT = 32091
QUERIES = [
    ("floor", "SELECT 1"),
    ("count(*)", "SELECT count(*) FROM lineitem"),
    ("count(*), min/max of two columns", "SELECT count(*), min(l_orderkey), max(l_orderkey), min(l_shipdate), "
     "max(l_shipdate) FROM lineitem"),
]


def main():
    args = sys.argv[1:]
    jar, before, dirs = "server/target/quiver-server.jar", None, []
    while args:
        a = args.pop(0)
        if a == "--jar":
            jar = args.pop(0)
        elif a == "--before":
            before = args.pop(0)
        else:
            dirs.append(a)
    print("| data | query | Quiver before (ms) | Quiver (ms) | DuckDB (ms) | Quiver/DuckDB |")
    print("|---|---|---:|---:|---:|---:|")
    for data in dirs:
        duck = duckdb.connect()
        duck.execute("SET threads=2")
        duck.execute(f"CREATE VIEW lineitem AS SELECT * FROM '{data}/lineitem.parquet'")
        old = quiver(before, data, PORT, QUERIES) if before else None
        new = quiver(jar, data, PORT, QUERIES)
        for name, sql in QUERIES:
            d_ms, d_rows = timed(lambda: duck.execute(sql).fetchall())
            q_ms, q_rows = new[name]
            if name != "floor":
                assert [tuple(r.values()) for r in q_rows] == [tuple(r) for r in d_rows], (name, q_rows, d_rows)
            b = "%.1f" % old[name][0] if old else "—"
            print(f"| {data.rsplit('/', 1)[-1]} | {name} | {b} | {q_ms:.1f} | {d_ms:.1f} | {q_ms / d_ms:.2f} |",
                  flush=True)


if __name__ == "__main__":
    main()
