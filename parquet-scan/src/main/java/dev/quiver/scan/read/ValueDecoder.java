package dev.quiver.scan.read;

import dev.quiver.common.QuiverException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.TimeStampVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.UInt1Vector;
import org.apache.arrow.vector.UInt2Vector;
import org.apache.arrow.vector.UInt4Vector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.parquet.column.ColumnReader;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.PrimitiveType;

/**
 * Copies the current (non-null) value of a parquet-java {@link ColumnReader} into slot {@code i} of an
 * Arrow vector. One instance per (Parquet physical type, Arrow vector class) pair, chosen once per column.
 */
@FunctionalInterface
interface ValueDecoder {
  void copy(ColumnReader r, FieldVector v, int i);

  static ValueDecoder forColumn(PrimitiveType col, FieldVector target) {
    switch (col.getPrimitiveTypeName()) {
      case BOOLEAN:
        return (r, v, i) -> ((BitVector) v).set(i, r.getBoolean() ? 1 : 0);
      case INT32:
        if (target instanceof IntVector) return (r, v, i) -> ((IntVector) v).set(i, r.getInteger());
        if (target instanceof DateDayVector) return (r, v, i) -> ((DateDayVector) v).set(i, r.getInteger());
        if (target instanceof SmallIntVector) return (r, v, i) -> ((SmallIntVector) v).set(i, (short) r.getInteger());
        if (target instanceof TinyIntVector) return (r, v, i) -> ((TinyIntVector) v).set(i, (byte) r.getInteger());
        if (target instanceof UInt1Vector) return (r, v, i) -> ((UInt1Vector) v).set(i, (byte) r.getInteger());
        if (target instanceof UInt2Vector) return (r, v, i) -> ((UInt2Vector) v).set(i, (char) r.getInteger());
        if (target instanceof UInt4Vector) return (r, v, i) -> ((UInt4Vector) v).set(i, r.getInteger());
        if (target instanceof DecimalVector) return (r, v, i) -> ((DecimalVector) v).set(i, (long) r.getInteger());
        break;
      case INT64:
        if (target instanceof BigIntVector) return (r, v, i) -> ((BigIntVector) v).set(i, r.getLong());
        if (target instanceof UInt8Vector) return (r, v, i) -> ((UInt8Vector) v).set(i, r.getLong());
        if (target instanceof TimeStampVector) return (r, v, i) -> ((TimeStampVector) v).set(i, r.getLong());
        if (target instanceof DecimalVector) return (r, v, i) -> ((DecimalVector) v).set(i, r.getLong());
        break;
      case INT96:
        return (r, v, i) -> ((TimeStampVector) v).set(i, int96ToEpochMicros(r.getBinary()));
      case FLOAT:
        return (r, v, i) -> ((Float4Vector) v).set(i, r.getFloat());
      case DOUBLE:
        return (r, v, i) -> ((Float8Vector) v).set(i, r.getDouble());
      case BINARY:
      case FIXED_LEN_BYTE_ARRAY:
        if (target instanceof VarCharVector) {
          return (r, v, i) -> {
            ByteBuffer b = r.getBinary().toByteBuffer();
            ((VarCharVector) v).setSafe(i, b, b.position(), b.remaining());
          };
        }
        if (target instanceof VarBinaryVector) {
          return (r, v, i) -> {
            ByteBuffer b = r.getBinary().toByteBuffer();
            ((VarBinaryVector) v).setSafe(i, b, b.position(), b.remaining());
          };
        }
        if (target instanceof DecimalVector) {
          return (r, v, i) -> ((DecimalVector) v).setBigEndian(i, r.getBinary().getBytes());
        }
        if (target instanceof Float4Vector
            && col.getLogicalTypeAnnotation() instanceof LogicalTypeAnnotation.Float16LogicalTypeAnnotation) {
          return (r, v, i) -> ((Float4Vector) v).set(i, halfToFloat(r.getBinary().getBytes()));
        }
        break;
      default:
        break;
    }
    throw QuiverException.internal("no decoder for " + col + " into " + target.getClass().getSimpleName());
  }

  /** INT96: 8 bytes of nanoseconds in the day, then 4 bytes of Julian day, both little-endian. */
  static long int96ToEpochMicros(Binary b) {
    ByteBuffer buf = b.toByteBuffer().order(ByteOrder.LITTLE_ENDIAN);
    return int96ToEpochMicros(buf.getLong(), buf.getInt());
  }

  /** INT96 parts: nanoseconds in the day and the Julian day, to microseconds since the epoch. */
  static long int96ToEpochMicros(long nanosOfDay, int julianDay) {
    return (julianDay - 2_440_588L) * 86_400_000_000L + Math.floorDiv(nanosOfDay, 1000L);
  }

  /** IEEE 754 half precision (little-endian, as Parquet FLOAT16 stores it) to float. */
  static float halfToFloat(byte[] le) {
    int h = (le[0] & 0xFF) | ((le[1] & 0xFF) << 8);
    int sign = (h >>> 15) & 1;
    int exp = (h >>> 10) & 0x1F;
    int mant = h & 0x3FF;
    float value;
    if (exp == 0) {
      value = (float) (mant * Math.pow(2, -24));
    } else if (exp == 31) {
      value = mant == 0 ? Float.POSITIVE_INFINITY : Float.NaN;
    } else {
      value = (float) ((1 + mant / 1024.0) * Math.pow(2, exp - 15));
    }
    return sign == 1 ? -value : value;
  }
}
