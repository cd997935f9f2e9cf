"""Shared helpers of the Python benchmark scripts: a Quiver server started alone, queries timed through pyarrow."""
import statistics, subprocess, time
import pyarrow.flight as fl


def start(jar, data, port, extra=()):
    """Starts `java -jar JAR --data DATA` alone (no warm-up, no console; `extra`: more options) and returns
    (process, FlightClient)."""
    p = subprocess.Popen(["java", "-jar", jar, "--data", data, "--port", str(port), "--no-console", "--warm-up", "0",
                          *extra],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    client = fl.FlightClient(f"grpc://127.0.0.1:{port}")
    for _ in range(150):
        try:
            run(client, "SELECT 1")
            return p, client
        except Exception:
            time.sleep(0.2)
    p.terminate()
    raise SystemExit("the server did not start")


def run(client, sql):
    """The rows of `sql` (GetFlightInfo, then DoGet of each endpoint) as dicts."""
    info = client.get_flight_info(fl.FlightDescriptor.for_command(sql.encode()))
    rows = []
    for ep in info.endpoints:
        rows.extend(client.do_get(ep.ticket).read_all().to_pylist())
    return rows


def timed(f, warm=5, n=21):
    """(median ms of n runs after `warm` warm-ups, the last result)."""
    for _ in range(warm):
        f()
    ts = []
    out = None
    for _ in range(n):
        t = time.perf_counter()
        out = f()
        ts.append((time.perf_counter() - t) * 1000)
    return statistics.median(ts), out


def quiver(jar, data, port, queries, warm=5, n=21):
    """{name: (median ms, rows)} for each (name, sql) of `queries` on a fresh server."""
    p, client = start(jar, data, port)
    try:
        return {name: timed(lambda: run(client, sql), warm, n) for name, sql in queries}
    finally:
        p.terminate()
        p.wait()


def duck_view(path):
    """A DuckDB connection (2 threads, as Quiver's scan pool) with view `t` over the Parquet file `path`."""
    import duckdb
    con = duckdb.connect()
    con.execute("SET threads = 2")
    con.execute(f"CREATE VIEW t AS SELECT * FROM read_parquet('{path}')")
    return con


def before_after(after, before, data, port, after_extra=(), before_extra=()):
    """{"after": (process, client)} and, when `before` names a jar, "before" too (on port + 1), each started alone
    (with `after_extra` / `before_extra` options)."""
    servers = {"after": start(after, data, port, after_extra)}
    if before:
        servers["before"] = start(before, data, port + 1, before_extra)
    return servers


def stop(servers):
    """Stops the servers of `before_after`."""
    for p, _ in servers.values():
        p.terminate()
        p.wait()
