"""The first queries a newcomer sends right after the server starts, timed from outside.

python3 bench/scripts/first_queries.py server/target/quiver-server.jar 32101

Starts `java -jar JAR --port PORT --http-port 0` on the sample data, waits for its banner, then sends 400
`SELECT 1` through pyarrow (GetFlightInfo with a Flight SQL CommandStatementQuery, then DoGet), and prints the
time to the banner, the first query's time and the medians of queries 2-40, 41-100, 101-200 and 201-400.
Run it alternately for two builds (copy each build's server/target/quiver-server.jar and lib/ apart) to compare
start-up behaviour, e.g. the warm-up giving way to the first client (issue 25). The command is encoded by hand so
that the script also runs against builds older than the plain-SQL command.
"""
import subprocess, sys, time, statistics, pyarrow.flight as fl
def ld(n):
    out=b""
    while True:
        x=n&0x7f; n>>=7
        out+=bytes([x|(0x80 if n else 0)])
        if not n: return out
def field(no,b): return bytes([(no<<3)|2])+ld(len(b))+b
def cmd(q):
    inner=field(1,q.encode())
    return field(1,b"type.googleapis.com/arrow.flight.protocol.sql.CommandStatementQuery")+field(2,inner)
jar=sys.argv[1]; port=sys.argv[2]
p=subprocess.Popen(["java","-jar",jar,"--port",port,"--http-port","0"],stdout=subprocess.PIPE,stderr=subprocess.STDOUT,text=True)
t0=time.time()
for line in p.stdout:
    if "JDBC URL" in line: break
banner=time.time()-t0
c=fl.FlightClient(f"grpc://127.0.0.1:{port}")
lat=[]
for i in range(400):
    s=time.perf_counter()
    info=c.get_flight_info(fl.FlightDescriptor.for_command(cmd("SELECT 1")))
    c.do_get(info.endpoints[0].ticket).read_all()
    lat.append((time.perf_counter()-s)*1000)
p.terminate(); p.wait()
import statistics as st
blocks=[f"{st.median(lat[a:b]):.1f}" for a,b in ((1,40),(40,100),(100,200),(200,400))]
print(f"{jar} banner {banner:.1f}s first {lat[0]:.0f} ms; medians q2-40 / 41-100 / 101-200 / 201-400: {' / '.join(blocks)} ms; total {sum(lat)/1000:.2f} s")
