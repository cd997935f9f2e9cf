package dev.quiver.planner.kernel;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * A case-sensitive LIKE pattern made only of literal text and {@code %} (no {@code _}, no escapes),
 * matched on UTF-8 bytes without building strings or running a regular expression: the literal pieces
 * must appear in order, the first at the start unless the pattern starts with {@code %}, the last at the
 * end unless it ends with {@code %}. Byte matching is exact for UTF-8 (a valid UTF-8 needle only matches
 * at character boundaries of valid UTF-8 text).
 */
final class LikeMatcher {
  private final byte[][] pieces;
  private final boolean anchoredStart;
  private final boolean anchoredEnd;

  private LikeMatcher(byte[][] pieces, boolean anchoredStart, boolean anchoredEnd) {
    this.pieces = pieces;
    this.anchoredStart = anchoredStart;
    this.anchoredEnd = anchoredEnd;
  }

  /** The matcher for {@code pattern}, or null when it has {@code _} or escapes. */
  static LikeMatcher of(String pattern) {
    if (pattern.indexOf('_') >= 0 || pattern.indexOf('\\') >= 0) return null;
    List<byte[]> parts = new ArrayList<>();
    for (String s : pattern.split("%", -1)) parts.add(s.getBytes(StandardCharsets.UTF_8));
    boolean start = !pattern.startsWith("%");
    boolean end = !pattern.endsWith("%");
    return new LikeMatcher(parts.toArray(new byte[0][]), start, end);
  }

  boolean matches(byte[] s) {
    int n = pieces.length;
    if (n == 1) return java.util.Arrays.equals(pieces[0], s); // no % at all
    byte[] first = pieces[0];
    byte[] last = pieces[n - 1];
    if (first.length + last.length > s.length) return false;
    if (anchoredStart && !regionEquals(s, 0, first)) return false;
    if (anchoredEnd && !regionEquals(s, s.length - last.length, last)) return false;
    int from = first.length;
    int limit = s.length - last.length;
    for (int p = 1; p < n - 1; p++) {
      int at = indexOf(s, pieces[p], from, limit);
      if (at < 0) return false;
      from = at + pieces[p].length;
    }
    return true;
  }

  private static boolean regionEquals(byte[] s, int at, byte[] piece) {
    return java.util.Arrays.equals(s, at, at + piece.length, piece, 0, piece.length);
  }

  /** The first index >= from where {@code needle} occurs entirely before {@code limit}, or -1. */
  private static int indexOf(byte[] s, byte[] needle, int from, int limit) {
    if (needle.length == 0) return from;
    byte b0 = needle[0];
    for (int i = from; i + needle.length <= limit; i++) {
      if (s[i] == b0 && regionEquals(s, i, needle)) return i;
    }
    return -1;
  }
}
