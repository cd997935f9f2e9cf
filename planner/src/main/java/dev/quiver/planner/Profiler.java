package dev.quiver.planner;

import dev.quiver.common.ErrorCode;
import dev.quiver.common.QuiverException;
import dev.quiver.common.Values;
import dev.quiver.planner.exec.Operator;
import dev.quiver.planner.exec.PhysicalPlanner;
import dev.quiver.planner.exec.ScanExec;
import dev.quiver.planner.expr.Expr;
import dev.quiver.planner.optimizer.Optimizer;
import dev.quiver.planner.plan.LogicalPlan;
import dev.quiver.planner.profile.ColumnStat;
import dev.quiver.planner.profile.PlanNode;
import dev.quiver.planner.profile.ProfileOptions;
import dev.quiver.planner.profile.ProfiledRun;
import dev.quiver.planner.profile.QueryProfile;
import dev.quiver.planner.profile.RewriteStep;
import dev.quiver.planner.profile.RowGroupOutcome;
import dev.quiver.planner.profile.ScanProfile;
import dev.quiver.planner.sql.Statement;
import dev.quiver.planner.sql.StatementClassifier;
import dev.quiver.planner.types.SqlTypes;
import dev.quiver.scan.predicate.ScanPredicate;
import dev.quiver.scan.prune.RowGroupReport;
import dev.quiver.scan.read.ScanOptions;
import dev.quiver.scan.table.ChunkStats;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.TimeStampVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.UInt1Vector;
import org.apache.arrow.vector.UInt2Vector;
import org.apache.arrow.vector.UInt4Vector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * A query run for a console ({@link QueryEngine#runProfiled}): planned as a Flight query is (the engine's
 * {@code prepare}, the simplifier's rewrites of predicates recorded in the optimizer's steps), executed with the
 * operators' EXPLAIN ANALYZE metrics and the scans' per-row-group reports, the first rows kept as text; then, when
 * asked, the oracle: each scan read again with pruning off, counting per row group the rows its exact conjuncts keep.
 */
final class Profiler {
  private final QueryEngine engine;
  private final ScanOptions scanOptions;

  Profiler(QueryEngine engine, ScanOptions scanOptions) {
    this.engine = engine;
    this.scanOptions = scanOptions;
  }

  ProfiledRun run(String sql, BufferAllocator allocator, QuerySettings settings, Cancellation cancellation,
      ProfileOptions options) {
    if (options == null) options = new ProfileOptions(200, false);
    if (settings == null) settings = engine.defaults();
    if (cancellation == null) cancellation = Cancellation.NONE;
    int maxRows = Math.max(0, options.maxRows());
    Statement statement = StatementClassifier.classify(sql);
    if (!(statement instanceof Statement.Query) && !(statement instanceof Statement.Catalog)) { // SHOW TABLES, DESCRIBE run
      String kind = statement instanceof Statement.Explain ? "EXPLAIN" : statement instanceof Statement.Set ? "SET" : "SHOW";
      throw new QuiverException(ErrorCode.UNSUPPORTED,
          "the console runs queries only, not " + kind + " (its plan and metrics are shown with every query)");
    }
    long started = System.nanoTime();
    List<Optimizer.Rewrite> rewrites = new ArrayList<>();
    PreparedQuery q = engine.prepare(engine.snapshot(), sql, allocator, settings, null, cancellation, rewrites);
    long executionStarted = System.nanoTime();
    Operator root = new PhysicalPlanner(allocator, q.eval(), cancellation, q.batchRows(), q.pruning(), scanOptions,
        q.parallelPipelines()).recordingRowGroups().plan(q.plan());
    List<List<String>> rows = new ArrayList<>();
    long rowCount = 0;
    PlanNode physical;
    List<ScanExec> scanOps = new ArrayList<>();
    List<String> scanIds = new ArrayList<>();
    long executionNanos;
    try {
      VectorSchemaRoot batch;
      while ((batch = root.next()) != null) {
        try {
          int n = batch.getRowCount();
          for (int i = 0; i < n && rows.size() < maxRows; i++) rows.add(row(batch, i));
          rowCount += n;
        } finally {
          batch.close();
        }
      }
      executionNanos = System.nanoTime() - executionStarted;
      physical = physicalNode(root, new int[1], scanOps, scanIds);
    } finally {
      root.close();
    }
    double elapsedMs = (System.nanoTime() - started) / 1e6;

    List<ScanProfile> scans = new ArrayList<>();
    for (int s = 0; s < scanOps.size(); s++) {
      Map<String, Long> matching = options.oracle() ? oracle(scanOps.get(s).scanPlan(), q, allocator, cancellation) : null;
      scans.add(scanProfile(scanIds.get(s), scanOps.get(s), matching));
    }
    List<RewriteStep> steps = new ArrayList<>();
    for (Optimizer.Step step : q.steps()) {
      for (Optimizer.Rewrite r : step.rewrites()) {
        steps.add(new RewriteStep(r.rule(), r.before().toString(), r.after().toString()));
      }
    }
    List<String> names = new ArrayList<>();
    List<String> types = new ArrayList<>();
    for (Field f : q.schema().getFields()) {
      names.add(f.getName());
      types.add(SqlTypes.sqlName(f.getType()));
    }
    QueryProfile profile = new QueryProfile(sql, settings.simplify(), logicalNode(q.plan(), new int[1]), physical,
        List.copyOf(steps), List.copyOf(scans), q.planningNanos() / 1e6, executionNanos / 1e6);
    return new ProfiledRun(List.copyOf(names), List.copyOf(types), java.util.Collections.unmodifiableList(rows),
        rowCount, rowCount > rows.size(), elapsedMs, profile);
  }

  /** One row of {@code batch} as text, as a client shows it; NULL as null. */
  private static List<String> row(VectorSchemaRoot batch, int i) {
    List<String> out = new ArrayList<>(batch.getFieldVectors().size());
    for (FieldVector v : batch.getFieldVectors()) out.add(text(v, i));
    return java.util.Collections.unmodifiableList(out);
  }

  static String text(FieldVector v, int i) {
    if (v.isNull(i)) return null;
    ArrowType type = v.getField().getType();
    Object value;
    if (v instanceof DateDayVector d) value = (long) d.get(i);
    else if (v instanceof TimeStampVector t) value = t.get(i);
    else if (v instanceof BigIntVector b) value = b.get(i);
    else if (v instanceof IntVector b) value = (long) b.get(i);
    else if (v instanceof SmallIntVector b) value = (long) b.get(i);
    else if (v instanceof TinyIntVector b) value = (long) b.get(i);
    else if (v instanceof UInt8Vector b) value = b.get(i);
    else if (v instanceof UInt4Vector b) value = Integer.toUnsignedLong(b.get(i));
    else if (v instanceof UInt2Vector b) value = (long) b.get(i);
    else if (v instanceof UInt1Vector b) value = (long) (b.get(i) & 0xFF);
    else if (v instanceof Float8Vector f) value = f.get(i);
    else if (v instanceof Float4Vector f) value = (double) f.get(i);
    else if (v instanceof VarBinaryVector b) value = b.get(i);
    else {
      Object o = v.getObject(i);
      value = o instanceof org.apache.arrow.vector.util.Text t ? t.toString() : o;
      if (!(value instanceof String || value instanceof Boolean || value instanceof java.math.BigDecimal)) {
        return String.valueOf(value);
      }
    }
    return Values.format(value, type);
  }

  /** The optimized logical plan as a tree of nodes {@code l0, l1, …} (no metrics). */
  private static PlanNode logicalNode(LogicalPlan plan, int[] next) {
    String id = "l" + next[0]++;
    String[] split = split(plan.describe());
    List<PlanNode> children = new ArrayList<>();
    for (LogicalPlan c : plan.children()) children.add(logicalNode(c, next));
    return new PlanNode(id, split[0], split[1], -1, -1, Map.of(), List.copyOf(children));
  }

  /** The operator tree as nodes {@code p0, p1, …} with their EXPLAIN ANALYZE metrics; collects the scans. */
  private static PlanNode physicalNode(Operator op, int[] next, List<ScanExec> scans, List<String> scanIds) {
    String id = "p" + next[0]++;
    if (op instanceof ScanExec s) {
      scans.add(s);
      scanIds.add(id);
    }
    String[] split = split(op.describe());
    Map<String, String> attributes = new LinkedHashMap<>();
    for (Map.Entry<String, Object> e : op.allMetrics().entrySet()) attributes.put(e.getKey(), String.valueOf(e.getValue()));
    long outputRows = Long.parseLong(attributes.get("output_rows"));
    double elapsedMs = Double.parseDouble(attributes.get("elapsed_ms"));
    List<PlanNode> children = new ArrayList<>();
    for (Operator c : op.children()) children.add(physicalNode(c, next, scans, scanIds));
    return new PlanNode(id, split[0], split[1], outputRows, elapsedMs, java.util.Collections.unmodifiableMap(attributes),
        List.copyOf(children));
  }

  /** An EXPLAIN line split into the operator (before the first ": ") and the rest. */
  private static String[] split(String line) {
    int at = line.indexOf(": ");
    return at < 0 ? new String[] {line, ""} : new String[] {line.substring(0, at), line.substring(at + 2)};
  }

  private static ScanProfile scanProfile(String nodeId, ScanExec scan, Map<String, Long> matching) {
    LogicalPlan.TableScan plan = scan.scanPlan();
    List<String> exact = new ArrayList<>();
    for (Expr e : plan.exact()) exact.add(e.toString());
    List<RowGroupOutcome> outcomes = new ArrayList<>();
    for (RowGroupReport r : scan.scanMetrics().rowGroupReports()) {
      List<ColumnStat> stats = new ArrayList<>();
      for (ChunkStats c : r.stats()) {
        stats.add(new ColumnStat(c.column(), c.min(), c.max(), c.nullCount(), c.hasDictionary(), c.hasBloomFilter()));
      }
      Long m = matching == null ? null : matching.get(key(r));
      outcomes.add(new RowGroupOutcome(r.file(), r.index(), r.rows(), r.compressedBytes(), outcome(r), r.pagesTotal(),
          r.pagesPruned(), r.rowsRead(), m == null ? -1 : m, List.copyOf(stats)));
    }
    return new ScanProfile(nodeId, plan.table().name(), plan.predicate() == null ? null : plan.predicate().toString(),
        plan.residual() == null ? null : plan.residual().toString(), List.copyOf(exact),
        List.copyOf(ScanPredicate.columns(plan.predicate())),
        java.util.Collections.unmodifiableMap(new LinkedHashMap<>(scan.metrics())), matching != null,
        List.copyOf(outcomes));
  }

  private static RowGroupOutcome.Outcome outcome(RowGroupReport r) {
    if (r.prunedBy() != null) {
      return switch (r.prunedBy()) {
        case PARTITION -> RowGroupOutcome.Outcome.PRUNED_PARTITION;
        case STATISTICS -> RowGroupOutcome.Outcome.PRUNED_STATISTICS;
        case DICTIONARY -> RowGroupOutcome.Outcome.PRUNED_DICTIONARY;
        case BLOOM -> RowGroupOutcome.Outcome.PRUNED_BLOOM;
        case RUNTIME -> RowGroupOutcome.Outcome.PRUNED_RUNTIME;
        case TOP_N -> RowGroupOutcome.Outcome.PRUNED_TOP_N;
      };
    }
    if (r.fromStatistics()) return RowGroupOutcome.Outcome.FROM_STATISTICS;
    return r.pagesPruned() > 0 ? RowGroupOutcome.Outcome.READ_PAGES_PRUNED : RowGroupOutcome.Outcome.READ;
  }

  private static String key(RowGroupReport r) {
    return r.file() + "#" + r.index();
  }

  /**
   * The oracle for one scan: the scan alone, read again with pruning off (every row group, every page), its exact
   * conjuncts applied to every row; per row group the rows they keep.
   */
  private Map<String, Long> oracle(LogicalPlan.TableScan scan, PreparedQuery q, BufferAllocator allocator,
      Cancellation cancellation) {
    Operator op = new PhysicalPlanner(allocator, q.eval(), cancellation, q.batchRows(), false, scanOptions, false)
        .recordingRowGroups().plan(scan);
    try {
      VectorSchemaRoot batch;
      while ((batch = op.next()) != null) batch.close();
      Map<String, Long> out = new HashMap<>();
      if (op instanceof ScanExec s) {
        for (RowGroupReport r : s.scanMetrics().rowGroupReports()) out.put(key(r), r.rowsPassing());
      }
      return out;
    } finally {
      op.close();
    }
  }
}
