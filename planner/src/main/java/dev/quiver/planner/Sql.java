package dev.quiver.planner;

import dev.quiver.planner.kernel.Casts;
import dev.quiver.planner.kernel.Functions;
import dev.quiver.planner.kernel.LikeKernels;
import dev.quiver.planner.kernel.VectorValues;
import dev.quiver.planner.sql.SqlPositions;
import java.util.function.Predicate;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.types.pojo.ArrowType;

/**
 * The SQL vocabulary a front end (the Flight SQL server) needs besides {@link QueryEngine}: the one catalog and
 * schema, how user text is quoted in messages, LIKE patterns of metadata filters, and bound parameter values.
 * With {@code QueryEngine}, {@code QuerySettings}, {@code PreparedQuery}, {@code QueryExecution} and the statement
 * vocabulary ({@code sql.Statement}, {@code sql.StatementClassifier}, {@code sql.SqlLimits},
 * {@code sql.FunctionCatalog}, {@code types.SqlTypes}) it is the planner's API; the server reaches nothing else
 * (an ArchUnit rule in it-tests).
 */
public final class Sql {
  /** The one catalog every table is in. */
  public static final String CATALOG = "quiver";
  /** The one schema every table is in. */
  public static final String SCHEMA = "main";

  private Sql() {}

  /** User text for a message: quoted as written, shortened if long. */
  public static String snippet(Object text) {
    return SqlPositions.snippet(text);
  }

  /**
   * SQL LIKE ({@code %}, {@code _}, backslash escapes), case-insensitive, as metadata name filters match; null
   * matches everything. Runs in linear time (RE2/J): {@code "%%%%…x"} does not backtrack.
   */
  public static Predicate<String> like(String pattern) {
    if (pattern == null) return s -> true;
    var compiled = Functions.compile("(?i)" + LikeKernels.likeToRegex(pattern));
    return s -> compiled.matcher(s).matches();
  }

  /** Row {@code row} of a bound parameter vector as a value of the parameter's type {@code to} (SQL CAST rules). */
  public static Object parameterValue(FieldVector v, int row, ArrowType to) {
    Object value = new VectorValues(v, false).getObject(row);
    return Casts.cast(value, v.getField().getType(), to);
  }
}
