package dev.quiver.planner.kernel;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The byte-level LIKE matcher agrees with the regular-expression translation on random inputs. */
class LikeMatcherTest {
  @Test
  void agreesWithTheRegexTranslation() {
    Random r = new Random(7);
    String alphabet = "ab%é€x";
    String text = "abé€x";
    int checked = 0;
    for (int t = 0; t < 20_000; t++) {
      StringBuilder p = new StringBuilder();
      for (int i = r.nextInt(6); i > 0; i--) p.append(alphabet.charAt(r.nextInt(alphabet.length())));
      StringBuilder s = new StringBuilder();
      for (int i = r.nextInt(8); i > 0; i--) s.append(text.charAt(r.nextInt(text.length())));
      LikeMatcher m = LikeMatcher.of(p.toString());
      if (m == null) continue;
      boolean expected = Functions.compile(LikeKernels.likeToRegex(p.toString())).matcher(s.toString()).matches();
      assertThat(m.matches(s.toString().getBytes(StandardCharsets.UTF_8))).as("'%s' LIKE '%s'", s, p).isEqualTo(expected);
      checked++;
    }
    assertThat(checked).isGreaterThan(10_000);
    assertThat(LikeMatcher.of("a_b")).isNull();
    assertThat(LikeMatcher.of("a\\%b")).isNull();
  }
}
