package dev.quiver.planner.exec;

import dev.quiver.planner.kernel.EvalContext;
import dev.quiver.planner.kernel.ExprCompiler;
import dev.quiver.planner.kernel.Kernels;
import dev.quiver.planner.plan.LogicalPlan;
import dev.quiver.planner.plan.PlanVisitor;
import dev.quiver.scan.read.ScanOptions;
import org.apache.arrow.memory.BufferAllocator;

/** Turns an optimized logical plan into operators that allocate from the query's allocator. */
public final class PhysicalPlanner implements PlanVisitor<Operator> {
  private final BufferAllocator allocator;
  private final EvalContext ctx;

  private final dev.quiver.planner.Cancellation cancellation;

  private final int batchRows;
  private final boolean pruning;
  private final ScanOptions scanOptions;
  /** Whether filters, projections and partial aggregations above a scan run in the scan's tasks. */
  private final boolean parallelPipelines;
  /** Whether scans keep a report per row group (for a profile). */
  private boolean recordRowGroups;

  public PhysicalPlanner(BufferAllocator allocator, EvalContext ctx,
      dev.quiver.planner.Cancellation cancellation, int batchRows, boolean pruning) {
    this(allocator, ctx, cancellation, batchRows, pruning, ScanOptions.shared());
  }

  /** As above, the scans reading as {@code scanOptions} say (threads, decoders, codecs, executor). */
  public PhysicalPlanner(BufferAllocator allocator, EvalContext ctx,
      dev.quiver.planner.Cancellation cancellation, int batchRows, boolean pruning, ScanOptions scanOptions) {
    this(allocator, ctx, cancellation, batchRows, pruning, scanOptions, true);
  }

  /**
   * As above; with {@code parallelPipelines} the stateless operators directly above a scan (filters, projections)
   * and the first phase of an aggregation over them run inside the scan's row-group tasks, on its threads.
   */
  public PhysicalPlanner(BufferAllocator allocator, EvalContext ctx, dev.quiver.planner.Cancellation cancellation,
      int batchRows, boolean pruning, ScanOptions scanOptions, boolean parallelPipelines) {
    this.parallelPipelines = parallelPipelines;
    this.pruning = pruning;
    this.scanOptions = scanOptions;
    this.allocator = allocator;
    this.ctx = ctx;
    this.cancellation = cancellation;
    this.batchRows = batchRows;
  }

  /** Makes this planner's scans keep a report per row group ({@code ScanMetrics.recordingRowGroups()}). */
  public PhysicalPlanner recordingRowGroups() {
    this.recordRowGroups = true;
    return this;
  }

  public Operator plan(LogicalPlan plan) {
    Operator op = plan.accept(this);
    op.cancellation = cancellation;
    return op;
  }

  /** The scan operator of each logical scan planned so far (by identity): where runtime filters go. */
  private final java.util.Map<LogicalPlan.TableScan, ScanExec> scans = new java.util.IdentityHashMap<>();

  @Override
  public Operator visitScan(LogicalPlan.TableScan p) {
    ScanExec scan = new ScanExec(p, ScanFilter.of(p, ctx), allocator, batchRows, cancellation, pruning, scanOptions, null,
        recordRowGroups);
    scans.put(p, scan);
    return scan;
  }

  /**
   * The table scan and its column whose values reach column {@code name} of {@code plan}'s output unchanged, through
   * filters, projections that pass the column on, and sides of joins that keep their rows as they are (both sides of
   * an inner join, the preserved side of an outer one, the left of a semi, anti or mark join); null when there is
   * none. A filter on that scan column that drops only rows whose {@code name} value the consumer would drop anyway
   * is then legal at the scan: the rows it drops reach {@code name} unchanged, or not at all.
   */
  static Object[] traceToScan(LogicalPlan plan, String name) {
    while (true) {
      if (plan instanceof LogicalPlan.TableScan ts) {
        int i = ts.names().indexOf(name);
        return i < 0 ? null : new Object[] {ts, ts.columns().get(i)};
      }
      if (plan instanceof LogicalPlan.Filter f) {
        plan = f.input();
      } else if (plan instanceof LogicalPlan.Project p) {
        LogicalPlan.NamedExpr def = null;
        for (LogicalPlan.NamedExpr n : p.exprs()) if (n.name().equals(name)) def = n;
        if (def == null || !(def.expr() instanceof dev.quiver.planner.expr.Expr.ColumnRef c)) return null;
        name = c.name();
        plan = p.input();
      } else if (plan instanceof LogicalPlan.Join j) {
        LogicalPlan.JoinType t = j.type();
        boolean inLeft = names(j.left()).contains(name);
        if (inLeft && (t == LogicalPlan.JoinType.INNER || t == LogicalPlan.JoinType.LEFT || t.leftOnly())) {
          plan = j.left();
        } else if (!inLeft && (t == LogicalPlan.JoinType.INNER || t == LogicalPlan.JoinType.RIGHT)) {
          plan = j.right();
        } else {
          return null;
        }
      } else {
        return null;
      }
    }
  }

