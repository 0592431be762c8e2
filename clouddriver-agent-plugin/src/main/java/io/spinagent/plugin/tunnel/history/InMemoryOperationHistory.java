package io.spinagent.plugin.tunnel.history;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

/**
 * The history when Clouddriver has no database: the last {@code capacity} operations of this
 * replica, oldest forgotten first. Lost on restart, and each replica knows only its own.
 */
public final class InMemoryOperationHistory implements OperationHistory {

  private final int capacity;
  private final ArrayDeque<OperationRecord> records;

  public InMemoryOperationHistory(int capacity) {
    if (capacity < 1) {
      throw new IllegalArgumentException(
          "spinagent.operations.history.memory-entries must be at least 1, not " + capacity);
    }
    this.capacity = capacity;
    this.records = new ArrayDeque<>(capacity);
  }

  @Override
  public synchronized void record(OperationRecord record) {
    if (records.size() == capacity) {
      records.removeFirst();
    }
    records.addLast(record);
  }

  @Override
  public synchronized OperationPage find(OperationQuery query) {
    List<OperationRecord> page = new ArrayList<>();
    int skipped = 0;
    boolean more = false;
    for (Iterator<OperationRecord> newestFirst = records.descendingIterator();
        newestFirst.hasNext(); ) {
      OperationRecord record = newestFirst.next();
      if (!query.matches(record)) {
        continue;
      }
      if (skipped < query.offset()) {
        skipped++;
      } else if (page.size() < query.limit()) {
        page.add(record);
      } else {
        more = true;
        break;
      }
    }
    return new OperationPage(
        page, query.offset(), query.limit(), more ? query.offset() + page.size() : null, "memory");
  }

  @Override
  public void close() {}
}
