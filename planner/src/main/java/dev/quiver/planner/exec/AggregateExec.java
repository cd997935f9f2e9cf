package dev.quiver.planner.exec;

import dev.quiver.planner.kernel.ColumnValues;
import dev.quiver.planner.kernel.PhysicalExpr;
import dev.quiver.planner.kernel.Vectors;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Hash aggregation: consumes the whole input, numbering the distinct group keys (NULL keys form their own
 * group) a batch at a time with {@link GroupTable} and folding each aggregate's argument into per-group state
 * with {@link GroupedAccumulator}, then emits the groups in order of first appearance, in batches. Without GROUP BY there is exactly
 * one group, even for an empty input. The hash table is charged to the query's memory limit.
 */
public final class AggregateExec extends Operator {
  private final Operator input;
  private final Schema schema;
  private final String description;
  private final BufferAllocator allocator;
  private final int batchRows;
  private final List<PhysicalExpr> keys;
  private final List<PhysicalExpr> args;
  private final List<Accumulator.Factory> accumulators;
  private final MemoryReservation memory;
  /**
   * Rows per chunk of a batch (a batch may have a million rows): group ids, aggregate updates, then a cancellation
   * check. 4k rows keep the chunk's group ids in the L1 cache while every aggregate reads them.
   */
  private static final int CHUNK = 1 << 12;
  private boolean consumed;
  /** Without GROUP BY: the one group's accumulators. */
  private Accumulator[] single;
  /** With GROUP BY: the group ids, and each aggregate's state over all groups. */
  private GroupTable table;
  private GroupedAccumulator[] grouped;
  private int groupCount;
  private int emitted;
  private final List<List<Object>> emptyInputGroups;
  /** The aggregates' values over no rows, when the groups of {@link #emptyInputGroups} are output. */
  private Object[] emptyValues;

  /**
   * Groups by {@code keys} (typed as {@code schema}'s first fields) and folds aggregate {@code i}'s argument
   * ({@code args[i]}, null for count(*)) into an accumulator from {@code accumulators[i]}; the output is the keys, then
   * the aggregates, as {@code schema} names them. {@code description} is the EXPLAIN text.
   */
  AggregateExec(Operator input, Schema schema, List<PhysicalExpr> keys, List<PhysicalExpr> args,
      List<Accumulator.Factory> accumulators, String description, BufferAllocator allocator, int batchRows) {
    this(input, schema, keys, args, accumulators, description, allocator, batchRows, List.of());
  }

  /**
   * As above; when the input has no row, the output is one group per entry of {@code emptyInputGroups} (its key
   * values, each aggregate's value over no rows): the grand total of GROUP BY GROUPING SETS (..., ()).
   */
  AggregateExec(Operator input, Schema schema, List<PhysicalExpr> keys, List<PhysicalExpr> args,
      List<Accumulator.Factory> accumulators, String description, BufferAllocator allocator, int batchRows,
      List<List<Object>> emptyInputGroups) {
    this.emptyInputGroups = emptyInputGroups;
    this.input = input;
    this.schema = schema;
    this.keys = List.copyOf(keys);
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
    if (consumed) m.put("groups", (long) groupCount);
    return m;
  }

  /**
   * Whether the scan below hands some string keys as dictionary indexes ({@link ScanExec#keysByIndex}): each batch is
   * then given back with {@code DictionaryStrings.received} once folded.
   */
  boolean keysByIndex;