  @Override
  public Operator visitOneRow(LogicalPlan.OneRow p) {
    return new OneRowExec(allocator);
  }

  @Override
  public Operator visitEmpty(LogicalPlan.Empty p) {
    return new EmptyExec(p.schema());
  }

  /** Windows whose row_number() a filter right above keeps to {@code <= k}: k (WindowExec's per-partition limit). */
  private final java.util.Map<LogicalPlan.Window, Long> windowLimits = new java.util.IdentityHashMap<>();

  /** The largest per-partition limit used: beyond it a heap per partition is no cheaper than the sort. */
  static final long WINDOW_LIMIT_MAX = 10_000;

  /**
   * Notes a per-partition limit for the window below {@code p} (directly, or through one projection that passes
   * its columns on) when all its calls are {@code row_number()} over one partitioning and order and a conjunct of
   * {@code p} keeps a row number to {@code <= k}, {@code < k} or {@code = k}: rows numbered above k then fail the
   * filter, and the first k of each partition are numbered as in the whole input.
   */
  private void noteWindowLimit(LogicalPlan.Filter p) {
    LogicalPlan below = p.input();
    LogicalPlan.Project project = below instanceof LogicalPlan.Project pr ? pr : null;
    if (project != null) below = project.input();
    if (!(below instanceof LogicalPlan.Window w) || w.calls().isEmpty()) return;
    LogicalPlan.WindowCall first = w.calls().get(0);
    java.util.Set<String> numbers = new java.util.HashSet<>();
    for (LogicalPlan.WindowCall c : w.calls()) {
      if (c.func() != LogicalPlan.WindowFunc.ROW_NUMBER || !c.partitionBy().equals(first.partitionBy())
          || !c.orderBy().equals(first.orderBy())) {
        return;
      }
      numbers.add(c.name());
    }
    for (dev.quiver.planner.expr.Expr c : dev.quiver.planner.expr.Exprs.conjuncts(p.condition())) {
      if (!(c instanceof dev.quiver.planner.expr.Expr.Comparison cmp)) continue;
      boolean columnLeft = cmp.left() instanceof dev.quiver.planner.expr.Expr.ColumnRef;
      dev.quiver.planner.expr.Expr col = columnLeft ? cmp.left() : cmp.right();
      dev.quiver.planner.expr.Expr lit = columnLeft ? cmp.right() : cmp.left();
      if (!(col instanceof dev.quiver.planner.expr.Expr.ColumnRef ref)
          || !(lit instanceof dev.quiver.planner.expr.Expr.Literal l) || !(l.value() instanceof Long k)) {
        continue;
      }
      String name = ref.name();
      if (project != null) {
        name = null;
        for (LogicalPlan.NamedExpr n : project.exprs()) {
          if (n.name().equals(ref.name()) && n.expr() instanceof dev.quiver.planner.expr.Expr.ColumnRef src) name = src.name();
        }
      }
      if (name == null || !numbers.contains(name)) continue;
      dev.quiver.planner.expr.Expr.CmpOp op = cmp.op();
      if (!columnLeft) { // k op rn: the mirrored comparison
        op = switch (op) { case LT -> dev.quiver.planner.expr.Expr.CmpOp.GT; case LE -> dev.quiver.planner.expr.Expr.CmpOp.GE;
          case GT -> dev.quiver.planner.expr.Expr.CmpOp.LT; case GE -> dev.quiver.planner.expr.Expr.CmpOp.LE; default -> op; };
      }
      long limit = switch (op) {
        case LE, EQ -> k;
        case LT -> k - 1;
        default -> -1;
      };
      if (limit >= 1 && limit <= WINDOW_LIMIT_MAX) {
        Long had = windowLimits.get(w);
        windowLimits.put(w, had == null ? limit : Math.min(had, limit));
      }
    }
  }

  @Override
  public Operator visitFilter(LogicalPlan.Filter p) {
    noteWindowLimit(p);
    if (parallelPipelines && overScan(p)) return fused(p, null, null);
    return new FilterExec(plan(p.input()), p.condition(), allocator, ctx);
  }

  /**
   * Whether {@code p} is a chain of filters, projections and hash joins that can probe in scan tasks (through their
   * probe side, possibly none) over a table scan.
   */
  private static boolean overScan(LogicalPlan p) {
    while (p instanceof LogicalPlan.Filter || p instanceof LogicalPlan.Project || fusableJoin(p)) p = p.children().get(0);
    return p instanceof LogicalPlan.TableScan;
  }

