"""Grouped and DISTINCT aggregation, and a ranked window, on the 20 M-row file of top_n.py: Quiver before and after a change and DuckDB
(2 threads) in the same run, each query 2 warm-ups then the median of 5; answers compared with DuckDB's.

  python3 bench/scripts/grouping.py AFTER_JAR [--before BEFORE_JAR] [--dir /tmp/quiver-topn]"""
import argparse, os
from flightbench import run, duck_view, before_after, stop
from top_n import generate, med

QUERIES = [
    ("100 integer groups", "SELECT g, sum(v), count(*) FROM t GROUP BY g"),
    ("1,000 string groups", "SELECT s, sum(g), max(v) FROM t GROUP BY s"),
    ("100,000 integer groups", "SELECT id % 100000 AS k, sum(g), count(*) FROM t GROUP BY k"),
    ("count(DISTINCT) of strings", "SELECT count(DISTINCT s) FROM t"),
    ("count(DISTINCT) per group", "SELECT g, count(DISTINCT s) FROM t GROUP BY g"),
    ("decimal sum and avg, 100 groups", "SELECT g, avg(price), sum(price) FROM t GROUP BY g"),
    ("min/max per string group", "SELECT s, min(ts), max(price) FROM t GROUP BY s"),
    ("top 2 per group (window)", "SELECT g, v FROM (SELECT g, v, row_number() OVER (PARTITION BY g ORDER BY v DESC) "
     "AS rn FROM t) s WHERE rn <= 2"),
    ("top 1 of 100,000 partitions", "SELECT k, v FROM (SELECT id % 100000 AS k, v, row_number() OVER (PARTITION BY "
     "id % 100000 ORDER BY v) AS rn FROM t) s WHERE rn = 1"),
]


def canon(rows):
    return sorted(tuple(round(x, 6) if isinstance(x, float) else str(x) for x in r) for r in rows)


def compare(queries, port, doc=None):
    """Runs `queries` ((name, SQL) pairs) on Quiver after (and before) a change and on DuckDB over the 20 M-row file
    and prints a Markdown table. Arguments: AFTER_JAR [--before JAR] [--dir DIR] [--only NAME,...]."""
    ap = argparse.ArgumentParser(description=doc)
    ap.add_argument("after")
    ap.add_argument("--before")
    ap.add_argument("--dir", default="/tmp/quiver-topn")
    ap.add_argument("--only", default="", help="comma-separated parts of query names to run")
    a = ap.parse_args()
    path = os.path.join(a.dir, "t", "t.parquet")
    generate(path, 20_000_000)
    duck = duck_view(path)
    servers = before_after(a.after, a.before, a.dir, port)
    only = [x for x in a.only.split(",") if x]
    try:
        print("| query | SQL | before ms | after ms | DuckDB ms | before / DuckDB | after / DuckDB | same answer |")
        print("|---|---|---:|---:|---:|---:|---:|---|", flush=True)
        for name, sql in queries:
            if only and not any(o in name for o in only):
                continue
            expect = canon(duck.execute(sql).fetchall())
            times, same = {}, True
            for label, (_, client) in servers.items():
                try:
                    same &= canon(tuple(r.values()) for r in run(client, sql)) == expect
                    times[label] = med(lambda: run(client, sql), 2, 5)
                except Exception as e:  # e.g. over --query-memory
                    times[label] = float("nan")
                    print(f"<!-- {label}: {str(e)[:160]} -->", flush=True)
            d = med(lambda: duck.execute(sql).fetchall(), 2, 5)
            b = times.get("before", float("nan"))
            print(f"| {name} | `{sql}` | {b:.1f} | {times['after']:.1f} | {d:.1f} | {b / d:.2f} | "
                  f"{times['after'] / d:.2f} | {same} |", flush=True)
    finally:
        stop(servers)


if __name__ == "__main__":
    compare(QUERIES, 31613, __doc__)
