package dev.quiver.planner.plan;

import dev.quiver.planner.expr.Expr;
import dev.quiver.scan.predicate.ScanPredicate;
import dev.quiver.planner.source.TableSource;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/** The immutable logical plan. Every node knows its output schema. */
public sealed interface LogicalPlan {
  Schema schema();

  List<LogicalPlan> children();

  LogicalPlan withChildren(List<LogicalPlan> children);

  <R> R accept(PlanVisitor<R> v);

  /** The node's own line in EXPLAIN, without children. */
  String describe();

  /**
   * Reads {@code columns} of a table, output under {@code names} (unique in the whole statement, so
   * that the same table can appear twice). {@code exact} are the conjuncts the scan evaluates itself on
   * every row it reads (over the table's own column names, which need not be among {@code columns}): only
   * rows for which all are TRUE leave the scan, and no filter above repeats them. {@code predicate} is what
   * was pushed into the scan for pruning (might-match only: row groups and pages where no row can match
   * are skipped); {@code residual} is the part of the filter above that stays there, shown for EXPLAIN.
   */
  record TableScan(TableSource table, List<String> columns, List<String> names, ScanPredicate predicate, Expr residual,
      List<Expr> exact) implements LogicalPlan {
    public TableScan {
      columns = List.copyOf(columns);
      names = List.copyOf(names);
      exact = List.copyOf(exact);
      if (names.size() != columns.size()) throw new IllegalArgumentException("names " + names + " for " + columns);
    }
    public TableScan(TableSource table, List<String> columns, List<String> names, ScanPredicate predicate, Expr residual) {
      this(table, columns, names, predicate, residual, List.of());
    }
    public TableScan(TableSource table, List<String> columns, ScanPredicate predicate, Expr residual) {
      this(table, columns, columns, predicate, residual);
    }
    public Schema schema() {
      List<Field> fields = new ArrayList<>();
      for (int i = 0; i < columns.size(); i++) {
        Field f = table.field(columns.get(i));
        fields.add(new Field(names.get(i), f.getFieldType(), f.getChildren()));
      }
      return new Schema(fields);
    }
    /** The table column behind output name {@code name}, or null. */
    public String columnOf(String name) {
      int i = names.indexOf(name);
      return i < 0 ? null : columns.get(i);
    }
    /** A scan of the same table with only the given output names kept (in this scan's order). */
    public TableScan keep(java.util.Set<String> required) {
      List<String> c = new ArrayList<>();
      List<String> n = new ArrayList<>();
      for (int i = 0; i < names.size(); i++) {
        if (required.contains(names.get(i))) {
          c.add(columns.get(i));
          n.add(names.get(i));
        }
      }
      return new TableScan(table, c, n, predicate, residual, exact);
    }
    public List<LogicalPlan> children() { return List.of(); }
    public LogicalPlan withChildren(List<LogicalPlan> c) { return this; }
    public <R> R accept(PlanVisitor<R> v) { return v.visitScan(this); }
    public String describe() {
      List<String> cols = new ArrayList<>();
      for (int i = 0; i < columns.size(); i++) {
        cols.add(columns.get(i).equals(names.get(i)) ? columns.get(i) : columns.get(i) + " AS " + names.get(i));
      }
      return "TableScan: " + table.name() + " projection=[" + String.join(", ", cols) + "]"
          + (predicate == null ? "" : " predicate=" + predicate)
          + (residual == null ? "" : " residual=" + residual)
          + (exact.isEmpty() ? "" : " exact=" + exact);
    }
  }

  /** One row with no columns: the input of a SELECT without FROM. */
  record OneRow() implements LogicalPlan {
    public Schema schema() { return new Schema(List.of()); }
    public List<LogicalPlan> children() { return List.of(); }
    public LogicalPlan withChildren(List<LogicalPlan> c) { return this; }
    public <R> R accept(PlanVisitor<R> v) { return v.visitOneRow(this); }
    public String describe() { return "OneRow"; }
  }

  /** No rows, with the schema of what it replaced (a filter that can never be TRUE). */
  record Empty(Schema schema) implements LogicalPlan {
    public List<LogicalPlan> children() { return List.of(); }
    public LogicalPlan withChildren(List<LogicalPlan> c) { return this; }
    public <R> R accept(PlanVisitor<R> v) { return v.visitEmpty(this); }
    public String describe() { return "EmptyRelation"; }
  }

