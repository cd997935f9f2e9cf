"""Runtime filters measured from outside: two Quiver servers (before on 31501, after on 31502) over the TPC-H SF 1
files of `bench tpch --sf 1` (/tmp/quiver-tpch-sf1.0) and DuckDB (2 threads) on the same files; interleaved rounds
through pyarrow, medians in ms; prints the Markdown rows of bench/results/runtime-filters.md. Needs pyarrow, duckdb."""
import time, statistics, re, pyarrow.flight as fl, duckdb
D="/tmp/quiver-tpch-sf1.0"
cl={p:fl.FlightClient(f"grpc://127.0.0.1:{p}") for p in (31501,31502)}
def q(p,sql):
    c=cl[p]; info=c.get_flight_info(fl.FlightDescriptor.for_command(sql)); return c.do_get(info.endpoints[0].ticket).read_all()
d=duckdb.connect(); d.execute("SET threads=2")
for t in ("lineitem","orders","customer"): d.execute(f"CREATE VIEW {t} AS SELECT * FROM '{D}/{t}.parquet'")
qs=["SELECT count(*), sum(l_extendedprice) FROM lineitem JOIN orders ON l_orderkey = o_orderkey WHERE o_custkey = 12346",
    "SELECT count(*), sum(l_extendedprice) FROM lineitem JOIN orders ON l_orderkey = o_orderkey WHERE o_custkey = 12345",
    "SELECT count(*), sum(l_quantity) FROM lineitem WHERE l_orderkey IN (SELECT o_orderkey FROM orders WHERE o_totalprice > 500000)",
    "SELECT count(*), sum(l_extendedprice) FROM lineitem JOIN orders ON l_orderkey = o_orderkey WHERE o_orderdate = DATE '1995-03-15'",
    "SELECT count(*), sum(l_extendedprice) FROM lineitem JOIN orders ON l_orderkey = o_orderkey WHERE o_orderkey BETWEEN 3000000 AND 3100000 AND o_orderstatus = 'F'"]
for sql in qs:
    res={}
    for _ in range(3):
        for p in cl: q(p,sql)
        d.execute(sql).fetchall()
    times={31501:[],31502:[],'duck':[]}
    for _ in range(9):
        for p in cl:
            s=time.perf_counter(); res[p]=q(p,sql).to_pylist(); times[p].append((time.perf_counter()-s)*1000)
        s=time.perf_counter(); res['duck']=d.execute(sql).fetchall(); times['duck'].append((time.perf_counter()-s)*1000)
    plan=[r['plan'] for r in q(31502,"EXPLAIN ANALYZE "+sql).to_pylist() if 'table=lineitem' in r['plan']][0]
    m=dict(re.findall(r'(row_groups_total|row_groups_pruned|row_groups_pruned_runtime|rows_scanned)=(\d+)', plan))
    rf=re.search(r'runtime_filter=\[([^\]]*)\]',plan)
    med={k:statistics.median(v) for k,v in times.items()}
    same=[str(x) for x in res[31501][0].values()]==[str(x) for x in res[31502][0].values()]==[str(x) for x in res['duck'][0]]
    print(f"| `{sql}` | {med[31501]:.1f} | {med[31502]:.1f} | {med['duck']:.1f} | {med[31502]/med['duck']:.2f} | {m.get('row_groups_pruned_runtime')} of {m.get('row_groups_total')} | {rf.group(1) if rf else ''} | {same} |")
