#!/usr/bin/env python3
"""Range joins and spilling (issue 26), Quiver against DuckDB (2 threads) in the same run.

usage: python3 bench/scripts/range_joins_and_spilling.py [JAR]   (JAR: server/target/quiver-server.jar)

Writes its data under /tmp/quiver-range-joins (2 M events with sorted ids and 20,000 slots of 11 ids, by DuckDB), starts
Quiver on it, times each range query (2 warm-ups, median of 7, answers compared), then starts Quiver on the bundled sample
data with --query-memory 48m and 2g and times a lineitem self-join that spills in the first. Prints Markdown rows.
"""
import os, re, statistics, subprocess, sys, time
import duckdb, pyarrow.flight as fl

JAR = sys.argv[1] if len(sys.argv) > 1 else "server/target/quiver-server.jar"
DATA = "/tmp/quiver-range-joins"
SAMPLE = os.path.expanduser("~/.cache/quiver/sample-v2")
PORT = 32090

RANGE = {
    "range-correlated ALL (the issue's query)": "SELECT count(*) FROM events e1 WHERE e1.id < 3000 AND qty > ALL "
    "(SELECT qty FROM events e2 WHERE e2.id BETWEEN e1.id + 1 AND e1.id + 3)",
    "band self-join": "SELECT count(*), sum(e2.qty) FROM events e1 JOIN events e2 ON e2.id BETWEEN e1.id - 2 AND e1.id + 2 "
    "WHERE e1.qty = 7",
    "interval join (20,000 slots of 11 ids)": "SELECT count(*) FROM events e JOIN slots s ON e.id BETWEEN s.lo AND s.hi",
}
SPILL = ("SELECT count(*), sum(b.l_quantity) FROM lineitem a JOIN lineitem b ON a.l_orderkey = b.l_orderkey "
         "AND a.l_linenumber = b.l_linenumber AND a.l_comment <> b.l_shipinstruct")


def start(*args):
    p = subprocess.Popen(["java", "-jar", JAR, "--port", str(PORT), "--no-console", "--warm-up", "0", *args],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    client = fl.FlightClient(f"grpc://127.0.0.1:{PORT}")
    for _ in range(100):
        try:
            run(client, "SELECT 1")
            return p, client
        except Exception:
            time.sleep(0.2)
    raise SystemExit("the server did not start")


def run(client, sql):
    info = client.get_flight_info(fl.FlightDescriptor.for_command(sql.encode()))
    return [client.do_get(ep.ticket).read_all() for ep in info.endpoints][0].to_pylist()


def timed(f, n=7):
    for _ in range(2):
        f()
    ts = []
    for _ in range(n):
        t = time.perf_counter()
        out = f()
        ts.append((time.perf_counter() - t) * 1000)
    return statistics.median(ts), out


def main():
    os.makedirs(DATA, exist_ok=True)
    d = duckdb.connect()
    d.execute("SET threads = 2")
    if not os.path.exists(f"{DATA}/events.parquet"):
        d.execute(f"COPY (SELECT i::BIGINT AS id, (hash(i) % 1000)::INT AS qty FROM range(2000000) t(i)) "
                  f"TO '{DATA}/events.parquet' (FORMAT parquet)")
        d.execute(f"COPY (SELECT i * 100 AS lo, i * 100 + 10 AS hi FROM range(20000) t(i)) TO '{DATA}/slots.parquet' "
                  "(FORMAT parquet)")
    for t in ("events", "slots"):
        d.execute(f"CREATE VIEW {t} AS SELECT * FROM '{DATA}/{t}.parquet'")
    print("| query | Quiver ms | DuckDB ms | Quiver / DuckDB | same answer |\n|---|---:|---:|---:|---|")
    p, c = start("--data", DATA)
    try:
        for name, sql in RANGE.items():
            q, a = timed(lambda: run(c, sql))
            dd, b = timed(lambda: d.execute(sql).fetchall())
            print(f"| {name} | {q:.1f} | {dd:.1f} | {q / dd:.2f} | {[tuple(r.values()) for r in a] == [tuple(x) for x in b]} |")
    finally:
        p.terminate()
        p.wait()
    d.execute(f"CREATE VIEW lineitem AS SELECT * FROM '{SAMPLE}/lineitem.parquet'")
    dd, b = timed(lambda: d.execute(SPILL).fetchall(), 5)
    print("\n| --query-memory | Quiver ms | spilled bytes | DuckDB ms | same answer |\n|---|---:|---:|---:|---|")
    for mem in ("48m", "2g"):
        p, c = start("--data", SAMPLE, "--query-memory", mem)
        try:
            q, a = timed(lambda: run(c, SPILL), 5)
            plan = "\n".join(r["plan"] for r in run(c, "EXPLAIN ANALYZE " + SPILL))
            m = re.search(r"spilled_bytes=(\d+)", plan)
            print(f"| {mem} | {q:.0f} | {m.group(1) if m else 0} | {dd:.0f} | "
                  f"{[tuple(r.values()) for r in a] == [tuple(x) for x in b]} |")
        finally:
            p.terminate()
            p.wait()


if __name__ == "__main__":
    main()
