package dev.quiver.scan.table;

import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.LogicalTypeAnnotation.DecimalLogicalTypeAnnotation;
import org.apache.parquet.schema.LogicalTypeAnnotation.IntLogicalTypeAnnotation;
import org.apache.parquet.schema.LogicalTypeAnnotation.TimestampLogicalTypeAnnotation;
import org.apache.parquet.schema.PrimitiveType;
import org.apache.parquet.schema.Type;

/** Maps a Parquet leaf column to the Arrow type Quiver exposes it as. */
public final class TypeMapping {
  private TypeMapping() {}

  /** The result of mapping: an Arrow type, or the reason the column is not supported. */
  public record Mapped(ArrowType type, String unsupportedReason) {
    public boolean supported() {
      return type != null;
    }
  }

  public static Mapped map(Type field) {
    if (!field.isPrimitive()) {
      LogicalTypeAnnotation l = field.getLogicalTypeAnnotation();
      String kind = l instanceof LogicalTypeAnnotation.ListLogicalTypeAnnotation
          || l == null && field.isRepetition(Type.Repetition.REPEATED) ? "LIST"
          : l instanceof LogicalTypeAnnotation.MapLogicalTypeAnnotation ? "MAP" : l == null ? "STRUCT" : l.toString();
      return new Mapped(null, "nested type " + kind);
    }
    if (field.isRepetition(Type.Repetition.REPEATED)) {
      return new Mapped(null, "repeated (list) column");
    }
    PrimitiveType p = field.asPrimitiveType();
    LogicalTypeAnnotation l = p.getLogicalTypeAnnotation();
    switch (p.getPrimitiveTypeName()) {
      case BOOLEAN:
        return ok(ArrowType.Bool.INSTANCE);
      case INT32:
        if (l == null) return ok(new ArrowType.Int(32, true));
        if (l instanceof IntLogicalTypeAnnotation i) return ok(new ArrowType.Int(i.getBitWidth(), i.isSigned()));
        if (l instanceof DecimalLogicalTypeAnnotation d) return ok(decimal(d));
        if (l instanceof LogicalTypeAnnotation.DateLogicalTypeAnnotation) return ok(new ArrowType.Date(DateUnit.DAY));
        return new Mapped(null, "INT32 annotated " + l);
      case INT64:
        if (l == null) return ok(new ArrowType.Int(64, true));
        if (l instanceof IntLogicalTypeAnnotation i) return ok(new ArrowType.Int(64, i.isSigned()));
        if (l instanceof DecimalLogicalTypeAnnotation d) return ok(decimal(d));
        if (l instanceof TimestampLogicalTypeAnnotation t) {
          TimeUnit unit = switch (t.getUnit()) {
            case MILLIS -> TimeUnit.MILLISECOND;
            case MICROS -> TimeUnit.MICROSECOND;
            case NANOS -> TimeUnit.NANOSECOND;
          };
          return ok(new ArrowType.Timestamp(unit, t.isAdjustedToUTC() ? "UTC" : null));
        }
        return new Mapped(null, "INT64 annotated " + l);
      case INT96:
        // legacy Impala/Spark timestamps; microseconds cover their whole range (nanoseconds overflow)
        return ok(new ArrowType.Timestamp(TimeUnit.MICROSECOND, null));
      case FLOAT:
        return ok(new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE));
      case DOUBLE:
        return ok(new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE));
      case BINARY:
        if (l instanceof DecimalLogicalTypeAnnotation d) return ok(decimal(d));
        if (l instanceof LogicalTypeAnnotation.StringLogicalTypeAnnotation
            || l instanceof LogicalTypeAnnotation.EnumLogicalTypeAnnotation
            || l instanceof LogicalTypeAnnotation.JsonLogicalTypeAnnotation) {
          return ok(ArrowType.Utf8.INSTANCE);
        }
        return ok(ArrowType.Binary.INSTANCE);
      case FIXED_LEN_BYTE_ARRAY:
        if (l instanceof DecimalLogicalTypeAnnotation d) return ok(decimal(d));
        if (l instanceof LogicalTypeAnnotation.Float16LogicalTypeAnnotation) {
          return ok(new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE));
        }
        return ok(ArrowType.Binary.INSTANCE);
      default:
        return new Mapped(null, "physical type " + p.getPrimitiveTypeName());
    }
  }

  private static ArrowType decimal(DecimalLogicalTypeAnnotation d) {
    return new ArrowType.Decimal(d.getPrecision(), d.getScale(), 128);
  }

  private static Mapped ok(ArrowType t) {
    return new Mapped(t, null);
  }

  private static String describe(LogicalTypeAnnotation l, String dflt) {
    return l == null ? dflt : l.toString();
  }
}