  /**
   * The filters, projections and join probes from {@code top} down to its scan run in the scan's tasks, followed by
   * the partial phase of {@code aggregate} (null: none) over {@code top}, whose final phase then runs here. The
   * operators stay in the tree (EXPLAIN shows them, marked, with the rows they produced in the tasks). The joins'
   * build sides are planned as usual, and built, top join first, before the scan starts.
   */
  private Operator fused(LogicalPlan top, LogicalPlan.Aggregate aggregate, LogicalPlan.Expand expand) {
    java.util.List<LogicalPlan> chain = new java.util.ArrayList<>();
    LogicalPlan q = top;
    while (!(q instanceof LogicalPlan.TableScan)) {
      chain.add(q);
      q = q.children().get(0);
    }
    java.util.Collections.reverse(chain); // from the scan up
    LogicalPlan.TableScan scan = (LogicalPlan.TableScan) q;
    java.util.List<ScanPipeline.Stage> stages = new java.util.ArrayList<>();
    java.util.List<String> descriptions = new java.util.ArrayList<>();
    for (LogicalPlan node : chain) {
      org.apache.arrow.vector.types.pojo.Schema in = node.children().get(0).schema();
      if (node instanceof LogicalPlan.Filter f) {
        stages.add(new ScanPipeline.Filter(ExprCompiler.compile(f.condition(), in, ctx)));
        descriptions.add("FilterExec: " + f.condition());
      } else if (node instanceof LogicalPlan.Join) {
        stages.add(new ScanPipeline.Probe());
        descriptions.add(null); // the join's own
      } else {
        LogicalPlan.Project p = (LogicalPlan.Project) node;
        java.util.List<dev.quiver.planner.kernel.PhysicalExpr> exprs = new java.util.ArrayList<>();
        for (LogicalPlan.NamedExpr n : p.exprs()) exprs.add(ExprCompiler.compile(n.expr(), in, ctx));
        stages.add(new ScanPipeline.Project(exprs, p.schema()));
        descriptions.add(projectDescription(p));
      }
    }
    java.util.List<java.util.List<dev.quiver.planner.kernel.PhysicalExpr>> projections = null;
    if (expand != null) {
      projections = new java.util.ArrayList<>();
      for (java.util.List<LogicalPlan.NamedExpr> set : expand.projections()) {
        java.util.List<dev.quiver.planner.kernel.PhysicalExpr> exprs = new java.util.ArrayList<>();
        for (LogicalPlan.NamedExpr n : set) exprs.add(ExprCompiler.compile(n.expr(), top.schema(), ctx));
        projections.add(exprs);
      }
    }
    PartialAggregate.Spec partial = null;
    if (aggregate != null) {
      org.apache.arrow.vector.types.pojo.Schema in = expand != null ? expand.schema() : top.schema();
      java.util.List<dev.quiver.planner.kernel.PhysicalExpr> keys = new java.util.ArrayList<>();
      java.util.List<org.apache.arrow.vector.types.pojo.ArrowType> keyTypes = new java.util.ArrayList<>();
      for (int g = 0; g < aggregate.groups().size(); g++) {
        keys.add(ExprCompiler.compile(aggregate.groups().get(g).expr(), in, ctx));
        keyTypes.add(aggregate.schema().getFields().get(g).getType());
      }
      java.util.List<dev.quiver.planner.kernel.PhysicalExpr> args = new java.util.ArrayList<>();
      for (LogicalPlan.AggregateCall c : aggregate.aggregates()) {
        args.add(c.arg() == null ? null : ExprCompiler.compile(c.arg(), in, ctx));
      }
      java.util.List<dev.quiver.planner.expr.Expr> keyExprs = new java.util.ArrayList<>();
      for (LogicalPlan.NamedExpr g : aggregate.groups()) keyExprs.add(g.expr());
      partial = new PartialAggregate.Spec(keys, args, aggregate.aggregates(), keyTypes,
          PartialAggregate.stateSchema(aggregate), keyExprs);
    }
    ScanPipeline pipeline = new ScanPipeline(stages, projections, expand == null ? null : expand.schema(), partial,
        allocator, cancellation);
    if (chain.isEmpty()) {
      pipeline.answerFromStatistics(scan.schema());
      pipeline.keysByIndex(scan.schema());
    }
    ScanExec scanOp = new ScanExec(scan, ScanFilter.of(scan, ctx), allocator, batchRows, cancellation, pruning, scanOptions,
        pipeline, recordRowGroups);
    scans.put(scan, scanOp);
    Operator op = scanOp;
    op.cancellation = cancellation;
    try {
      for (int i = 0; i < chain.size(); i++) {
        if (chain.get(i) instanceof LogicalPlan.Join j) {
          Operator right = plan(j.right());
          HashJoinExec join;
          try {
            join = join(j, split(j), op, right);
          } catch (RuntimeException e) {
            right.close();
            throw e;
          }
          ((ScanPipeline.Probe) stages.get(i)).join(join);
          join.fuseInto(pipeline, i, pipeline.stageRows[i]);
          op = join;
        } else {
          op = new FusedExec(op, chain.get(i).schema(), descriptions.get(i), pipeline.stageRows[i], pipeline, i);
        }
        op.cancellation = cancellation;
      }
    } catch (RuntimeException e) {
      op.close();
      throw e;
    }
    if (aggregate == null) return op;
    if (expand != null) {
      op = new FusedExec(op, expand.schema(), "ExpandExec: " + expand.describeSets(), pipeline.expandRows, pipeline,
          pipeline.expandIndex());
      op.cancellation = cancellation;
    }
    op = new FusedExec(op, partial.stateSchema(), "AggregateExec: mode=partial " + aggregateDescription(aggregate),
        pipeline.partialRows, pipeline, pipeline.partialIndex());
    ((FusedExec) op).passedRows = pipeline.passedRows;
    op.cancellation = cancellation;
    return new FinalAggregateExec(op, aggregate.schema(), partial.stateSchema(), aggregate.groups().size(),
        aggregate.aggregates(), "AggregateExec: mode=final " + aggregateDescription(aggregate), allocator, batchRows,
        emptyInputGroups(aggregate));
  }

