package dev.quiver.planner.sql;

import java.util.Collection;
import java.util.Locale;

/**
 * "did you mean …" for a misspelled table, column or function: the candidate nearest by edit distance (case
 * ignored), if it is near enough — at most a third of the name's length, at least one edit — and unique at that
 * distance; else nothing. DuckDB offers the same.
 */
final class Suggestions {
  private Suggestions() {}

  /** {@code " (did you mean x?)"}, or "" when no candidate is near enough or two are equally near. */
  static String didYouMean(String name, Collection<String> candidates) {
    if (name == null || name.isEmpty()) return "";
    String n = name.toLowerCase(Locale.ROOT);
    int limit = Math.max(1, n.length() / 3);
    String best = null;
    int bestDistance = Integer.MAX_VALUE;
    boolean tie = false;
    for (String c : candidates) {
      if (c == null || Math.abs(c.length() - n.length()) > limit) continue;
      int d = distance(n, c.toLowerCase(Locale.ROOT), limit);
      if (d == 0 || d > limit) continue;
      if (d < bestDistance) {
        best = c;
        bestDistance = d;
        tie = false;
      } else if (d == bestDistance && !c.equalsIgnoreCase(best)) {
        tie = true;
      }
    }
    return best == null || tie ? "" : " (did you mean " + best + "?)";
  }

  /** Levenshtein distance of {@code a} and {@code b}, or {@code limit + 1} once it is sure to exceed {@code limit}. */
  static int distance(String a, String b, int limit) {
    int[] prev = new int[b.length() + 1];
    int[] cur = new int[b.length() + 1];
    for (int j = 0; j <= b.length(); j++) prev[j] = j;
    for (int i = 1; i <= a.length(); i++) {
      cur[0] = i;
      int rowMin = cur[0];
      for (int j = 1; j <= b.length(); j++) {
        int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
        cur[j] = Math.min(Math.min(cur[j - 1] + 1, prev[j] + 1), prev[j - 1] + cost);
        rowMin = Math.min(rowMin, cur[j]);
      }
      if (rowMin > limit) return limit + 1;
      int[] t = prev;
      prev = cur;
      cur = t;
    }
    return prev[b.length()];
  }
}
