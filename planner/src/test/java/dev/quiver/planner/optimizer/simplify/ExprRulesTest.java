package dev.quiver.planner.optimizer.simplify;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quiver.planner.expr.Expr;
import dev.quiver.planner.kernel.EvalContext;
import dev.quiver.planner.optimizer.OptimizerContext;
import dev.quiver.planner.optimizer.RuleClasses;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.types.pojo.Field;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every expression rule alone (an {@link ExprSimplifier} with only that rule): an input where it fires, with
 * the expected result (checked as text and, by evaluation, equal to the input), and one where it must not
 * fire. {@link SimplifierConformanceTest} checks the rules together.
 */
class ExprRulesTest {
  static final List<Field> FIELDS = SimplifierConformanceTest.columns(
      "i:INT64 nullable; n:INT64 not null; sh:INT16 nullable; f:FLOAT64 nullable; s:VARCHAR nullable; "
          + "b:BOOLEAN nullable; d:DATE nullable; ts:TIMESTAMP(us) nullable").fields();

  /** {@code rule} (an {@link ExprRule} or a {@link ChainRule}) turns {@code input} into {@code output}; leaves {@code unchanged}. */
  record Case(Object rule, String input, String output, String unchanged) {
    String name() {
      return rule instanceof ExprRule r ? r.name() : ((ChainRule) rule).name();
    }

    ExprSimplifier alone() {
      return rule instanceof ExprRule r ? new ExprSimplifier(List.of(r), List.of())
          : new ExprSimplifier(List.of(), List.of((ChainRule) rule));
    }

    @Override
    public String toString() {
      return name();
    }
  }

  static Stream<Case> cases() {
    return Stream.of(
        new Case(new FoldConstants(), "i < 1 + 2", "i < 3", "random() < f"),
        new Case(new PropagateNulls(), "i * NULL > 5", "CAST(NULL AS BOOLEAN)", "i * 2 > 5"),
        new Case(new PushNotIntoExpression(), "NOT (i < 1 OR s IS NULL)", "i >= 1 AND s IS NOT NULL", "NOT b"),
        new Case(new MoveLiteralToRight(), "5 > i", "i < 5", "i < 5"),
        new Case(new SimplifyInList(), "i IN (3)", "i = 3", "i IN (3, 4)"),
        new Case(new SimplifyBooleanComparison(), "b = TRUE", "b", "b = (i > 1)"),
        new Case(new SimplifySelfComparison(), "i < i", "i IS NULL AND CAST(NULL AS BOOLEAN)", "i < n"),
        new Case(new SimplifyIsNull(), "n IS NULL", "FALSE", "i IS NULL"),
        new Case(new SimplifyLike(), "s LIKE 'foo'", "s = 'foo'", "s LIKE 'f%o'"),
        new Case(new SimplifyRegexpLike(), "regexp_like(s, '^foo$')", "s = 'foo'", "regexp_like(s, 'f[aeiou]+o')"),
        new Case(new SimplifyCase(), "CASE WHEN FALSE THEN i > 1 ELSE i > 5 END", "i > 5",
            "CASE WHEN i > 3 THEN i > 1 ELSE i > 5 END"),
        new Case(new MultiplyByZero(), "n * 0 > 5", "0 > 5", "i * 0 > 5"),
        new Case(new RemoveIdentityCast(), "CAST(i AS BIGINT) > 5", "i > 5", "CAST(sh AS BIGINT) > 5"),
        new Case(new UnwrapCastInComparison(), "CAST(sh AS BIGINT) = 5", "sh = 5", "CAST(f AS BIGINT) = 5"),
        new Case(new UnwrapCastInList(), "CAST(sh AS BIGINT) IN (1, 9223372036854775807)", "sh IN (1)",
            "CAST(f AS BIGINT) IN (1, 2)"),
        new Case(new UnwrapDateCast(), "CAST(ts AS DATE) = DATE '2023-01-01'",
            "ts >= TIMESTAMP '2023-01-01 00:00:00' AND ts < TIMESTAMP '2023-01-02 00:00:00'",
            "CAST(s AS DATE) = DATE '2023-01-01'"),
        new Case(new RangeForMonotonicFunction(), "extract(year FROM d) = 2024",
            "d >= DATE '2024-01-01' AND d < DATE '2025-01-01'", "date_part('month', d) = 3"),
        new Case(new RemoveBooleanConstants(), "i > 1 AND TRUE", "i > 1", "i > 1 AND NULL"),
        new Case(new DeduplicateTerms(), "i > 5 AND s = 'a' AND i > 5", "i > 5 AND s = 'a'",
            "random() > 0.5 AND random() > 0.5"),
        new Case(new CollapseComplement(), "b AND NOT b", "b IS NULL AND CAST(NULL AS BOOLEAN)", "b AND NOT (i > 1)"),
        // the chain's other terms stay (they were dropped: NOT b OR b OR i > 1 answered as b IS NOT NULL)
        new Case(new CollapseComplement(), "NOT b OR i > 1 OR b", "b IS NOT NULL OR CAST(NULL AS BOOLEAN) OR i > 1",
            "b OR NOT (i > 1)"),
        new Case(new AbsorbTerms(), "i > 5 AND (s = 'a' OR i > 5)", "i > 5", "i > 5 AND (s = 'a' OR i > 6)"),
        new Case(new FactorCommonConjuncts(), "(i = 2 AND s = 'a') OR (i = 2 AND s = 'b')",
            "i = 2 AND (s = 'a' OR s = 'b')", "(i = 2 AND s = 'a') OR (i = 3 AND s = 'b')"),
        new Case(new CombineInLists(), "i = 1 OR i = 2 OR i = 3", "i IN (1, 2, 3)", "i = 1 OR s = 'a'"),
        new Case(new RemoveRedundantInequality(), "i <> 3 AND i = 5", "i = 5", "i <> 3 AND n = 5"),
        new Case(new CollapseClosedRange(), "i >= 3 AND i <= 3", "i = 3", "i >= 3 AND i <= 4"));
  }

