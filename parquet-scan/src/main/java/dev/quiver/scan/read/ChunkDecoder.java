package dev.quiver.scan.read;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BitVectorHelper;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.Encoding;
import org.apache.parquet.column.page.DataPage;
import org.apache.parquet.column.page.DataPageV1;
import org.apache.parquet.column.page.DataPageV2;
import org.apache.parquet.column.page.DictionaryPage;
import org.apache.parquet.column.page.PageReader;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;

/**
 * Quiver's own batch decoder for one flat column chunk, straight from parquet-java's (decompressed)
 * pages into Arrow vectors: PLAIN values of fixed width are copied in bulk, run by run of non-NULL rows;
 * dictionary ids (RLE / bit-packed) are decoded in batches and gathered; definition levels are decoded
 * run by run. Data pages v1 and v2. Anything else (other encodings, nesting, other vector types) throws
 * {@link Unsupported} — the caller then reads the row group with parquet-java's column readers.
 */
final class ChunkDecoder {
  /** A page or column this decoder does not handle. */
  static final class Unsupported extends RuntimeException {
    Unsupported(String what) {
      super(what, null, false, false);
    }
  }

  private enum Kind { INT32, INT64, FLOAT, DOUBLE, BINARY }

  private final PageReader pages;
  private final int maxDef;
  private final Kind kind;
  private final int width;

  // dictionary, decoded once
  private long[] dictLongs;
  private int[] dictInts;
  private byte[][] dictBytes;
  private boolean hasDictionary;

  // current page
  private int pageLeft;
  private ByteBuffer values;
  private HybridDecoder defs;
  private HybridDecoder ids;
  private int[] idBuffer = new int[0];

  /** Whether {@code d} into {@code v} is a case this decoder handles (flat, supported types). */
  static boolean handles(ColumnDescriptor d, ArrowType target) {
    if (d.getMaxRepetitionLevel() != 0 || d.getMaxDefinitionLevel() > 1) return false;
    PrimitiveTypeName t = d.getPrimitiveType().getPrimitiveTypeName();
    return switch (t) {
      case INT32 -> target instanceof ArrowType.Int i && i.getBitWidth() == 32 && i.getIsSigned()
          || target instanceof ArrowType.Date dt && dt.getUnit() == org.apache.arrow.vector.types.DateUnit.DAY
          || target instanceof ArrowType.Decimal;
      case INT64 -> target instanceof ArrowType.Int i && i.getBitWidth() == 64 && i.getIsSigned()
          || target instanceof ArrowType.Timestamp || target instanceof ArrowType.Decimal;
      case FLOAT -> target instanceof ArrowType.FloatingPoint f && f.getPrecision() == FloatingPointPrecision.SINGLE;
      case DOUBLE -> target instanceof ArrowType.FloatingPoint f && f.getPrecision() == FloatingPointPrecision.DOUBLE;
      case BINARY -> target instanceof ArrowType.Utf8 || target instanceof ArrowType.Binary;
      default -> false;
    };
  }

  /** Integers stored as a DECIMAL(p <= 18): widened to Arrow's 16-byte little-endian decimals. */
  private final boolean decimal;

  ChunkDecoder(PageReader pages, ColumnDescriptor d, ArrowType target) {
    this.pages = pages;
    this.decimal = target instanceof ArrowType.Decimal;
    this.maxDef = d.getMaxDefinitionLevel();
    this.kind = switch (d.getPrimitiveType().getPrimitiveTypeName()) {
      case INT32 -> Kind.INT32;
      case INT64 -> Kind.INT64;
      case FLOAT -> Kind.FLOAT;
      case DOUBLE -> Kind.DOUBLE;
      case BINARY -> Kind.BINARY;
      default -> throw new Unsupported(d.toString());
    };
    this.width = switch (kind) { case INT32, FLOAT -> 4; case INT64, DOUBLE -> 8; case BINARY -> -1; };
    DictionaryPage dict = pages.readDictionaryPage();
    if (dict != null) readDictionary(dict);
  }