  private static String projectDescription(LogicalPlan.Project p) {
    return "ProjectionExec: " + p.exprs().stream().map(n -> n.expr() + " AS " + n.name())
        .collect(java.util.stream.Collectors.joining(", "));
  }

  @Override
  public Operator visitProject(LogicalPlan.Project p) {
    if (parallelPipelines && overScan(p)) return fused(p, null, null);
    Operator input = plan(p.input());
    java.util.List<dev.quiver.planner.kernel.PhysicalExpr> exprs = new java.util.ArrayList<>();
    try {
      for (LogicalPlan.NamedExpr n : p.exprs()) exprs.add(ExprCompiler.compile(n.expr(), input.schema(), ctx));
    } catch (RuntimeException e) {
      input.close();
      throw e;
    }
    return new ProjectExec(input, p.schema(), exprs, projectDescription(p), allocator);
  }

  @Override
  public Operator visitAggregate(LogicalPlan.Aggregate p) {
    if (parallelPipelines && overScan(p.input()) && PartialAggregate.splittable(p)) return fused(p.input(), p, null);
    if (parallelPipelines && p.input() instanceof LogicalPlan.Expand e && overScan(e.input()) && PartialAggregate.splittable(p)) {
      return fused(e.input(), p, e); // grouping sets: the expansion and the partial aggregation in the scan's tasks
    }
    Operator input = plan(p.input());
    try {
      return aggregate(input, p, allocator, ctx, batchRows);
    } catch (RuntimeException e) {
      input.close();
      throw e;
    }
  }

  /** The hash aggregation of {@code p} over {@code input} (whose schema is {@code p.input()}'s). */
  static AggregateExec aggregate(Operator input, LogicalPlan.Aggregate p, BufferAllocator allocator, EvalContext ctx,
      int batchRows) {
    java.util.List<dev.quiver.planner.kernel.PhysicalExpr> keys = new java.util.ArrayList<>();
    for (LogicalPlan.NamedExpr g : p.groups()) keys.add(ExprCompiler.compile(g.expr(), input.schema(), ctx));
    java.util.List<dev.quiver.planner.kernel.PhysicalExpr> args = new java.util.ArrayList<>();
    java.util.List<Accumulator.Factory> accumulators = new java.util.ArrayList<>();
    for (LogicalPlan.AggregateCall c : p.aggregates()) {
      if (!c.orderBy().isEmpty() || c.arg2() != null) {
        // the value and its sort keys (or the second argument), read together by the accumulator
        java.util.List<dev.quiver.planner.kernel.PhysicalExpr> parts = new java.util.ArrayList<>();
        for (dev.quiver.planner.expr.Expr e : c.exprs()) parts.add(ExprCompiler.compile(e, input.schema(), ctx));
        args.add(TupleValues.of(parts));
      } else {
        args.add(c.arg() == null ? null : ExprCompiler.compile(c.arg(), input.schema(), ctx));
      }
      accumulators.add(Accumulator.factory(c));
    }
    String description = "AggregateExec: " + aggregateDescription(p);
    AggregateExec aggregate = new AggregateExec(input, p.schema(), keys, args, accumulators, description, allocator,
        batchRows, emptyInputGroups(p));
    if (input instanceof ScanExec scan && p.input() instanceof LogicalPlan.TableScan t) {
      java.util.List<dev.quiver.planner.expr.Expr> keyExprs = new java.util.ArrayList<>();
      for (LogicalPlan.NamedExpr g : p.groups()) keyExprs.add(g.expr());
      // the scan's batches come to this aggregation alone: its string keys may come as dictionary indexes
      aggregate.keysByIndex = scan.keysByIndex(ScanPipeline.keysByIndex(keyExprs, p.aggregates(), t.schema()));
    }
    return aggregate;
  }

