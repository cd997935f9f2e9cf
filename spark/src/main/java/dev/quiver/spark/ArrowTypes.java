package dev.quiver.spark;

import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;

/**
 * Arrow types as Quiver sends them → Spark types that {@code ArrowColumnVector} reads without a copy. A column
 * whose Arrow type it cannot read (other timestamp units, millisecond dates, unsigned integers) is cast in the SQL
 * the connector sends ({@link #selectExpr}), so the vectors that arrive are always readable.
 */
final class ArrowTypes {
  private ArrowTypes() {}

  static DataType sparkType(Field f) {
    ArrowType t = f.getType();
    if (t instanceof ArrowType.Bool) return DataTypes.BooleanType;
    if (t instanceof ArrowType.Int i) {
      if (!i.getIsSigned()) {
        return switch (i.getBitWidth()) {
          case 8 -> DataTypes.ShortType;
          case 16 -> DataTypes.IntegerType;
          case 32 -> DataTypes.LongType;
          default -> DataTypes.createDecimalType(20, 0);
        };
      }
      return switch (i.getBitWidth()) {
        case 8 -> DataTypes.ByteType;
        case 16 -> DataTypes.ShortType;
        case 32 -> DataTypes.IntegerType;
        default -> DataTypes.LongType;
      };
    }
    if (t instanceof ArrowType.FloatingPoint fp) {
      return fp.getPrecision() == FloatingPointPrecision.DOUBLE ? DataTypes.DoubleType : DataTypes.FloatType;
    }
    if (t instanceof ArrowType.Decimal d && d.getBitWidth() == 128 && d.getPrecision() <= 38) {
      return DataTypes.createDecimalType(d.getPrecision(), d.getScale());
    }
    if (t instanceof ArrowType.Utf8 || t instanceof ArrowType.LargeUtf8) return DataTypes.StringType;
    if (t instanceof ArrowType.Binary || t instanceof ArrowType.LargeBinary) return DataTypes.BinaryType;
    if (t instanceof ArrowType.Date) return DataTypes.DateType;
    if (t instanceof ArrowType.Timestamp ts) {
      return ts.getTimezone() == null ? DataTypes.TimestampNTZType : DataTypes.TimestampType;
    }
    if (t instanceof ArrowType.Null) return DataTypes.NullType;
    throw new UnsupportedOperationException("quiver: column " + f.getName() + " has Arrow type " + t
        + ", which the Spark connector does not read");
  }

  /** The select-list item for column {@code f}: the quoted name, or a cast to a type ArrowColumnVector reads. */
  static String selectExpr(Field f) {
    String col = Sql.ident(f.getName());
    ArrowType t = f.getType();
    String cast = null;
    if (t instanceof ArrowType.Int i && !i.getIsSigned()) {
      cast = switch (i.getBitWidth()) { case 8 -> "SMALLINT"; case 16 -> "INTEGER"; case 32 -> "BIGINT"; default -> "DECIMAL(20,0)"; };
    } else if (t instanceof ArrowType.Date d && d.getUnit() != DateUnit.DAY) {
      cast = "DATE";
    } else if (t instanceof ArrowType.Timestamp ts && ts.getUnit() != TimeUnit.MICROSECOND) {
      cast = ts.getTimezone() == null ? "TIMESTAMP" : "TIMESTAMP WITH TIME ZONE";
    }
    return cast == null ? col : "CAST(" + col + " AS " + cast + ") AS " + col;
  }
}
