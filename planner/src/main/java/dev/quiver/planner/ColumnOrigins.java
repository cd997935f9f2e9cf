package dev.quiver.planner;

import dev.quiver.planner.expr.Expr;
import dev.quiver.planner.plan.LogicalPlan;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * Where each output column of a plan comes from: the table column it is, unchanged, or nothing for a
 * computed one. Traced by position through the operators that pass columns through (Project of a bare
 * column, Filter, Sort, Limit, Join, the group keys of an Aggregate, EnforceSingleRow) down to a TableScan;
 * a Union, an aggregate, any expression (a CAST too) has no origin. Clients show it as
 * {@code ResultSetMetaData.getTableName} and friends.
 */
public final class ColumnOrigins {
  /** A table column: the table's name and the column's name in it. */
  public record Origin(String table, String column) {}

  private ColumnOrigins() {}

  /** One entry per output column of {@code plan}, null where the column is computed. */
  public static List<Origin> of(LogicalPlan plan) {
    int n = plan.schema().getFields().size();
    List<Origin> out = new ArrayList<>(n);
    for (int i = 0; i < n; i++) out.add(origin(plan, i));
    return out;
  }

  private static Origin origin(LogicalPlan plan, int i) {
    // a loop, not recursion: plans may be deep (a long chain of filters or joins)
    while (true) {
      if (plan instanceof LogicalPlan.TableScan s) return new Origin(s.table().name(), s.columns().get(i));
      if (plan instanceof LogicalPlan.Filter f) {
        plan = f.input();
      } else if (plan instanceof LogicalPlan.Sort s) {
        plan = s.input();
      } else if (plan instanceof LogicalPlan.Limit l) {
        plan = l.input();
      } else if (plan instanceof LogicalPlan.EnforceSingleRow e) {
        plan = e.input();
      } else if (plan instanceof LogicalPlan.Project p) {
        if (!(p.exprs().get(i).expr() instanceof Expr.ColumnRef c)) return null;
        i = indexOf(p.input(), c.name());
        plan = p.input();
      } else if (plan instanceof LogicalPlan.Aggregate a) {
        if (i >= a.groups().size() || !(a.groups().get(i).expr() instanceof Expr.ColumnRef c)) return null;
        i = indexOf(a.input(), c.name());
        plan = a.input();
      } else if (plan instanceof LogicalPlan.Window w) {
        if (i >= w.input().schema().getFields().size()) return null;
        plan = w.input();
      } else if (plan instanceof LogicalPlan.Join j) {
        int left = j.left().schema().getFields().size();
        if (i < left) {
          plan = j.left();
        } else {
          i -= left;
          plan = j.right();
        }
      } else {
        return null; // Union, OneRow, Empty
      }
      if (i < 0) return null;
    }
  }

  private static int indexOf(LogicalPlan plan, String name) {
    List<Field> fields = plan.schema().getFields();
    for (int i = 0; i < fields.size(); i++) {
      if (fields.get(i).getName().equals(name)) return i;
    }
    return -1;
  }
}
