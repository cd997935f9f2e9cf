package dev.quiver.bench.jmh;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.function.Predicate;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.CommandLineOptions;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;

/**
 * {@code java -jar bench/target/quiver-bench.jar jmh [--out DIR] [JMH options]}: runs the JMH
 * micro-benchmarks (all by default; a regex or any JMH option as usual, e.g. {@code -p codec=SNAPPY},
 * {@code -prof stack}), then prints every score next to the memory-copy bandwidth measured in the same
 * run, snappy-java's decompression of the same bytes and the 400 M rows/s kernel target, as Markdown
 * (written to {@code DIR/jmh.md} with {@code --out}). The short defaults ({@code -f 1 -wi 2 -i 3 -w 1s
 * -r 1s}) are the benchmarks' annotations: any JMH option overrides them. {@code -h}, {@code -l},
 * {@code -lp}, {@code -lprof}, {@code -lrf} go straight to JMH.
 */
public final class JmhMain {
  /** The kernel target: rows per second per core. */
  static final double KERNEL_TARGET = 400e6;
  /** The decode target: Quiver's Snappy INT64 decode against snappy-java's decompression. */
  static final double SNAPPY_TARGET = 0.8;

  private JmhMain() {}

  public static void main(String[] args) throws Exception {
    Path out = null;
    List<String> jmhArgs = new ArrayList<>();
    for (int i = 0; i < args.length; i++) {
      if (args[i].equals("--out")) out = Path.of(args[++i]);
      else jmhArgs.add(args[i]);
    }
    String[] rest = jmhArgs.toArray(String[]::new);
    CommandLineOptions cmd = new CommandLineOptions(rest);
    if (cmd.shouldHelp() || cmd.shouldList() || cmd.shouldListWithParams() || cmd.shouldListProfilers()
        || cmd.shouldListResultFormats()) {
      org.openjdk.jmh.Main.main(rest);
      return;
    }
    String loadBefore = loadAverage();
    Options options = new OptionsBuilder().parent(cmd).addProfiler(CpuShareProfiler.class).build();
    Collection<RunResult> results = new Runner(options).run();
    String md = report(results, String.join(" ", args), loadBefore, loadAverage());
    System.out.println();
    System.out.println(md);
    if (out != null) {
      Files.createDirectories(out);
      Files.writeString(out.resolve("jmh.md"), md);
      System.out.println("wrote " + out.resolve("jmh.md"));
    }
  }

  /** One result: the benchmark method's simple name and its parameters. */
  private record Row(String method, RunResult r) {
    String param(String name) {
      String v = r.getParams().getParam(name);
      return v == null ? "" : v;
    }

    double score() {
      return r.getPrimaryResult().getScore();
    }

    /** The CPU the fork got, in cores (NaN if not measured). */
    double cpuShare() {
      Result<?> s = r.getSecondaryResults().get(CpuShareProfiler.LABEL);
      return s == null ? Double.NaN : s.getScore();
    }

    /** The score per CPU-second: what it would be with a whole core (the wall-clock score if not measured). */
    double perCpu() {
      double share = cpuShare();
      return Double.isNaN(share) || share <= 0 ? score() : score() / share;
    }

    /**
     * The spread of the measurement iterations: (max - min) / mean, in percent. (JMH's 99.9% confidence
     * interval is meaningless with the default three iterations: it multiplies by t = 31.6.)
     */
    String error() {
      var st = r.getPrimaryResult().getStatistics();
      double mean = st.getMean();
      return st.getN() < 2 || mean == 0 ? "?" : fmt("%.0f%%", 100 * (st.getMax() - st.getMin()) / mean);
    }
  }