  /**
   * The groups an aggregation over grouping sets outputs when its input has no row at all: one per grouping set
   * whose group columns are all constants in its projection of the {@link LogicalPlan.Expand} below (the set
   * {@code ()}), with those constants as keys, as {@code SELECT count(*) FROM empty} has one row.
   */
  private static java.util.List<java.util.List<Object>> emptyInputGroups(LogicalPlan.Aggregate p) {
    if (!(p.input() instanceof LogicalPlan.Expand e)) return java.util.List.of();
    java.util.List<java.util.List<Object>> rows = new java.util.ArrayList<>();
    for (java.util.List<LogicalPlan.NamedExpr> set : e.projections()) {
      java.util.Map<String, dev.quiver.planner.expr.Expr> defs = new java.util.HashMap<>();
      for (LogicalPlan.NamedExpr n : set) defs.put(n.name(), n.expr());
      java.util.List<Object> keys = new java.util.ArrayList<>();
      for (LogicalPlan.NamedExpr g : p.groups()) {
        dev.quiver.planner.expr.Expr d = g.expr() instanceof dev.quiver.planner.expr.Expr.ColumnRef c ? defs.get(c.name()) : null;
        if (!(d instanceof dev.quiver.planner.expr.Expr.Literal lit)) {
          keys = null;
          break;
        }
        keys.add(lit.value());
      }
      if (keys != null) rows.add(keys);
    }
    return rows;
  }

  private static String aggregateDescription(LogicalPlan.Aggregate p) {
    String g = p.groups().isEmpty() ? "" : "groupBy=[" + p.groups().stream().map(n -> n.expr() + " AS " + n.name())
        .collect(java.util.stream.Collectors.joining(", ")) + "] ";
    return g + p.aggregates().stream().map(a -> a + " AS " + a.name()).collect(java.util.stream.Collectors.joining(", "));
  }

  @Override
  public Operator visitSort(LogicalPlan.Sort p) {
    Operator input = plan(p.input());
    java.util.List<SortExec.Key> keys = new java.util.ArrayList<>();
    try {
      for (LogicalPlan.SortKey k : p.keys()) {
        keys.add(new SortExec.Key(ExprCompiler.compile(k.expr(), input.schema(), ctx), Kernels.family(k.expr().type()),
            k.ascending(), k.nullsFirst()));
      }
    } catch (RuntimeException e) {
      input.close();
      throw e;
    }
    String description = "SortExec: " + p.keys().stream().map(Object::toString)
        .collect(java.util.stream.Collectors.joining(", ")) + (p.fetch() >= 0 ? " fetch=" + p.fetch() : "");
    SortExec sort = new SortExec(input, keys, p.fetch(), description, allocator, batchRows, scanOptions.executor(),
        scanOptions.threads(), SortExec.PARALLEL_ROWS);
    topNFilter(p, sort);
    return sort;
  }

  /** The largest fetch whose bound is sent to the scan: beyond it the heap fills late and the bound is loose. */
  static final long TOP_N_FILTER_MAX = 100_000;

  /**
   * Gives an {@code ORDER BY k … LIMIT n} whose first key {@code k} reaches it unchanged from a scan column (see
   * {@link #traceToScan}) a {@link dev.quiver.scan.read.TopNFilter} shared with that scan: the scan reads its row
   * groups best first and, with pruning on, skips those that cannot beat the top-N's n-th row. Only for column types
   * whose statistics order values as SQL does (integers, dates, timestamps, decimals).
   */
  private void topNFilter(LogicalPlan.Sort p, SortExec sort) {
    if (p.fetch() <= 0 || p.fetch() > TOP_N_FILTER_MAX || p.keys().isEmpty()) return;
    LogicalPlan.SortKey first = p.keys().get(0);
    if (!(first.expr() instanceof dev.quiver.planner.expr.Expr.ColumnRef c)) return;
    org.apache.arrow.vector.types.pojo.ArrowType t = c.type();
    boolean ordered = t instanceof org.apache.arrow.vector.types.pojo.ArrowType.Int i && (i.getIsSigned() || i.getBitWidth() < 64)
        || t instanceof org.apache.arrow.vector.types.pojo.ArrowType.Date
        || t instanceof org.apache.arrow.vector.types.pojo.ArrowType.Timestamp
        || t instanceof org.apache.arrow.vector.types.pojo.ArrowType.Decimal;
    if (!ordered) return;
    Object[] target = traceToScan(p.input(), c.name());
    ScanExec scanOp = target == null ? null : scans.get((LogicalPlan.TableScan) target[0]);
    if (scanOp == null) return;
    dev.quiver.scan.read.TopNFilter filter = new dev.quiver.scan.read.TopNFilter((String) target[1], t,
        first.ascending(), first.nullsFirst());
    if (scanOp.topN(filter)) sort.topNFilter(filter);
  }

