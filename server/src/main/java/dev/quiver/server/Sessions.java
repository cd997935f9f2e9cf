package dev.quiver.server;

import static dev.quiver.server.QuiverProducer.SESSION;
import static dev.quiver.server.ResultStreaming.*;

import dev.quiver.planner.QueryEngine;
import dev.quiver.planner.Sql;
import dev.quiver.common.ErrorCode;
import dev.quiver.common.QuiverException;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;
import org.apache.arrow.flight.FlightProducer.CallContext;
import org.apache.arrow.flight.FlightProducer.ServerStreamListener;
import org.apache.arrow.flight.FlightProducer.StreamListener;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Per-client settings in the Flight session (cookie middleware): the settings a query runs with, SET and
 * SHOW, and the Flight SQL session options actions.
 */
final class Sessions {
  static final Schema NO_COLUMNS = new Schema(List.of());
  static final Schema SHOW_SCHEMA = new Schema(List.of(
      new Field("name", new FieldType(false, ArrowType.Utf8.INSTANCE, null), null),
      new Field("setting", new FieldType(false, ArrowType.Utf8.INSTANCE, null), null)));

  private final QueryEngine engine;
  private final Function<Throwable, FlightRuntimeException> errors;

  Sessions(QueryEngine engine, Function<Throwable, FlightRuntimeException> errors) {
    this.engine = engine;
    this.errors = errors;
  }

  private FlightRuntimeException error(Throwable t) {
    return errors.apply(t);
  }

  /** The session's settings over the server's defaults. */
  dev.quiver.planner.QuerySettings settings(CallContext context) {
    org.apache.arrow.flight.ServerSessionMiddleware m = context.getMiddleware(SESSION);
    return SessionSettings.of(m != null && m.hasSession() ? m.getSession() : null, engine.defaults());
  }

  /** The server's most endpoints per FlightInfo ({@code --max-endpoints}), unless a session sets its own. */
  private volatile int defaultMaxEndpoints = 1;

  void defaultMaxEndpoints(int n) {
    this.defaultMaxEndpoints = n;
  }

  /** The most endpoints a FlightInfo of the caller may have: its session's {@code quiver.max_endpoints}, or the server's. */
  int maxEndpoints(CallContext context) {
    org.apache.arrow.flight.ServerSessionMiddleware m = context.getMiddleware(SESSION);
    org.apache.arrow.flight.SessionOptionValue v = m != null && m.hasSession()
        ? m.getSession().getSessionOption(SessionSettings.MAX_ENDPOINTS) : null;
    return v == null ? defaultMaxEndpoints : Integer.parseInt(SessionSettings.text(v));
  }

  /** A setting's value for the caller, as SHOW prints it. */
  private String value(String name, CallContext context, dev.quiver.planner.QuerySettings current) {
    return name.equals(SessionSettings.MAX_ENDPOINTS) ? Integer.toString(maxEndpoints(context))
        : SessionSettings.value(name, current);
  }

  /** Makes sure the caller has a session: a new one's cookie goes out with this call's response headers. */
  static void startSession(CallContext context) {
    org.apache.arrow.flight.ServerSessionMiddleware m = context.getMiddleware(SESSION);
    if (m != null) m.getSession();
  }

  /**
   * Applies a SET statement to the caller's session; false if {@code sql} is no SET. With {@code
   * cookieExpected}, the statement was planned by an earlier call that started the session, so a call
   * without the session's cookie comes from a client that does not keep cookies: the SET would have no
   * effect on its later calls, and fails saying so. Otherwise (a one-call DoPut update) a new session is
   * started and its cookie sent.
   */
  boolean applySet(String sql, CallContext context, boolean cookieExpected) {
    SessionSettings.Assignment a = SessionSettings.parse(sql);
    if (a == null) return false;
    org.apache.arrow.flight.ServerSessionMiddleware m = context.getMiddleware(SESSION);
    if (m == null) throw new QuiverException(ErrorCode.UNSUPPORTED, "SET without sessions");
    if (cookieExpected && !m.hasSession()) {
      throw new QuiverException(ErrorCode.INVALID_QUERY, "SET would have no effect: settings live in the session"
          + " that the cookie " + org.apache.arrow.flight.ServerSessionMiddleware.sessionCookieName
          + " names, and this client did not send back the cookie it was given when the statement was planned."
          + " Use a client that keeps cookies (the JDBC driver; ADBC with adbc.flight.sql.rpc.with_cookie_middleware=true)"
          + " or the server's defaults (--statement-timeout-ms, --no-simplify)");
    }
    SessionSettings.apply(m.getSession(), a);
    return true;
  }

