package dev.quiver.planner.optimizer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quiver.planner.QueryEngine;
import dev.quiver.planner.TestTables;
import dev.quiver.planner.expr.Expr;
import dev.quiver.planner.expr.Exprs;
import dev.quiver.planner.plan.LogicalPlan;
import dev.quiver.scan.predicate.ScanPredicate;
import java.nio.file.Path;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The node-level rewrite of PushFilterIntoScan: exact conjuncts move into the scan (merged with those it
 * already has), inexact ones stay above and prune, unsupported ones stay above; a second application
 * changes nothing.
 */
class PushFilterIntoScanTest extends RuleTest {
  @TempDir
  static Path dir;
  static QueryEngine engine;
  BufferAllocator allocator = new RootAllocator();

  @BeforeAll
  static void setUp() throws Exception {
    engine = new QueryEngine(TestTables.create(dir));
  }

  @AfterEach
  void close() {
    allocator.close();
  }

  static final ArrowType INT = new ArrowType.Int(32, true);
  static final ArrowType BIGINT = new ArrowType.Int(64, true);

  private LogicalPlan.TableScan scanOf(String sql) {
    LogicalPlan p = engine.prepare(sql, allocator).plan();
    while (!(p instanceof LogicalPlan.TableScan)) p = p.children().get(0);
    return (LogicalPlan.TableScan) p;
  }

  private static Expr col(LogicalPlan.TableScan scan, String table) {
    String name = scan.names().get(scan.columns().indexOf(table));
    var f = scan.schema().findField(name);
    return new Expr.ColumnRef(name, f.getType(), f.isNullable());
  }

  @Test
  void aFilterPushedOntoAScanWithExactConjunctsIsMergedIn() {
    LogicalPlan.TableScan scan = scanOf("SELECT i32, i64, s FROM t WHERE i32 > 1");
    assertThat(scan.exact()).hasToString("[i32 > 1]");
    Expr sEqA = new Expr.Comparison(Expr.CmpOp.EQ, col(scan, "s"), new Expr.Literal("a", ArrowType.Utf8.INSTANCE));
    Expr sum = new Expr.Comparison(Expr.CmpOp.GT,
        new Expr.Arithmetic(Expr.ArithOp.ADD, col(scan, "i64"), new Expr.Literal(1L, BIGINT), BIGINT), new Expr.Literal(2L, BIGINT));
    Expr like = new Expr.Like(col(scan, "s"), new Expr.Literal("a%b", ArrowType.Utf8.INSTANCE), false, false);
    LogicalPlan.Filter above = new LogicalPlan.Filter(scan, Exprs.and(List.of(sEqA, sum, like)));

    LogicalPlan out = PushFilterIntoScan.rewrite(above, scan);
    assertThat(out).isInstanceOf(LogicalPlan.Filter.class);
    LogicalPlan.Filter f = (LogicalPlan.Filter) out;
    assertThat(Exprs.conjuncts(f.condition())).containsExactly(sum, like); // unsupported and inexact stay
    LogicalPlan.TableScan next = (LogicalPlan.TableScan) f.input();
    assertThat(next.exact()).hasToString("[i32 > 1, s = 'a']");
    assertThat(next.predicate()).isInstanceOf(ScanPredicate.And.class);
    assertThat(((ScanPredicate.And) next.predicate()).children()).hasSize(3)
        .contains(new ScanPredicate.StartsWith("s", "a"));
    assertThat(next.residual()).isEqualTo(f.condition());
    assertThat(next.columns()).isEqualTo(scan.columns());

    // a fixpoint: applying it again changes nothing
    assertThat(PushFilterIntoScan.rewrite(f, next)).isEqualTo(f);
  }

  @Test
  void theFilterDisappearsWhenEveryConjunctIsExact() {
    LogicalPlan.TableScan scan = scanOf("SELECT i32, s FROM t");
    assertThat(scan.exact()).isEmpty();
    Expr lt = new Expr.Comparison(Expr.CmpOp.LT, col(scan, "i32"), new Expr.Literal(5, INT));
    Expr isNull = new Expr.IsNull(col(scan, "s"), false);
    LogicalPlan out = PushFilterIntoScan.rewrite(new LogicalPlan.Filter(scan, Exprs.and(List.of(lt, isNull))), scan);
    assertThat(out).isInstanceOf(LogicalPlan.TableScan.class);
    LogicalPlan.TableScan next = (LogicalPlan.TableScan) out;
    assertThat(next.exact()).containsExactly(lt, isNull);
    assertThat(next.residual()).isNull();
    assertThat(next.schema()).isEqualTo(scan.schema());
  }

  @Test
  void aFilterRightAboveAScanGivesItThePrunableConjuncts() {
    LogicalPlan plan = new LogicalPlan.Filter(tester.scan("t"), tester.predicate("i32 < 5 AND length(s) = 2"));
    RuleTester.Applied once = tester.apply(new PushFilterIntoScan(), plan).fires();
    LogicalPlan.TableScan scan = RuleTester.find(once.plan(), LogicalPlan.TableScan.class);
    assertThat(scan.describe()).contains("predicate=i32 < 5").doesNotContain("predicate=length");
    tester.apply(new PushFilterIntoScan(), once.plan()).doesNotFire(); // a fixpoint
  }

  @Test
  void notWhenSomethingStandsBetweenFilterAndScan() {
    tester.apply(new PushFilterIntoScan(), tester.analyzed("SELECT * FROM (SELECT i32 + 1 AS k, s FROM t) q WHERE k > 3"))
        .doesNotFire();
    tester.apply(new PushFilterIntoScan(), tester.analyzed("SELECT i32 FROM t")).doesNotFire();
  }
}
