package dev.quiver.common;

/**
 * What kind of failure a {@link QuiverException} reports. The server maps each code to exactly one
 * Flight status code, in one place.
 */
public enum ErrorCode {
  /** SQL that does not parse; the message carries {@code line:column}. */
  SYNTAX_ERROR,
  /** A query that parses but is wrong: type mismatch, bad argument, ambiguous name. */
  INVALID_QUERY,
  /** A value that cannot be computed: overflow, division by zero, invalid cast of a value. */
  DATA_ERROR,
  /** An unknown table, column or function. */
  NOT_FOUND,
  /** Valid SQL that Quiver does not support (yet); the message names the construct. */
  UNSUPPORTED,
  /** A file that is not readable Parquet, or whose contents are inconsistent. */
  CORRUPT_FILE,
  /**
   * A file changed or was deleted while a query read it (its length, modification time or identity differs
   * from when the query was planned): transient, the query can be retried.
   */
  FILE_CHANGED,
  /** A memory or size limit was reached. */
  RESOURCE_EXHAUSTED,
  /** The query was cancelled by its client. */
  CANCELLED,
  /** The query ran longer than its statement timeout. */
  TIMED_OUT,
  /** A bug in Quiver. */
  INTERNAL
}