  static String report(Collection<RunResult> results, String args, String loadBefore, String loadAfter) {
    List<Row> rows = new ArrayList<>();
    for (RunResult r : results) {
      String b = r.getParams().getBenchmark();
      rows.add(new Row(b.substring(b.lastIndexOf('.') + 1), r));
    }
    StringBuilder sb = new StringBuilder();
    sb.append("# JMH micro-benchmarks: Parquet decode and filter/aggregate kernels\n\n");
    sb.append("Command: `java -jar bench/target/quiver-bench.jar jmh").append(args.isEmpty() ? "" : " " + args)
        .append("` (").append(LocalDate.now()).append(").\n\n");
    sb.append("Machine: ").append(Runtime.getRuntime().availableProcessors()).append(" cores");
    String cpu = cpuModel();
    if (cpu != null) sb.append(" (").append(cpu).append(")");
    sb.append(", ").append(System.getProperty("os.name")).append(' ').append(System.getProperty("os.arch"))
        .append(", JDK ").append(System.getProperty("java.vm.version"));
    if (loadBefore != null) sb.append(", load average ").append(loadBefore).append(" before the run and ").append(loadAfter).append(" after");
    sb.append(". Quiver code measured: ").append(built(dev.quiver.scan.read.ParquetScan.class)).append(", ")
        .append(built(dev.quiver.planner.kernel.ExprCompiler.class)).append(". One benchmark thread; ");
    RunResult any = results.isEmpty() ? null : results.iterator().next();
    if (any != null) {
      var p = any.getParams();
      sb.append(fmt("%d fork(s), %d×%s warm-up, %d×%s measurement iterations", p.getForks(), p.getWarmup().getCount(),
          p.getWarmup().getTime(), p.getMeasurement().getCount(), p.getMeasurement().getTime()));
    }
    sb.append("; *spread* is (max − min) / mean of the wall-clock measurement iterations. *CPU* is the CPU the benchmark's JVM "
        + "got (process CPU time / wall time, in cores, JIT and GC threads included); *per CPU-s* is the score "
        + "divided by it — what one whole core does when the machine is shared. Every ratio below is taken "
        + "between per-CPU-s scores, so that it does not depend on how busy the machine was during each "
        + "benchmark.\n\n");

    // memory copy: the reference
    Row memcpy = find(rows, r -> r.method().equals("copyByteArray"));
    Row direct = find(rows, r -> r.method().equals("copyDirectBuffer"));
    double memGBs = memcpy == null ? Double.NaN : memcpy.perCpu() / 1e9;
    if (memcpy != null || direct != null) {
      sb.append("## Memory copy (the reference)\n\n");
      sb.append("64 MiB copied per operation; GB/s = 10^9 bytes copied per second (each byte read once and written "
          + "once).\n\n");
      sb.append("| copy | GB/s | spread | CPU | GB/s per CPU-s |\n|---|---:|---:|---:|---:|\n");
      if (memcpy != null) {
        sb.append(fmt("| `System.arraycopy` byte[] → byte[] (**memcpy** below) | %.2f | %s | %.2f | %.2f |%n",
            memcpy.score() / 1e9, memcpy.error(), memcpy.cpuShare(), memGBs));
      }
      if (direct != null) {
        sb.append(fmt("| direct `ByteBuffer` → direct `ByteBuffer` | %.2f | %s | %.2f | %.2f |%n", direct.score() / 1e9,
            direct.error(), direct.cpuShare(), direct.perCpu() / 1e9));
      }
      sb.append('\n');
    }

    // decode through Quiver's scan
    List<Row> scans = rows.stream().filter(r -> r.method().equals("quiverScan")).toList();
    if (!scans.isEmpty()) {
      sb.append("## Decode: Quiver's scan of a whole column into Arrow\n\n");
      sb.append(fmt("`ParquetScan` of one %,d-row column (one row group, parquet-java's default pages of ≤ 20,000 rows, "
          + "v1 pages), batches of 32,768 rows, one row group at a time (parallelism 1). GB/s counts the decoded "
          + "bytes (8 per INT64/DOUBLE value; string bytes + a 4-byte length/offset per string = the PLAIN size). "
          + "× snappy-java: against snappy-java decompressing the same column's PLAIN bytes (same type; INT64 "
          + "for the dictionary column) — the target is ≥ %.1f× for Snappy INT64.%n%n", ColumnData.ROWS, SNAPPY_TARGET));
      sb.append("| column | codec | M rows/s | spread | CPU | M rows per CPU-s | GB/s per CPU-s | × memcpy | × snappy-java |\n");
      sb.append("|---|---|---:|---:|---:|---:|---:|---:|---:|\n");
      for (Row r : scans) {
        ColumnData.Kind kind = ColumnData.Kind.valueOf(r.param("type"));
        double gbs = r.perCpu() * ColumnData.bytesPerRow(kind) / 1e9;
        String vsSnappy = "";
        if (r.param("codec").equals("SNAPPY")) {
          Row s = snappyFor(rows, kind);
          if (s != null) {
            double ratio = gbs / (s.perCpu() * ColumnData.bytesPerRow(snappyKind(kind)) / 1e9);
            vsSnappy = fmt("%.3f", ratio);
            if (kind == ColumnData.Kind.INT64_PLAIN || kind == ColumnData.Kind.INT64_DICT) {
              vsSnappy = "**" + vsSnappy + "**" + (ratio >= SNAPPY_TARGET ? " (meets 0.8)" : " (target 0.8)");
            }
          }
        }
        sb.append(fmt("| %s | %s | %.1f | %s | %.2f | %.1f | %.3f | %.3f | %s |%n", kind, r.param("codec"),
            r.score() / 1e6, r.error(), r.cpuShare(), r.perCpu() / 1e6, gbs, gbs / memGBs, vsSnappy));
      }
      sb.append('\n');
    }

    // what bounds it
    List<Row> snappy = rows.stream().filter(r -> r.method().equals("snappyJavaUncompress")).toList();
    List<Row> pages = rows.stream().filter(r -> r.method().equals("parquetJavaPages")).toList();
    List<Row> readers = rows.stream().filter(r -> r.method().equals("parquetJavaColumnReader")).toList();
    if (!snappy.isEmpty() || !pages.isEmpty() || !readers.isEmpty()) {
      sb.append("## Decode: the layers underneath\n\n");
      sb.append("snappy-java: `Snappy.uncompress` of the column's PLAIN bytes in page-sized blocks (20,000 values, "
          + "compressed with `Snappy.compress`). parquet-java pages: `ParquetFileReader` reads the row group and "
          + "decompresses every page (bytes touched, nothing decoded). parquet-java ColumnReader: the same pages "
          + "decoded value by value through `ColumnReader.getLong/getDouble/getBinary` + `consume()` — the loop "
          + "Quiver's scan runs — without writing Arrow vectors. GB/s counts decoded bytes as above.\n\n");
      sb.append("| layer | column | codec | M rows/s | spread | CPU | M rows per CPU-s | GB/s per CPU-s | × memcpy | Quiver scan / this |\n");
      sb.append("|---|---|---|---:|---:|---:|---:|---:|---:|---:|\n");
      for (Row r : snappy) layer(sb, "snappy-java uncompress", r, "SNAPPY", scans, memGBs);
      for (Row r : pages) layer(sb, "parquet-java pages", r, r.param("codec"), scans, memGBs);
      for (Row r : readers) layer(sb, "parquet-java ColumnReader", r, r.param("codec"), scans, memGBs);
      sb.append('\n');
    }

    // kernels
    List<Row> kernels = rows.stream().filter(r -> r.r().getParams().getBenchmark().contains("KernelBenchmark")).toList();
    if (!kernels.isEmpty()) {
      sb.append("## Filter / aggregate kernels on decoded data\n\n");
      sb.append(fmt("%,d rows in Arrow batches of %s rows, one thread, no NULLs; compiled with `ExprCompiler` and "
          + "evaluated batch by batch, or the real `FilterExec` / `AggregateExec` fed from memory. "
          + "GB/s counts the bytes of the columns read (8 per BIGINT/DOUBLE, 16 per DECIMAL). Target: %.0f M rows/s "
          + "per core.%n%n", KernelBenchmark.ROWS, kernels.get(0).param("batchRows"), KERNEL_TARGET / 1e6));
      sb.append("| kernel | M rows/s | spread | CPU | M rows per CPU-s | × 400 M target | GB/s per CPU-s | × memcpy |\n");
      sb.append("|---|---:|---:|---:|---:|---:|---:|---:|\n");
      for (Row r : kernels) {
        Kernel k = kernel(r.method());
        double gbs = r.perCpu() * k.bytesPerRow() / 1e9;
        sb.append(fmt("| %s | %.1f | %s | %.2f | %.1f | %.3f | %.2f | %.3f |%n", k.label(), r.score() / 1e6, r.error(),
            r.cpuShare(), r.perCpu() / 1e6, r.perCpu() / KERNEL_TARGET, gbs, gbs / memGBs));
      }
      sb.append('\n');
    }
    return sb.toString();
  }