  @Override
  public Operator visitUnion(LogicalPlan.Union p) {
    java.util.List<Operator> inputs = new java.util.ArrayList<>();
    try {
      for (LogicalPlan c : p.inputs()) inputs.add(plan(c));
    } catch (RuntimeException e) {
      inputs.forEach(Operator::close);
      throw e;
    }
    return new UnionExec(inputs, p.schema());
  }

  @Override
  public Operator visitEnforceSingleRow(LogicalPlan.EnforceSingleRow p) {
    return new EnforceSingleRowExec(plan(p.input()), p.schema(), p.keys(), allocator);
  }

  /** A join's condition split into hash key pairs (left expression, right expression), their null-safety and the rest. */
  private record JoinParts(java.util.List<dev.quiver.planner.expr.Expr> keys,
      java.util.List<dev.quiver.planner.expr.Expr> residual, java.util.Set<Integer> nullSafeKeys) {}

  private static JoinParts split(LogicalPlan.Join p) {
    java.util.Set<String> leftNames = names(p.left());
    java.util.Set<String> rightNames = names(p.right());
    java.util.List<dev.quiver.planner.expr.Expr> keys = new java.util.ArrayList<>();
    java.util.List<dev.quiver.planner.expr.Expr> residual = new java.util.ArrayList<>();
    java.util.Set<Integer> nullSafeKeys = new java.util.HashSet<>();
    if (p.condition() != null) {
      for (dev.quiver.planner.expr.Expr c : dev.quiver.planner.expr.Exprs.conjuncts(p.condition())) {
        if (c instanceof dev.quiver.planner.expr.Expr.Comparison cmp && cmp.op() == dev.quiver.planner.expr.Expr.CmpOp.EQ) {
          java.util.Set<String> l = dev.quiver.planner.expr.Exprs.columns(cmp.left());
          java.util.Set<String> r = dev.quiver.planner.expr.Exprs.columns(cmp.right());
          if (!l.isEmpty() && !r.isEmpty() && leftNames.containsAll(l) && rightNames.containsAll(r)) {
            keys.add(cmp.left());
            keys.add(cmp.right());
            continue;
          }
          if (!l.isEmpty() && !r.isEmpty() && rightNames.containsAll(l) && leftNames.containsAll(r)) {
            keys.add(cmp.right());
            keys.add(cmp.left());
            continue;
          }
        }
        if (c instanceof dev.quiver.planner.expr.Expr.DistinctFrom d && d.not()) {
          // IS NOT DISTINCT FROM (INTERSECT, EXCEPT, null-safe decorrelation keys): a hash key on which NULL matches NULL
          java.util.Set<String> l = dev.quiver.planner.expr.Exprs.columns(d.left());
          java.util.Set<String> r = dev.quiver.planner.expr.Exprs.columns(d.right());
          if (!l.isEmpty() && !r.isEmpty() && leftNames.containsAll(l) && rightNames.containsAll(r)) {
            keys.add(d.left());
            keys.add(d.right());
            nullSafeKeys.add(keys.size() / 2 - 1);
            continue;
          }
          if (!l.isEmpty() && !r.isEmpty() && rightNames.containsAll(l) && leftNames.containsAll(r)) {
            keys.add(d.right());
            keys.add(d.left());
            nullSafeKeys.add(keys.size() / 2 - 1);
            continue;
          }
        }
        if (!(c instanceof dev.quiver.planner.expr.Expr.Literal lit && Boolean.TRUE.equals(lit.value()))) residual.add(c);
      }
    }
    return new JoinParts(keys, residual, nullSafeKeys);
  }

  /** Whether {@code p} is a join that can probe in its left side's scan tasks ({@link HashJoinExec#fusable}). */
  private static boolean fusableJoin(LogicalPlan p) {
    return p instanceof LogicalPlan.Join j && HashJoinExec.fusable(j.type(), split(j).keys().size() / 2);
  }

