package dev.quiver.scan.read;

import java.lang.ref.WeakReference;
import java.util.concurrent.atomic.AtomicReferenceArray;
import org.apache.arrow.vector.FieldVector;

/**
 * The dictionary indexes of a string vector the scan read from a dictionary-encoded column chunk, kept beside the
 * vector (by its identity, weakly: they go when the vector does). The vector is an ordinary {@code VarCharVector}
 * that every consumer reads as one; a consumer that works per distinct value (a group-by key) can ask for the
 * indexes and map each dictionary entry once, then each row by its index: rows with equal indexes of the same
 * dictionary hold equal strings. A copy or transfer of the vector has none.
 *
 * <p>They are kept in a small direct-mapped table by the vector's identity hash (a weak reference to the vector and
 * its indexes per slot; a vector tracked later may take the slot of one not yet consumed, whose consumer then
 * hashes its strings as for any other vector). A synchronized {@code WeakHashMap} did this before and cost a fifth
 * of a dictionary-string group-by (H2O q1): one put per batch and column, its chains long with vectors the
 * collector had not yet cleared.
 */
public final class DictionaryStrings {
  /** Slots: enough for the batches in flight, few enough that the indexes kept (a batch's ints each) stay small. */
  private static final int SLOTS = 256;
  private static final AtomicReferenceArray<Slot> BY_VECTOR = new AtomicReferenceArray<>(SLOTS);

  private record Slot(WeakReference<FieldVector> vector, DictionaryStrings strings) {}

  private static int slot(FieldVector v) {
    int h = System.identityHashCode(v) * 0x9E3779B9;
    return (h ^ (h >>> 16)) & (SLOTS - 1);
  }

  private int[] ids;
  private Object dictionary;
  private int dictionarySize;
  private boolean valid = true;

  private DictionaryStrings() {}

  /** The indexes of {@code v}'s rows, or null when it has none (not read so, or some row not dictionary-encoded). */
  public static DictionaryStrings of(FieldVector v) {
    Slot slot = BY_VECTOR.get(slot(v));
    DictionaryStrings d = slot == null || slot.vector().get() != v ? null : slot.strings();
    return d == null || !d.valid || d.ids == null ? null : d;
  }

  /** Starts keeping the indexes of {@code v}, about to be decoded from a chunk with a dictionary of strings. */
  static DictionaryStrings track(FieldVector v) {
    DictionaryStrings d = new DictionaryStrings();
    BY_VECTOR.set(slot(v), new Slot(new WeakReference<>(v), d));
    return d;
  }

  /** The dictionary index of each row (a NULL row's entry means nothing). */
  public int[] ids() {
    return ids;
  }

  /** The identity of the dictionary the indexes refer to (one per column chunk). */
  public Object dictionary() {
    return dictionary;
  }

  /** How many entries the dictionary has (every index is below it). */
  public int dictionarySize() {
    return dictionarySize;
  }

  /** Rows {@code [at, at + count)} hold dictionary entries {@code source[0, count)} of {@code dict}. */
  void record(Object dict, int size, int at, int[] source, int count) {
    if (!valid) return;
    if (dictionary == null) {
      dictionary = dict;
      dictionarySize = size;
    } else if (dictionary != dict) {
      valid = false;
      return;
    }
    if (ids == null || ids.length < at + count) {
      int[] grown = new int[Math.max(at + count, ids == null ? 1024 : 2 * ids.length)];
      if (ids != null) System.arraycopy(ids, 0, grown, 0, ids.length);
      ids = grown;
    }
    System.arraycopy(source, 0, ids, at, count);
  }

  /** Some row came from a page that is not dictionary-encoded: no indexes. */
  void plain() {
    valid = false;
  }
}