  private static void layer(StringBuilder sb, String label, Row r, String codec, List<Row> scans, double memGBs) {
    ColumnData.Kind kind = ColumnData.Kind.valueOf(r.param("type"));
    double gbs = r.perCpu() * ColumnData.bytesPerRow(kind) / 1e9;
    Row scan = find(scans, s -> s.param("type").equals(kind.name()) && s.param("codec").equals(codec));
    String ratio = scan == null ? "" : fmt("%.3f", scan.perCpu() / r.perCpu());
    sb.append(fmt("| %s | %s | %s | %.1f | %s | %.2f | %.1f | %.3f | %.3f | %s |%n", label, kind, codec, r.score() / 1e6,
        r.error(), r.cpuShare(), r.perCpu() / 1e6, gbs, gbs / memGBs, ratio));
  }

  /** The jar (or directory) a class was loaded from and when it was built. */
  private static String built(Class<?> c) {
    try {
      Path p = Path.of(c.getProtectionDomain().getCodeSource().getLocation().toURI());
      return "`" + p.getFileName() + "` built " + Files.getLastModifiedTime(p).toInstant().truncatedTo(
          java.time.temporal.ChronoUnit.SECONDS);
    } catch (Exception e) {
      return c.getSimpleName() + " (build unknown)";
    }
  }

