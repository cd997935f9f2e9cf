package dev.quiver.planner;

import java.nio.file.Path;

/**
 * Where operators that outgrow their query's memory write to disk (the server's {@code --spill-dir}; default: the
 * system temp directory). Each spilling query makes a directory of its own there and deletes it when it ends.
 */
public final class SpillDirectory {
  private SpillDirectory() {}

  public static void set(Path directory) {
    dev.quiver.planner.exec.JoinSpill.directory(directory);
  }

  public static Path get() {
    return dev.quiver.planner.exec.JoinSpill.directory();
  }
}
