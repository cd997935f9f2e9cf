"""Window functions on the 20 M-row file of top_n.py: Quiver before and after a change and DuckDB (2 threads) in
the same run, each query 2 warm-ups then the median of 5; answers compared with DuckDB's. Each window's output is
folded by an outer aggregate, so that the figure is the window's, not the transfer of 20 M rows.

  python3 bench/scripts/windows.py AFTER_JAR [--before BEFORE_JAR] [--dir /tmp/quiver-topn] [--only NAME,...]"""
import argparse, os
from flightbench import run, duck_view, before_after, stop
from top_n import generate, med
from grouping import canon

QUERIES = [
    ("running sum per group", "SELECT max(rs) FROM (SELECT sum(v) OVER (PARTITION BY g ORDER BY id) AS rs FROM t) x"),
    ("lag per group", "SELECT sum(d) FROM (SELECT v - lag(v) OVER (PARTITION BY g ORDER BY ts) AS d FROM t) x"),
    ("moving average, 10 rows", "SELECT max(m) FROM (SELECT avg(v) OVER (PARTITION BY g ORDER BY id ROWS BETWEEN 9 "
     "PRECEDING AND CURRENT ROW) AS m FROM t) x"),
    ("whole-partition average", "SELECT count(*) FROM (SELECT v, avg(v) OVER (PARTITION BY g) AS a FROM t) x "
     "WHERE v > a"),
    ("rank per string group", "SELECT count(*) FROM (SELECT rank() OVER (PARTITION BY s ORDER BY v) AS r FROM t) x "
     "WHERE r <= 3"),
    ("row_number over all rows", "SELECT max(rn - id) FROM (SELECT id, row_number() OVER (ORDER BY v) AS rn FROM t) x"),
    ("top 2 per group (QUALIFY shape)", "SELECT g, v FROM (SELECT g, v, row_number() OVER (PARTITION BY g ORDER BY v "
     "DESC) AS rn FROM t) s WHERE rn <= 2"),
]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("after")
    ap.add_argument("--before")
    ap.add_argument("--dir", default="/tmp/quiver-topn")
    ap.add_argument("--only", default="")
    ap.add_argument("--port", type=int, default=31615)
    a = ap.parse_args()
    path = os.path.join(a.dir, "t", "t.parquet")
    generate(path, 20_000_000)
    duck = duck_view(path)
    servers = before_after(a.after, a.before, a.dir, a.port)
    only = [x for x in a.only.split(",") if x]
    try:
        print("| query | SQL | before ms | after ms | DuckDB ms | before / DuckDB | after / DuckDB | same answer |")
        print("|---|---|---:|---:|---:|---:|---:|---|")
        for name, sql in QUERIES:
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
    main()