  record Filter(LogicalPlan input, Expr condition) implements LogicalPlan {
    public Schema schema() { return input.schema(); }
    public List<LogicalPlan> children() { return List.of(input); }
    public LogicalPlan withChildren(List<LogicalPlan> c) { return new Filter(c.get(0), condition); }
    public <R> R accept(PlanVisitor<R> v) { return v.visitFilter(this); }
    public String describe() { return "Filter: " + condition; }
  }

  /** An output column: an expression and its name. */
  record NamedExpr(Expr expr, String name) {
    public Field field() {
      return new Field(name, new FieldType(expr.nullable(), expr.type(), null), null);
    }
  }

  record Project(LogicalPlan input, List<NamedExpr> exprs) implements LogicalPlan {
    public Project { exprs = List.copyOf(exprs); }
    public Schema schema() { return new Schema(exprs.stream().map(NamedExpr::field).toList()); }
    public List<LogicalPlan> children() { return List.of(input); }
    public LogicalPlan withChildren(List<LogicalPlan> c) { return new Project(c.get(0), exprs); }
    public <R> R accept(PlanVisitor<R> v) { return v.visitProject(this); }
    public String describe() {
      return "Projection: " + exprs.stream()
          .map(LogicalPlan::show)
          .collect(Collectors.joining(", "));
    }
  }

  enum AggFunc {
    COUNT, SUM, MIN, MAX, AVG, BOOL_AND, BOOL_OR, STDDEV_SAMP, STDDEV_POP, VAR_SAMP, VAR_POP, STRING_AGG,
    /** percentile_cont(0.5): DOUBLE. */
    MEDIAN,
    /** The interpolated percentile of the call's {@link Quantile}: DOUBLE. */
    PERCENTILE_CONT,
    /** The first value whose cumulative distribution reaches the call's {@link Quantile}: the argument's type. */
    PERCENTILE_DISC,
    /** A HyperLogLog estimate of the distinct non-NULL values (exact up to a few hundred): BIGINT, 0 over none. */
    APPROX_COUNT_DISTINCT,
    /** {@code arg_min(arg, val)}, {@code arg_max(arg, val)}: arg at the least / greatest val, rows with a NULL skipped. */
    ARG_MIN, ARG_MAX,
    /** Two-argument statistics {@code f(y, x)} over the rows where both are non-NULL: DOUBLE (regr_count BIGINT). */
    CORR, COVAR_POP, COVAR_SAMP, REGR_SLOPE, REGR_INTERCEPT, REGR_R2, REGR_COUNT, REGR_AVGX, REGR_AVGY, REGR_SXX,
    REGR_SYY, REGR_SXY;

    public String sqlName() { return name().toLowerCase(java.util.Locale.ROOT); }

    /** Whether it reads two values a row ({@link AggregateCall#arg2()}). */
    public boolean twoArguments() { return compareTo(ARG_MIN) >= 0; }

    /** Whether its value over no rows is 0 and it is never NULL (count, regr_count, approx_count_distinct). */
    public boolean countsRows() { return this == COUNT || this == REGR_COUNT || this == APPROX_COUNT_DISTINCT; }

    /** Whether it can be a window function ({@code OVER}); the ones after string_agg cannot (yet). */
    public boolean inWindows() { return compareTo(STRING_AGG) <= 0; }
  }

  /**
   * The fraction of a percentile: a {@code BigDecimal} when it was written as an exact number (the discrete
   * percentile's position is then computed exactly), else a {@code Double}; {@code descending} for
   * {@code WITHIN GROUP (ORDER BY x DESC)}.
   */
  record Quantile(Number fraction, boolean descending) {
    @Override public String toString() {
      return fraction instanceof java.math.BigDecimal b ? b.toPlainString() : fraction.toString();
    }
  }

