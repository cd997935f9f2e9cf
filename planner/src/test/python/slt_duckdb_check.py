#!/usr/bin/env python3
"""Cross-checks the expected rows of the planner's .slt files with DuckDB (an independent engine).

Run SltFilesTest once first (it writes its tables to planner/target/slt-tables), then, from planner/:
    python3 src/test/python/slt_duckdb_check.py [file.slt ...]
Every `query` record that is not an EXPLAIN runs in DuckDB over the same Parquet files; its rows are printed
the way SltFilesTest prints them and compared. A difference is not necessarily a Quiver bug (DuckDB's integer
division, NULL order of DESC, result types of avg differ on purpose): each one printed must be judged by hand.
"""
import datetime, decimal, glob, math, os, sys
import duckdb

def java_double(x):
    if math.isnan(x): return "NaN"
    if math.isinf(x): return "Infinity" if x > 0 else "-Infinity"
    if x == 0: return "-0.0" if math.copysign(1, x) < 0 else "0.0"
    a = abs(x)
    if 1e-3 <= a < 1e7:
        r = repr(x)
        return r if ('.' in r and 'e' not in r) else (format(x, 'f') if 'e' in r else r + ".0")
    m, e = repr(x).split('e') if 'e' in repr(x) else (None, None)
    if m is None:  # e.g. 12345678.0
        d = decimal.Decimal(repr(x)).normalize(); sign, digits, exp = d.as_tuple()
        m = ('-' if sign else '') + str(digits[0]) + '.' + (''.join(map(str, digits[1:])) or '0')
        return m + "E" + str(len(digits) - 1 + exp)
    if '.' not in m: m += ".0"
    return m + "E" + str(int(e))

def render(v):
    if v is None: return "null"
    if isinstance(v, bool): return "true" if v else "false"
    if isinstance(v, float): return java_double(v)
    if isinstance(v, decimal.Decimal): return format(v, 'f')
    if isinstance(v, (datetime.date, datetime.datetime)): return v.isoformat()
    s = str(v)
    return "(empty)" if s == "" else s

def records(path):
    lines = open(path).read().split("\n")
    i = 0
    while i < len(lines):
        l = lines[i].strip()
        if not l or l.startswith("#"): i += 1; continue
        kind, start = l, i + 1; i += 1
        sql = []
        while i < len(lines) and lines[i] != "----" and lines[i].strip(): sql.append(lines[i]); i += 1
        exp = None
        if i < len(lines) and lines[i] == "----":
            i += 1; exp = []
            while i < len(lines) and lines[i] != "": exp.append(lines[i]); i += 1
        yield kind, start, "\n".join(sql), exp

def main():
    here = os.path.dirname(os.path.abspath(__file__))
    planner = os.path.dirname(os.path.dirname(os.path.dirname(here)))
    tables = os.path.join(planner, "target", "slt-tables")
    con = duckdb.connect()
    for f in glob.glob(os.path.join(tables, "*.parquet")):
        name = os.path.basename(f)[:-8]
        con.execute(f"CREATE VIEW {name} AS SELECT * FROM read_parquet('{f}')")
    files = sys.argv[1:] or sorted(glob.glob(os.path.join(planner, "src/test/resources/slt/*.slt")))
    same = differ = failed = 0
    for path in files:
        if not os.path.isabs(path) and not os.path.exists(path):
            path = os.path.join(planner, "src/test/resources/slt", path)
        for kind, line, sql, exp in records(path):
            if not kind.startswith("query") or sql.lstrip().upper().startswith("EXPLAIN"): continue
            where = f"{os.path.basename(path)}:{line}"
            try:
                rows = [" | ".join(render(v) for v in r) for r in con.execute(sql.rstrip().rstrip(";")).fetchall()]
            except Exception as e:
                failed += 1; print(f"DUCKDB ERROR {where}: {sql}\n  {str(e).splitlines()[0]}"); continue
            want, got = exp, rows
            if "rowsort" in kind.split(): want, got = sorted(want), sorted(got)
            if want == got: same += 1; continue
            differ += 1
            print(f"DIFFERS {where}: {sql}\n  slt:    {want[:8]}\n  duckdb: {got[:8]}")
    print(f"{same} same, {differ} differ, {failed} not run by DuckDB")

if __name__ == "__main__":
    main()
