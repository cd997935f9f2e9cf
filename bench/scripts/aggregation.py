#!/usr/bin/env python3
"""Aggregation (issue 27), Quiver against DuckDB (2 threads) in the same run.

usage: python3 bench/scripts/aggregation.py DATA_DIR [--jar JAR] [--before JAR]

DATA_DIR: a TPC-H directory (e.g. /tmp/quiver-tpch-sf1.0, made by `bench tpch --sf 1`). Starts Quiver (JAR:
server/target/quiver-server.jar; with --before also an older build, one server at a time, no warm-up, no console),
times each query through pyarrow (5 warm-ups, median of 11) and compares its rows with DuckDB's (order-insensitive).
Prints Markdown rows.
"""
import sys
import duckdb
from flightbench import quiver, timed

PORT = 32092
QUERIES = [
    ("sum of integers, 3 groups", "SELECT l_returnflag, sum(l_orderkey), sum(l_linenumber), count(*) FROM lineitem "
     "GROUP BY l_returnflag"),
    ("sum of integers, 10,000 groups", "SELECT l_suppkey, sum(l_partkey) FROM lineitem GROUP BY l_suppkey"),
    ("sum of integers, no groups", "SELECT sum(l_orderkey), sum(l_partkey), sum(l_suppkey) FROM lineitem"),
]


def key(rows):
    return sorted(tuple(str(v) for v in r) for r in rows)


def main():
    args = sys.argv[1:]
    jar, before, data = "server/target/quiver-server.jar", None, None
    while args:
        a = args.pop(0)
        if a == "--jar":
            jar = args.pop(0)
        elif a == "--before":
            before = args.pop(0)
        else:
            data = a
    duck = duckdb.connect()
    duck.execute("SET threads=2")
    duck.execute(f"CREATE VIEW lineitem AS SELECT * FROM '{data}/lineitem.parquet'")
    old = quiver(before, data, PORT, QUERIES, n=11) if before else None
    new = quiver(jar, data, PORT, QUERIES, n=11)
    print("| query | Quiver before (ms) | Quiver (ms) | DuckDB (ms) | before/DuckDB | Quiver/DuckDB |")
    print("|---|---:|---:|---:|---:|---:|")
    for name, sql in QUERIES:
        d_ms, d_rows = timed(lambda: duck.execute(sql).fetchall(), n=11)
        q_ms, q_rows = new[name]
        assert key([r.values() for r in q_rows]) == key(d_rows), name
        b = old[name][0] if old else None
        print(f"| {name} | {'%.1f' % b if b else '—'} | {q_ms:.1f} | {d_ms:.1f} | "
              f"{'%.2f' % (b / d_ms) if b else '—'} | {q_ms / d_ms:.2f} |", flush=True)


if __name__ == "__main__":
    main()
