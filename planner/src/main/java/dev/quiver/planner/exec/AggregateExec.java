package dev.quiver.planner.exec;

import dev.quiver.planner.kernel.ColumnValues;
import dev.quiver.planner.kernel.PhysicalExpr;
import dev.quiver.planner.kernel.Vectors;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Hash aggregation: consumes the whole input, keeping one row of accumulators per distinct group key
 * (NULL keys form their own group), then emits the groups in batches. Without GROUP BY there is exactly
 * one group, even for an empty input. The hash table is charged to the query's memory limit.
 */
public final class AggregateExec extends Operator {
  private final Operator input;
  private final Schema schema;
  private final String description;
  private final BufferAllocator allocator;
  private final int batchRows;
  private final List<PhysicalExpr> keys;
  /** One integer-like group key: grouped in a primitive hash table. */
  private final boolean longKey;
  private final List<PhysicalExpr> args;
  private final List<Accumulator.Factory> accumulators;
  private final MemoryReservation memory;
  /** Rows between cancellation checks within one batch (a batch may have a million rows). */
  private static final int CHECK_MASK = (1 << 14) - 1;
  private List<Group> groups;
  private int emitted;

  /** One group: its key values (physical form) and accumulators. */
  private record Group(Object[] keyValues, Accumulator[] accs) {}

  /**
   * Groups by {@code keys} ({@code longKey}: one key of the LONG family) and folds aggregate {@code i}'s argument
   * ({@code args[i]}, null for count(*)) into an accumulator from {@code accumulators[i]}; the output is the keys, then
   * the aggregates, as {@code schema} names them. {@code description} is the EXPLAIN text.
   */
  AggregateExec(Operator input, Schema schema, List<PhysicalExpr> keys, boolean longKey, List<PhysicalExpr> args,
      List<Accumulator.Factory> accumulators, String description, BufferAllocator allocator, int batchRows) {
    this.input = input;
    this.schema = schema;
    this.keys = List.copyOf(keys);
    this.longKey = longKey;
    this.args = java.util.Collections.unmodifiableList(new ArrayList<>(args)); // count(*) has no argument: null
    this.accumulators = List.copyOf(accumulators);
    this.description = description;
    this.allocator = allocator;
    this.batchRows = batchRows;
    this.memory = new MemoryReservation(allocator, "the hash aggregation");
  }

  @Override public Schema schema() { return schema; }
  @Override public List<Operator> children() { return List.of(input); }

  @Override
  public String describe() {
    return description;
  }

  @Override
  public Map<String, Long> metrics() {
    Map<String, Long> m = new LinkedHashMap<>();
    if (groups != null) m.put("groups", (long) groups.size());
    return m;
  }

  private Group newGroup(Object[] keyValues) {
    Accumulator[] accs = new Accumulator[accumulators.size()];
    long size = 64;
    for (int a = 0; a < accs.length; a++) {
      accs[a] = accumulators.get(a).create(memory);
      size += accs[a].size();
    }
    for (Object k : keyValues) size += 16 + (k instanceof String s ? 40 + s.length() : 16);
    memory.add(size);
    return new Group(keyValues, accs);
  }

  private void consume() {
    groups = new ArrayList<>();
    Map<Object, Group> table = new HashMap<>();
    // one integer-like key: a primitive hash table, no boxing
    LongIntMap longTable = longKey ? new LongIntMap() : null;
    int nullGroup = -1;
    long tableBytes = 0;
    if (keys.isEmpty()) groups.add(newGroup(new Object[0]));
    VectorSchemaRoot batch;
    while ((batch = input.next()) != null) {
      try (VectorSchemaRoot b = batch) {
        int n = b.getRowCount();
        List<ColumnValues> keyValues = new ArrayList<>();
        List<ColumnValues> argValues = new ArrayList<>();
        try {
          for (PhysicalExpr k : keys) keyValues.add(k.eval(b, allocator));
          for (PhysicalExpr a : args) argValues.add(a == null ? null : a.eval(b, allocator));
          if (keys.isEmpty()) {
            // one group: each accumulator takes the whole batch
            Accumulator[] accs = groups.get(0).accs();
            for (int a = 0; a < argValues.size(); a++) accs[a].addAll(argValues.get(a), n);
            continue;
          }
          Accumulator[][] rowAccs = new Accumulator[n][];
          if (longKey) {
            ColumnValues kv = keyValues.get(0);
            for (int i = 0; i < n; i++) {
              if ((i & CHECK_MASK) == CHECK_MASK) cancellation.check();
              int g;
              if (kv.isNull(i)) {
                if (nullGroup < 0) {
                  nullGroup = groups.size();
                  groups.add(newGroup(new Object[] {null}));
                }
                g = nullGroup;
              } else {
                long k = kv.getLong(i);
                g = longTable.get(k);
                if (g < 0) {
                  g = groups.size();
                  groups.add(newGroup(new Object[] {k}));
                  longTable.put(k, g);
                }
              }
              rowAccs[i] = groups.get(g).accs();
            }
            memory.add(longTable.bytes() - tableBytes);
            tableBytes = longTable.bytes();
          } else {
            for (int i = 0; i < n; i++) {
              if ((i & CHECK_MASK) == CHECK_MASK) cancellation.check();
              Object key = Keys.row(keyValues, i);
              Group g = table.get(key);
              if (g == null) {
                Object[] kv = new Object[keys.size()];
                for (int c = 0; c < kv.length; c++) kv[c] = keyValues.get(c).getObject(i);
                g = newGroup(kv);
                table.put(key, g);
                groups.add(g);
              }
              rowAccs[i] = g.accs();
            }
          }
          // one aggregate at a time over the batch: a tight loop per accumulator column
          for (int a = 0; a < argValues.size(); a++) {
            ColumnValues v = argValues.get(a);
            for (int i = 0; i < n; i++) {
              if ((i & CHECK_MASK) == CHECK_MASK) cancellation.check();
              rowAccs[i][a].add(v, i);
            }
          }
        } finally {
          keyValues.forEach(ColumnValues::close);
          for (ColumnValues v : argValues) if (v != null) v.close();
        }
      }
    }
  }

  @Override
  protected VectorSchemaRoot produce() {
    if (groups == null) consume();
    if (emitted >= groups.size()) return null;
    int count = Math.min(batchRows, groups.size() - emitted);
    List<Field> fields = schema.getFields();
    List<FieldVector> out = new ArrayList<>();
    try {
      for (int c = 0; c < fields.size(); c++) {
        FieldVector v = fields.get(c).createVector(allocator);
        out.add(v);
        v.setInitialCapacity(count);
        v.allocateNew();
        int nk = keys.size();
        for (int r = 0; r < count; r++) {
          Group g = groups.get(emitted + r);
          Vectors.set(v, r, c < nk ? g.keyValues()[c] : g.accs()[c - nk].result());
        }
        v.setValueCount(count);
      }
    } catch (RuntimeException e) {
      out.forEach(FieldVector::close);
      throw e;
    }
    emitted += count;
    return new VectorSchemaRoot(fields, out, count);
  }

  @Override
  public void close() {
    super.close();
    groups = null;
    memory.close();
  }
}
