package dev.quiver.server;

import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.arrow.flight.CallHeaders;
import org.apache.arrow.flight.CallInfo;
import org.apache.arrow.flight.CallStatus;
import org.apache.arrow.flight.FlightClientMiddleware;
import org.apache.arrow.flight.FlightServerMiddleware;
import org.apache.arrow.flight.RequestContext;

/**
 * Notices a client's first call, so that the start-up warm-up gives way to it: every Flight call passes this
 * server middleware, and any call that does not carry the warm-up's own header (a random value chosen at the
 * start, so no client can imitate it by accident) counts as a client's. The console's queries count too
 * ({@link #arrived()}). The first arrival runs the registered action once; later ones cost a volatile read.
 */
final class ClientArrival implements FlightServerMiddleware.Factory<ClientArrival.None> {
  static final FlightServerMiddleware.Key<None> KEY = FlightServerMiddleware.Key.of("quiver-client-arrival");
  static final String HEADER = "x-quiver-warm-up";

  private final String token = HexFormat.of().formatHex(new SecureRandom().generateSeed(16));
  private final AtomicBoolean arrived = new AtomicBoolean();
  private volatile Runnable onFirst = () -> { };

  /** What to run at the first client call (replaces the previous action); at once if a client already came. */
  void onFirst(Runnable action) {
    onFirst = action;
    if (arrived.get()) action.run();
  }

  /** A client's call or console query arrived. */
  void arrived() {
    if (!arrived.get() && arrived.compareAndSet(false, true)) onFirst.run();
  }

  boolean hasArrived() {
    return arrived.get();
  }

  /** The client middleware the warm-up's own loopback client sends its calls through. */
  FlightClientMiddleware.Factory warmUpClient() {
    return info -> new FlightClientMiddleware() {
      @Override
      public void onBeforeSendingHeaders(CallHeaders outgoingHeaders) {
        outgoingHeaders.insert(HEADER, token);
      }

      @Override
      public void onHeadersReceived(CallHeaders incomingHeaders) {
      }

      @Override
      public void onCallCompleted(CallStatus status) {
      }
    };
  }

  @Override
  public None onCallStarted(CallInfo info, CallHeaders incomingHeaders, RequestContext context) {
    if (!arrived.get() && !token.equals(incomingHeaders.get(HEADER))) arrived();
    return None.INSTANCE;
  }

  /** The per-call middleware: nothing to do per call. */
  static final class None implements FlightServerMiddleware {
    static final None INSTANCE = new None();

    @Override
    public void onBeforeSendingHeaders(CallHeaders outgoingHeaders) {
    }

    @Override
    public void onCallCompleted(CallStatus status) {
    }

    @Override
    public void onCallErrored(Throwable err) {
    }
  }
}
