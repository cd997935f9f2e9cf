"""First run against steady state in a fresh server (issue 28, item 5): a server started with its default warm-up,
left alone for --wait seconds, then each query run once (its first run in that server) and then --runs more times
(the steady median). Prints first / steady per query, for each jar given, on the pruning benchmark's lineitem.

  python3 first_runs.py DATA --jar AFTER/quiver-server.jar [--before BEFORE/quiver-server.jar] [--wait 30]"""
import argparse, statistics, subprocess, time
import flightbench as fb

QUERIES = [
    ("Q6", "SELECT sum(l_extendedprice * l_discount) AS r FROM lineitem_natural WHERE l_shipdate >= DATE '1994-01-01' "
     "AND l_shipdate < DATE '1995-01-01' AND l_discount BETWEEN 0.05 AND 0.07 AND l_quantity < 24"),
    ("Q1 ungrouped", "SELECT sum(l_quantity) AS q, sum(l_extendedprice * (1 - l_discount)) AS d, avg(l_discount) AS a, "
     "count(*) AS n FROM lineitem_natural WHERE l_shipdate <= DATE '1998-09-02'"),
    ("one-month range", "SELECT count(*) AS n, sum(l_quantity) AS q FROM lineitem_shipdate WHERE l_shipdate >= DATE '1995-03-01' "
     "AND l_shipdate < DATE '1995-04-01'"),
    ("control", "SELECT count(*) AS n FROM lineitem_natural WHERE l_shipmode IN ('AIR', 'MAIL')"),
    ("grouped", "SELECT l_returnflag, l_linestatus, sum(l_extendedprice) AS s, count(*) AS n FROM lineitem_natural "
     "GROUP BY l_returnflag, l_linestatus ORDER BY 1, 2"),
    ("top-10", "SELECT l_orderkey, l_extendedprice FROM lineitem_shuffled ORDER BY l_extendedprice DESC LIMIT 10"),
]


def measure(jar, data, port, wait, runs):
    p = subprocess.Popen(["java", "-jar", jar, "--data", data, "--port", str(port), "--no-console"],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        time.sleep(wait)  # the warm-up runs alone; the first call below stops it if it has not ended
        import pyarrow.flight as fl
        client = fl.FlightClient(f"grpc://127.0.0.1:{port}")
        out = {}
        for name, sql in QUERIES:
            t = time.perf_counter()
            fb.run(client, sql)
            first = (time.perf_counter() - t) * 1000
            ts = []
            for _ in range(runs):
                t = time.perf_counter()
                fb.run(client, sql)
                ts.append((time.perf_counter() - t) * 1000)
            out[name] = (first, statistics.median(ts))
        return out
    finally:
        p.terminate()
        p.wait()


def main():
    a = argparse.ArgumentParser()
    a.add_argument("data")
    a.add_argument("--jar", required=True)
    a.add_argument("--before")
    a.add_argument("--wait", type=float, default=30)
    a.add_argument("--runs", type=int, default=15)
    a.add_argument("--port", type=int, default=47500)
    args = a.parse_args()
    jars = ([("before", args.before)] if args.before else []) + [("after", args.jar)]
    res = {label: measure(jar, args.data, args.port, args.wait, args.runs) for label, jar in jars}
    print("| query | " + " | ".join(f"{l} first (ms) | {l} steady (ms) | {l} first/steady" for l, _ in jars) + " |")
    print("|---|" + "---:|---:|---:|" * len(jars))
    for name, _ in QUERIES:
        cells = []
        for label, _ in jars:
            first, steady = res[label][name]
            cells.append(f"{first:.1f} | {steady:.1f} | {first / steady:.2f}")
        print(f"| {name} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
