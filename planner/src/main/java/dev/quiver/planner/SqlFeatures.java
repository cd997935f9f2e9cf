package dev.quiver.planner;

import dev.quiver.common.ErrorCode;
import dev.quiver.common.QuiverException;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;

/**
 * The SQL features clients ask about (JDBC {@code DatabaseMetaData.supportsXxx}, Flight SQL SqlInfo), each
 * with a probe statement over derived tables only. A feature is supported when its probe plans: the answer
 * comes from the planner itself, not from a hand-kept list, so it changes when the planner does. Every probe
 * also has its expected result, so a test can check that a supported probe runs and gives it.
 */
public final class SqlFeatures {
  private static final String T = "(SELECT 1 AS a, 2 AS b, 'x%' AS s) t";
  private static final String U = "(SELECT 1 AS c) u";

  /** A feature, its probe and the probe's rows (each a list of {@code getObject} values). */
  public enum Feature {
    GROUP_BY("SELECT a, count(*) FROM " + T + " GROUP BY a", List.of(List.of(1, 1L))),
    /** GROUP BY a column the select list does not have. */
    GROUP_BY_UNRELATED("SELECT count(*) FROM " + T + " GROUP BY b", List.of(List.of(1L))),
    /** GROUP BY every selected column and more. */
    GROUP_BY_BEYOND_SELECT("SELECT a, count(*) FROM " + T + " GROUP BY a, b", List.of(List.of(1, 1L))),
    OUTER_JOIN("SELECT a, c FROM " + T + " LEFT JOIN " + U + " ON t.a = u.c + 1", java.util.Collections.singletonList(
        java.util.Arrays.asList(1, null))),
    /** FULL joins, nested in other outer joins (JDBC's "full nested outer joins"). */
    FULL_OUTER_JOIN("SELECT count(*) FROM " + T + " FULL JOIN ((SELECT 1 AS c) u LEFT JOIN (SELECT 2 AS d) v ON u.c = v.d)"
        + " ON t.b = u.c", List.of(List.of(2L))),
    UNION("SELECT 1 AS x UNION SELECT 1", List.of(List.of(1))),
    UNION_ALL("SELECT 1 AS x UNION ALL SELECT 1", List.of(List.of(1), List.of(1))),
    SUBQUERY_IN_COMPARISON("SELECT a FROM " + T + " WHERE a = (SELECT max(c) FROM " + U + ")", List.of(List.of(1))),
    SUBQUERY_IN_EXISTS("SELECT a FROM " + T + " WHERE EXISTS (SELECT c FROM " + U + ")", List.of(List.of(1))),
    SUBQUERY_IN_IN("SELECT a FROM " + T + " WHERE a IN (SELECT c FROM " + U + ")", List.of(List.of(1))),
    /** {@code x op ANY / ALL (subquery)}. */
    SUBQUERY_IN_QUANTIFIED("SELECT a FROM " + T + " WHERE a >= ALL (SELECT c FROM " + U + ")", List.of(List.of(1))),
    CORRELATED_SUBQUERY("SELECT a FROM " + T + " WHERE EXISTS (SELECT c FROM " + U + " WHERE u.c = t.a)", List.of(List.of(1))),
    EXPRESSION_IN_ORDER_BY("SELECT a FROM " + T + " ORDER BY a + b", List.of(List.of(1))),
    /** ORDER BY a column the select list does not have. */
    ORDER_BY_UNRELATED("SELECT a FROM " + T + " ORDER BY b", List.of(List.of(1))),
    LIKE_ESCAPE("SELECT s LIKE 'x!%' ESCAPE '!' AS m FROM " + T, List.of(List.of(true))),
    COLUMN_ALIASING("SELECT a AS renamed FROM " + T, List.of(List.of(1)));

    private final String probe;
    private final List<List<Object>> expected;

    Feature(String probe, List<? extends List<?>> expected) {
      this.probe = probe;
      @SuppressWarnings("unchecked")
      List<List<Object>> e = (List<List<Object>>) (List<?>) expected;
      this.expected = e;
    }

    /** The statement that uses the feature. */
    public String probe() {
      return probe;
    }

    /** What the probe returns where the feature works. */
    public List<List<Object>> expected() {
      return expected;
    }
  }

  private SqlFeatures() {}

  /** Whether {@code engine} plans {@code f}'s probe (false if it refuses it as unsupported or at all). */
  public static boolean supported(QueryEngine engine, BufferAllocator allocator, Feature f) {
    try {
      engine.prepare(f.probe(), allocator);
      return true;
    } catch (RuntimeException e) { // UNSUPPORTED, or any other refusal: not a feature to advertise
      return false;
    }
  }

  /** Every feature with whether {@code engine} supports it. */
  public static Map<Feature, Boolean> probe(QueryEngine engine, BufferAllocator allocator) {
    Map<Feature, Boolean> out = new EnumMap<>(Feature.class);
    for (Feature f : Feature.values()) out.put(f, supported(engine, allocator, f));
    return out;
  }

  /** Whether {@code e} says a feature is missing (as opposed to a mistake in the statement). */
  public static boolean isUnsupported(Throwable e) {
    return e instanceof QuiverException q && q.code() == ErrorCode.UNSUPPORTED;
  }
}
