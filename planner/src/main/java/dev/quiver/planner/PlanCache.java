package dev.quiver.planner;

import dev.quiver.planner.plan.LogicalPlan;
import dev.quiver.common.QuiverException;
import dev.quiver.scan.table.Catalog;
import dev.quiver.scan.table.DataFile;
import dev.quiver.scan.table.ParquetTable;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Plans handed from one call of an execution to the next (CreatePreparedStatement or GetFlightInfo to the
 * DoGet that follows), so that a statement is parsed, analyzed and optimized once per execution. An entry
 * is keyed by the statement's handle (which names its SQL, user and bound parameter values) and the session
 * settings; it is taken (removed) when used, so each execution plans afresh (its {@code now()} and files
 * are its own) and the next call finds it. Bounded in entries and age, like the prepared-statement cache
 * of Arrow's {@code FlightSqlExample}; a missing entry only costs planning again from the self-describing
 * handle. A plan is reused only if every table it reads still has exactly the files (path, length,
 * modification time, identity) it was planned with in the snapshot the execution runs over. Plans hold no
 * Arrow buffers, so dropping an entry frees nothing. Thread-safe.
 */
public final class PlanCache {
  public static final int DEFAULT_ENTRIES = 1_000;
  public static final long DEFAULT_TTL_NANOS = 5_000_000_000L;

  private record Key(Object handle, QuerySettings settings) {}

  private record Entry(PreparedQuery query, long created) {}

  private final int maxEntries;
  private final long ttlNanos;
  private final LinkedHashMap<Key, Entry> entries = new LinkedHashMap<>(16, 0.75f, true);

  public PlanCache() {
    this(DEFAULT_ENTRIES, DEFAULT_TTL_NANOS);
  }

  public PlanCache(int maxEntries, long ttlNanos) {
    this.maxEntries = maxEntries;
    this.ttlNanos = ttlNanos;
  }

  /** Keeps {@code query}, planned for {@code handle} (compared with equals) under {@code settings}. */
  public void put(Object handle, QuerySettings settings, PreparedQuery query) {
    long now = System.nanoTime();
    synchronized (entries) {
      entries.put(new Key(handle, settings), new Entry(query, now));
      expire(now);
      while (entries.size() > maxEntries) {
        Iterator<Key> eldest = entries.keySet().iterator();
        eldest.next();
        eldest.remove();
      }
    }
  }

  /**
   * Removes and returns the plan kept for {@code handle} and {@code settings} if it is young enough and
   * reads the files {@code snapshot} has; else null (plan again).
   */
  public PreparedQuery take(Object handle, QuerySettings settings, Catalog snapshot) {
    Entry e;
    synchronized (entries) {
      e = entries.remove(new Key(handle, settings));
    }
    return usable(e, snapshot) ? e.query() : null;
  }

  /** As {@link #take} but leaves the entry in place (for what does not execute the plan, e.g. its parameter types). */
  public PreparedQuery peek(Object handle, QuerySettings settings, Catalog snapshot) {
    Entry e;
    synchronized (entries) {
      e = entries.get(new Key(handle, settings));
    }
    return usable(e, snapshot) ? e.query() : null;
  }

  public int size() {
    synchronized (entries) {
      expire(System.nanoTime());
      return entries.size();
    }
  }

  private boolean usable(Entry e, Catalog snapshot) {
    return e != null && System.nanoTime() - e.created() <= ttlNanos && sameFiles(e.query(), snapshot);
  }

  private void expire(long now) {
    entries.values().removeIf(e -> now - e.created() > ttlNanos);
  }

  /** Whether every table {@code query} reads (before and after optimization) has the same files in {@code snapshot}. */
  static boolean sameFiles(PreparedQuery query, Catalog snapshot) {
    Deque<LogicalPlan> todo = new ArrayDeque<>();
    todo.add(query.analyzed());
    todo.add(query.plan());
    Map<String, Boolean> checked = new java.util.HashMap<>();
    while (!todo.isEmpty()) {
      LogicalPlan p = todo.pop();
      if (p instanceof LogicalPlan.TableScan scan) {
        if (!(scan.table() instanceof dev.quiver.planner.source.ParquetTableSource source)) {
          todo.addAll(p.children());
          continue; // not files: nothing that can change under the plan
        }
        ParquetTable t = source.table();
        Boolean same = checked.get(t.name());
        if (same == null) {
          same = sameFiles(t, snapshot);
          checked.put(t.name(), same);
        }
        if (!same) return false;
      }
      todo.addAll(p.children());
    }
    return true;
  }

  private static boolean sameFiles(ParquetTable planned, Catalog snapshot) {
    ParquetTable now;
    try {
      now = snapshot.table(planned.name());
    } catch (QuiverException unreadable) {
      return false; // planning again reports it
    }
    if (now == null || !now.name().equals(planned.name())) return false;
    List<DataFile> a = planned.files();
    List<DataFile> b = now.files();
    if (a.size() != b.size()) return false;
    for (int i = 0; i < a.size(); i++) {
      if (!a.get(i).sameVersion(b.get(i)) || !a.get(i).partitionValues().equals(b.get(i).partitionValues())) return false;
    }
    return now.schema().equals(planned.schema());
  }
}
