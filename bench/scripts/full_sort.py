"""Full sorts (ORDER BY without LIMIT) on a 10 M-row DuckDB-written file: Quiver (and optionally a build before a
change) and DuckDB (2 threads) in the same run, each query's whole answer read as Arrow by the client.

  python3 bench/scripts/full_sort.py AFTER_JAR [--before BEFORE_JAR] [--rows 10000000] [--dir /tmp/quiver-sort]
      [--query-memory BYTES] [--before-query-memory BYTES]

With `--query-memory` smaller than a sort's rows the after server sorts externally (sorted runs under the spill
directory, merged); the same jar as `--before` at the default memory then measures what spilling costs.

The file: `i` a random BIGINT, `d` a random DOUBLE, `g` one of 100 INTEGER groups, `s` one of 1,000 short strings.
The answers are compared on their sort keys, row by row (rows whose keys tie may come in another order)."""
import argparse, os
import duckdb
import pyarrow.flight as fl
from flightbench import timed, duck_view, before_after, stop

QUERIES = [
    ("a double", "SELECT i, d FROM t ORDER BY d"),
    ("a BIGINT, descending", "SELECT i, d FROM t ORDER BY i DESC"),
    ("100 groups descending, then a double", "SELECT g, d FROM t ORDER BY g DESC, d"),
    ("a string then a BIGINT, 1 M rows", "SELECT s, i FROM t WHERE g < 10 ORDER BY s, i"),
]


def generate(path, rows):
    if os.path.exists(path):
        return
    os.makedirs(os.path.dirname(path), exist_ok=True)
    con = duckdb.connect()
    con.execute(f"""COPY (SELECT (hash(i) % 1000000000000)::BIGINT AS i, (hash(i * 3) % 1000000007) / 7.0 AS d,
        (hash(i * 7) % 100)::INTEGER AS g, 'x' || (hash(i * 11) % 1000)::VARCHAR AS s
        FROM range({rows}) r(i)) TO '{path}' (FORMAT parquet)""")


def table(client, sql):
    """The whole answer of `sql` as one Arrow table (GetFlightInfo, then DoGet of each endpoint)."""
    info = client.get_flight_info(fl.FlightDescriptor.for_command(sql.encode()))
    return [client.do_get(ep.ticket).read_all() for ep in info.endpoints][0]


def keys(t, sql):
    """The answer's sort-key columns as lists."""
    names = [k.strip().split(" ")[0] for k in sql.split("ORDER BY")[1].split(",")]
    return [t.column(n).to_pylist() for n in names]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("after")
    ap.add_argument("--before")
    ap.add_argument("--rows", type=int, default=10_000_000)
    ap.add_argument("--dir", default="/tmp/quiver-sort")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--query-memory")
    ap.add_argument("--before-query-memory")
    a = ap.parse_args()
    path = os.path.join(a.dir, "t", "t.parquet")
    generate(path, a.rows)
    duck = duck_view(path)
    servers = before_after(a.after, a.before, a.dir, 31621,
                           ("--query-memory", a.query_memory) if a.query_memory else (),
                           ("--query-memory", a.before_query_memory) if a.before_query_memory else ())
    try:
        print("| query | SQL | before ms | after ms | DuckDB ms | after / DuckDB | same order |")
        print("|---|---|---:|---:|---:|---:|---|")
        for name, sql in QUERIES:
            expect = keys(duck.execute(sql).to_arrow_table(), sql)
            times = {}
            same = True
            for label, (_, client) in servers.items():
                same &= keys(table(client, sql), sql) == expect
                times[label] = timed(lambda: table(client, sql), 2, a.runs)[0]
            times["duck"] = timed(lambda: duck.execute(sql).to_arrow_table(), 2, a.runs)[0]
            before = f"{times['before']:.1f}" if "before" in times else ""
            print(f"| {name} | `{sql}` | {before} | {times['after']:.1f} | {times['duck']:.1f} | "
                  f"{times['after'] / times['duck']:.2f} | {same} |", flush=True)
    finally:
        stop(servers)


if __name__ == "__main__":
    main()
