package dev.quiver.scan.read;

import dev.quiver.common.ArrowBulk;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.BitVectorHelper;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.Encoding;
import org.apache.parquet.column.page.DataPage;
import org.apache.parquet.column.page.DataPageV1;
import org.apache.parquet.column.page.DataPageV2;
import org.apache.parquet.column.page.DictionaryPage;
import org.apache.parquet.column.page.PageReader;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.PrimitiveType;

/**
 * Quiver's own batch decoder for one flat column chunk, straight from parquet-java's (decompressed)
 * pages into Arrow vectors. PLAIN values of fixed width are copied in bulk, run by run of non-NULL rows;
 * dictionary ids (RLE / bit-packed) are decoded in batches and gathered; definition levels are decoded
 * run by run; DELTA_BINARY_PACKED, DELTA_LENGTH_BYTE_ARRAY, DELTA_BYTE_ARRAY and BYTE_STREAM_SPLIT pages
 * are decoded whole into the PLAIN layout ({@link ValueEncodings}) and then copied the same way; booleans
 * PLAIN (bit-packed) or RLE. Data pages v1 and v2. Every flat physical type: INT32 (also 8/16-bit and
 * unsigned ints, DATE, DECIMAL), INT64 (also unsigned, TIMESTAMP, DECIMAL), INT96 timestamps, FLOAT, DOUBLE,
 * BYTE_ARRAY (strings, binary, DECIMAL), FIXED_LEN_BYTE_ARRAY (binary, DECIMAL, FLOAT16), BOOLEAN.
 * Anything else throws {@link Unsupported} — the caller then reads the row group with parquet-java's
 * column readers.
 */
final class ChunkDecoder {
  /** A page or column this decoder does not handle. */
  static final class Unsupported extends RuntimeException {
    Unsupported(String what) {
      super(what, null, false, false);
    }
  }

  /** How one decoded value reaches the Arrow vector. */
  private enum Out {
    /** Same little-endian width in Parquet and Arrow: bulk copy. */
    COPY,
    INT_TO_BYTE, INT_TO_SHORT, INT_TO_DECIMAL,
    BYTES_TO_VARCHAR, BYTES_TO_VARBINARY, BYTES_TO_DECIMAL, HALF_TO_FLOAT, INT96_TO_MICROS,
    BIT
  }

  /** The layout of the current page's values. */
  private enum Layout { FIXED, BINARY, BITS, RLE_BITS, DICTIONARY }

  private final PageReader pages;
  private final int maxDef;
  private final PrimitiveType.PrimitiveTypeName physical;
  private final Out out;
  /** Bytes per value in the PLAIN layout; -1 for byte arrays, 0 for booleans. */
  private final int width;

  // dictionary, decoded once: fixed 4 / 8-byte values, or byte strings as slices of one buffer
  private int[] dictInts;
  private long[] dictLongs;
  private ByteBuffer dictBytes;
  private int[] dictOffset;
  private int[] dictLength;
  private boolean hasDictionary;

  // rows: the chunk's next row, and for a page-index read the selected row ranges (pages outside them
  // are absent; each page says its first row)
  private long row;
  private final java.util.List<org.apache.parquet.internal.filter2.columnindex.RowRanges.Range> ranges;
  private int rangeAt;
  private long selectedNext;

  // current page
  private int pageLeft;
  private Layout layout;
  private ByteBuffer values;
  private long bitAt;
  private HybridDecoder defs;
  private HybridDecoder ids;
  private int[] idBuffer = new int[0];
  /**
   * Fixed-width values are assembled here (little-endian, plain Java array writes) and copied into the
   * Arrow buffer at once: one bounds check per run instead of one per value.
   */
  private byte[] stage = new byte[0];

  /** Whether {@code d} into {@code target} is a case this decoder handles (flat, supported types). */
  static boolean handles(ColumnDescriptor d, ArrowType target) {
    return d.getMaxRepetitionLevel() == 0 && d.getMaxDefinitionLevel() <= 1 && out(d.getPrimitiveType(), target) != null;
  }

