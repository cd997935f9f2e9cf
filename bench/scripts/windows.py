"""Window functions on the 20 M-row file of top_n.py: Quiver before and after a change and DuckDB (2 threads) in
the same run, each query 2 warm-ups then the median of 5; answers compared with DuckDB's. Each window's output is
folded by an outer aggregate, so that the figure is the window's, not the transfer of 20 M rows.

  python3 bench/scripts/windows.py AFTER_JAR [--before BEFORE_JAR] [--dir /tmp/quiver-topn] [--only NAME,...]"""
from grouping import compare

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
    ("moving stddev, 501 rows, 2 M rows", "SELECT max(s) FROM (SELECT stddev_samp(v) OVER (PARTITION BY g ORDER BY "
     "id ROWS BETWEEN 500 PRECEDING AND CURRENT ROW) AS s FROM t WHERE id % 10 = 0) x"),
    ("top 2 per group (QUALIFY shape)", "SELECT g, v FROM (SELECT g, v, row_number() OVER (PARTITION BY g ORDER BY v "
     "DESC) AS rn FROM t) s WHERE rn <= 2"),
]


if __name__ == "__main__":
    compare(QUERIES, 31615, __doc__)
