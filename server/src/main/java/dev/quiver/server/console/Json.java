package dev.quiver.server.console;

import com.fasterxml.jackson.core.JsonFactoryBuilder;
import com.fasterxml.jackson.core.SerializableString;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.io.CharacterEscapes;
import com.fasterxml.jackson.core.io.SerializedString;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.quiver.common.ErrorCode;
import dev.quiver.common.QuiverException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * The console's JSON: Jackson (already on the server's class path through Arrow; declared with the version
 * Arrow brings). Records are written with their component names as keys, enums as their names. Every
 * {@code <}, {@code >}, {@code &}, {@code '} and U+2028/U+2029 in a string is written as a {@code \\uXXXX}
 * escape, so a value like {@code <script>} from data or an error message stays inert even if a response were
 * ever read as HTML.
 */
final class Json {
  private static final ObjectMapper MAPPER = new ObjectMapper(new JsonFactoryBuilder()
      .characterEscapes(new HtmlSafeEscapes())
      .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(32).build())
      .build());

  private Json() {}

  static byte[] write(Object value) {
    try {
      return MAPPER.writeValueAsBytes(value);
    } catch (IOException e) {
      throw new IllegalStateException("cannot write JSON: " + e.getMessage(), e);
    }
  }

  /** A request body as a JSON object; INVALID_QUERY (400) if it is none. */
  static JsonNode readObject(byte[] body) {
    JsonNode n;
    try {
      n = body.length == 0 ? null : MAPPER.readTree(body);
    } catch (IOException e) {
      throw new QuiverException(ErrorCode.INVALID_QUERY, "the request body is no JSON: " + firstLine(e.getMessage()));
    }
    if (n == null || !n.isObject()) {
      throw new QuiverException(ErrorCode.INVALID_QUERY, "the request body must be a JSON object");
    }
    return n;
  }

  /** Field {@code name} of {@code o} as text; null when absent or null; INVALID_QUERY if it is no string. */
  static String text(JsonNode o, String name) {
    JsonNode v = o.get(name);
    if (v == null || v.isNull()) return null;
    if (!v.isTextual()) throw new QuiverException(ErrorCode.INVALID_QUERY, "\"" + name + "\" must be a string");
    return v.textValue();
  }

  static boolean bool(JsonNode o, String name, boolean otherwise) {
    JsonNode v = o.get(name);
    if (v == null || v.isNull()) return otherwise;
    if (!v.isBoolean()) throw new QuiverException(ErrorCode.INVALID_QUERY, "\"" + name + "\" must be true or false");
    return v.booleanValue();
  }

  static int integer(JsonNode o, String name, int otherwise) {
    JsonNode v = o.get(name);
    if (v == null || v.isNull()) return otherwise;
    if (!v.canConvertToInt() || !v.isIntegralNumber()) {
      throw new QuiverException(ErrorCode.INVALID_QUERY, "\"" + name + "\" must be an integer");
    }
    return v.intValue();
  }

  private static String firstLine(String s) {
    if (s == null) return "";
    int nl = s.indexOf('\n');
    return nl < 0 ? s : s.substring(0, nl);
  }

  static String utf8(byte[] b) {
    return new String(b, StandardCharsets.UTF_8);
  }

  /** Standard JSON escapes plus {@code < > & '} and the two JavaScript line separators as {@code \\uXXXX}. */
  private static final class HtmlSafeEscapes extends CharacterEscapes {
    private static final long serialVersionUID = 1L;
    private final int[] ascii;

    HtmlSafeEscapes() {
      ascii = standardAsciiEscapesForJSON();
      ascii['<'] = ESCAPE_STANDARD;
      ascii['>'] = ESCAPE_STANDARD;
      ascii['&'] = ESCAPE_STANDARD;
      ascii['\''] = ESCAPE_STANDARD;
    }

    @Override
    public int[] getEscapeCodesForAscii() {
      return ascii;
    }

    @Override
    public SerializableString getEscapeSequence(int ch) {
      if (ch == 0x2028) return new SerializedString("\\u2028");
      if (ch == 0x2029) return new SerializedString("\\u2029");
      return null;
    }
  }
}
