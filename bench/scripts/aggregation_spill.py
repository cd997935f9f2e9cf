"""An aggregation whose groups outgrow --query-memory: H2O's q10 (10 M groups of six keys over the 10 M-row G1 file
that `bench h2o` generates) answered at a small --query-memory, where the final aggregation spills its groups to 16
partitions on disk, against the same server with room (and a build before a change, if given), and DuckDB (2 threads)
in the same run. Answers are compared by their row count and the sum of `count`.

  python3 bench/scripts/aggregation_spill.py JAR [--before BEFORE_JAR] [--memory 512m] [--data /tmp/quiver-h2o-10000000]
"""
import argparse
from flightbench import start, run, timed, duck_view, stop

SQL = ("SELECT id1, id2, id3, id4, id5, id6, sum(v3) AS v3, count(*) AS count FROM x "
       "GROUP BY id1, id2, id3, id4, id5, id6")


def summary(rows):
    return len(rows), sum(r["count"] for r in rows)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("jar")
    ap.add_argument("--before")
    ap.add_argument("--memory", default="512m")
    ap.add_argument("--data", default="/tmp/quiver-h2o-10000000")
    ap.add_argument("--runs", type=int, default=3)
    a = ap.parse_args()
    duck = duck_view(f"{a.data}/x.parquet").execute("CREATE VIEW x AS SELECT * FROM t")
    servers = {f"after, --query-memory {a.memory}": start(a.jar, a.data, 31641, ("--query-memory", a.memory)),
               "after, default memory": start(a.jar, a.data, 31642)}
    if a.before:
        servers[f"before, --query-memory {a.memory}"] = start(a.before, a.data, 31643, ("--query-memory", a.memory))
    try:
        duck_rows = duck.execute(SQL).fetchall()
        expect = (len(duck_rows), sum(r[7] for r in duck_rows))
        print("| server | median ms | groups, rows counted | equals DuckDB's |")
        print("|---|---:|---|---|")
        for label, (_, client) in servers.items():
            try:
                ms, rows = timed(lambda: run(client, SQL), 1, a.runs)
                got = summary(rows)
                print(f"| {label} | {ms:.0f} | {got} | {got == expect} |", flush=True)
            except Exception as e:
                print(f"| {label} | error: {str(e).splitlines()[0][:160]} | | |", flush=True)
        ms, _ = timed(lambda: duck.execute(SQL).fetchall(), 1, a.runs)
        print(f"| DuckDB (2 threads) | {ms:.0f} | {expect} | |")
    finally:
        stop(servers)


if __name__ == "__main__":
    main()