  private static Out out(PrimitiveType p, ArrowType target) {
    return switch (p.getPrimitiveTypeName()) {
      case BOOLEAN -> target instanceof ArrowType.Bool ? Out.BIT : null;
      case INT32 -> {
        if (target instanceof ArrowType.Int i) {
          yield switch (i.getBitWidth()) { case 32 -> Out.COPY; case 16 -> Out.INT_TO_SHORT; case 8 -> Out.INT_TO_BYTE; default -> null; };
        }
        if (target instanceof ArrowType.Date dt && dt.getUnit() == DateUnit.DAY) yield Out.COPY;
        yield target instanceof ArrowType.Decimal ? Out.INT_TO_DECIMAL : null;
      }
      case INT64 -> {
        if (target instanceof ArrowType.Int i && i.getBitWidth() == 64 || target instanceof ArrowType.Timestamp) yield Out.COPY;
        yield target instanceof ArrowType.Decimal ? Out.INT_TO_DECIMAL : null;
      }
      case INT96 -> target instanceof ArrowType.Timestamp t && t.getUnit() == TimeUnit.MICROSECOND ? Out.INT96_TO_MICROS : null;
      case FLOAT -> target instanceof ArrowType.FloatingPoint f && f.getPrecision() == FloatingPointPrecision.SINGLE ? Out.COPY : null;
      case DOUBLE -> target instanceof ArrowType.FloatingPoint f && f.getPrecision() == FloatingPointPrecision.DOUBLE ? Out.COPY : null;
      case BINARY, FIXED_LEN_BYTE_ARRAY -> {
        if (target instanceof ArrowType.Utf8) yield Out.BYTES_TO_VARCHAR;
        if (target instanceof ArrowType.Binary) yield Out.BYTES_TO_VARBINARY;
        if (target instanceof ArrowType.Decimal) yield Out.BYTES_TO_DECIMAL;
        if (target instanceof ArrowType.FloatingPoint f && f.getPrecision() == FloatingPointPrecision.SINGLE
            && p.getTypeLength() == 2
            && p.getLogicalTypeAnnotation() instanceof LogicalTypeAnnotation.Float16LogicalTypeAnnotation) {
          yield Out.HALF_TO_FLOAT;
        }
        yield null;
      }
    };
  }

  ChunkDecoder(PageReader pages, ColumnDescriptor d, ArrowType target) {
    this(pages, d, target, null);
  }

  /**
   * A decoder that returns only the rows in {@code ranges} (null: every row), from the pages a
   * page-index read returned.
   */
  ChunkDecoder(PageReader pages, ColumnDescriptor d, ArrowType target,
      org.apache.parquet.internal.filter2.columnindex.RowRanges ranges) {
    this.pages = pages;
    this.ranges = ranges == null ? null : ranges.getRanges();
    if (this.ranges != null && !this.ranges.isEmpty()) selectedNext = this.ranges.get(0).from;
    this.maxDef = d.getMaxDefinitionLevel();
    PrimitiveType p = d.getPrimitiveType();
    this.physical = p.getPrimitiveTypeName();
    this.out = out(p, target);
    if (out == null) throw new Unsupported(d.toString());
    this.width = switch (physical) {
      case BOOLEAN -> 0;
      case INT32, FLOAT -> 4;
      case INT64, DOUBLE -> 8;
      case INT96 -> 12;
      case FIXED_LEN_BYTE_ARRAY -> p.getTypeLength();
      case BINARY -> -1;
    };
    if (physical == PrimitiveType.PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY && width <= 0) throw new Unsupported(d.toString());
    DictionaryPage dict = pages.readDictionaryPage();
    if (dict != null) readDictionary(dict);
  }