  @Override
  public Operator visitJoin(LogicalPlan.Join p) {
    if (parallelPipelines && overScan(p)) return fused(p, null, null);
    JoinParts parts = split(p);
    Operator left = plan(p.left());
    Operator right;
    try {
      right = plan(p.right());
    } catch (RuntimeException e) {
      left.close();
      throw e;
    }
    try {
      return join(p, parts, left, right);
    } catch (RuntimeException e) {
      left.close();
      right.close();
      throw e;
    }
  }

  /**
   * The hash join of {@code p} over the planned {@code left} and {@code right} (closed by the caller on an error): the
   * condition's conjuncts {@code l = r} with each side reading one input only become the hash keys, the rest is the
   * residual evaluated on candidate pairs.
   */
  private HashJoinExec join(LogicalPlan.Join p, JoinParts parts, Operator left, Operator right) {
    java.util.List<dev.quiver.planner.expr.Expr> keys = parts.keys();
    java.util.List<dev.quiver.planner.expr.Expr> residual = parts.residual();
    java.util.Set<Integer> nullSafeKeys = parts.nullSafeKeys();
    java.util.Set<String> leftNames = names(p.left());
    java.util.Set<String> rightNames = names(p.right());
    java.util.List<dev.quiver.planner.kernel.PhysicalExpr> leftKeys = new java.util.ArrayList<>();
    java.util.List<dev.quiver.planner.kernel.PhysicalExpr> rightKeys = new java.util.ArrayList<>();
    java.util.List<String> shown = new java.util.ArrayList<>();
    for (int i = 0; i < keys.size(); i += 2) {
      leftKeys.add(ExprCompiler.compile(keys.get(i), left.schema(), ctx));
      rightKeys.add(ExprCompiler.compile(keys.get(i + 1), right.schema(), ctx));
      shown.add(keys.get(i) + (nullSafeKeys.contains(i / 2) ? " IS NOT DISTINCT FROM " : " = ") + keys.get(i + 1));
    }
    boolean[] nullSafe = new boolean[keys.size() / 2];
    for (int k : nullSafeKeys) nullSafe[k] = true;
    // one or two key pairs of the LONG family, none null-safe: the primitive table (two keys packed into one long)
    boolean longKey = (keys.size() == 2 || keys.size() == 4) && nullSafeKeys.isEmpty();
    for (int i = 0; i < keys.size() && longKey; i++) {
      longKey = Kernels.family(keys.get(i).type()) == Kernels.Family.LONG;
    }
    dev.quiver.planner.expr.Expr residualExpr = residual.isEmpty() ? null : dev.quiver.planner.expr.Exprs.and(residual);
    // the residual reads the left input's columns followed by the right's
    java.util.List<org.apache.arrow.vector.types.pojo.Field> joined = new java.util.ArrayList<>(left.schema().getFields());
    joined.addAll(right.schema().getFields());
    dev.quiver.planner.kernel.PhysicalExpr residualCompiled = residualExpr == null ? null
        : ExprCompiler.compile(residualExpr, new org.apache.arrow.vector.types.pojo.Schema(joined), ctx);
    // no equi-keys, but inequalities bounding a build value: a range join over the build rows sorted by it
    RangeJoinBounds.Found range = keys.isEmpty() && residualExpr != null
        && p.type() != LogicalPlan.JoinType.NULL_AWARE_ANTI
        ? RangeJoinBounds.find(residual, leftNames, rightNames) : null;
    String description = "HashJoinExec: type=" + p.type() + " keys=[" + String.join(", ", shown) + "]"
        + (range == null ? "" : " sorted_by=" + range.buildValue() + " range=" + java.util.stream.Stream.concat(
            range.bounds().stream(), range.secondBounds().stream()).map(b -> b.conjunct().toString()).toList())
        + (residualExpr == null ? "" : " residual=" + residualExpr);
    HashJoinExec join = new HashJoinExec(left, right, p.type(), p.schema(), leftKeys, rightKeys, nullSafe, longKey,
        residualCompiled, description, allocator, batchRows);
    // a runtime filter from the build keys to the probe side's scan: where probe rows without a match are dropped
    boolean dropsUnmatchedProbe = p.type() == LogicalPlan.JoinType.INNER || p.type() == LogicalPlan.JoinType.SEMI
        || p.type() == LogicalPlan.JoinType.RIGHT;
    if (range != null) {
      // the bounds on one probe-side scan's columns filter that scan by the build values' range
      java.util.List<HashJoinExec.RangeBound> bounds = new java.util.ArrayList<>();
      java.util.List<HashJoinExec.RangeBound> secondBounds = new java.util.ArrayList<>();
      ScanExec rangeTarget = null;
      java.util.List<RangeJoinBounds.Bound> found = new java.util.ArrayList<>(range.bounds());
      found.addAll(range.secondBounds());
      for (RangeJoinBounds.Bound b : found) {
        String column = null;
        if (dropsUnmatchedProbe && b.probe() instanceof dev.quiver.planner.expr.Expr.ColumnRef probeColumn) {
          Object[] target = traceToScan(p.left(), probeColumn.name());
          ScanExec scanOp = target == null ? null : scans.get((LogicalPlan.TableScan) target[0]);
          if (scanOp != null && (rangeTarget == null || rangeTarget == scanOp)) {
            rangeTarget = scanOp;
            column = (String) target[1];
          }
        }
        (bounds.size() < range.bounds().size() ? bounds : secondBounds).add(new HashJoinExec.RangeBound(
            ExprCompiler.compile(b.probe(), left.schema(), ctx), b.offset(), b.upper(), b.inclusive(), column,
            b.probe().type()));
      }
      join.rangeIndex(ExprCompiler.compile(range.buildValue(), right.schema(), ctx),
          Kernels.family(range.buildValue().type()) == Kernels.Family.DOUBLE, bounds,
          range.second() == null ? null : ExprCompiler.compile(range.second(), right.schema(), ctx), secondBounds);
      if (rangeTarget != null) join.runtimeFilterTo(rangeTarget, null, null);
    }
    if (longKey && keys.size() == 2 && dropsUnmatchedProbe
        && keys.get(0) instanceof dev.quiver.planner.expr.Expr.ColumnRef probeKey) {
      Object[] target = traceToScan(p.left(), probeKey.name());
      ScanExec scanOp = target == null ? null : scans.get((LogicalPlan.TableScan) target[0]);
      if (scanOp != null) join.runtimeFilterTo(scanOp, (String) target[1], probeKey.type());
    }
    return join;
  }