  /**
   * An aggregate: {@code arg} is null for {@code count(*)}; {@code distinct} aggregates distinct values. string_agg
   * joins its (VARCHAR) values with {@code separator} (null for other aggregates), in the order of {@code orderBy}
   * (empty: the input's order). A two-argument aggregate ({@link AggFunc#twoArguments()}) reads {@code arg} and
   * {@code arg2} ({@code corr(y, x)}: y, x; {@code arg_min(arg, val)}: arg, val); a percentile has its
   * {@code quantile} (null for the others).
   */
  record AggregateCall(AggFunc func, Expr arg, ArrowType type, String name, boolean distinct, String separator,
      List<SortKey> orderBy, Expr arg2, Quantile quantile) {
    public AggregateCall {
      orderBy = orderBy == null ? List.of() : List.copyOf(orderBy);
    }
    public AggregateCall(AggFunc func, Expr arg, ArrowType type, String name, boolean distinct, String separator,
        List<SortKey> orderBy) {
      this(func, arg, type, name, distinct, separator, orderBy, null, null);
    }
    public AggregateCall(AggFunc func, Expr arg, ArrowType type, String name, boolean distinct) {
      this(func, arg, type, name, distinct, null, List.of());
    }
    public AggregateCall(AggFunc func, Expr arg, ArrowType type, String name) {
      this(func, arg, type, name, false);
    }
    /** Every expression the call reads: the argument(s), then the ORDER BY keys. */
    public List<Expr> exprs() {
      List<Expr> all = new ArrayList<>();
      if (arg != null) all.add(arg);
      if (arg2 != null) all.add(arg2);
      for (SortKey k : orderBy) all.add(k.expr());
      return all;
    }
    public Field field() {
      boolean nullable = !func.countsRows();
      return new Field(name, new FieldType(nullable, type, null), null);
    }
    public AggregateCall withArg(Expr a) { return withArgs(a, arg2); }
    public AggregateCall withArgs(Expr a, Expr b) {
      return new AggregateCall(func, a, type, name, distinct, separator, orderBy, b, quantile);
    }
    /** The same call under another output name. */
    public AggregateCall withName(String n) {
      return new AggregateCall(func, arg, type, n, distinct, separator, orderBy, arg2, quantile);
    }
    @Override public String toString() {
      if (quantile != null && distinct) { // DuckDB's spelling: WITHIN GROUP has no DISTINCT
        return func.sqlName().replace("percentile", "quantile") + "(DISTINCT " + arg + ", " + quantile + ")";
      }
      if (quantile != null) {
        return func.sqlName() + "(" + quantile + ") WITHIN GROUP (ORDER BY " + arg + (quantile.descending() ? " DESC" : "")
            + ")";
      }
      return func.sqlName() + "(" + (distinct ? "DISTINCT " : "") + (arg == null ? "*" : arg.toString())
          + (arg2 == null ? "" : ", " + arg2)
          + (separator == null ? "" : ", " + dev.quiver.common.Values.toSql(separator, new ArrowType.Utf8()))
          + (orderBy.isEmpty() ? "" : " ORDER BY " + orderBy.stream().map(Object::toString).collect(Collectors.joining(", ")))
          + ")";
    }
  }

  /**
   * Groups the input by {@code groups} and computes {@code aggregates} per group; the output is the group
   * columns then the aggregates. Without groups: exactly one output row, even for an empty input.
   */
  record Aggregate(LogicalPlan input, List<NamedExpr> groups, List<AggregateCall> aggregates) implements LogicalPlan {
    public Aggregate {
      groups = List.copyOf(groups);
      aggregates = List.copyOf(aggregates);
    }
    public Aggregate(LogicalPlan input, List<AggregateCall> aggregates) {
      this(input, List.of(), aggregates);
    }
    public Schema schema() {
      List<Field> fields = new ArrayList<>();
      for (NamedExpr g : groups) fields.add(g.field());
      for (AggregateCall a : aggregates) fields.add(a.field());
      return new Schema(fields);
    }
    public List<LogicalPlan> children() { return List.of(input); }
    public LogicalPlan withChildren(List<LogicalPlan> c) { return new Aggregate(c.get(0), groups, aggregates); }
    public <R> R accept(PlanVisitor<R> v) { return v.visitAggregate(this); }
    public String describe() {
      List<String> parts = new ArrayList<>();
      for (AggregateCall a : aggregates) parts.add(a + " AS " + a.name());
      String g = groups.isEmpty() ? "" : "groupBy=[" + groups.stream().map(LogicalPlan::show).collect(Collectors.joining(", ")) + "]"
          + (parts.isEmpty() ? "" : " ");
      return "Aggregate: " + g + String.join(", ", parts);
    }
  }

