package dev.quiver.planner;

import dev.quiver.planner.PreparedQuery.ExplainMode;
import dev.quiver.planner.exec.Operator;
import dev.quiver.planner.exec.PhysicalPlanner;
import dev.quiver.planner.kernel.EvalContext;
import dev.quiver.planner.optimizer.Optimizer;
import dev.quiver.planner.optimizer.OptimizerContext;
import dev.quiver.planner.plan.LogicalPlan;
import dev.quiver.planner.sql.Analyzer;
import dev.quiver.planner.sql.Parameters;
import dev.quiver.planner.sql.SqlLimits;
import dev.quiver.planner.sql.SqlParser;
import dev.quiver.scan.read.ScanOptions;
import dev.quiver.planner.sql.Statement;
import dev.quiver.planner.sql.StatementClassifier;
import dev.quiver.scan.table.Catalog;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/** The planner's entry point: SQL text to a {@link PreparedQuery}, and a prepared query to batches. */
public final class QueryEngine {
  public static final Schema EXPLAIN_SCHEMA =
      new Schema(List.of(new Field("plan", new FieldType(false, ArrowType.Utf8.INSTANCE, null), null)));

  private final Catalog catalog;
  private final QuerySettings defaults;
  private final SqlLimits limits;
  private final ScanOptions scanOptions;
  private final java.util.concurrent.atomic.AtomicLong plansBuilt = new java.util.concurrent.atomic.AtomicLong();

  public QueryEngine(Catalog catalog) {
    this(catalog, QuerySettings.DEFAULT);
  }

  public QueryEngine(Catalog catalog, QuerySettings defaults) {
    this(catalog, defaults, SqlLimits.DEFAULT);
  }

  /** An engine whose statements must stay within {@code limits} (size, nesting, IN lists, parse time). */
  public QueryEngine(Catalog catalog, QuerySettings defaults, SqlLimits limits) {
    this(catalog, defaults, limits, ScanOptions.shared());
  }

  /** As above, its scans reading as {@code scanOptions} say (whose executor the caller owns and closes). */
  public QueryEngine(Catalog catalog, QuerySettings defaults, SqlLimits limits, ScanOptions scanOptions) {
    this.catalog = catalog;
    this.defaults = defaults;
    this.limits = limits;
    this.scanOptions = scanOptions;
  }

  public QuerySettings defaults() {
    return defaults;
  }

  /** Statements parsed, analyzed and optimized by this engine so far (for tests and metrics). */
  public long plansBuilt() {
    return plansBuilt.get();
  }

  public SqlLimits limits() {
    return limits;
  }

  public ScanOptions scanOptions() {
    return scanOptions;
  }

  public Catalog catalog() {
    return catalog;
  }

  /**
   * The data directory as it is now (listed again: files and tables added, deleted or replaced since are
   * seen). Each {@code prepare} takes one, unless given one to plan over.
   */
  public Catalog snapshot() {
    return catalog.refresh();
  }

  /** Parses, analyzes and optimizes {@code sql}; {@code allocator} is used for constant folding only. */
  public PreparedQuery prepare(String sql, BufferAllocator allocator) {
    return prepare(sql, allocator, defaults);
  }

  public PreparedQuery prepare(String sql, BufferAllocator allocator, QuerySettings settings) {
    return prepare(sql, allocator, settings, null);
  }

  /**
   * Plans {@code sql} with {@code parameterValues} (physical-form values of the parameters' wire types,
   * in order) bound as literals; null plans with unknown values, for the schemas of a prepare.
   */
  public PreparedQuery prepare(String sql, BufferAllocator allocator, QuerySettings settings, List<Object> parameterValues) {
    return prepare(sql, allocator, settings, parameterValues, Cancellation.NONE);
  }

  /** As above; the optimizer checks {@code cancellation} between rules and while ordering many joins. */
  public PreparedQuery prepare(String sql, BufferAllocator allocator, QuerySettings settings, List<Object> parameterValues,
      Cancellation cancellation) {
    limits.checkLength(sql);
    return prepare(snapshot(), sql, allocator, settings, parameterValues, cancellation);
  }

