"""Top-N queries (ORDER BY ... LIMIT 10) on a 20 M-row DuckDB-written file: Quiver before and after a change, and
DuckDB (2 threads) in the same run, each query timed in turn; the row groups Quiver read come from EXPLAIN ANALYZE.

  python3 bench/scripts/top_n.py AFTER_JAR [--before BEFORE_JAR] [--rows 20000000] [--dir /tmp/quiver-topn]

The file: `id` 0..N-1 in order (sorted across row groups), `ts` a timestamp rising with id, `v` a random BIGINT,
`g` one of 100 groups, `price` a DECIMAL(12,2), `s` a short string; DuckDB's default row groups (122,880 rows)."""
import argparse, os, re
import duckdb
from flightbench import run, timed, duck_view, before_after, stop

QUERIES = [
    ("non-key column, all columns", "SELECT * FROM t ORDER BY v LIMIT 10"),
    ("non-key column, descending", "SELECT id, v FROM t ORDER BY v DESC LIMIT 10"),
    ("sorted key, ascending", "SELECT id, v, s FROM t ORDER BY id LIMIT 10"),
    ("sorted key, descending", "SELECT id, v, s FROM t ORDER BY id DESC LIMIT 10"),
    ("latest of one group", "SELECT ts, v FROM t WHERE g = 7 ORDER BY ts DESC LIMIT 10"),
    ("decimal key", "SELECT price, id FROM t ORDER BY price DESC, id LIMIT 10"),
]


def generate(path, rows):
    if os.path.exists(path):
        return
    os.makedirs(os.path.dirname(path), exist_ok=True)
    con = duckdb.connect()
    con.execute(f"""COPY (SELECT i AS id, TIMESTAMP '2020-01-01' + to_seconds(i) AS ts,
        (hash(i) % 1000000000000)::BIGINT AS v, (hash(i * 7) % 100)::INTEGER AS g,
        ((hash(i * 13) % 10000000) / 100)::DECIMAL(12,2) AS price, 'x' || (i % 1000)::VARCHAR AS s
        FROM range({rows}) r(i)) TO '{path}' (FORMAT parquet)""")


def med(f, warm=3, n=11):
    """Median ms of n runs of f after warm warm-ups (flightbench.timed)."""
    return timed(f, warm, n)[0]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("after")
    ap.add_argument("--before")
    ap.add_argument("--rows", type=int, default=20_000_000)
    ap.add_argument("--dir", default="/tmp/quiver-topn")
    a = ap.parse_args()
    path = os.path.join(a.dir, "t", "t.parquet")
    generate(path, a.rows)
    duck = duck_view(path)
    servers = before_after(a.after, a.before, a.dir, 31611)
    try:
        print(f"| query | SQL | before ms | after ms | DuckDB ms | after / DuckDB | row groups read (after) | same answer |")
        print("|---|---|---:|---:|---:|---:|---:|---|")
        for name, sql in QUERIES:
            expect = [tuple(r) for r in duck.execute(sql).fetchall()]
            times = {}
            same = True
            for label, (_, client) in servers.items():
                rows = run(client, sql)
                got = [tuple(r.values()) for r in rows]
                same &= [tuple(str(x) for x in r) for r in got] == [tuple(str(x) for x in r) for r in expect] or \
                    [r[0] for r in got] == [r[0] for r in expect]
                times[label] = med(lambda: run(client, sql))
            times["duck"] = med(lambda: duck.execute(sql).fetchall())
            plan = "\n".join(r["plan"] for r in run(servers["after"][1], "EXPLAIN ANALYZE " + sql))
            m = dict(re.findall(r"(row_groups_total|row_groups_pruned)=(\d+)", plan))
            read = int(m["row_groups_total"]) - int(m["row_groups_pruned"])
            before = f"{times['before']:.1f}" if "before" in times else ""
            print(f"| {name} | `{sql}` | {before} | {times['after']:.1f} | {times['duck']:.1f} | "
                  f"{times['after'] / times['duck']:.2f} | {read} of {m['row_groups_total']} | {same} |")
    finally:
        stop(servers)


if __name__ == "__main__":
    main()