  /**
   * Each input row once per projection (a grouping set of GROUP BY GROUPING SETS / ROLLUP / CUBE): every projection
   * computes the same columns (names and types of the first); the grouping columns a set leaves out are NULL
   * literals there, and a constant column numbers the set. An {@link Aggregate} directly above groups by those columns.
   * Filters above are not pushed below it (its NULLs are not the input's values).
   */
  record Expand(LogicalPlan input, List<List<NamedExpr>> projections) implements LogicalPlan {
    public Expand {
      projections = projections.stream().map(List::copyOf).toList();
      if (projections.isEmpty()) throw new IllegalArgumentException("Expand without projections");
    }
    public Schema schema() {
      List<Field> fields = new ArrayList<>();
      List<NamedExpr> first = projections.get(0);
      for (int i = 0; i < first.size(); i++) {
        boolean n = false;
        for (List<NamedExpr> p : projections) n |= p.get(i).expr().nullable();
        NamedExpr e = first.get(i);
        fields.add(new Field(e.name(), new FieldType(n, e.expr().type(), null), null));
      }
      return new Schema(fields);
    }
    public List<LogicalPlan> children() { return List.of(input); }
    public LogicalPlan withChildren(List<LogicalPlan> c) { return new Expand(c.get(0), projections); }
    public <R> R accept(PlanVisitor<R> v) { return v.visitExpand(this); }
    /** The projections without the columns every one passes through unchanged. */
    public String describeSets() {
      List<String> sets = new ArrayList<>();
      for (List<NamedExpr> p : projections) {
        List<String> cols = new ArrayList<>();
        for (NamedExpr n : p) if (!(n.expr() instanceof Expr.ColumnRef c && c.name().equals(n.name()))) cols.add(show(n));
        sets.add("[" + String.join(", ", cols) + "]");
      }
      return String.join(", ", sets);
    }
    public String describe() { return "Expand: " + describeSets(); }
  }

  /** What a window call computes: a ranking or value function, or an aggregate ({@link WindowCall#agg}). */
  enum WindowFunc {
    ROW_NUMBER, RANK, DENSE_RANK, PERCENT_RANK, CUME_DIST, NTILE, LAG, LEAD, FIRST_VALUE, LAST_VALUE, NTH_VALUE, AGGREGATE;

    public String sqlName() { return name().toLowerCase(java.util.Locale.ROOT); }
  }

  /** The unit of a window frame. */
  enum FrameUnit { ROWS, RANGE, GROUPS }

  /** The kind of one end of a window frame; PRECEDING and FOLLOWING carry an offset. */
  enum BoundKind {
    UNBOUNDED_PRECEDING, PRECEDING, CURRENT_ROW, FOLLOWING, UNBOUNDED_FOLLOWING;

    @Override public String toString() { return name().replace('_', ' '); }
  }

  /** One end of a frame: {@code offset} (a non-negative constant) for PRECEDING / FOLLOWING, else null. */
  record FrameBound(BoundKind kind, Expr.Literal offset) {
    @Override public String toString() {
      return offset == null ? kind.toString() : offset.value() + " " + kind;
    }
  }

  /** Rows of the frame left out: EXCLUDE NO OTHERS (none), CURRENT ROW, GROUP (the row and its peers), TIES (its peers). */
  enum Exclude {
    NO_OTHERS, CURRENT_ROW, GROUP, TIES;

    @Override public String toString() { return name().replace('_', ' '); }
  }

  /** A window frame: the rows of the partition that a row's aggregate or value function reads. */
  record Frame(FrameUnit unit, FrameBound start, FrameBound end, Exclude exclude) {
    /** The standard's default: RANGE UNBOUNDED PRECEDING to CURRENT ROW (the whole partition without ORDER BY). */
    public static final Frame DEFAULT = new Frame(FrameUnit.RANGE, new FrameBound(BoundKind.UNBOUNDED_PRECEDING, null),
        new FrameBound(BoundKind.CURRENT_ROW, null), Exclude.NO_OTHERS);

    @Override public String toString() {
      return unit + " BETWEEN " + start + " AND " + end + (exclude == Exclude.NO_OTHERS ? "" : " EXCLUDE " + exclude);
    }
  }

