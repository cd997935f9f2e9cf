package dev.quiver.planner.exec;

import dev.quiver.planner.kernel.ColumnValues;
import dev.quiver.planner.plan.LogicalPlan.AggregateCall;
import java.util.List;

/**
 * A DISTINCT aggregate ({@code count(DISTINCT x)}, {@code sum(DISTINCT x)} …) for every group: the argument's values
 * are numbered by a {@link GroupTable} (typed keys, SQL equality: {@code -0.0} is {@code 0.0}, every NaN one value,
 * decimals by value), each (group, value) pair is remembered in a primitive table, and only a row that brings a new
 * pair reaches the aggregate itself — the same aggregate without DISTINCT, typed where it has a typed form. The rows
 * that repeat a pair go to a sink group (group 0 of the inner aggregate; group {@code g} is its group {@code g + 1}),
 * so the inner aggregate still runs one tight loop per chunk. NULLs reach it too and are ignored there, as every
 * aggregate but count(*) (which has no DISTINCT form) ignores them. What is remembered is charged to the query's
 * memory.
 */
final class GroupedDistinct extends GroupedAccumulator {
  private final GroupedAccumulator inner;
  private final DistinctRows rows;
  private int[] routed = new int[0];

  GroupedDistinct(AggregateCall call, MemoryReservation memory) {
    AggregateCall plain = new AggregateCall(call.func(), call.arg(), call.type(), call.name(), false, call.separator(),
        call.orderBy(), call.arg2(), call.quantile());
    this.inner = GroupedAccumulator.of(Accumulator.factory(plain), memory);
    this.rows = new DistinctRows(call.arg().type(), memory);
  }

  /** Whether {@code call} (DISTINCT) has this form: one argument, no ORDER BY (the argument's values alone). */
  static boolean handles(AggregateCall call) {
    return call.arg() != null && call.arg2() == null && call.orderBy().isEmpty();
  }

  @Override
  void grow(int count) {
    inner.grow(count + 1);
  }

  @Override
  void batch(ColumnValues v, int n) {
    inner.batch(v, n);
    rows.batch(v, n);
    if (routed.length < n) routed = new int[n];
  }

  @Override
  void update(int[] ids, int lo, int hi) {
    rows.route(ids, lo, hi, routed);
    inner.update(routed, lo, hi);
  }

  @Override
  Object result(int g) {
    return inner.result(g + 1);
  }

  /** The (group, value) pairs seen so far, a batch at a time. */
  static final class DistinctRows {
    private final GroupTable values;
    private final LongIntMap pairs = new LongIntMap();
    private final MemoryReservation memory;
    private int[] valueIds = new int[0];
    private long charged;

    DistinctRows(org.apache.arrow.vector.types.pojo.ArrowType type, MemoryReservation memory) {
      this.values = new GroupTable(List.of(type));
      this.memory = memory;
    }

    void batch(ColumnValues v, int n) {
      values.batch(List.of(v), n);
      if (valueIds.length < n) valueIds = new int[n];
    }

    /**
     * For rows {@code [lo, hi)} in groups {@code ids} (null: all in group 0): {@code out[i] = ids[i] + 1} when row
     * {@code i} is the first with its value in its group, else 0.
     */
    void route(int[] ids, int lo, int hi, int[] out) {
      values.ids(lo, hi, valueIds);
      for (int i = lo; i < hi; i++) {
        int g = ids == null ? 0 : ids[i];
        long pair = ((long) g << 32) | (valueIds[i] & 0xFFFFFFFFL);
        if (pairs.get(pair) < 0) {
          pairs.put(pair, 0);
          out[i] = g + 1;
        } else {
          out[i] = 0;
        }
      }
      long bytes = values.bytes() + pairs.bytes();
      memory.add(bytes - charged);
      charged = bytes;
    }
  }
}
