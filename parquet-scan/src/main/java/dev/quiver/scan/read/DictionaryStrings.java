package dev.quiver.scan.read;

import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReferenceArray;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * The dictionary indexes of a string vector the scan read from a dictionary-encoded column chunk, kept beside the
 * vector (by its identity). A consumer that works per distinct value (a group-by key) can ask for the indexes and
 * map each dictionary entry once, then each row by its index: rows with equal indexes of the same dictionary hold
 * equal strings. A copy or transfer of the vector has none.
 *
 * <p>Two kinds:
 * <ul>
 *   <li><b>Beside the strings.</b> The vector is an ordinary {@code VarCharVector} that every consumer reads as one;
 *   the indexes are a help, kept in a small direct-mapped table by the vector's identity hash (a weak reference to the
 *   vector and its indexes per slot; a vector tracked later may take the slot of one not yet consumed, whose consumer
 *   then hashes its strings as for any other vector). A synchronized {@code WeakHashMap} did this before and cost a
 *   fifth of a dictionary-string group-by (H2O q1): one put per batch and column, its chains long with vectors the
 *   collector had not yet cleared.</li>
 *   <li><b>Instead of the strings</b> ({@link #absent}): for a column that a scan task's pipeline only groups by
 *   ({@link BatchPipeline#keysByIndex}), the scan leaves every non-NULL row an empty string and hands the indexes
 *   alone: making 10 M strings no one reads was a third of H2O q1. Such indexes are held strongly, for the thread
 *   that hands the batch to its pipeline and only while it does ({@link #handOver}); the consumer finds them with
 *   {@link #of} (a consumer that passes the rows on first makes their strings: {@link #materialize}), and the scan
 *   fails the query, as a bug, if a batch's consumer did neither: a vector of empty strings never leaves the
 *   pipeline unnoticed.</li>
 * </ul>
 */
public final class DictionaryStrings {
  /** Slots: enough for the batches in flight, few enough that the indexes kept (a batch's ints each) stay small. */
  private static final int SLOTS = 256;
  private static final AtomicReferenceArray<Slot> BY_VECTOR = new AtomicReferenceArray<>(SLOTS);
  /** The indexes handed instead of strings by this thread's scan task to its pipeline, while it does. */
  private static final ThreadLocal<List<DictionaryStrings>> HANDED = ThreadLocal.withInitial(ArrayList::new);
  /**
   * The indexes handed instead of strings in batches a scan hands out to the query's thread ({@link
   * ParquetScan#withKeysByIndex}), by vector identity, until their consumer is done with the batch ({@link #received})
   * or the scan closes.
   */
  private static final java.util.concurrent.ConcurrentHashMap<Identity, DictionaryStrings> ACROSS =
      new java.util.concurrent.ConcurrentHashMap<>();

  /** A vector as a map key by its identity. */
  private record Identity(FieldVector vector) {
    @Override public boolean equals(Object o) {
      return o instanceof Identity i && i.vector == vector;
    }

    @Override public int hashCode() {
      return System.identityHashCode(vector);
    }
  }

  private record Slot(WeakReference<FieldVector> vector, DictionaryStrings strings) {}

  /**
   * A column chunk's dictionary of strings: entry {@code e} is {@code bytes[offsets[e], offsets[e] + lengths[e])}.
   * One object per chunk: its identity is the dictionary's.
   */
  public record Entries(byte[] bytes, int[] offsets, int[] lengths) {
    public int size() {
      return offsets.length;
    }
  }

  private static int slot(FieldVector v) {
    int h = System.identityHashCode(v) * 0x9E3779B9;
    return (h ^ (h >>> 16)) & (SLOTS - 1);
  }

  private int[] ids;
  private Entries dictionary;
  private boolean valid = true;
  /** Handed instead of the strings: the vector's non-NULL rows are empty strings until {@link #materialize}d. */
  private FieldVector absentFrom;
  /** Whether a consumer looked the indexes up ({@link #of}) while they were handed over. */
  private boolean read;
  /** The scan that sent them across ({@link #sendAcross}), which forgets them when it closes; else null. */
  private Object sender;

  private DictionaryStrings() {}

  /**
   * The indexes of {@code v}'s rows, or null when it has none (not read so, or some row not dictionary-encoded). When
   * {@link #absent}, the rows' strings are not in {@code v}: the indexes and {@link #dictionary} are the values.
   */
  public static DictionaryStrings of(FieldVector v) {
    List<DictionaryStrings> handed = HANDED.get();
    for (int i = 0; i < handed.size(); i++) {
      DictionaryStrings d = handed.get(i);
      if (d.absentFrom == v) {
        d.read = true;
        return d;
      }
    }
    if (!ACROSS.isEmpty()) {
      DictionaryStrings d = ACROSS.get(new Identity(v));
      if (d != null) {
        d.read = true;
        return d;
      }
    }
    Slot slot = BY_VECTOR.get(slot(v));
    DictionaryStrings d = slot == null || slot.vector().get() != v ? null : slot.strings();
    return d == null || !d.valid || d.ids == null ? null : d;
  }

  /**
   * Moves the indexes handed {@link #instead} strings on this thread to the query's thread, with their batch: kept
   * by vector until {@link #received}, or until {@code sender} (the scan) {@link #drop}s what it sent.
   */
  static void sendAcross(Object sender) {
    List<DictionaryStrings> handed = HANDED.get();
    for (DictionaryStrings d : handed) {
      d.sender = sender;
      ACROSS.put(new Identity(d.absentFrom), d);
    }
    handed.clear();
  }

  /**
   * The consumer of {@code batch} (from a scan that hands keys by index) is done with it: its vectors' indexes are
   * forgotten. Throws {@link IllegalStateException} — a bug, never a wrong answer — if one of them was not read by
   * its indexes ({@link #of}).
   */
  public static void received(VectorSchemaRoot batch) {
    if (ACROSS.isEmpty()) return;
    for (FieldVector v : batch.getFieldVectors()) {
      DictionaryStrings d = ACROSS.remove(new Identity(v));
      if (d != null && !d.read && d.ids.length > 0) {
        throw new IllegalStateException("a batch handed by dictionary index was read as strings");
      }
    }
  }

  /** How many batches' vectors have indexes sent across and not yet received (for tests). */
  static int sentAcross() {
    return ACROSS.size();
  }

  /** Forgets the indexes {@code sender} sent across and nobody received (their batches were never consumed). */
  static void drop(Object sender) {
    if (!ACROSS.isEmpty()) ACROSS.values().removeIf(d -> d.sender == sender);
  }

  /** Starts keeping the indexes of {@code v}, about to be decoded from a chunk with a dictionary of strings. */
  static DictionaryStrings track(FieldVector v) {
    DictionaryStrings d = new DictionaryStrings();
    BY_VECTOR.set(slot(v), new Slot(new WeakReference<>(v), d));
    return d;
  }

  /**
   * Hands {@code ids} (-1: NULL) of {@code dictionary} as the values of {@code v}, whose non-NULL rows are empty
   * strings, to the pipeline this thread is about to give {@code v} to ({@link #handOver}).
   */
  static void instead(VarCharVector v, Entries dictionary, int[] ids) { // ids: one per row, no more
    DictionaryStrings d = new DictionaryStrings();
    d.ids = ids;
    d.dictionary = dictionary;
    d.absentFrom = v;
    HANDED.get().add(d);
  }

  /**
   * Runs {@code consume} (this thread's pipeline taking a batch) with the indexes handed {@link #instead} strings since
   * the last hand-over, then forgets them. Throws {@link IllegalStateException} — a bug, never a wrong answer — if the
   * pipeline read a batch with such a vector neither by its indexes nor after making its strings.
   */
  static void handOver(Runnable consume) {
    List<DictionaryStrings> handed = HANDED.get();
    boolean done = false;
    try {
      consume.run();
      done = true;
    } finally {
      List<DictionaryStrings> left = List.copyOf(handed);
      handed.clear();
      if (done) {
        for (DictionaryStrings d : left) {
          if (d.absentFrom != null && !d.read && d.ids.length > 0) { // (the vector may be closed by now)
            throw new IllegalStateException("a batch handed by dictionary index was read as strings");
          }
        }
      }
    }
  }

  /** Forgets the indexes handed instead of strings on this thread and not yet handed over (their batch failed). */
  static void forget() {
    HANDED.get().clear();
  }

  /**
   * Makes the strings of every vector of {@code batch} that holds dictionary indexes {@link #absent instead of them}:
   * what a consumer does before it passes the rows on. No-op for the others.
   */
  public static void materialize(VectorSchemaRoot batch) {
    List<DictionaryStrings> handed = HANDED.get();
    for (DictionaryStrings d : handed) {
      if (d.absentFrom == null || !batch.getFieldVectors().contains(d.absentFrom)) continue;
      VarCharVector v = (VarCharVector) d.absentFrom;
      int n = v.getValueCount();
      Entries e = d.dictionary;
      v.reset();
      for (int i = 0; i < n; i++) {
        int id = d.ids[i];
        if (id < 0) v.setNull(i);
        else v.setSafe(i, e.bytes(), e.offsets()[id], e.lengths()[id]);
      }
      v.setValueCount(n);
      d.absentFrom = null;
    }
  }

  /** Whether the vector's strings are not in it (each non-NULL row an empty string): the indexes are its values. */
  public boolean absent() {
    return absentFrom != null;
  }

  /** The dictionary index of each row (a NULL row's entry means nothing). */
  public int[] ids() {
    return ids;
  }

  /** The dictionary the indexes refer to (one per column chunk; its identity is the dictionary's). */
  public Entries dictionary() {
    return dictionary;
  }

  /** How many entries the dictionary has (every index is below it). */
  public int dictionarySize() {
    return dictionary.size();
  }

  /** Rows {@code [at, at + count)} hold dictionary entries {@code source[0, count)} of {@code dict}. */
  void record(Entries dict, int at, int[] source, int count) {
    if (!valid) return;
    if (dictionary == null) {
      dictionary = dict;
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
