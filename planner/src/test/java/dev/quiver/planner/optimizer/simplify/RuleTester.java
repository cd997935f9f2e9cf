package dev.quiver.planner.optimizer.simplify;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quiver.planner.expr.Expr;
import dev.quiver.planner.kernel.EvalContext;
import dev.quiver.planner.optimizer.OptimizerContext;
import java.time.ZoneOffset;
import java.util.List;
import java.util.TreeSet;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * Simplifies a predicate over given columns and checks the result twice: its text, and its equivalence
 * with the input by evaluation ({@link EquivalenceVerifier}), as an expression and as a WHERE condition.
 */
final class RuleTester {
  private final BufferAllocator allocator;
  private final List<Field> fields;

  RuleTester(BufferAllocator allocator, List<Field> fields) {
    this.allocator = allocator;
    this.fields = fields;
  }

  /** Simplifies {@code predicate}; asserts equivalence by evaluation and returns the WHERE form's text. */
  String where(String predicate) {
    EvalContext eval = new EvalContext(SimplifierConformanceTest.START_MICROS, ZoneOffset.UTC);
    OptimizerContext ctx = new OptimizerContext(allocator, eval);
    Expr input = SimplifierConformanceTest.bind(predicate, fields);
    ExprSimplifier s = ExprSimplifier.standard();
    Expr expr = s.simplify(input, ctx, new TreeSet<>());
    Expr where = s.simplifyFilter(input, ctx, new TreeSet<>());
    EquivalenceVerifier v = new EquivalenceVerifier(allocator, eval);
    assertThat(v.compare(fields, input, expr, false)).as("expression " + predicate + " -> " + expr).isNull();
    assertThat(v.compare(fields, input, where, true)).as("filter " + predicate + " -> " + where).isNull();
    return where.toString();
  }
}
