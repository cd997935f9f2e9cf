package dev.quiver.planner.optimizer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quiver.planner.expr.Expr;
import dev.quiver.planner.optimizer.FilterPushdown.Kind;
import dev.quiver.scan.predicate.ScanPredicate;
import java.util.List;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.junit.jupiter.api.Test;

/** The classifier of conjuncts pushed into a scan: Exact, Inexact (pruning only) or Unsupported. */
class FilterPushdownTest {
  static final ArrowType BIGINT = new ArrowType.Int(64, true);
  static final Expr.ColumnRef A = new Expr.ColumnRef("a", BIGINT, true);
  static final Expr.ColumnRef S = new Expr.ColumnRef("s", ArrowType.Utf8.INSTANCE, true);

  static Expr.Literal lit(long v) {
    return new Expr.Literal(v, BIGINT);
  }

  static Expr.Literal str(String v) {
    return new Expr.Literal(v, ArrowType.Utf8.INSTANCE);
  }

  @Test
  void whatTranslatesExactlyIsExactAndPrunesWithItsTranslation() {
    for (Expr e : List.of(new Expr.Comparison(Expr.CmpOp.LT, A, lit(5)), new Expr.IsNull(A, true),
        new Expr.InList(A, List.of(lit(1), lit(2)), true), new Expr.Like(S, str("ab%"), false, false),
        new Expr.Like(S, str("ab%"), false, true))) {
      FilterPushdown.Decision d = FilterPushdown.classify(e);
      assertThat(d.kind()).as(e.toString()).isEqualTo(Kind.EXACT);
      assertThat(d.predicate()).as(e.toString()).isEqualTo(ScanPredicates.translate(e)).isNotNull();
    }
  }

  @Test
  void aLikeBeyondItsPrefixPrunesWithThePrefixButStaysAbove() {
    FilterPushdown.Decision d = FilterPushdown.classify(new Expr.Like(S, str("ab%c_d"), false, false));
    assertThat(d.kind()).isEqualTo(Kind.INEXACT);
    assertThat(d.predicate()).isEqualTo(new ScanPredicate.StartsWith("s", "ab"));
    assertThat(FilterPushdown.classify(new Expr.Like(S, str("ab_"), false, false)).predicate())
        .isEqualTo(new ScanPredicate.StartsWith("s", "ab"));
    assertThat(FilterPushdown.classify(new Expr.Like(S, str("a\\%b%"), false, false)).predicate())
        .isEqualTo(new ScanPredicate.StartsWith("s", "a")); // stops before an escape
  }

  @Test
  void whatImpliesNothingIsUnsupported() {
    Expr sum = new Expr.Arithmetic(Expr.ArithOp.ADD, A, lit(1), BIGINT);
    for (Expr e : List.of(new Expr.Comparison(Expr.CmpOp.LT, sum, lit(5)), // not a bare column
        new Expr.Like(S, str("%ab"), false, false), // no literal prefix
        new Expr.Like(S, str("ab%c"), true, false), // ILIKE: case-insensitive
        new Expr.Like(S, str("ab%c"), false, true), // NOT LIKE implies no prefix
        new Expr.Comparison(Expr.CmpOp.LT, A, new Expr.ColumnRef("b", BIGINT, true)))) {
      FilterPushdown.Decision d = FilterPushdown.classify(e);
      assertThat(d.kind()).as(e.toString()).isEqualTo(Kind.UNSUPPORTED);
      assertThat(d.predicate()).isNull();
    }
  }
}