  /**
   * One window function call: {@code func} (with {@code agg} for an aggregate, {@code distinct} for its DISTINCT) over
   * {@code args} (the value, then offset / n / default where the function takes them; none for count(*)), per
   * partition of {@code partitionBy}, ordered by {@code orderBy}, over {@code frame}. Its value is output as {@code name}.
   */
  record WindowCall(WindowFunc func, AggFunc agg, boolean distinct, List<Expr> args, List<Expr> partitionBy,
      List<SortKey> orderBy, Frame frame, ArrowType type, boolean nullable, String name) {
    public WindowCall {
      args = List.copyOf(args);
      partitionBy = List.copyOf(partitionBy);
      orderBy = List.copyOf(orderBy);
    }
    public Field field() {
      return new Field(name, new FieldType(nullable, type, null), null);
    }
    /** Every expression the call reads. */
    public List<Expr> exprs() {
      List<Expr> all = new ArrayList<>(args);
      all.addAll(partitionBy);
      for (SortKey k : orderBy) all.add(k.expr());
      return all;
    }
    /** The same call with its expressions replaced by {@code f} of them. */
    public WindowCall map(java.util.function.UnaryOperator<Expr> f) {
      return new WindowCall(func, agg, distinct, args.stream().map(f).toList(), partitionBy.stream().map(f).toList(),
          orderBy.stream().map(k -> new SortKey(f.apply(k.expr()), k.ascending(), k.nullsFirst())).toList(), frame, type,
          nullable, name);
    }
    @Override public String toString() {
      String fn = func == WindowFunc.AGGREGATE ? agg.sqlName() : func.sqlName();
      String a = func == WindowFunc.AGGREGATE && args.isEmpty() ? "*"
          : (distinct ? "DISTINCT " : "") + args.stream().map(Object::toString).collect(Collectors.joining(", "));
      List<String> spec = new ArrayList<>();
      if (!partitionBy.isEmpty()) spec.add("PARTITION BY " + partitionBy.stream().map(Object::toString).collect(Collectors.joining(", ")));
      if (!orderBy.isEmpty()) spec.add("ORDER BY " + orderBy.stream().map(Object::toString).collect(Collectors.joining(", ")));
      if (frame != null) spec.add(frame.toString());
      return fn + "(" + a + ") OVER (" + String.join(" ", spec) + ")";
    }
  }

  /**
   * Window functions: the input's columns, then one column per call, each computed over the rows of its partition
   * (the input is not reduced). Filters above it are not pushed below it (a filter changes the partitions).
   */
  record Window(LogicalPlan input, List<WindowCall> calls) implements LogicalPlan {
    public Window { calls = List.copyOf(calls); }
    public Schema schema() {
      List<Field> fields = new ArrayList<>(input.schema().getFields());
      for (WindowCall c : calls) fields.add(c.field());
      return new Schema(fields);
    }
    public List<LogicalPlan> children() { return List.of(input); }
    public LogicalPlan withChildren(List<LogicalPlan> c) { return new Window(c.get(0), calls); }
    public <R> R accept(PlanVisitor<R> v) { return v.visitWindow(this); }
    public String describe() {
      return "Window: " + calls.stream().map(c -> c + " AS " + c.name()).collect(Collectors.joining(", "));
    }
  }

  /** How a join combines rows. SEMI and ANTI output the left side's columns only. */
  enum JoinType {
    INNER, LEFT, RIGHT, FULL, SEMI, ANTI,
    /** {@code NOT IN}: like ANTI, but a NULL on either side of the keys makes the row unknown (dropped). */
    NULL_AWARE_ANTI;

    public boolean leftOnly() { return this == SEMI || this == ANTI || this == NULL_AWARE_ANTI; }
  }

  /** A join; {@code condition} is null for a cross join. */
  record Join(LogicalPlan left, LogicalPlan right, JoinType type, Expr condition) implements LogicalPlan {
    public Schema schema() {
      List<Field> fields = new ArrayList<>();
      boolean leftNullable = type == JoinType.RIGHT || type == JoinType.FULL;
      boolean rightNullable = type == JoinType.LEFT || type == JoinType.FULL;
      for (Field f : left.schema().getFields()) fields.add(leftNullable ? nullable(f) : f);
      if (!type.leftOnly()) for (Field f : right.schema().getFields()) fields.add(rightNullable ? nullable(f) : f);
      return new Schema(fields);
    }
    public List<LogicalPlan> children() { return List.of(left, right); }
    public LogicalPlan withChildren(List<LogicalPlan> c) { return new Join(c.get(0), c.get(1), type, condition); }
    public <R> R accept(PlanVisitor<R> v) { return v.visitJoin(this); }
    public String describe() {
      return (condition == null && type == JoinType.INNER ? "CrossJoin" : type + " Join: " + condition);
    }
  }

