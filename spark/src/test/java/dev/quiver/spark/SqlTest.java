package dev.quiver.spark;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.spark.sql.connector.expressions.Expression;
import org.apache.spark.sql.connector.expressions.Expressions;
import org.apache.spark.sql.connector.expressions.GeneralScalarExpression;
import org.apache.spark.sql.connector.expressions.LiteralValue;
import org.apache.spark.sql.connector.expressions.filter.Predicate;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.unsafe.types.UTF8String;
import org.junit.jupiter.api.Test;

/** Spark V2 expressions rendered as Quiver SQL, without a session. */
class SqlTest {
  static Expression col(String name) {
    return org.apache.spark.sql.connector.expressions.FieldReference.column(name);
  }

  static Expression str(String s) {
    return new LiteralValue<>(UTF8String.fromString(s), DataTypes.StringType);
  }

  static Predicate p(String name, Expression... children) {
    return new Predicate(name, children);
  }

  @Test
  void stringsDoubleTheirQuotesAndIdentifiersTheirDoubleQuotes() {
    assertThat(Sql.render(p("=", col("a\"b"), str("it's")))).hasValue("(\"a\"\"b\" = 'it''s')");
  }

  @Test
  void textTheParserMightReadDifferentlyIsNotPushed() {
    assertThat(Sql.render(p("=", col("a"), str("back\\slash")))).isEmpty();
    assertThat(Sql.render(p("=", col("a"), str("line\nbreak")))).isEmpty();
  }

  @Test
  void startsWithEscapesLikeWildcards() {
    assertThat(Sql.render(p("STARTS_WITH", col("s"), str("50%_off!'"))))
        .hasValue("(\"s\" LIKE '50!%!_off!!''%' ESCAPE '!')");
  }

  @Test
  void literalsOfEveryType() {
    assertThat(Sql.literal(19_000, DataTypes.DateType)).hasValue("DATE '2022-01-08'");
    assertThat(Sql.literal(1_700_000_000_123_456L, DataTypes.TimestampType))
        .hasValue("TIMESTAMP '2023-11-14 22:13:20.123456+00:00'");
    assertThat(Sql.literal(1_700_000_000_123_456L, DataTypes.TimestampNTZType))
        .hasValue("TIMESTAMP '2023-11-14 22:13:20.123456'");
    assertThat(Sql.literal(Decimal.apply("0.07"), DataTypes.createDecimalType(3, 2))).hasValue("0.07");
    assertThat(Sql.literal(2.5, DataTypes.DoubleType)).hasValue("CAST('2.5' AS DOUBLE)");
    assertThat(Sql.literal(Double.NaN, DataTypes.DoubleType)).isEmpty();
    assertThat(Sql.literal(true, DataTypes.BooleanType)).hasValue("TRUE");
    assertThat(Sql.literal(-5L, DataTypes.LongType)).hasValue("-5");
  }

  @Test
  void connectivesAndNullTests() {
    Predicate in = p("IN", col("x"), new LiteralValue<>(1, DataTypes.IntegerType), new LiteralValue<>(2, DataTypes.IntegerType));
    Predicate isNull = p("IS_NULL", col("y"));
    assertThat(Sql.render(p("OR", p("NOT", in), isNull))).hasValue("((NOT (\"x\" IN (1, 2))) OR (\"y\" IS NULL))");
  }

  @Test
  void unknownFunctionsAndNestedColumnsStayInSpark() {
    assertThat(Sql.render(p("=", new GeneralScalarExpression("UPPER", new Expression[] {col("s")}), str("A")))).isEmpty();
    assertThat(Sql.render(p("IS_NULL", Expressions.column("a.b")))).isEmpty();
    assertThat(Sql.render(p("AND", p("IS_NULL", col("a")), p("=", new GeneralScalarExpression("ABS",
        new Expression[] {col("b")}), str("x"))))).isEmpty();
  }
}