  private void consume() {
    int na = accumulators.size();
    VectorSchemaRoot batch;
    if (keys.isEmpty()) {
      // one group, even over no rows: each accumulator takes whole batches
      single = new Accumulator[na];
      long size = 64;
      for (int a = 0; a < na; a++) {
        single[a] = accumulators.get(a).create(memory);
        size += single[a].size();
      }
      memory.add(size);
      groupCount = 1;
    } else {
      List<ArrowType> keyTypes = new ArrayList<>();
      for (int c = 0; c < keys.size(); c++) keyTypes.add(schema.getFields().get(c).getType());
      table = new GroupTable(keyTypes);
      grouped = new GroupedAccumulator[na];
      for (int a = 0; a < na; a++) grouped[a] = GroupedAccumulator.of(accumulators.get(a), memory);
    }
    long tableBytes = 0;
    int[] ids = new int[0];
    while ((batch = input.next()) != null) {
      try (VectorSchemaRoot b = batch) {
        int n = b.getRowCount();
        List<ColumnValues> keyValues = new ArrayList<>();
        List<ColumnValues> argValues = new ArrayList<>();
        try {
          for (PhysicalExpr k : keys) keyValues.add(k.eval(b, allocator));
          for (PhysicalExpr a : args) argValues.add(a == null ? null : a.eval(b, allocator));
          if (keys.isEmpty()) {
            for (int a = 0; a < na; a++) single[a].addAll(argValues.get(a), n);
            continue;
          }
          if (ids.length < n) ids = new int[n];
          table.batch(keyValues, n);
          for (int a = 0; a < na; a++) grouped[a].batch(argValues.get(a), n);
          // a chunk of rows at a time: its group ids, then one tight loop per aggregate, then a cancellation check
          for (int lo = 0; lo < n; lo += CHUNK) {
            int hi = Math.min(n, lo + CHUNK);
            table.ids(lo, hi, ids);
            int groups = table.groups();
            if (groups > groupCount) {
              memory.add((groups - groupCount) * GroupedAccumulator.chargePerGroup(grouped));
              for (GroupedAccumulator g : grouped) g.grow(groups);
              groupCount = groups;
            }
            for (GroupedAccumulator g : grouped) g.update(ids, lo, hi);
            cancellation.check();
          }
          long bytes = table.bytes();
          memory.add(bytes - tableBytes);
          tableBytes = bytes;
          if (keysByIndex) dev.quiver.scan.read.DictionaryStrings.received(b);
        } finally {
          keyValues.forEach(ColumnValues::close);
          for (ColumnValues v : argValues) if (v != null) v.close();
        }
      }
    }
    consumed = true;
    if (table != null && groupCount == 0 && !emptyInputGroups.isEmpty()) {
      emptyValues = new Object[na];
      for (int a = 0; a < na; a++) emptyValues[a] = accumulators.get(a).create(memory).result();
      groupCount = emptyInputGroups.size();
    }
  }

  @Override
  protected VectorSchemaRoot produce() {
    if (!consumed) consume();
    if (emitted >= groupCount) return null;
    int count = Math.min(batchRows, groupCount - emitted);
    int nk = keys.size();
    if (table != null && emptyValues == null) {
      // typed where the key columns and aggregates can write themselves
      VectorSchemaRoot typed = emptyBatch(schema, allocator, count);
      try {
        for (int c = 0; c < nk; c++) table.writeKeys(c, typed.getVector(c), emitted, count);
        for (int a = 0; a < grouped.length; a++) grouped[a].write(typed.getVector(nk + a), emitted, count);
        for (FieldVector v : typed.getFieldVectors()) v.setValueCount(count);
        typed.setRowCount(count);
      } catch (RuntimeException | Error e) {
        typed.close();
        throw e;
      }
      emitted += count;
      return typed;
    }
    VectorSchemaRoot batch = groupBatch(schema, allocator, emitted, count,
        (c, g) -> emptyValues != null ? (c < nk ? emptyInputGroups.get(g).get(c) : emptyValues[c - nk])
            : c < nk ? table.key(c, g) : single != null ? single[c - nk].result() : grouped[c - nk].result(g));
    emitted += count;
    return batch;
  }

  /** The value of output column {@code c} for group {@code g}. */
  @FunctionalInterface
  interface GroupCell {
    Object value(int c, int g);
  }

  /** A batch of {@code schema}'s columns allocated for {@code count} rows, nothing set. */
  static VectorSchemaRoot emptyBatch(Schema schema, BufferAllocator allocator, int count) {
    List<Field> fields = schema.getFields();
    List<FieldVector> out = new ArrayList<>();
    try {
      for (Field f : fields) {
        FieldVector v = f.createVector(allocator);
        out.add(v);
        v.setInitialCapacity(count);
        v.allocateNew();
      }
    } catch (RuntimeException | Error e) {
      out.forEach(FieldVector::close);
      throw e;
    }
    return new VectorSchemaRoot(fields, out, 0);
  }

  /** A batch of {@code count} groups from group {@code first} on, each column filled from {@code cell}. */
  static VectorSchemaRoot groupBatch(Schema schema, BufferAllocator allocator, int first, int count, GroupCell cell) {
    List<Field> fields = schema.getFields();
    List<FieldVector> out = new ArrayList<>();
    try {
      for (int c = 0; c < fields.size(); c++) {
        FieldVector v = fields.get(c).createVector(allocator);
        out.add(v);
        v.setInitialCapacity(count);
        v.allocateNew();
        for (int r = 0; r < count; r++) Vectors.set(v, r, cell.value(c, first + r));
        v.setValueCount(count);
      }
    } catch (RuntimeException e) {
      out.forEach(FieldVector::close);
      throw e;
    }
    return new VectorSchemaRoot(fields, out, count);
  }

  @Override
  public void close() {
    super.close();
    single = null;
    table = null;
    grouped = null;
    memory.close();
  }
}
