package dev.quiver.planner.profile;

import java.util.List;

/**
 * One column summarising all its chunks: codec/encodings as seen; dictionary/bloomFilter/pageIndex true if every
 * chunk has it.
 */
public record ColumnDescription(String name, String sqlType, String physicalType, boolean nullable, String codec,
    List<String> encodings, boolean dictionary, boolean bloomFilter, boolean pageIndex, long compressedBytes,
    long uncompressedBytes) {}