  BufferAllocator allocator = new RootAllocator();
  EvalContext eval = new EvalContext(SimplifierConformanceTest.START_MICROS, ZoneOffset.UTC);
  OptimizerContext context = new OptimizerContext(allocator, eval);

  @AfterEach
  void close() {
    allocator.close();
  }

  /**
   * {@code sql} bound as a WHERE condition, its constants folded (the binder casts integer literals to the
   * column's type: {@code i > CAST(5 AS BIGINT)}) unless FoldConstants is the rule under test.
   */
  Expr bind(Case c, String sql) {
    Expr e = SimplifierConformanceTest.bind(sql, FIELDS);
    if (c.rule() instanceof FoldConstants) return e;
    return new ExprSimplifier(List.of(new FoldConstants()), List.of()).simplify(e, context, new TreeSet<>());
  }

  @ParameterizedTest(name = "{0} fires")
  @MethodSource("cases")
  void fires(Case c) {
    Expr input = bind(c, c.input());
    Set<String> fired = new TreeSet<>();
    Expr output = c.alone().simplify(input, context, fired);
    assertThat(fired).containsExactly(c.name());
    assertThat(output.toString()).isEqualTo(c.output());
    assertThat(new EquivalenceVerifier(allocator, eval).compare(FIELDS, input, output, false))
        .as("evaluation of " + c.input() + " -> " + output).isNull();
  }

  @ParameterizedTest(name = "{0} does not fire")
  @MethodSource("cases")
  void doesNotFire(Case c) {
    Expr input = bind(c, c.unchanged());
    Set<String> fired = new TreeSet<>();
    Expr output = c.alone().simplify(input, context, fired);
    assertThat(fired).as(c.unchanged() + " -> " + output).isEmpty();
    assertThat(output).isEqualTo(input);
  }

  @org.junit.jupiter.api.Test
  void everyExpressionRuleIsRegisteredAndHasACase() {
    Set<String> registered = new TreeSet<>();
    for (Class<?> c : ExprSimplifier.standard().ruleClasses()) registered.add(c.getSimpleName());
    Set<String> classes = RuleClasses.implementing(ExprSimplifier.class, ExprRule.class);
    classes.addAll(RuleClasses.implementing(ExprSimplifier.class, ChainRule.class));
    assertThat(classes).as("rule classes that ExprSimplifier.standard() never runs").isEqualTo(registered);
    Set<String> tested = new TreeSet<>();
    cases().forEach(c -> tested.add(c.rule().getClass().getSimpleName()));
    assertThat(tested).isEqualTo(registered);
  }
}
