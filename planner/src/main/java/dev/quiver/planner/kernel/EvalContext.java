package dev.quiver.planner.kernel;

import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/**
 * What evaluation may depend on besides the rows: the query's start (for {@code now()} and
 * {@code current_date}, one value per query) and the session time zone (day boundaries of zoned
 * timestamps).
 */
public record EvalContext(long startMicros, ZoneId zone) {
  public static EvalContext now(ZoneId zone) {
    Instant i = Instant.now();
    return new EvalContext(i.getEpochSecond() * 1_000_000L + i.getNano() / 1_000, zone);
  }

  public static EvalContext utcNow() {
    return now(ZoneOffset.UTC);
  }
}
