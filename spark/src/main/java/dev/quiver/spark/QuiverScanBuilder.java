package dev.quiver.spark;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.spark.sql.connector.expressions.Expression;
import org.apache.spark.sql.connector.expressions.aggregate.AggregateFunc;
import org.apache.spark.sql.connector.expressions.aggregate.Aggregation;
import org.apache.spark.sql.connector.expressions.filter.Predicate;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.connector.read.ScanBuilder;
import org.apache.spark.sql.connector.read.SupportsPushDownAggregates;
import org.apache.spark.sql.connector.read.SupportsPushDownLimit;
import org.apache.spark.sql.connector.read.SupportsPushDownRequiredColumns;
import org.apache.spark.sql.connector.read.SupportsPushDownV2Filters;
import org.apache.spark.sql.types.StructType;

/**
 * Pushes required columns, the predicates it can render as Quiver SQL (exactly: Quiver filters rows, so none is
 * evaluated again), a limit, and aggregates (COUNT/SUM/MIN/MAX grouped by columns, only when the whole aggregation
 * renders) into the one SQL statement the scan sends.
 */
final class QuiverScanBuilder implements ScanBuilder, SupportsPushDownRequiredColumns, SupportsPushDownV2Filters,
    SupportsPushDownLimit, SupportsPushDownAggregates {
  private final QuiverOptions options;
  private final String table;
  private final Schema arrowSchema;
  private StructType required;
  private final List<Predicate> pushed = new ArrayList<>();
  private final List<String> where = new ArrayList<>();
  private Integer limit;
  private List<String> aggregateSelect;
  private List<String> groupBy;

  QuiverScanBuilder(QuiverOptions options, String table, Schema arrowSchema) {
    this.options = options;
    this.table = table;
    this.arrowSchema = arrowSchema;
    this.required = QuiverTable.sparkSchema(arrowSchema);
  }

  @Override
  public void pruneColumns(StructType requiredSchema) {
    this.required = requiredSchema;
  }

  @Override
  public Predicate[] pushPredicates(Predicate[] predicates) {
    List<Predicate> rest = new ArrayList<>();
    for (Predicate p : predicates) {
      Optional<String> sql = Sql.render(p);
      if (sql.isPresent()) {
        pushed.add(p);
        where.add(sql.get());
      } else {
        rest.add(p);
      }
    }
    return rest.toArray(Predicate[]::new);
  }

  @Override
  public Predicate[] pushedPredicates() {
    return pushed.toArray(Predicate[]::new);
  }

  @Override
  public boolean pushLimit(int n) {
    this.limit = n;
    return true;
  }

  @Override
  public boolean isPartiallyPushed() {
    // with several endpoints each one is limited; Spark limits their union again
    return true;
  }

  @Override
  public boolean supportCompletePushDown(Aggregation aggregation) {
    return render(aggregation) != null;
  }

  @Override
  public boolean pushAggregation(Aggregation aggregation) {
    RenderedAggregation r = render(aggregation);
    if (r == null) return false;
    this.groupBy = r.groupBy();
    this.aggregateSelect = r.select();
    return true;
  }

  private record RenderedAggregation(List<String> groupBy, List<String> select) {}

  /** The group-by and select items, or null when any part does not render. */
  private static RenderedAggregation render(Aggregation a) {
    List<String> groups = new ArrayList<>();
    List<String> select = new ArrayList<>();
    int i = 0;
    for (Expression g : a.groupByExpressions()) {
      Optional<String> s = Sql.render(g);
      if (s.isEmpty()) return null;
      groups.add(s.get());
      select.add(s.get() + " AS " + Sql.ident("g" + i++));
    }
    int j = 0;
    for (AggregateFunc f : a.aggregateExpressions()) {
      Optional<String> s = Sql.aggregate(f);
      if (s.isEmpty()) return null;
      select.add(s.get() + " AS " + Sql.ident("a" + j++));
    }
    return new RenderedAggregation(groups, select);
  }

  @Override
  public Scan build() {
    String whereSql = where.isEmpty() ? "" : " WHERE " + String.join(" AND ", where);
    String from = " FROM " + Sql.ident(table);
    String limitSql = limit == null ? "" : " LIMIT " + limit;
    if (aggregateSelect != null) {
      String sql = "SELECT " + String.join(", ", aggregateSelect) + from + whereSql
          + (groupBy.isEmpty() ? "" : " GROUP BY " + String.join(", ", groupBy)) + limitSql;
      Schema result;
      try (QuiverSession s = new QuiverSession(options)) {
        result = s.schema(sql);
      }
      return new QuiverScan(options, sql, QuiverTable.sparkSchema(result), pushed, true);
    }
    List<Field> fields = new ArrayList<>();
    for (String name : required.fieldNames()) fields.add(arrowSchema.findField(name));
    String select = fields.isEmpty() ? "TRUE AS \"_quiver_row\""
        : fields.stream().map(ArrowTypes::selectExpr).collect(Collectors.joining(", "));
    return new QuiverScan(options, "SELECT " + select + from + whereSql + limitSql,
        QuiverTable.sparkSchema(new Schema(fields)), pushed, false);
  }
}
