package dev.quiver.server;

import dev.quiver.planner.QuerySettings;
import dev.quiver.common.ErrorCode;
import dev.quiver.common.QuiverException;
import java.time.DateTimeException;
import java.time.ZoneId;
import dev.quiver.planner.sql.Statement;
import dev.quiver.planner.sql.StatementClassifier;
import java.util.Locale;
import org.apache.arrow.flight.ServerSessionMiddleware;
import org.apache.arrow.flight.SessionOptionValue;
import org.apache.arrow.flight.SessionOptionValueFactory;

/**
 * Per-session settings, changed with {@code SET name = value} (or a Flight session option) and kept in the Flight session (the
 * {@code arrow_flight_session_id} cookie, which the JDBC driver always sends):
 * {@code quiver.optimizer.simplify} (true / false) and {@code timezone} (a zone id; also
 * {@code SET TIME ZONE 'Europe/Berlin'}).
 */
final class SessionSettings {
  static final String SIMPLIFY = "quiver.optimizer.simplify";
  static final String TIMEZONE = "timezone";
  static final String TIMEOUT = "quiver.statement_timeout_ms";
  static final String BATCH_ROWS = "quiver.batch_rows";
  static final String PRUNING = "quiver.scan.pruning";
  /** Whether filters, projections and partial aggregations run in the scans' tasks (on by default). */
  static final String PARALLEL_PIPELINES = "quiver.parallel_pipelines";
  /** The most endpoints a query's FlightInfo may have (1: one, as before; see {@code --max-endpoints}). */
  static final String MAX_ENDPOINTS = "quiver.max_endpoints";
  static final java.util.List<String> ALL = java.util.List.of(SIMPLIFY, TIMEZONE, TIMEOUT, BATCH_ROWS, PRUNING,
      PARALLEL_PIPELINES, MAX_ENDPOINTS);
  /** A parsed {@code SET}: the setting and its value, validated. */
  record Assignment(String name, String value) {}

  private SessionSettings() {}

  /** The assignment if {@code sql} is a SET statement, else null; a bad SET is an error. */
  static Assignment parse(String sql) {
    return StatementClassifier.classify(sql) instanceof Statement.Set set ? assignment(set.name(), set.value()) : null;
  }

  /** The settings a SHOW statement asks for, or null if {@code sql} is no SHOW; an unknown setting is an error. */
  static java.util.List<String> parseShow(String sql) {
    return StatementClassifier.classify(sql) instanceof Statement.Show show ? show(show.name()) : null;
  }

  /** {@code SET name = value} validated (a SET statement's, or a Flight session option's); a bad one is an error. */
  static Assignment assignment(String name, String value) {
    name = name.toLowerCase(Locale.ROOT);
    switch (name) {
      case SIMPLIFY, PRUNING, PARALLEL_PIPELINES -> {
        String v = value.toLowerCase(Locale.ROOT);
        if (!v.matches("true|false|on|off")) {
          throw new QuiverException(ErrorCode.INVALID_QUERY, name + " must be true or false, not "
              + dev.quiver.planner.Sql.snippet(value));
        }
        return new Assignment(name, Boolean.toString(v.equals("true") || v.equals("on")));
      }
      case TIMEOUT -> {
        if (!value.matches("\\d{1,12}")) {
          throw new QuiverException(ErrorCode.INVALID_QUERY, TIMEOUT + " must be a number of milliseconds (0 for none)");
        }
        return new Assignment(name, value);
      }
      case MAX_ENDPOINTS -> {
        if (!value.matches("\\d{1,4}") || Integer.parseInt(value) < 1 || Integer.parseInt(value) > 1024) {
          throw new QuiverException(ErrorCode.INVALID_QUERY, MAX_ENDPOINTS + " must be between 1 and 1024");
        }
        return new Assignment(name, Integer.toString(Integer.parseInt(value)));
      }
      case BATCH_ROWS -> {
        if (!value.matches("\\d{1,7}") || Integer.parseInt(value) < 1 || Integer.parseInt(value) > 1_000_000) {
          throw new QuiverException(ErrorCode.INVALID_QUERY, BATCH_ROWS + " must be between 1 and 1000000");
        }
        return new Assignment(name, value);
      }
      case TIMEZONE, "time_zone" -> {
        try {
          return new Assignment(TIMEZONE, ZoneId.of(value).getId());
        } catch (DateTimeException e) {
          throw new QuiverException(ErrorCode.INVALID_QUERY, "unknown time zone '"
              + dev.quiver.planner.Sql.snippet(value) + "'");
        }
      }
      default -> throw new QuiverException(ErrorCode.NOT_FOUND, "unknown setting " + dev.quiver.planner.Sql.snippet(name)
          + " (Quiver knows " + String.join(", ", ALL) + ")");
    }
  }