  /** One ORDER BY key. */
  record SortKey(Expr expr, boolean ascending, boolean nullsFirst) {
    @Override public String toString() {
      return expr + (ascending ? " ASC" : " DESC") + (nullsFirst ? " NULLS FIRST" : " NULLS LAST");
    }
  }

  /** Orders the input; with {@code fetch} >= 0 only the first {@code fetch} rows are needed (top-N). */
  record Sort(LogicalPlan input, List<SortKey> keys, long fetch) implements LogicalPlan {
    public Sort { keys = List.copyOf(keys); }
    public Schema schema() { return input.schema(); }
    public List<LogicalPlan> children() { return List.of(input); }
    public LogicalPlan withChildren(List<LogicalPlan> c) { return new Sort(c.get(0), keys, fetch); }
    public <R> R accept(PlanVisitor<R> v) { return v.visitSort(this); }
    public String describe() {
      return "Sort: " + keys.stream().map(Object::toString).collect(Collectors.joining(", "))
          + (fetch >= 0 ? " fetch=" + fetch : "");
    }
  }

  /** All rows of every input (UNION ALL); columns are matched by position and named after the first input. */
  record Union(List<LogicalPlan> inputs) implements LogicalPlan {
    public Union { inputs = List.copyOf(inputs); }
    public Schema schema() {
      // each input's schema once: asking again per column is exponential in the depth of nested unions
      List<List<Field>> schemas = new ArrayList<>();
      for (LogicalPlan p : inputs) schemas.add(p.schema().getFields());
      List<Field> fields = new ArrayList<>();
      List<Field> first = schemas.get(0);
      for (int i = 0; i < first.size(); i++) {
        boolean n = false;
        for (List<Field> s : schemas) n |= s.get(i).isNullable();
        Field f = first.get(i);
        fields.add(n ? nullable(f) : f);
      }
      return new Schema(fields);
    }
    public List<LogicalPlan> children() { return inputs; }
    public LogicalPlan withChildren(List<LogicalPlan> c) { return new Union(c); }
    public <R> R accept(PlanVisitor<R> v) { return v.visitUnion(this); }
    public String describe() { return "Union"; }
  }

  /**
   * Passes its input through, failing when it has more than one row (a scalar subquery) — with {@code keys}, more
   * than one row of the same values of those columns (a correlated scalar subquery, one row per outer value).
   */
  record EnforceSingleRow(LogicalPlan input, List<String> keys) implements LogicalPlan {
    public EnforceSingleRow {
      keys = List.copyOf(keys);
    }
    public EnforceSingleRow(LogicalPlan input) {
      this(input, List.of());
    }
    public Schema schema() {
      return new Schema(input.schema().getFields().stream().map(LogicalPlan::nullable).toList());
    }
    public List<LogicalPlan> children() { return List.of(input); }
    public LogicalPlan withChildren(List<LogicalPlan> c) { return new EnforceSingleRow(c.get(0), keys); }
    public <R> R accept(PlanVisitor<R> v) { return v.visitEnforceSingleRow(this); }
    public String describe() { return keys.isEmpty() ? "EnforceSingleRow" : "EnforceSingleRow: per " + String.join(", ", keys); }
  }

  static Field nullable(Field f) {
    return f.isNullable() ? f : new Field(f.getName(), new FieldType(true, f.getType(), null), f.getChildren());
  }

  static String show(NamedExpr n) {
    return n.expr() instanceof Expr.ColumnRef c && c.name().equals(n.name()) ? n.name() : n.expr() + " AS " + n.name();
  }

  record Limit(LogicalPlan input, long limit, long offset) implements LogicalPlan {
    public Schema schema() { return input.schema(); }
    public List<LogicalPlan> children() { return List.of(input); }
    public LogicalPlan withChildren(List<LogicalPlan> c) { return new Limit(c.get(0), limit, offset); }
    public <R> R accept(PlanVisitor<R> v) { return v.visitLimit(this); }
    public String describe() { return "Limit: " + limit + (offset > 0 ? " offset=" + offset : ""); }
  }
}