  private void readDictionary(DictionaryPage dict) {
    if (dict.getEncoding() != Encoding.PLAIN && dict.getEncoding() != Encoding.PLAIN_DICTIONARY) {
      throw new Unsupported("dictionary encoding " + dict.getEncoding());
    }
    ByteBuffer b = bytes(dict.getBytes());
    int n = dict.getDictionarySize();
    hasDictionary = true;
    switch (kind) {
      case INT32, FLOAT -> {
        dictInts = new int[n];
        for (int i = 0; i < n; i++) dictInts[i] = b.getInt();
      }
      case INT64, DOUBLE -> {
        dictLongs = new long[n];
        for (int i = 0; i < n; i++) dictLongs[i] = b.getLong();
      }
      case BINARY -> {
        dictBytes = new byte[n][];
        for (int i = 0; i < n; i++) {
          byte[] v = new byte[b.getInt()];
          b.get(v);
          dictBytes[i] = v;
        }
      }
    }
  }

  private static ByteBuffer bytes(org.apache.parquet.bytes.BytesInput in) {
    try {
      return in.toByteBuffer().slice().order(ByteOrder.LITTLE_ENDIAN);
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private void nextPage() {
    DataPage page = pages.readPage();
    if (page == null) throw new IllegalStateException("the column chunk has fewer values than its row group");
    pageLeft = page.getValueCount();
    Encoding valueEncoding;
    ByteBuffer data;
    if (page instanceof DataPageV1 v1) {
      data = bytes(v1.getBytes());
      valueEncoding = v1.getValueEncoding();
      if (maxDef > 0) {
        if (v1.getDlEncoding() != Encoding.RLE) throw new Unsupported("definition levels encoded " + v1.getDlEncoding());
        int len = data.getInt();
        int start = data.position();
        ByteBuffer levels = data.duplicate().order(ByteOrder.LITTLE_ENDIAN);
        levels.limit(start + len);
        defs = new HybridDecoder(levels, 1, start + len);
        data.position(start + len);
      } else {
        defs = null;
      }
    } else if (page instanceof DataPageV2 v2) {
      valueEncoding = v2.getDataEncoding();
      if (maxDef > 0) {
        ByteBuffer levels = bytes(v2.getDefinitionLevels());
        defs = new HybridDecoder(levels, 1, levels.limit());
      } else {
        defs = null;
      }
      data = bytes(v2.getData());
    } else {
      throw new Unsupported("page " + page);
    }
    switch (valueEncoding) {
      case PLAIN -> {
        values = data;
        ids = null;
      }
      case PLAIN_DICTIONARY, RLE_DICTIONARY -> {
        if (!hasDictionary) throw new IllegalStateException("dictionary-encoded page without a dictionary page");
        int bitWidth = data.get() & 0xFF;
        if (bitWidth > 32) throw new IllegalStateException("dictionary id bit width " + bitWidth);
        ids = new HybridDecoder(data, bitWidth, data.limit());
        values = null;
      }
      default -> throw new Unsupported("value encoding " + valueEncoding);
    }
  }

  /** Decodes the next {@code n} values of the chunk into slots {@code [0, n)} of {@code v}. */
  void read(FieldVector v, int n) {
    int i = 0;
    while (i < n) {
      if (pageLeft == 0) nextPage();
      int take = Math.min(pageLeft, n - i);
      if (defs == null) {
        readValues(v, i, take);
      } else {
        int k = 0;
        while (k < take) {
          int run = defs.repeatedRunLength();
          if (run > 0) {
            int len = Math.min(run, take - k);
            if (defs.runValue() == maxDef) readValues(v, i + k, len);
            else for (int j = 0; j < len; j++) v.setNull(i + k + j);
            defs.skipRun(len);
            k += len;
          } else {
            if (defs.next() == maxDef) readValues(v, i + k, 1);
            else v.setNull(i + k);
            k++;
          }
        }
      }
      pageLeft -= take;
      i += take;
    }
  }

  /**
   * Decodes the next {@code n} values, keeping those with {@code keep[i]} into consecutive slots from 0
   * and skipping the others (late materialization).
   */
  void readSelected(FieldVector v, int n, boolean[] keep) {
    int k = 0;
    for (int i = 0; i < n; i++) {
      if (pageLeft == 0) nextPage();
      boolean present = defs == null || defs.next() == maxDef;
      if (keep[i]) {
        if (present) readValues(v, k, 1);
        else v.setNull(k);
        k++;
      } else if (present) {
        skipValue();
      }
      pageLeft--;
    }
  }

  private void skipValue() {
    if (ids != null) {
      ids.next();
    } else if (kind == Kind.BINARY) {
      int len = values.getInt();
      values.position(values.position() + len);
    } else {
      values.position(values.position() + width);
    }
  }

  /** {@code count} non-NULL values into slots {@code [at, at + count)}. */
  private void readValues(FieldVector v, int at, int count) {
    if (ids != null) {
      if (idBuffer.length < count) idBuffer = new int[Math.max(count, 1024)];
      ids.read(idBuffer, 0, count);
      gather(v, at, count);
      return;
    }
    if (kind == Kind.BINARY) {
      for (int j = 0; j < count; j++) {
        int len = values.getInt();
        int pos = values.position();
        if (v instanceof VarCharVector s) s.setSafe(at + j, values, pos, len);
        else ((VarBinaryVector) v).setSafe(at + j, values, pos, len);
        values.position(pos + len);
      }
      return;
    }
    if (decimal) {
      ArrowBuf data = ((BaseFixedWidthVector) v).getDataBuffer();
      for (int j = 0; j < count; j++) putDecimal(data, at + j, kind == Kind.INT32 ? values.getInt() : values.getLong());
      setValid((BaseFixedWidthVector) v, at, count);
      return;
    }
    // fixed width: Parquet PLAIN is little-endian, as Arrow's buffers are: one bulk copy
    BaseFixedWidthVector f = (BaseFixedWidthVector) v;
    ArrowBuf data = f.getDataBuffer();
    int bytes = count * width;
    ByteBuffer slice = values.slice(values.position(), bytes);
    data.setBytes((long) at * width, slice);
    values.position(values.position() + bytes);
    setValid(f, at, count);
  }

  private static void putDecimal(ArrowBuf data, int i, long unscaled) {
    data.setLong((long) i * 16, unscaled);
    data.setLong((long) i * 16 + 8, unscaled >> 63);
  }

  private void gather(FieldVector v, int at, int count) {
    if (decimal) {
      ArrowBuf data = ((BaseFixedWidthVector) v).getDataBuffer();
      for (int j = 0; j < count; j++) {
        putDecimal(data, at + j, kind == Kind.INT32 ? dictInts[idBuffer[j]] : dictLongs[idBuffer[j]]);
      }
      setValid((BaseFixedWidthVector) v, at, count);
      return;
    }
    switch (kind) {
      case INT32, FLOAT -> {
        ArrowBuf data = ((BaseFixedWidthVector) v).getDataBuffer();
        for (int j = 0; j < count; j++) data.setInt((long) (at + j) * 4, dictInts[idBuffer[j]]);
        setValid((BaseFixedWidthVector) v, at, count);
      }
      case INT64, DOUBLE -> {
        ArrowBuf data = ((BaseFixedWidthVector) v).getDataBuffer();
        for (int j = 0; j < count; j++) data.setLong((long) (at + j) * 8, dictLongs[idBuffer[j]]);
        setValid((BaseFixedWidthVector) v, at, count);
      }
      case BINARY -> {
        for (int j = 0; j < count; j++) {
          byte[] b = dictBytes[idBuffer[j]];
          if (v instanceof VarCharVector s) s.setSafe(at + j, b);
          else ((VarBinaryVector) v).setSafe(at + j, b);
        }
      }
    }
  }

  private static void setValid(BaseFixedWidthVector f, int at, int count) {
    ArrowBuf validity = f.getValidityBuffer();
    for (int j = 0; j < count; j++) BitVectorHelper.setBit(validity, at + j);
  }
}
