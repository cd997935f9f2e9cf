package dev.quiver.scan.read;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quiver.scan.predicate.ScanPredicate;
import dev.quiver.scan.predicate.ScanPredicate.Compare;
import dev.quiver.scan.predicate.ScanPredicate.Op;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The scan's late-materialization filter over whole batches (values copied out at once, compared as
 * longs) against a comparison written here row by row with BigDecimal / long: NULLs, every operator,
 * literals at a smaller scale, a decimal batch with a value wider than 64 bits (the row-by-row path).
 */
class RowFilterTest {
  static final int N = 2_001;
  final BufferAllocator allocator = new RootAllocator();

  @AfterEach
  void close() {
    allocator.close();
  }

  @Test
  void batchComparisonsMatchRowByRow() {
    Random r = new Random(20261130);
    List<FieldVector> owned = new ArrayList<>();
    try {
      BigIntVector big = new BigIntVector("big", allocator);
      IntVector small = new IntVector("small", allocator);
      DateDayVector day = new DateDayVector("day", allocator);
      DecimalVector dec = new DecimalVector("dec", allocator, 15, 2);
      DecimalVector wide = new DecimalVector("wide", allocator, 38, 2);
      owned.addAll(List.of(big, small, day, dec, wide));
      for (FieldVector v : owned) {
        v.setInitialCapacity(N);
        v.allocateNew();
      }
      Object[][] values = new Object[N][5];
      for (int i = 0; i < N; i++) {
        values[i][0] = i % 9 == 0 ? null : r.nextLong() % 100;
        values[i][1] = i % 7 == 0 ? null : r.nextInt(100) - 50;
        values[i][2] = i % 5 == 0 ? null : 9_000 + r.nextInt(40);
        values[i][3] = i % 11 == 0 ? null : BigDecimal.valueOf(r.nextInt(2_000) - 1_000, 2);
        values[i][4] = i == 77 ? new BigDecimal(BigInteger.TEN.pow(25), 2) : i % 4 == 0 ? null : BigDecimal.valueOf(r.nextInt(500), 2);
        if (values[i][0] != null) big.set(i, (Long) values[i][0]);
        if (values[i][1] != null) small.set(i, (Integer) values[i][1]);
        if (values[i][2] != null) day.set(i, (Integer) values[i][2]);
        if (values[i][3] != null) dec.set(i, (BigDecimal) values[i][3]);
        if (values[i][4] != null) wide.set(i, (BigDecimal) values[i][4]);
      }
      for (FieldVector v : owned) v.setValueCount(N);
      Map<String, FieldVector> byName = new HashMap<>();
      for (FieldVector v : owned) byName.put(v.getName(), v);
      String[] names = {"big", "small", "day", "dec", "wide"};
      ArrowType[] types = {new ArrowType.Int(64, true), new ArrowType.Int(32, true), new ArrowType.Date(org.apache.arrow.vector.types.DateUnit.DAY),
          new ArrowType.Decimal(15, 2, 128), new ArrowType.Decimal(38, 2, 128)};
      Object[][] literals = {{0L, 42L, -100L}, {0L, -3L}, {9_010L, 9_000L}, {new BigDecimal("0.05"), new BigDecimal("-3"), new BigDecimal("1.1")},
          {new BigDecimal("2.5"), BigDecimal.ZERO}};
      for (int c = 0; c < names.length; c++) {
        for (Object literal : literals[c]) {
          for (Op op : Op.values()) {
            ScanPredicate p = new Compare(names[c], op, literal, types[c]);
            RowFilter f = RowFilter.of(p, Set.of(names));
            boolean[] keep = new boolean[N];
            int count = f.select(byName, N, keep);
            int expectedCount = 0;
            for (int i = 0; i < N; i++) {
              Object x = values[i][c];
              boolean want = x != null && test(op, x instanceof BigDecimal d ? d.compareTo((BigDecimal) literal)
                  : Long.compare(((Number) x).longValue(), (Long) literal));
              assertThat(keep[i]).as(p + " row " + i + " value " + x).isEqualTo(want);
              if (want) expectedCount++;
            }
            assertThat(count).isEqualTo(expectedCount);
          }
        }
      }
    } finally {
      owned.forEach(FieldVector::close);
    }
  }

  private static boolean test(Op op, int c) {
    return switch (op) {
      case EQ -> c == 0; case NE -> c != 0; case LT -> c < 0; case LE -> c <= 0; case GT -> c > 0; case GE -> c >= 0;
    };
  }
}
