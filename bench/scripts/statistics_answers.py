#!/usr/bin/env python3
"""Answers from footer statistics (issue 27, item 3), Quiver against DuckDB (2 threads) in the same run.

usage: python3 bench/scripts/statistics_answers.py DATA_DIR... [--jar JAR] [--before JAR]

DATA_DIR: TPC-H directories with lineitem.parquet (e.g. /tmp/quiver-tpch-sf1.0 and /tmp/quiver-tpch-sf10.0, made by
`bench tpch --sf N`). For each, starts Quiver (JAR: server/target/quiver-server.jar; with --before also a build
without the feature, one server at a time, no warm-up, no console), and times through pyarrow the per-query floor
(`SELECT 1`), `count(*)` and `count(*)` with two min/max pairs over lineitem: 5 warm-ups, median of 21, answers
compared with DuckDB's. Prints Markdown rows.
"""
import statistics, subprocess, sys, time
import duckdb, pyarrow.flight as fl

PORT = 32091
QUERIES = [
    ("floor", "SELECT 1"),
    ("count(*)", "SELECT count(*) FROM lineitem"),
    ("count(*), min/max of two columns", "SELECT count(*), min(l_orderkey), max(l_orderkey), min(l_shipdate), "
     "max(l_shipdate) FROM lineitem"),
]


def start(jar, data):
    p = subprocess.Popen(["java", "-jar", jar, "--data", data, "--port", str(PORT), "--no-console", "--warm-up", "0"],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    client = fl.FlightClient(f"grpc://127.0.0.1:{PORT}")
    for _ in range(150):
        try:
            run(client, "SELECT 1")
            return p, client
        except Exception:
            time.sleep(0.2)
    raise SystemExit("the server did not start")


def run(client, sql):
    info = client.get_flight_info(fl.FlightDescriptor.for_command(sql.encode()))
    return [client.do_get(ep.ticket).read_all() for ep in info.endpoints][0].to_pylist()


def timed(f, n=21):
    for _ in range(5):
        f()
    ts = []
    for _ in range(n):
        t = time.perf_counter()
        out = f()
        ts.append((time.perf_counter() - t) * 1000)
    return statistics.median(ts), out


def quiver(jar, data):
    p, client = start(jar, data)
    try:
        return {name: timed(lambda: run(client, sql)) for name, sql in QUERIES}
    finally:
        p.terminate()
        p.wait()


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
        old = quiver(before, data) if before else None
        new = quiver(jar, data)
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