  /** The settings {@code SHOW name} asks for ({@code all}: every one). */
  static java.util.List<String> show(String name) {
    name = name.toLowerCase(Locale.ROOT);
    if (name.equals("all")) return ALL;
    if (name.equals(TIMEZONE) || name.equals("time_zone")) return java.util.List.of(TIMEZONE);
    if (!ALL.contains(name)) {
      throw new QuiverException(ErrorCode.NOT_FOUND, "unknown setting " + dev.quiver.planner.Sql.snippet(name)
          + " (Quiver knows " + String.join(", ", ALL) + ")");
    }
    return java.util.List.of(name);
  }

  /** A setting's value as SHOW prints it. */
  static String value(String name, QuerySettings s) {
    return switch (name) {
      case SIMPLIFY -> Boolean.toString(s.simplify());
      case TIMEZONE -> s.zone().getId();
      case BATCH_ROWS -> Integer.toString(s.batchRows());
      case PRUNING -> Boolean.toString(s.pruning());
      case PARALLEL_PIPELINES -> Boolean.toString(s.parallelPipelines());
      default -> Long.toString(s.statementTimeoutMs());
    };
  }

  static void apply(ServerSessionMiddleware.Session session, Assignment a) {
    SessionOptionValue v = a.name().equals(SIMPLIFY) || a.name().equals(PRUNING)
        || a.name().equals(PARALLEL_PIPELINES)
        ? SessionOptionValueFactory.makeSessionOptionValue(Boolean.parseBoolean(a.value()))
        : SessionOptionValueFactory.makeSessionOptionValue(a.value());
    session.setSessionOption(a.name(), v);
  }

  /** The settings of {@code session} (null for none) over the server's defaults. */
  static QuerySettings of(ServerSessionMiddleware.Session session, QuerySettings defaults) {
    if (session == null) return defaults;
    QuerySettings s = defaults;
    SessionOptionValue pruning = session.getSessionOption(PRUNING);
    if (pruning != null) s = s.withPruning(Boolean.parseBoolean(text(pruning)));
    SessionOptionValue parallel = session.getSessionOption(PARALLEL_PIPELINES);
    if (parallel != null) s = s.withParallelPipelines(Boolean.parseBoolean(text(parallel)));
    SessionOptionValue simplify = session.getSessionOption(SIMPLIFY);
    if (simplify != null) s = s.withSimplify(Boolean.parseBoolean(text(simplify)));
    SessionOptionValue zone = session.getSessionOption(TIMEZONE);
    if (zone != null) s = s.withZone(ZoneId.of(text(zone)));
    SessionOptionValue timeout = session.getSessionOption(TIMEOUT);
    if (timeout != null) s = s.withStatementTimeoutMs(Long.parseLong(text(timeout)));
    SessionOptionValue rows = session.getSessionOption(BATCH_ROWS);
    if (rows != null) s = s.withBatchRows(Integer.parseInt(text(rows)));
    return s;
  }

  static String text(SessionOptionValue v) {
    return v.acceptVisitor(new org.apache.arrow.flight.NoOpSessionOptionValueVisitor<String>() {
      @Override
      public String visit(String value) {
        return value;
      }

      @Override
      public String visit(boolean value) {
        return Boolean.toString(value);
      }
    });
  }
}
