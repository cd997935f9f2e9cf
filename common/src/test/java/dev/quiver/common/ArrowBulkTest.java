package dev.quiver.common;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import java.util.Random;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.SmallIntVector;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * ArrowBulk's whole-run reads against the vectors' own getters, value by value: every width, negative values,
 * lengths from 0 up, into a fresh array and into a reused one that is longer and holds stale values.
 */
class ArrowBulkTest {
  private final BufferAllocator allocator = new RootAllocator();
  private final Random r = new Random(39);

  @AfterEach
  void close() {
    allocator.close();
  }

  @Test
  void longsAndDoublesAreTheGettersValues() {
    for (int n : new int[] {0, 1, 7, 1000, 4099}) {
      try (BigIntVector b = new BigIntVector("b", allocator); IntVector i = new IntVector("i", allocator);
          DateDayVector d = new DateDayVector("d", allocator); Float8Vector f = new Float8Vector("f", allocator);
          Float4Vector h = new Float4Vector("h", allocator); SmallIntVector s = new SmallIntVector("s", allocator)) {
        b.allocateNew(n);
        i.allocateNew(n);
        d.allocateNew(n);
        f.allocateNew(n);
        h.allocateNew(n);
        s.allocateNew(n);
        for (int k = 0; k < n; k++) {
          b.set(k, r.nextLong());
          i.set(k, r.nextInt());
          d.set(k, r.nextInt(40_000) - 20_000);
          f.set(k, r.nextGaussian() * 1e300);
          h.set(k, (float) r.nextGaussian());
          s.set(k, (short) k);
        }
        for (var v : new org.apache.arrow.vector.FieldVector[] {b, i, d, f, h, s}) v.setValueCount(n);
        long[] stale = new long[n + 5];
        java.util.Arrays.fill(stale, 42);
        double[] staleD = new double[n + 5];
        java.util.Arrays.fill(staleD, 42);
        for (long[] reuse : new long[][] {null, stale.clone()}) {
          long[] got = ArrowBulk.longs(b, n, reuse);
          long[] gotI = ArrowBulk.longs(i, n, reuse == null ? null : stale.clone());
          long[] gotD = ArrowBulk.longs(d, n, reuse == null ? null : stale.clone());
          for (int k = 0; k < n; k++) {
            assertThat(got[k]).isEqualTo(b.get(k));
            assertThat(gotI[k]).isEqualTo(i.get(k));
            assertThat(gotD[k]).isEqualTo(d.get(k));
          }
          if (reuse != null) assertThat(got).isSameAs(reuse);
        }
        for (double[] reuse : new double[][] {null, staleD.clone()}) {
          double[] got = ArrowBulk.doubles(f, n, reuse);
          double[] gotH = ArrowBulk.doubles(h, n, reuse == null ? null : staleD.clone());
          for (int k = 0; k < n; k++) {
            assertThat(got[k]).isEqualTo(f.get(k));
            assertThat(gotH[k]).isEqualTo((double) h.get(k));
          }
        }
        for (var in : new org.apache.arrow.vector.FieldVector[] {b, i, d}) {
          try (Float8Vector out = new Float8Vector("o", allocator)) {
            out.allocateNew(n);
            assertThat(ArrowBulk.longsToDoubles(in, out, n)).isTrue();
            out.setValueCount(n);
            for (int k = 0; k < n; k++) {
              assertThat(out.isNull(k)).isFalse();
              assertThat(out.get(k)).isEqualTo((double) ((Number) in.getObject(k)).longValue());
            }
          }
        }
        assertThat(ArrowBulk.longs(s, n, null)).isNull();
        assertThat(ArrowBulk.doubles(b, n, null)).isNull();
      }
    }
  }

  @Test
  void unscaledDecimalsFitALongOrAreRefused() {
    int n = 3000;
    try (DecimalVector v = new DecimalVector("d", allocator, 38, 2)) {
      v.allocateNew(n);
      for (int k = 0; k < n; k++) v.set(k, BigDecimal.valueOf(r.nextLong(), 2));
      v.setNull(17);
      v.setValueCount(n);
      long[] reuse = new long[n + 3];
      java.util.Arrays.fill(reuse, 42);
      long[] got = ArrowBulk.unscaled(v, n, reuse);
      assertThat(got).isSameAs(reuse);
      for (int k = 0; k < n; k++) {
        if (!v.isNull(k)) assertThat(got[k]).isEqualTo(v.getObject(k).unscaledValue().longValueExact());
      }
      // one value past a long: refused (the caller then sums exactly)
      v.set(2999, new BigDecimal("123456789012345678901234.56"));
      assertThat(ArrowBulk.unscaled(v, n, null)).isNull();
      // unless it is NULL
      v.setNull(2999);
      assertThat(ArrowBulk.unscaled(v, n, null)).isNotNull();
    }
  }
}
