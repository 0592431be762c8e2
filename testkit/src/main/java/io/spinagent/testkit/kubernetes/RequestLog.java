package io.spinagent.testkit.kubernetes;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.function.Predicate;

/**
 * The last requests the server answered, so tests can assert how a client talked to it (did it
 * relist, did it ask for metadata only, did it send its token) and not only what it ended up with.
 */
public final class RequestLog {

  /**
   * One answered request. {@code status} is the HTTP status; for a watch that is 200 even when its
   * only event is a 410 ERROR, which {@code watchExpired} records.
   */
  public record Entry(
      String method, String uri, String accept, int status, String user, boolean watchExpired) {}

  private static final int CAPACITY = 5_000;
  private final Deque<Entry> entries = new ArrayDeque<>();

  synchronized void record(Entry entry) {
    entries.addLast(entry);
    while (entries.size() > CAPACITY) {
      entries.removeFirst();
    }
  }

  public synchronized List<Entry> entries() {
    return List.copyOf(entries);
  }

  public synchronized List<Entry> matching(Predicate<Entry> predicate) {
    return entries.stream().filter(predicate).toList();
  }

  public synchronized void clear() {
    entries.clear();
  }
}
