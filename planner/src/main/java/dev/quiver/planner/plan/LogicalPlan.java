package dev.quiver.planner.plan;

import dev.quiver.planner.expr.Expr;
import dev.quiver.planner.types.SqlTypes;
import dev.quiver.scan.predicate.ScanPredicate;
import dev.quiver.scan.table.ParquetTable;
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
   * Reads {@code columns} of a table. {@code predicate} is what was pushed into the scan for pruning
   * (might-match only: the filter above still runs); {@code residual} is the part of the filter above
   * that could not be pushed, shown for EXPLAIN.
   */
  record TableScan(ParquetTable table, List<String> columns, ScanPredicate predicate, Expr residual)
      implements LogicalPlan {
    public TableScan { columns = List.copyOf(columns); }
    public Schema schema() {
      return new Schema(columns.stream().map(table::field).toList());
    }
    public List<LogicalPlan> children() { return List.of(); }
    public LogicalPlan withChildren(List<LogicalPlan> c) { return this; }
    public <R> R accept(PlanVisitor<R> v) { return v.visitScan(this); }
    public String describe() {
      return "TableScan: " + table.name() + " projection=[" + String.join(", ", columns) + "]"
          + (predicate == null ? "" : " predicate=" + predicate)
          + (residual == null ? "" : " residual=" + residual);
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
          .map(n -> n.expr() instanceof Expr.ColumnRef c && c.name().equals(n.name()) ? n.name() : n.expr() + " AS " + n.name())
          .collect(Collectors.joining(", "));
    }
  }

  enum AggFunc { COUNT, SUM, MIN, MAX, AVG }

  /** An aggregate: {@code arg} is null for {@code count(*)}. */
  record AggregateCall(AggFunc func, Expr arg, ArrowType type, String name) {
    public Field field() {
      boolean nullable = func != AggFunc.COUNT;
      return new Field(name, new FieldType(nullable, type, null), null);
    }
    @Override public String toString() {
      return func.name().toLowerCase() + "(" + (arg == null ? "*" : arg.toString()) + ")";
    }
  }

  /** Aggregates over the whole input (no GROUP BY): always exactly one output row. */
  record Aggregate(LogicalPlan input, List<AggregateCall> aggregates) implements LogicalPlan {
    public Aggregate { aggregates = List.copyOf(aggregates); }
    public Schema schema() { return new Schema(aggregates.stream().map(AggregateCall::field).toList()); }
    public List<LogicalPlan> children() { return List.of(input); }
    public LogicalPlan withChildren(List<LogicalPlan> c) { return new Aggregate(c.get(0), aggregates); }
    public <R> R accept(PlanVisitor<R> v) { return v.visitAggregate(this); }
    public String describe() {
      List<String> parts = new ArrayList<>();
      for (AggregateCall a : aggregates) parts.add(a + " AS " + a.name());
      return "Aggregate: " + String.join(", ", parts);
    }
  }

  record Limit(LogicalPlan input, long limit, long offset) implements LogicalPlan {
    public Schema schema() { return input.schema(); }
    public List<LogicalPlan> children() { return List.of(input); }
    public LogicalPlan withChildren(List<LogicalPlan> c) { return new Limit(c.get(0), limit, offset); }
    public <R> R accept(PlanVisitor<R> v) { return v.visitLimit(this); }
    public String describe() { return "Limit: " + limit + (offset > 0 ? " offset=" + offset : ""); }
  }
}