  /** Answers SHOW: one row per setting named, with its value in the caller's session. */
  void show(java.util.List<String> show, CallContext context, BufferAllocator allocator, ServerStreamListener listener) {
    dev.quiver.planner.QuerySettings current = settings(context);
    try (VectorSchemaRoot r = VectorSchemaRoot.create(SHOW_SCHEMA, allocator)) {
      r.allocateNew();
      for (int i = 0; i < show.size(); i++) {
        setString(r, "name", i, show.get(i));
        setString(r, "setting", i, value(show.get(i), context, current));
      }
      r.setRowCount(show.size());
      listener.start(r);
      listener.putNext();
    }
    listener.completed();
  }

  /**
   * Flight SQL session options: {@code catalog} and {@code schema} (the JDBC driver sends them for a
   * {@code catalog=} URL key; only Quiver's one catalog and schema are valid) and Quiver's own settings,
   * which SET changes too.
   */
  public void setSessionOptions(org.apache.arrow.flight.SetSessionOptionsRequest request, CallContext context,
      StreamListener<org.apache.arrow.flight.SetSessionOptionsResult> listener) {
    try {
      java.util.Map<String, org.apache.arrow.flight.SetSessionOptionsResult.Error> errors = new java.util.HashMap<>();
      org.apache.arrow.flight.ServerSessionMiddleware m = context.getMiddleware(SESSION);
      for (var e : request.getSessionOptions().entrySet()) {
        String name = e.getKey().toLowerCase(Locale.ROOT);
        String value = SessionSettings.text(e.getValue());
        boolean ok;
        if (name.equals("catalog")) {
          ok = value.equalsIgnoreCase(Sql.CATALOG);
        } else if (name.equals("schema")) {
          ok = value.equalsIgnoreCase(Sql.SCHEMA);
        } else {
          try {
            SessionSettings.apply(m.getSession(), SessionSettings.assignment(name, value));
            continue;
          } catch (RuntimeException bad) {
            boolean known = SessionSettings.ALL.contains(name) || name.equals("time_zone");
            errors.put(e.getKey(), new org.apache.arrow.flight.SetSessionOptionsResult.Error(known
                ? org.apache.arrow.flight.SetSessionOptionsResult.ErrorValue.INVALID_VALUE
                : org.apache.arrow.flight.SetSessionOptionsResult.ErrorValue.INVALID_NAME));
            continue;
          }
        }
        if (!ok) {
          errors.put(e.getKey(), new org.apache.arrow.flight.SetSessionOptionsResult.Error(
              org.apache.arrow.flight.SetSessionOptionsResult.ErrorValue.INVALID_VALUE));
        }
      }
      listener.onNext(new org.apache.arrow.flight.SetSessionOptionsResult(errors));
      listener.onCompleted();
    } catch (Throwable t) {
      listener.onError(error(t));
    }
  }

  public void getSessionOptions(org.apache.arrow.flight.GetSessionOptionsRequest request, CallContext context,
      StreamListener<org.apache.arrow.flight.GetSessionOptionsResult> listener) {
    dev.quiver.planner.QuerySettings current = settings(context);
    java.util.Map<String, org.apache.arrow.flight.SessionOptionValue> options = new java.util.LinkedHashMap<>();
    options.put("catalog", org.apache.arrow.flight.SessionOptionValueFactory.makeSessionOptionValue(Sql.CATALOG));
    options.put("schema", org.apache.arrow.flight.SessionOptionValueFactory.makeSessionOptionValue(Sql.SCHEMA));
    for (String name : SessionSettings.ALL) {
      options.put(name, org.apache.arrow.flight.SessionOptionValueFactory.makeSessionOptionValue(
          value(name, context, current)));
    }
    listener.onNext(new org.apache.arrow.flight.GetSessionOptionsResult(options));
    listener.onCompleted();
  }

  public void closeSession(org.apache.arrow.flight.CloseSessionRequest request, CallContext context,
      StreamListener<org.apache.arrow.flight.CloseSessionResult> listener) {
    org.apache.arrow.flight.ServerSessionMiddleware m = context.getMiddleware(SESSION);
    if (m != null && m.hasSession()) m.closeSession();
    listener.onNext(new org.apache.arrow.flight.CloseSessionResult(org.apache.arrow.flight.CloseSessionResult.Status.CLOSED));
    listener.onCompleted();
  }
}
