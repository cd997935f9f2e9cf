package dev.quiver.planner.profile;

import java.util.List;
import java.util.Map;

/** One data file: path relative to the data directory, its hive partition values and its row groups. */
public record FileDescription(String path, long length, Map<String, String> partition,
    List<RowGroupDescription> rowGroups) {}
