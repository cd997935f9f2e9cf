package dev.quiver.planner.kernel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quiver.planner.types.SqlTypes;
import dev.quiver.common.QuiverException;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import org.junit.jupiter.api.Test;

class CastsTest {
  @Test
  void numbersRoundHalfAwayFromZeroAndCheckRanges() {
    assertThat(Casts.cast(2.5, SqlTypes.DOUBLE, SqlTypes.INTEGER)).isEqualTo(3L);
    assertThat(Casts.cast(-2.5, SqlTypes.DOUBLE, SqlTypes.INTEGER)).isEqualTo(-3L);
    assertThat(Casts.cast(new BigDecimal("1.005"), SqlTypes.decimal(4, 3), SqlTypes.decimal(3, 2)))
        .isEqualTo(new BigDecimal("1.01"));
    assertThat(Casts.cast(127L, SqlTypes.INTEGER, SqlTypes.TINYINT)).isEqualTo(127L);
    assertThatThrownBy(() -> Casts.cast(128L, SqlTypes.INTEGER, SqlTypes.TINYINT)).isInstanceOf(QuiverException.class)
        .hasMessage("value 128 is out of range for TINYINT");
    assertThatThrownBy(() -> Casts.cast(new BigDecimal("1000.00"), SqlTypes.decimal(6, 2), SqlTypes.decimal(5, 2)))
        .hasMessageContaining("out of range for DECIMAL(5,2)");
    assertThatThrownBy(() -> Casts.cast(Double.NaN, SqlTypes.DOUBLE, SqlTypes.BIGINT)).hasMessageContaining("out of range");
    assertThat(Casts.cast(-1L, new org.apache.arrow.vector.types.pojo.ArrowType.Int(64, false), SqlTypes.decimal(20, 0)))
        .isEqualTo(new BigDecimal("18446744073709551615"));
  }

  @Test
  void stringsParseStrictly() {
    assertThat(Casts.cast(" 42 ", SqlTypes.VARCHAR, SqlTypes.BIGINT)).isEqualTo(42L);
    assertThat(Casts.cast("1e3", SqlTypes.VARCHAR, SqlTypes.DOUBLE)).isEqualTo(1000.0);
    assertThat(Casts.cast("NaN", SqlTypes.VARCHAR, SqlTypes.DOUBLE)).isEqualTo(Double.NaN);
    assertThat(Casts.cast("t", SqlTypes.VARCHAR, SqlTypes.BOOLEAN)).isEqualTo(true);
    assertThatThrownBy(() -> Casts.cast("0x10", SqlTypes.VARCHAR, SqlTypes.DOUBLE)).hasMessage("invalid DOUBLE value: '0x10'");
    assertThatThrownBy(() -> Casts.cast("2020-02-30", SqlTypes.VARCHAR, SqlTypes.DATE)).hasMessage("invalid DATE value: '2020-02-30'");
    assertThat(Casts.cast("2020-02-29", SqlTypes.VARCHAR, SqlTypes.DATE)).isEqualTo(LocalDate.of(2020, 2, 29).toEpochDay());
  }

  @Test
  void timestampsAreUtcInstantsInTheirUnit() {
    long micros = Instant.parse("2024-03-01T10:15:30.123456Z").toEpochMilli() * 1000 + 456;
    assertThat(Casts.cast("2024-03-01 10:15:30.123456", SqlTypes.VARCHAR, SqlTypes.TIMESTAMP)).isEqualTo(micros);
    assertThat(Casts.cast("2024-03-01T12:15:30.123456+02:00", SqlTypes.VARCHAR, SqlTypes.TIMESTAMPTZ)).isEqualTo(micros);
    assertThat(Casts.cast(micros, SqlTypes.TIMESTAMP, SqlTypes.VARCHAR)).isEqualTo("2024-03-01 10:15:30.123456");
    assertThat(Casts.cast(micros, SqlTypes.TIMESTAMP, SqlTypes.DATE)).isEqualTo(LocalDate.of(2024, 3, 1).toEpochDay());
    assertThat(Casts.cast(-1L, SqlTypes.TIMESTAMP, SqlTypes.DATE)).isEqualTo(-1L); // floor, not truncation
  }
}