  private static java.util.Set<String> names(LogicalPlan p) {
    java.util.Set<String> s = new java.util.HashSet<>();
    for (org.apache.arrow.vector.types.pojo.Field f : p.schema().getFields()) s.add(f.getName());
    return s;
  }

  @Override
  public Operator visitWindow(LogicalPlan.Window p) {
    Operator input = plan(p.input());
    try {
      java.util.List<WindowExec.Call> calls = new java.util.ArrayList<>();
      for (LogicalPlan.WindowCall c : p.calls()) {
        java.util.List<dev.quiver.planner.kernel.PhysicalExpr> args = new java.util.ArrayList<>();
        for (dev.quiver.planner.expr.Expr a : c.args()) args.add(ExprCompiler.compile(a, input.schema(), ctx));
        java.util.List<dev.quiver.planner.kernel.PhysicalExpr> partition = new java.util.ArrayList<>();
        for (dev.quiver.planner.expr.Expr a : c.partitionBy()) partition.add(ExprCompiler.compile(a, input.schema(), ctx));
        java.util.List<SortExec.Key> order = new java.util.ArrayList<>();
        for (LogicalPlan.SortKey k : c.orderBy()) {
          order.add(new SortExec.Key(ExprCompiler.compile(k.expr(), input.schema(), ctx), Kernels.family(k.expr().type()),
              k.ascending(), k.nullsFirst()));
        }
        calls.add(new WindowExec.Call(c, args, partition, order));
      }
      Long limit = windowLimits.get(p);
      String description = "WindowExec: " + p.calls().stream().map(c -> c + " AS " + c.name())
          .collect(java.util.stream.Collectors.joining(", ")) + (limit == null ? "" : " partition_limit=" + limit);
      return new WindowExec(input, p.schema(), calls, description, allocator, batchRows, limit == null ? -1 : limit,
          scanOptions.executor(), scanOptions.threads());
    } catch (RuntimeException e) {
      input.close();
      throw e;
    }
  }

  @Override
  public Operator visitExpand(LogicalPlan.Expand p) {
    Operator input = plan(p.input());
    try {
      java.util.List<java.util.List<dev.quiver.planner.kernel.PhysicalExpr>> projections = new java.util.ArrayList<>();
      for (java.util.List<LogicalPlan.NamedExpr> set : p.projections()) {
        java.util.List<dev.quiver.planner.kernel.PhysicalExpr> exprs = new java.util.ArrayList<>();
        for (LogicalPlan.NamedExpr n : set) exprs.add(ExprCompiler.compile(n.expr(), input.schema(), ctx));
        projections.add(exprs);
      }
      return new ExpandExec(input, p.schema(), projections, "ExpandExec: " + p.describeSets(), allocator);
    } catch (RuntimeException e) {
      input.close();
      throw e;
    }
  }

  @Override
  public Operator visitLimit(LogicalPlan.Limit p) {
    return new LimitExec(plan(p.input()), p.limit(), p.offset(), allocator);
  }
}