  private static String loadAverage() {
    try {
      String[] f = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
      return f[0] + " / " + f[1] + " / " + f[2] + " (1 / 5 / 15 min)";
    } catch (IOException | RuntimeException e) {
      return null;
    }
  }

  /** snappy-java runs on PLAIN bytes; a dictionary column's decoded bytes are those of the INT64 PLAIN run. */
  private static ColumnData.Kind snappyKind(ColumnData.Kind k) {
    return k == ColumnData.Kind.INT64_DICT ? ColumnData.Kind.INT64_PLAIN : k;
  }

  private static Row snappyFor(List<Row> rows, ColumnData.Kind kind) {
    String k = snappyKind(kind).name();
    return find(rows, r -> r.method().equals("snappyJavaUncompress") && r.param("type").equals(k));
  }

  private record Kernel(String label, int bytesPerRow) {}

  private static Kernel kernel(String method) {
    return switch (method) {
      case "compareBigint" -> new Kernel("`x < 500000` BIGINT → mask", 8);
      case "compareDouble" -> new Kernel("`y < 0.5` DOUBLE → mask", 8);
      case "compareDecimal" -> new Kernel("`discount < 0.06` DECIMAL(12,2) → mask", 16);
      case "arithmeticDecimal" -> new Kernel("`price * (1 - discount)` DECIMAL → DECIMAL(25,4)", 32);
      case "filterBigintOperator" -> new Kernel("FilterExec `x < 500000` (mask + copy of the kept rows, 4 columns)", 48);
      case "sumBigintAggregate" -> new Kernel("AggregateExec `sum(x)` BIGINT", 8);
      case "sumRevenueAggregate" -> new Kernel("AggregateExec `sum(price * (1 - discount))` DECIMAL", 32);
      case "loopCompareBigint" -> new Kernel("reference: plain Java loop `x < 500000` → bitmap", 8);
      case "loopSumBigint" -> new Kernel("reference: plain Java loop `sum(x)`", 8);
      default -> new Kernel(method, 0);
    };
  }

  private static Row find(List<Row> rows, Predicate<Row> p) {
    return rows.stream().filter(p).findFirst().orElse(null);
  }

  private static String cpuModel() {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/cpuinfo"))) {
        if (line.startsWith("model name")) return line.substring(line.indexOf(':') + 1).trim();
      }
    } catch (IOException | RuntimeException e) {
      // not Linux
    }
    return null;
  }

  private static String fmt(String f, Object... a) {
    return String.format(Locale.ROOT, f, a);
  }
}
