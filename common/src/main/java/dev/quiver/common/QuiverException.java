package dev.quiver.common;

/** The one user-facing exception type of Quiver: a message for the user and an {@link ErrorCode}. */
public class QuiverException extends RuntimeException {
  private final ErrorCode code;

  public QuiverException(ErrorCode code, String message) {
    super(message);
    this.code = code;
  }

  public QuiverException(ErrorCode code, String message, Throwable cause) {
    super(message, cause);
    this.code = code;
  }

  public ErrorCode code() {
    return code;
  }

  public static QuiverException unsupported(String what) {
    return new QuiverException(ErrorCode.UNSUPPORTED, what + " is not supported");
  }

  /** "{@code what} is not supported{@code where}", e.g. where = " at 1:35". */
  public static QuiverException unsupported(String what, String where) {
    return new QuiverException(ErrorCode.UNSUPPORTED, what + " is not supported" + where);
  }

  public static QuiverException internal(String message) {
    return new QuiverException(ErrorCode.INTERNAL, "internal error: " + message);
  }
}
