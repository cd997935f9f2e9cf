package dev.quiver.planner.profile;

/** A column chunk's statistics: min/max rendered as SQL literals' text (null when absent). */
public record ColumnStat(String column, String min, String max, Long nullCount, boolean hasDictionary,
    boolean hasBloomFilter) {}