  /**
   * As {@link #prepare(String, BufferAllocator, QuerySettings, List)}, over the tables of {@code snapshot}
   * (e.g. one snapshot for every parameter row of one execution).
   */
  public PreparedQuery prepare(Catalog snapshot, String sql, BufferAllocator allocator, QuerySettings settings,
      List<Object> parameterValues, Cancellation cancellation) {
    return prepare(snapshot, sql, allocator, settings, parameterValues, cancellation, null);
  }

  /** As above; the simplifier's rewrites of predicates are recorded in the steps when {@code rewrites} is not null. */
  PreparedQuery prepare(Catalog snapshot, String sql, BufferAllocator allocator, QuerySettings settings,
      List<Object> parameterValues, Cancellation cancellation, List<Optimizer.Rewrite> rewrites) {
    limits.checkLength(sql);
    long started = System.nanoTime();
    plansBuilt.incrementAndGet();
    ExplainMode mode = ExplainMode.NONE;
    String text = sql;
    // SET and SHOW are the server's (session settings); here they are text the parser and analyzer refuse
    Statement kind = StatementClassifier.classify(sql);
    if (kind instanceof Statement.Explain e) {
      mode = e.analyze() ? (e.verbose() ? ExplainMode.ANALYZE_VERBOSE : ExplainMode.ANALYZE)
          : e.verbose() ? ExplainMode.VERBOSE : ExplainMode.EXPLAIN;
      text = e.query(); // the prefix blanked: line:column positions in errors match the user's text
    } else if (kind instanceof Statement.Catalog c) {
      text = CatalogQueries.query(snapshot, c, sql);
    }
    Parameters parameters = new Parameters(parameterValues);
    LogicalPlan analyzed = new Analyzer(snapshot, text, parameters, limits).analyze(SqlParser.parse(text, limits));
    EvalContext eval = EvalContext.now(settings.zone());
    Optimizer.Result optimized = Optimizer.standard(settings.simplify()).withMaxPasses(limits.maxOptimizerPasses()).optimize(analyzed, new OptimizerContext(allocator, eval, cancellation,
        limits.maxSimplifierPasses(), rewrites));
    Schema schema = mode == ExplainMode.NONE ? optimized.plan().schema() : EXPLAIN_SCHEMA;
    return new PreparedQuery(sql, mode, analyzed, optimized, schema, eval, parameters.types(), settings.batchRows(),
        settings.pruning(), 1, System.nanoTime() - started, settings.parallelPipelines());
  }

  /**
   * Plans and runs {@code sql} as a Flight query would (same settings, memory, cancellation), keeping the first
   * {@code options.maxRows()} rows as text and the run's profile: plans as trees with per-operator metrics, the
   * simplifier's rewrites, and per row group what each scan did. Only queries (no EXPLAIN, SET, SHOW).
   */
  public dev.quiver.planner.profile.ProfiledRun runProfiled(String sql, BufferAllocator allocator,
      QuerySettings settings, Cancellation cancellation, dev.quiver.planner.profile.ProfileOptions options) {
    return new Profiler(this, scanOptions).run(sql, allocator, settings, cancellation, options);
  }

  /** The names of the tables of the data directory as it is now, sorted. */
  public List<String> tableNames() {
    List<String> names = new ArrayList<>();
    for (dev.quiver.scan.table.ParquetTable t : snapshot().tables()) names.add(t.name());
    names.sort(String.CASE_INSENSITIVE_ORDER);
    return names;
  }

  /** The table {@code name} as its footers describe it; a QuiverException NOT_FOUND when there is no such table. */
  public dev.quiver.planner.profile.TableDescription describeTable(String name) {
    return TableDescriber.describe(snapshot(), name);
  }

  public QueryExecution execute(PreparedQuery query, BufferAllocator allocator) {
    return execute(query, allocator, Cancellation.NONE);
  }

