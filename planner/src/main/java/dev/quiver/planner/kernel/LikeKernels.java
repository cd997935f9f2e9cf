package dev.quiver.planner.kernel;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.VectorSchemaRoot;
/** LIKE and ILIKE: simple patterns by {@link LikeMatcher} on the bytes, the rest as regular expressions. */
public final class LikeKernels {
  private LikeKernels() {}

  /** The regular expression of a LIKE pattern: {@code %} any run, {@code _} one character, backslash escapes. */
  public static String likeToRegex(String pattern) {
    StringBuilder re = new StringBuilder("^");
    for (int i = 0; i < pattern.length(); i++) {
      char c = pattern.charAt(i);
      if (c == '\\' && i + 1 < pattern.length()) quote(re, pattern.charAt(++i));
      else if (c == '%') re.append("(?s:.*)");
      else if (c == '_') re.append("(?s:.)");
      else quote(re, c);
    }
    return re.append('$').toString();
  }

  /** Appends {@code c} matching itself: a metacharacter escaped
   * (quoting every character as \\Q…\\E took five times the room, and long patterns were refused). */
  private static void quote(StringBuilder re, char c) {
    if ("\\.+*?()|[]{}^$".indexOf(c) >= 0) re.append('\\');
    re.append(c);
  }

  static ColumnValues like(VectorSchemaRoot batch, BufferAllocator alloc, PhysicalExpr input, PhysicalExpr pattern,
      boolean caseInsensitive, boolean negated) {
    int n = batch.getRowCount();
    try (ColumnValues a = input.eval(batch, alloc); ColumnValues p = pattern.eval(batch, alloc)) {
      BitVector out = Kernels.newBool(alloc, n);
      String lastPattern = null;
      com.google.re2j.Pattern compiled = null;
      LikeMatcher simple = null;
      try {
        for (int i = 0; i < n; i++) {
          if (a.isNull(i) || p.isNull(i)) continue;
          String pat = (String) p.getObject(i);
          if (!pat.equals(lastPattern)) {
            simple = caseInsensitive ? null : LikeMatcher.of(pat);
            if (simple == null) {
              String re = likeToRegex(pat);
              compiled = Functions.compile(caseInsensitive ? "(?i)" + re : re); // may refuse the pattern
            }
            lastPattern = pat;
          }
          boolean m = simple != null ? simple.matches(a.getBytes(i)) : compiled.matcher((String) a.getObject(i)).matches();
          out.set(i, m != negated ? 1 : 0);
        }
      } catch (RuntimeException e) {
        out.close();
        throw e;
      }
      return Kernels.done(out, n);
    }
  }
}
