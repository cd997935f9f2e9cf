"""Filters with dictionary-encoded string conjuncts beside other conjuncts (issue 28, item 2), Quiver before and
after against DuckDB (2 threads) in the same run, on the pruning benchmark's lineitem files.

  python3 dictionary_filters.py DATA --jar AFTER/quiver-server.jar --before BEFORE/quiver-server.jar

DATA is the directory `bench pruning` writes (lineitem_natural.parquet, lineitem_shuffled.parquet). Each server
runs alone; medians of 15 runs after 8 warm-ups through pyarrow; answers compared with DuckDB's."""
import argparse
import duckdb
import flightbench as fb

QUERIES = [
    ("shipmode IN + quantity", "SELECT count(*) AS c FROM lineitem_natural WHERE l_shipmode IN ('AIR','MAIL') AND l_quantity < 10"),
    ("two strings + discount", "SELECT sum(l_extendedprice) AS s FROM lineitem_shuffled WHERE l_shipmode = 'TRUCK' "
     "AND l_shipinstruct = 'DELIVER IN PERSON' AND l_discount > 0.05"),
    ("two dictionary strings", "SELECT count(*) AS c FROM lineitem_natural WHERE l_returnflag = 'R' AND l_linestatus = 'F'"),
    ("string output, filtered", "SELECT l_shipmode, count(*) AS c FROM lineitem_natural WHERE l_shipmode IN ('AIR','MAIL') "
     "AND l_quantity < 5 GROUP BY l_shipmode ORDER BY l_shipmode"),
]


def main():
    a = argparse.ArgumentParser()
    a.add_argument("data")
    a.add_argument("--jar", required=True)
    a.add_argument("--before")
    a.add_argument("--port", type=int, default=47111)
    args = a.parse_args()
    runs = [("after", args.jar)] + ([("before", args.before)] if args.before else [])
    res = {label: fb.quiver(jar, args.data, args.port, QUERIES, warm=8, n=15) for label, jar in runs}
    con = duckdb.connect()
    con.execute("SET threads = 2")
    for t in ["natural", "shuffled"]:
        con.execute(f"CREATE VIEW lineitem_{t} AS SELECT * FROM read_parquet('{args.data}/lineitem_{t}.parquet')")
    print("| query | Quiver before (ms) | Quiver (ms) | DuckDB (ms) | Quiver/DuckDB | same answer |")
    print("|---|---:|---:|---:|---:|---|")
    for name, sql in QUERIES:
        dm, rows = fb.timed(lambda: con.execute(sql).fetchall(), 5, 15)
        after = res["after"][name]
        before = res["before"][name][0] if "before" in res else float("nan")
        same = [tuple(r.values()) for r in after[1]] == [tuple(x) for x in rows]
        print(f"| {name} | {before:.1f} | {after[0]:.1f} | {dm:.1f} | {after[0] / dm:.2f} | {'yes' if same else 'NO'} |")


if __name__ == "__main__":
    main()