  private void readDictionary(DictionaryPage dict) {
    if (dict.getEncoding() != Encoding.PLAIN && dict.getEncoding() != Encoding.PLAIN_DICTIONARY) {
      throw new Unsupported("dictionary encoding " + dict.getEncoding());
    }
    ByteBuffer b = bytes(dict.getBytes());
    int n = dict.getDictionarySize();
    if (n < 0 || (width > 0 ? (long) n * width : 4L * n) > b.remaining()) {
      throw new IllegalStateException("dictionary page of " + b.remaining() + " bytes cannot hold " + n + " values");
    }
    hasDictionary = true;
    switch (width) {
      case 0 -> throw new Unsupported("dictionary of booleans");
      case 4 -> {
        if (physical != PrimitiveType.PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY) {
          dictInts = new int[n];
          for (int i = 0; i < n; i++) dictInts[i] = b.getInt();
          return;
        }
      }
      case 8 -> {
        if (physical != PrimitiveType.PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY) {
          dictLongs = new long[n];
          for (int i = 0; i < n; i++) dictLongs[i] = b.getLong();
          return;
        }
      }
      default -> { }
    }
    dictBytes = b;
    entries = null;
    dictOffset = new int[n];
    dictLength = new int[n];
    for (int i = 0; i < n; i++) {
      int len = width > 0 ? width : b.getInt();
      if (len < 0 || len > b.remaining()) throw new IllegalStateException("dictionary value of " + len + " bytes");
      dictOffset[i] = b.position();
      dictLength[i] = len;
      b.position(b.position() + len);
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
    if (page.getFirstRowIndex().isPresent()) {
      row = page.getFirstRowIndex().get();
    } else if (ranges != null) {
      throw new Unsupported("a page without its first row index");
    }
    Encoding valueEncoding;
    ByteBuffer data;
    if (page instanceof DataPageV1 v1) {
      data = bytes(v1.getBytes());
      valueEncoding = v1.getValueEncoding();
      if (maxDef > 0) {
        if (v1.getDlEncoding() != Encoding.RLE) throw new Unsupported("definition levels encoded " + v1.getDlEncoding());
        int len = data.getInt();
        int start = data.position();
        if (len < 0 || len > data.remaining()) throw new IllegalStateException("definition levels of " + len + " bytes");
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
    ids = null;
    values = data;
    layout = width > 0 ? Layout.FIXED : width < 0 ? Layout.BINARY : Layout.BITS;
    switch (valueEncoding) {
      case PLAIN -> bitAt = (long) data.position() << 3;
      case PLAIN_DICTIONARY, RLE_DICTIONARY -> {
        if (!hasDictionary) throw new IllegalStateException("dictionary-encoded page without a dictionary page");
        int bitWidth = data.get() & 0xFF;
        if (bitWidth > 32) throw new IllegalStateException("dictionary id bit width " + bitWidth);
        ids = new HybridDecoder(data, bitWidth, data.limit());
        layout = Layout.DICTIONARY;
      }
      case RLE -> {
        if (width != 0) throw new Unsupported("RLE values of " + physical);
        int len = data.getInt();
        if (len < 0 || len > data.remaining()) throw new IllegalStateException("RLE booleans of " + len + " bytes");
        ids = new HybridDecoder(data, 1, data.position() + len);
        layout = Layout.RLE_BITS;
      }
      case DELTA_BINARY_PACKED -> {
        if (physical != PrimitiveType.PrimitiveTypeName.INT32 && physical != PrimitiveType.PrimitiveTypeName.INT64) {
          throw new Unsupported("DELTA_BINARY_PACKED " + physical);
        }
        values = ValueEncodings.deltaBinaryPacked(data, pageLeft, width);
      }
      case DELTA_LENGTH_BYTE_ARRAY -> {
        if (width != -1) throw new Unsupported("DELTA_LENGTH_BYTE_ARRAY " + physical);
        values = ValueEncodings.deltaLengthByteArray(data, pageLeft);
      }
      case DELTA_BYTE_ARRAY -> {
        if (width != -1 && physical != PrimitiveType.PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY) {
          throw new Unsupported("DELTA_BYTE_ARRAY " + physical);
        }
        values = ValueEncodings.deltaByteArray(data, pageLeft, Math.max(width, 0));
      }
      case BYTE_STREAM_SPLIT -> {
        if (width <= 0) throw new Unsupported("BYTE_STREAM_SPLIT " + physical);
        values = ValueEncodings.byteStreamSplit(data, width);
      }
      default -> throw new Unsupported("value encoding " + valueEncoding);
    }
  }

  /** Whether the chunk has a dictionary of strings (the rows' indexes are then kept: {@link DictionaryStrings}). */
  boolean dictionaryOfStrings() {
    return dictBytes != null && out == Out.BYTES_TO_VARCHAR;
  }

  /** The vector being decoded and the indexes kept for it (null: none), looked up once per vector. */
  private FieldVector trackedVector;
  private DictionaryStrings trackedIds;

  private DictionaryStrings tracked(FieldVector v) {
    if (v != trackedVector) {
      trackedVector = v;
      trackedIds = dictionaryOfStrings() ? DictionaryStrings.track(v) : null;
    }
    return trackedIds;
  }

  /** Decodes the next {@code n} (selected) rows of the chunk into slots {@code [0, n)} of {@code v}. */
  void read(FieldVector v, int n) {
    readRows(v, 0, n);
  }

  /** While reading dictionary indexes ({@link #readIds}): where they go, -1 for NULL; else null. */
  private int[] idsOut;

  /**
   * The dictionary index of each of the next {@code n} (selected) rows, -1 for a NULL one, in {@code out[0, n)};
   * nothing is decoded into a vector. Only for a chunk with a dictionary of strings ({@link #dictionaryOfStrings})
   * whose data pages the footer says are all dictionary-encoded: a page that is not throws {@link Unsupported}, and
   * the caller reads the row group again the general way.
   */
  void readIds(int[] out, int n) {
    if (!dictionaryOfStrings()) throw new IllegalStateException("no dictionary of strings");
    idsOut = out;
    try {
      readRows(null, 0, n);
    } finally {
      idsOut = null;
    }
  }

  /** How many entries the chunk's dictionary has (0: none). */
  int dictionarySize() {
    return dictOffset != null ? dictOffset.length : dictInts != null ? dictInts.length
        : dictLongs != null ? dictLongs.length : 0;
  }

  /**
   * The dictionary's entries into slots {@code [0, size)} of {@code v} and a NULL into slot {@code size}: the batch
   * over which a predicate of this column is evaluated once per entry. Sets the value count.
   */
  void dictionaryInto(VarCharVector v) {
    int size = dictionarySize();
    if (idBuffer.length < size) idBuffer = new int[Math.max(size, 1024)];
    for (int i = 0; i < size; i++) idBuffer[i] = i;
    if (size > 0) gatherStrings(v, 0, size);
    ScanVectors.setNulls(v, size, 1);
    v.setValueCount(size + 1);
  }

  /**
   * The rows with {@code keep[i]} of {@code ids[0, n)} (from {@link #readIds}; -1 is NULL) as strings into
   * consecutive slots of {@code v} from 0, their indexes kept for the vector ({@link DictionaryStrings}): only the
   * rows a filter kept are turned into strings.
   */
  void gatherIds(VarCharVector v, int[] ids, int n, boolean[] keep) {
    if (idBuffer.length < n) idBuffer = new int[Math.max(n, 1024)];
    DictionaryStrings d = tracked(v);
    int at = 0;
    int i = 0;
    while (i < n) {
      if (!keep[i]) {
        i++;
        continue;
      }
      if (ids[i] < 0) {
        ScanVectors.setNulls(v, at++, 1);
        i++;
        continue;
      }
      int run = 0; // kept non-NULL rows up to the next kept NULL, their indexes gathered in idBuffer
      for (; i < n && (!keep[i] || ids[i] >= 0); i++) if (keep[i]) idBuffer[run++] = ids[i];
      gatherStrings(v, at, run);
      if (d != null) d.record(entries(), at, idBuffer, run);
      at += run;
    }
  }

  /** The next {@code n} selected rows into slots {@code [at, at + n)}, range by range. */
  private void readRows(FieldVector v, int at, int n) {
    int k = 0;
    while (k < n) {
      int len = toSelected(n - k);
      readInto(v, at + k, len);
      k += len;
    }
  }

  /** Skips the next {@code n} selected rows. */
  private void skipRows(int n) {
    int k = 0;
    while (k < n) {
      int len = toSelected(n - k);
      skip(len);
      k += len;
    }
  }

  /**
   * For a page-index read: moves to the next selected row and returns how many selected rows follow it
   * consecutively (at most {@code max}), counting them as consumed. Otherwise {@code max}.
   */
  private int toSelected(int max) {
    if (ranges == null) return max;
    while (selectedNext > ranges.get(rangeAt).to) {
      rangeAt++;
      if (rangeAt >= ranges.size()) throw new IllegalStateException("more rows requested than the page index selected");
      selectedNext = ranges.get(rangeAt).from;
    }
    while (row < selectedNext) {
      if (pageLeft == 0) {
        nextPage();
        continue;
      }
      skip((int) Math.min(pageLeft, selectedNext - row));
    }
    if (row != selectedNext) throw new IllegalStateException("page index: row " + row + " where row " + selectedNext + " was expected");
    int len = (int) Math.min(max, ranges.get(rangeAt).to - selectedNext + 1);
    selectedNext += len;
    return len;
  }

  /** Decodes the next {@code n} values of the chunk into slots {@code [at, at + n)} of {@code v}. */
  private void readInto(FieldVector v, int at, int n) {
    int i = 0;
    while (i < n) {
      if (pageLeft == 0) {
        long expected = row;
        nextPage();
        if (row != expected) throw new IllegalStateException("page index: page starts at row " + row + ", not " + expected);
      }
      int take = Math.min(pageLeft, n - i);
      if (defs == null) {
        readValues(v, at + i, take);
      } else {
        int k = 0;
        while (k < take) {
          int run = defs.repeatedRunLength();
          if (run > 0) {
            int len = Math.min(run, take - k);
            if (defs.runValue() == maxDef) readValues(v, at + i + k, len);
            else setNulls(v, at + i + k, len);
            defs.skipRun(len);
            k += len;
          } else {
            if (defs.next() == maxDef) readValues(v, at + i + k, 1);
            else setNulls(v, at + i + k, 1);
            k++;
          }
        }
      }
      pageLeft -= take;
      row += take;
      i += take;
    }
  }

  /**
   * Decodes the next {@code n} values, keeping those with {@code keep[i]} into consecutive slots from 0
   * and skipping the others (late materialization); runs of kept and of skipped rows are handled whole.
   */
  void readSelected(FieldVector v, int n, boolean[] keep) {
    int i = 0;
    int k = 0;
    while (i < n) {
      boolean want = keep[i];
      int j = i + 1;
      while (j < n && keep[j] == want) j++;
      if (want) {
        readRows(v, k, j - i);
        k += j - i;
      } else {
        skipRows(j - i);
      }
      i = j;
    }
  }

  /** Skips the next {@code n} rows: their definition levels, then their non-NULL values at once. */
  private void skip(int n) {
    while (n > 0) {
      if (pageLeft == 0) nextPage();
      int take = Math.min(pageLeft, n);
      int present = take;
      if (defs != null) {
        present = 0;
        int k = 0;
        while (k < take) {
          int run = defs.repeatedRunLength();
          if (run > 0) {
            int len = Math.min(run, take - k);
            if (defs.runValue() == maxDef) present += len;
            defs.skipRun(len);
            k += len;
          } else {
            if (defs.next() == maxDef) present++;
            k++;
          }
        }
      }
      skipValues(present);
      pageLeft -= take;
      row += take;
      n -= take;
    }
  }

  private void skipValues(int count) {
    switch (layout) {
      case DICTIONARY, RLE_BITS -> ids.skip(count);
      case BINARY -> {
        for (int j = 0; j < count; j++) {
          int len = values.getInt();
          if (len < 0 || len > values.remaining()) throw new IllegalStateException("byte array of " + len + " bytes");
          values.position(values.position() + len);
        }
      }
      case FIXED -> {
        long bytes = (long) count * width;
        if (bytes > values.remaining()) throw new IllegalStateException("the page ends before its values");
        values.position(values.position() + (int) bytes);
      }
      case BITS -> bitAt += count;
    }
  }

  /** Slots {@code [at, at + len)} NULL (or, reading indexes, -1). */
  private void setNulls(FieldVector v, int at, int len) {
    if (idsOut != null) Arrays.fill(idsOut, at, at + len, -1);
    else ScanVectors.setNulls(v, at, len);
  }

  /** {@code count} non-NULL values into slots {@code [at, at + count)}. */
  private void readValues(FieldVector v, int at, int count) {
    if (idsOut != null) {
      if (layout != Layout.DICTIONARY) throw new Unsupported("a page not dictionary-encoded in a chunk read by index");
      ids.read(idsOut, at, count);
      return;
    }
    switch (layout) {
      case DICTIONARY -> {
        if (idBuffer.length < count) idBuffer = new int[Math.max(count, 1024)];
        ids.read(idBuffer, 0, count);
        gather(v, at, count);
        DictionaryStrings d = tracked(v);
        if (d != null) d.record(entries(), at, idBuffer, count);
      }
      case FIXED -> fixed(v, at, count);
      case BINARY -> {
        DictionaryStrings d = tracked(v);
        if (d != null) d.plain();
        if ((out == Out.BYTES_TO_VARCHAR || out == Out.BYTES_TO_VARBINARY) && values.hasArray()) {
          plainBytes((BaseVariableWidthVector) v, at, count);
          return;
        }
        for (int j = 0; j < count; j++) {
          int len = values.getInt();
          int pos = values.position();
          if (len < 0 || len > values.remaining()) throw new IllegalStateException("byte array of " + len + " bytes");
          storeBytes(v, at + j, values, pos, len);
          values.position(pos + len);
        }
      }
      case BITS -> {
        ArrowBuf data = ((BaseFixedWidthVector) v).getDataBuffer();
        for (int j = 0; j < count; j++, bitAt++) {
          int bit = (values.get((int) (bitAt >>> 3)) >>> (bitAt & 7)) & 1;
          BitVectorHelper.setValidityBit(data, at + j, bit);
        }
        setValid((BaseFixedWidthVector) v, at, count);
      }
      case RLE_BITS -> {
        ArrowBuf data = ((BaseFixedWidthVector) v).getDataBuffer();
        for (int j = 0; j < count; j++) BitVectorHelper.setValidityBit(data, at + j, ids.next() & 1);
        setValid((BaseFixedWidthVector) v, at, count);
      }
    }
  }

  /** {@code count} values of the PLAIN fixed-width layout. */
  private void fixed(FieldVector v, int at, int count) {
    int bytes = count * width;
    if (bytes > values.remaining()) throw new IllegalStateException("the page ends before its values");
    int pos = values.position();
    switch (out) {
      case COPY -> {
        // Parquet PLAIN is little-endian, as Arrow's buffers are: one bulk copy
        BaseFixedWidthVector f = (BaseFixedWidthVector) v;
        f.getDataBuffer().setBytes((long) at * width, values.slice(pos, bytes));
        setValid(f, at, count);
      }
      case INT_TO_BYTE, INT_TO_SHORT, INT_TO_DECIMAL -> {
        byte[] st = stage(count);
        if (width == 4) {
          for (int j = 0; j < count; j++) stageLong(st, j, values.getInt(pos + 4 * j));
        } else {
          for (int j = 0; j < count; j++) stageLong(st, j, values.getLong(pos + 8 * j));
        }
        flush((BaseFixedWidthVector) v, at, count);
      }
      default -> {
        for (int j = 0; j < count; j++) storeBytes(v, at + j, values, pos + j * width, width);
      }
    }
    values.position(pos + bytes);
  }

  private void gather(FieldVector v, int at, int count) {
    if (dictBytes != null && out == Out.BYTES_TO_VARCHAR) {
      gatherStrings((VarCharVector) v, at, count);
      return;
    }
    if (dictBytes != null) {
      for (int j = 0; j < count; j++) {
        int id = idBuffer[j];
        storeBytes(v, at + j, dictBytes, dictOffset[id], dictLength[id]);
      }
      return;
    }
    byte[] st = stage(count);
    int[] idsRead = idBuffer;
    if (out == Out.COPY && dictInts != null) {
      int[] dict = dictInts;
      for (int j = 0; j < count; j++) ArrowBulk.INTS.set(st, j << 2, dict[idsRead[j]]);
    } else if (out == Out.COPY) {
      long[] dict = dictLongs;
      for (int j = 0; j < count; j++) ArrowBulk.LONGS.set(st, j << 3, dict[idsRead[j]]);
    } else if (dictInts != null) {
      for (int j = 0; j < count; j++) stageLong(st, j, dictInts[idsRead[j]]);
    } else {
      for (int j = 0; j < count; j++) stageLong(st, j, dictLongs[idsRead[j]]);
    }
    flush((BaseFixedWidthVector) v, at, count);
  }

  /**
   * The chunk's dictionary of strings as one object, its bytes an array ({@link #dictOffset} indexes it), made on first
   * use, once per dictionary (its identity is the dictionary's).
   */
  private DictionaryStrings.Entries entries;

  DictionaryStrings.Entries entries() {
    if (entries == null) {
      ByteBuffer b = dictBytes.duplicate();
      b.position(0);
      byte[] bytes = new byte[b.limit() + 16]; // 16 bytes of slack: short strings are copied as two longs
      b.get(bytes, 0, b.limit());
      entries = new DictionaryStrings.Entries(bytes, dictOffset, dictLength);
    }
    return entries;
  }
  private byte[] stringStage = new byte[0];
  private byte[] offsetStage = new byte[0];

  /**
   * Strings {@code idBuffer[0, count)} of the dictionary into slots {@code [at, at + count)} of {@code v}, all
   * non-NULL: the bytes and the offsets staged in arrays and copied into the vector's buffers at once (setting them
   * value by value cost a third of a string column's decoding).
   */
  private void gatherStrings(VarCharVector v, int at, int count) {
    long total = 0;
    for (int j = 0; j < count; j++) total += dictLength[idBuffer[j]];
    int start = stageStrings(v, at, count, total, total + 16); // staged with slack: short strings move as two longs
    byte[] st = stringStage;
    byte[] os = offsetStage;
    byte[] dict = entries().bytes();
    int p = 0;
    for (int j = 0; j < count; j++) {
      int id = idBuffer[j];
      int len = dictLength[id];
      int from = dictOffset[id];
      if (len <= 16) {
        // two 8-byte moves instead of a copy call; what they write past the string the next one overwrites
        ArrowBulk.LONGS.set(st, p, (long) ArrowBulk.LONGS.get(dict, from));
        ArrowBulk.LONGS.set(st, p + 8, (long) ArrowBulk.LONGS.get(dict, from + 8));
      } else {
        System.arraycopy(dict, from, st, p, len);
      }
      p += len;
      ArrowBulk.INTS.set(os, j << 2, start + p);
    }
    setStaged(v, at, count, start, p);
  }

  /**
   * {@code count} values of the PLAIN byte-array layout (each a 4-byte little-endian length, then the bytes) into
   * slots {@code [at, at + count)} of a string or binary vector, all non-NULL: the lengths walked once for the total,
   * then the bytes and offsets staged in arrays and copied into the vector's buffers at once (a {@code setSafe} a
   * value, with its capacity checks, cost a tenth of H2O q7, whose 100,000-string column overflows its dictionary).
   */
  private void plainBytes(BaseVariableWidthVector v, int at, int count) {
    byte[] src = values.array();
    int base = values.arrayOffset();
    int pos = values.position();
    int end = values.limit();
    long total = 0;
    for (int j = 0, q = pos; j < count; j++) {
      if (end - q < 4) throw new IllegalStateException("the page ends before its values");
      int len = (int) ArrowBulk.INTS.get(src, base + q);
      if (len < 0 || len > end - q - 4) throw new IllegalStateException("byte array of " + len + " bytes");
      q += 4 + len;
      total += len;
    }
    int start = stageStrings(v, at, count, total, total);
    byte[] st = stringStage;
    byte[] os = offsetStage;
    int p = 0;
    int q = base + pos;
    for (int j = 0; j < count; j++) {
      int len = (int) ArrowBulk.INTS.get(src, q);
      System.arraycopy(src, q + 4, st, p, len);
      q += 4 + len;
      p += len;
      ArrowBulk.INTS.set(os, j << 2, start + p);
    }
    setStaged(v, at, count, start, p);
    values.position(q - base);
  }

  /**
   * Readies slots {@code [at, at + count)} of {@code v} for strings of {@code total} bytes staged in
   * {@link #stringStage} (made at least {@code stage} bytes: more than {@code total} leaves slack for wider moves)
   * and their end offsets in {@link #offsetStage}: the vector's buffers grown, the slots before {@code at} filled;
   * returns where the strings start in the data buffer.
   */
  private int stageStrings(BaseVariableWidthVector v, int at, int count, long total, long stage) {
    while (v.getValueCapacity() < at + count) v.reallocValidityAndOffsetBuffers();
    v.fillEmpties(at);
    int start = v.getStartOffset(at);
    if (start + total > Integer.MAX_VALUE) throw new IllegalStateException("a batch of strings over 2 GiB");
    while (v.getDataBuffer().capacity() < start + total) v.reallocDataBuffer();
    if (stringStage.length < stage) stringStage = new byte[(int) Math.max(stage, 1 << 14)];
    if (offsetStage.length < 4 * count) offsetStage = new byte[Math.max(4 * count, 1 << 12)];
    return start;
  }

  /** Copies the {@code bytes} staged strings and their offsets into slots {@code [at, at + count)}, all valid. */
  private void setStaged(BaseVariableWidthVector v, int at, int count, int start, int bytes) {
    v.getDataBuffer().setBytes(start, stringStage, 0, bytes);
    v.getOffsetBuffer().setBytes((long) (at + 1) * 4, offsetStage, 0, 4L * count);
    ArrowBulk.setValid(v.getValidityBuffer(), at, count);
    v.setLastSet(at + count - 1);
  }

  /** Arrow bytes per value of this column's vector (for the staged layouts). */
  private int arrowWidth() {
    return switch (out) {
      case INT_TO_BYTE -> 1;
      case INT_TO_SHORT -> 2;
      case INT_TO_DECIMAL -> 16;
      default -> width;
    };
  }

  private byte[] stage(int count) {
    int bytes = count * arrowWidth();
    if (stage.length < bytes) stage = new byte[Math.max(bytes, 1 << 12)];
    return stage;
  }

  /** An integer into staged slot {@code j}, narrowed or widened to the vector's layout. */
  private void stageLong(byte[] st, int j, long x) {
    switch (out) {
      case INT_TO_BYTE -> st[j] = (byte) x;
      case INT_TO_SHORT -> ArrowBulk.SHORTS.set(st, j << 1, (short) x);
      case INT_TO_DECIMAL -> {
        ArrowBulk.LONGS.set(st, j << 4, x);
        ArrowBulk.LONGS.set(st, (j << 4) + 8, x >> 63);
      }
      default -> throw new IllegalStateException("integer into " + out);
    }
  }

  /** Copies {@code count} staged values into slots {@code [at, at + count)} and marks them valid. */
  private void flush(BaseFixedWidthVector v, int at, int count) {
    int w = arrowWidth();
    v.getDataBuffer().setBytes((long) at * w, stage, 0, (long) count * w);
    setValid(v, at, count);
  }

  /** The bytes {@code [off, off + len)} of {@code buf} as one value in slot {@code slot}. */
  private void storeBytes(FieldVector v, int slot, ByteBuffer buf, int off, int len) {
    switch (out) {
      case BYTES_TO_VARCHAR -> ((VarCharVector) v).setSafe(slot, buf, off, len);
      case BYTES_TO_VARBINARY -> ((VarBinaryVector) v).setSafe(slot, buf, off, len);
      case BYTES_TO_DECIMAL -> {
        if (len > 16) throw new IllegalStateException("decimal value of " + len + " bytes does not fit 128 bits");
        long sign = len > 0 && buf.get(off) < 0 ? -1L : 0L;
        long lo = sign;
        long hi = sign;
        for (int i = 0; i < len; i++) { // i-th least significant byte
          long b = buf.get(off + len - 1 - i) & 0xFFL;
          if (i < 8) lo = lo & ~(0xFFL << (8 * i)) | b << (8 * i);
          else hi = hi & ~(0xFFL << (8 * (i - 8))) | b << (8 * (i - 8));
        }
        ArrowBuf data = ((BaseFixedWidthVector) v).getDataBuffer();
        data.setLong((long) slot * 16, lo);
        data.setLong((long) slot * 16 + 8, hi);
        BitVectorHelper.setBit(((BaseFixedWidthVector) v).getValidityBuffer(), slot);
      }
      case HALF_TO_FLOAT -> {
        if (len != 2) throw new IllegalStateException("FLOAT16 value of " + len + " bytes");
        float f = ValueDecoder.halfToFloat(new byte[] {buf.get(off), buf.get(off + 1)});
        ((BaseFixedWidthVector) v).getDataBuffer().setFloat((long) slot * 4, f);
        BitVectorHelper.setBit(((BaseFixedWidthVector) v).getValidityBuffer(), slot);
      }
      case INT96_TO_MICROS -> {
        if (len != 12) throw new IllegalStateException("INT96 value of " + len + " bytes");
        ByteBuffer le = buf.order() == ByteOrder.LITTLE_ENDIAN ? buf : buf.duplicate().order(ByteOrder.LITTLE_ENDIAN);
        long micros = ValueDecoder.int96ToEpochMicros(le.getLong(off), le.getInt(off + 8));
        ((BaseFixedWidthVector) v).getDataBuffer().setLong((long) slot * 8, micros);
        BitVectorHelper.setBit(((BaseFixedWidthVector) v).getValidityBuffer(), slot);
      }
      default -> throw new IllegalStateException("bytes into " + out);
    }
  }

  private static void setValid(BaseFixedWidthVector f, int at, int count) {
    ArrowBulk.setValid(f.getValidityBuffer(), at, count);
  }
}
