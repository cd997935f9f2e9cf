package dev.quiver.planner.kernel;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quiver.planner.expr.Expr;
import dev.quiver.planner.types.SqlTypes;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@code s [NOT] IN ('…', …)} over a string column, compared in place ({@link Kernels#inBytes}), against a
 * three-valued brute force: random strings sharing prefixes and lengths, empty strings, multi-byte UTF-8,
 * NULL values and NULL items, lists of 1 to 12 items, batches of 1, 64 and 1003 rows.
 */
class StringInTest {
  static final String[] WORDS = {"", "a", "ab", "abc", "AIR", "MAIL", "MAI", "MAILS", "REG AIR", "é", "éa", "日本",
      "日本語", "\u0000", "SHIP", "TRUCK"};

  final BufferAllocator allocator = new RootAllocator();
  final EvalContext ctx = EvalContext.utcNow();
  final Random random = new Random(20261201);

  @AfterEach
  void close() {
    allocator.close();
  }

  @Test
  void matchesBruteForce() {
    Schema schema = new Schema(List.of(new Field("s", FieldType.nullable(SqlTypes.VARCHAR), null)));
    for (int size : new int[] {1, 64, 1003}) {
      for (int round = 0; round < 40; round++) {
        String[] values = new String[size];
        for (int i = 0; i < size; i++) values[i] = random.nextInt(8) == 0 ? null : WORDS[random.nextInt(WORDS.length)];
        List<String> items = new ArrayList<>();
        int count = 1 + random.nextInt(12);
        for (int k = 0; k < count; k++) items.add(random.nextInt(10) == 0 ? null : WORDS[random.nextInt(WORDS.length)]);
        boolean negated = random.nextBoolean();
        List<Expr> literals = new ArrayList<>();
        for (String it : items) literals.add(new Expr.Literal(it, SqlTypes.VARCHAR));
        Expr in = new Expr.InList(new Expr.ColumnRef("s", SqlTypes.VARCHAR, true), literals, negated);
        try (VectorSchemaRoot batch = VectorSchemaRoot.create(schema, allocator)) {
          VarCharVector v = (VarCharVector) batch.getVector(0);
          v.allocateNew();
          for (int i = 0; i < size; i++) {
            if (values[i] == null) v.setNull(i);
            else v.setSafe(i, values[i].getBytes(StandardCharsets.UTF_8));
          }
          v.setValueCount(size);
          batch.setRowCount(size);
          try (ColumnValues out = ExprCompiler.compile(in, schema, ctx).eval(batch, allocator)) {
            for (int i = 0; i < size; i++) {
              Boolean expected = expected(values[i], items, negated);
              assertThat(out.isNull(i) ? null : out.getBool(i)).as("%s IN %s (negated %s)", values[i], items, negated)
                  .isEqualTo(expected);
            }
          }
        }
      }
    }
  }

  static Boolean expected(String value, List<String> items, boolean negated) {
    if (value == null) return null;
    boolean sawNull = false;
    for (String it : items) {
      if (it == null) sawNull = true;
      else if (it.equals(value)) return !negated;
    }
    return sawNull ? null : negated;
  }
}
