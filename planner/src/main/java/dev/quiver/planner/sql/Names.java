package dev.quiver.planner.sql;

import java.util.HashSet;
import java.util.Set;

/**
 * Internal column names, unique in one statement: the first use of a column name keeps it; a later
 * relation with the same column (a self-join, a subquery over the same table) gets {@code qualifier.name},
 * then a numbered variant. Unique names let every plan node refer to columns by name alone.
 */
final class Names {
  private final Set<String> used = new HashSet<>();
  private int counter;

  /** A unique name: {@code preferred} itself if free, else qualified, else numbered. */
  String unique(String preferred, String qualifier) {
    if (used.add(preferred)) return preferred;
    if (qualifier != null && used.add(qualifier + "." + preferred)) return qualifier + "." + preferred;
    String base = qualifier != null ? qualifier + "." + preferred : preferred;
    for (int i = 2; ; i++) {
      if (used.add(base + "#" + i)) return base + "#" + i;
    }
  }

  /** A fresh generated name {@code prefix + n}. */
  String fresh(String prefix) {
    while (true) {
      String n = prefix + counter++;
      if (used.add(n)) return n;
    }
  }
}