  /** Runs a prepared query; its scans call {@code cancellation} between batches. */
  public QueryExecution execute(PreparedQuery query, BufferAllocator allocator, Cancellation cancellation) {
    Operator root = new PhysicalPlanner(allocator, query.eval(), cancellation, query.batchRows(), query.pruning(),
        scanOptions, query.parallelPipelines()).plan(query.plan());
    if (query.explain() == ExplainMode.NONE) return new OperatorExecution(root, query.schema());
    try {
      boolean analyze = query.explain() == ExplainMode.ANALYZE || query.explain() == ExplainMode.ANALYZE_VERBOSE;
      if (analyze) {
        VectorSchemaRoot batch;
        while ((batch = root.next()) != null) batch.close();
      }
      return new LinesExecution(explainLines(query, root, analyze), allocator);
    } finally {
      root.close();
    }
  }

  private static List<String> explainLines(PreparedQuery q, Operator root, boolean analyze) {
    List<String> lines = new ArrayList<>();
    boolean verbose = q.explain() == ExplainMode.VERBOSE || q.explain() == ExplainMode.ANALYZE_VERBOSE;
    if (verbose) {
      lines.add("== Analyzed Logical Plan ==");
      lines.addAll(render(q.analyzed()));
      for (Optimizer.Step s : q.steps()) {
        lines.add("== After " + s.rule() + " ==");
        lines.addAll(render(s.plan()));
      }
    }
    lines.add("== Optimized Logical Plan ==");
    lines.addAll(render(q.plan()));
    lines.add("== Physical Plan ==");
    renderPhysical(root, 0, analyze, lines);
    if (analyze) {
      lines.add(String.format(java.util.Locale.ROOT, "Planning: plans_built=%d planning_ms=%.3f", q.plansBuilt(),
          q.planningNanos() / 1e6));
    }
    return lines;
  }

  /** The plan as indented lines, one per node. */
  public static List<String> render(LogicalPlan plan) {
    List<String> out = new ArrayList<>();
    render(plan, 0, out);
    return out;
  }

  private static void render(LogicalPlan plan, int depth, List<String> out) {
    out.add("  ".repeat(depth) + plan.describe());
    for (LogicalPlan c : plan.children()) render(c, depth + 1, out);
  }

  private static void renderPhysical(Operator op, int depth, boolean analyze, List<String> out) {
    StringBuilder line = new StringBuilder("  ".repeat(depth)).append(op.describe());
    if (analyze) {
      for (Map.Entry<String, Object> e : op.allMetrics().entrySet()) {
        line.append(' ').append(e.getKey()).append('=').append(e.getValue());
      }
    }
    out.add(line.toString());
    for (Operator c : op.children()) renderPhysical(c, depth + 1, analyze, out);
  }

  private static final class OperatorExecution implements QueryExecution {
    private final Operator root;
    private final Schema schema;

    OperatorExecution(Operator root, Schema schema) {
      this.root = root;
      this.schema = schema;
    }

    @Override public Schema schema() { return schema; }
    @Override public VectorSchemaRoot next() { return root.next(); }
    @Override public void close() { root.close(); }
  }

  private static final class LinesExecution implements QueryExecution {
    private final List<String> lines;
    private final BufferAllocator allocator;
    private boolean done;

    LinesExecution(List<String> lines, BufferAllocator allocator) {
      this.lines = lines;
      this.allocator = allocator;
    }

    @Override public Schema schema() { return EXPLAIN_SCHEMA; }

    @Override
    public VectorSchemaRoot next() {
      if (done) return null;
      done = true;
      VectorSchemaRoot root = VectorSchemaRoot.create(EXPLAIN_SCHEMA, allocator);
      VarCharVector v = (VarCharVector) root.getVector(0);
      v.allocateNew();
      for (int i = 0; i < lines.size(); i++) v.setSafe(i, lines.get(i).getBytes(StandardCharsets.UTF_8));
      root.setRowCount(lines.size());
      return root;
    }

    @Override public void close() {}
  }
}
