package dev.quiver.scan.prune;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quiver.scan.predicate.ScanPredicate;
import dev.quiver.scan.predicate.ScanPredicate.Compare;
import dev.quiver.scan.predicate.ScanPredicate.Op;
import dev.quiver.scan.prune.ParquetFilterConverter.Always;
import dev.quiver.scan.prune.ParquetFilterConverter.Never;
import dev.quiver.scan.prune.ParquetFilterConverter.Pred;
import dev.quiver.scan.prune.ParquetFilterConverter.Result;
import dev.quiver.scan.table.DataFile;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.hadoop.fs.Path;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.apache.parquet.schema.Types;
import org.junit.jupiter.api.Test;

class ParquetFilterConverterTest {
  static final MessageType SCHEMA = Types.buildMessage()
      .required(PrimitiveTypeName.INT32).named("i")
      .optional(PrimitiveTypeName.DOUBLE).named("d")
      .required(PrimitiveTypeName.INT64).as(LogicalTypeAnnotation.decimalType(2, 12)).named("dec")
      .required(PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY).length(9).as(LogicalTypeAnnotation.decimalType(2, 20)).named("fdec")
      .required(PrimitiveTypeName.INT96).named("legacy_ts")
      .required(PrimitiveTypeName.INT32).as(LogicalTypeAnnotation.intType(32, false)).named("u")
      .required(PrimitiveTypeName.INT64).as(LogicalTypeAnnotation.timestampType(true, LogicalTypeAnnotation.TimeUnit.MILLIS)).named("ts")
      .optional(PrimitiveTypeName.BINARY).as(LogicalTypeAnnotation.stringType()).named("s")
      .named("t");
  static final ArrowType INT = new ArrowType.Int(32, true);
  static final ArrowType DOUBLE = new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE);
  static final ArrowType DEC = new ArrowType.Decimal(12, 2, 128);
  static final DataFile FILE = new DataFile(new Path("file:/x/year=2024/f.parquet"), 1, 1, Map.of("year", "2024"));

  static Result convert(ScanPredicate p, String createdBy) {
    return ParquetFilterConverter.convert(p, SCHEMA, FILE, Set.of("year"), createdBy);
  }

  static Result convert(ScanPredicate p) {
    return convert(p, "parquet-cpp-arrow version 14.0.0");
  }

  @Test
  void comparisonsBecomeTypedParquetPredicates() {
    assertThat(convert(new Compare("i", Op.LT, 5L, INT))).isInstanceOf(Pred.class)
        .extracting(r -> ((Pred) r).predicate().toString()).isEqualTo("lt(i, 5)");
    assertThat(((Pred) convert(new Compare("dec", Op.GE, new BigDecimal("1.5"), DEC))).predicate().toString())
        .isEqualTo("gteq(dec, 150)");
    assertThat(((Pred) convert(new Compare("s", Op.EQ, "x", ArrowType.Utf8.INSTANCE))).columns()).containsExactly("s");
  }

  @Test
  void literalsThatDoNotConvertExactlyAreNotPushed() {
    // 1.555 has more digits than DECIMAL(12,2) holds: rounding it could prune a matching group
    assertThat(convert(new Compare("dec", Op.EQ, new BigDecimal("1.555"), DEC))).isInstanceOf(Always.class);
    assertThat(convert(new Compare("i", Op.EQ, 1L << 40, INT))).isInstanceOf(Always.class);
    assertThat(convert(new Compare("u", Op.EQ, -1L, new ArrowType.Int(32, false)))).isInstanceOf(Always.class);
    assertThat(((Pred) convert(new Compare("u", Op.EQ, 4_000_000_000L, new ArrowType.Int(32, false)))).predicate().toString())
        .isEqualTo("eq(u, " + (int) 4_000_000_000L + ")");
    // microsecond literal that is not a whole millisecond
    assertThat(convert(new Compare("ts", Op.EQ, 1_001L, new ArrowType.Timestamp(TimeUnit.MICROSECOND, "UTC"))))
        .isInstanceOf(Always.class);
    assertThat(((Pred) convert(new Compare("ts", Op.EQ, 2_000L, new ArrowType.Timestamp(TimeUnit.MICROSECOND, "UTC"))))
        .predicate().toString()).isEqualTo("eq(ts, 2)");
  }

  @Test
  void fixedLengthDecimalsAreSignExtended() {
    Pred p = (Pred) convert(new Compare("fdec", Op.LT, new BigDecimal("-1.00"), new ArrowType.Decimal(20, 2, 128)));
    assertThat(p.predicate().toString()).startsWith("lt(fdec, Binary{9 constant bytes, [-1, -1, -1, -1, -1, -1, -1, -1, -100]");
  }

  @Test
  void nanAndFloatHazards() {
    assertThat(convert(new Compare("d", Op.EQ, Double.NaN, DOUBLE))).isInstanceOf(Always.class);
    for (Op op : List.of(Op.NE, Op.GT, Op.GE)) {
      // other writers leave NaN out of min/max, and NaN is above every number
      assertThat(convert(new Compare("d", op, 1.0, DOUBLE))).as(op.name()).isInstanceOf(Always.class);
      // parquet-mr drops min/max of any chunk with NaN, so its statistics are safe
      assertThat(convert(new Compare("d", op, 1.0, DOUBLE), "parquet-mr version 1.16.0")).isInstanceOf(Pred.class);
    }
    assertThat(convert(new Compare("d", Op.LT, 1.0, DOUBLE))).isInstanceOf(Pred.class);
    // NOT (d < 1) is d >= 1: the hazard applies after negation is pushed down
    assertThat(convert(new ScanPredicate.Not(new Compare("d", Op.LT, 1.0, DOUBLE)))).isInstanceOf(Always.class);
  }

  @Test
  void int96IsNeverPushed() {
    assertThat(convert(new Compare("legacy_ts", Op.GT, 5L, new ArrowType.Timestamp(TimeUnit.MICROSECOND, null))))
        .isInstanceOf(Always.class);
    assertThat(convert(new ScanPredicate.IsNull("legacy_ts", false))).isInstanceOf(Always.class);
  }

  @Test
  void negationIsPushedAndUntranslatablePartsMightMatch() {
    ScanPredicate p = new ScanPredicate.Not(new ScanPredicate.And(List.of(
        new Compare("i", Op.LT, 5L, INT), new ScanPredicate.IsNull("s", false))));
    assertThat(((Pred) convert(p)).predicate().toString()).isEqualTo("or(gteq(i, 5), noteq(s, null))");
    // an AND keeps what it can translate
    ScanPredicate legacy = new Compare("legacy_ts", Op.GT, 5L, new ArrowType.Timestamp(TimeUnit.MICROSECOND, null));
    ScanPredicate and = new ScanPredicate.And(List.of(new Compare("i", Op.LT, 5L, INT), legacy));
    assertThat(((Pred) convert(and)).predicate().toString()).isEqualTo("lt(i, 5)");
    // an OR with an untranslatable side might match anything
    ScanPredicate or = new ScanPredicate.Or(List.of(new Compare("i", Op.LT, 5L, INT), legacy));
    assertThat(convert(or)).isInstanceOf(Always.class);
  }

  @Test
  void prefixMatchIsAByteRange() {
    assertThat(((Pred) convert(new ScanPredicate.StartsWith("s", "ab"))).predicate().toString())
        .isEqualTo("and(gteq(s, Binary{\"ab\"}), lt(s, Binary{2 constant bytes, [97, 99]}))");
    assertThat(((Pred) convert(new ScanPredicate.Not(new ScanPredicate.StartsWith("s", "ab")))).predicate().toString())
        .isEqualTo("or(lt(s, Binary{\"ab\"}), gteq(s, Binary{2 constant bytes, [97, 99]}))");
  }

  @Test
  void shortInListsAreExpandedLongOnesStaySets() {
    List<Object> few = List.of(1L, 5L, 9L);
    assertThat(((Pred) convert(new ScanPredicate.In("i", few, INT))).predicate().toString())
        .isEqualTo("or(or(eq(i, 1), eq(i, 5)), eq(i, 9))");
    List<Object> many = new ArrayList<>();
    for (long v = 0; v < 50; v++) many.add(v);
    assertThat(((Pred) convert(new ScanPredicate.In("i", many, INT))).predicate().toString()).startsWith("in(i, ");
    assertThat(((Pred) convert(new ScanPredicate.Not(new ScanPredicate.In("i", many, INT)))).predicate().toString())
        .startsWith("notin(i, ");
  }

  @Test
  void partitionColumnsAreEvaluatedOnTheFilesValues() {
    ArrowType bigint = new ArrowType.Int(64, true);
    assertThat(convert(new Compare("year", Op.EQ, 2024L, bigint))).isInstanceOf(Always.class);
    assertThat(convert(new Compare("year", Op.LT, 2024L, bigint))).isInstanceOf(Never.class);
    assertThat(convert(new ScanPredicate.Not(new Compare("year", Op.LT, 2024L, bigint)))).isInstanceOf(Always.class);
    assertThat(convert(new ScanPredicate.IsNull("year", false))).isInstanceOf(Never.class);
    assertThat(convert(new ScanPredicate.In("year", List.of(2023L, 2025L), bigint))).isInstanceOf(Never.class);
    assertThat(convert(new ScanPredicate.And(List.of(new Compare("year", Op.EQ, 2024L, bigint),
        new Compare("i", Op.EQ, 3L, INT)))))
        .isInstanceOf(Pred.class);
  }

  @Test
  void absentColumnsMightMatch() {
    assertThat(convert(new Compare("nope", Op.EQ, 1L, INT))).isInstanceOf(Always.class);
    assertThat(convert(new ScanPredicate.Const(false))).isInstanceOf(Never.class);
  }
}
