package io.spinagent.benchmarks;

import com.sun.management.GarbageCollectionNotificationInfo;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import javax.management.NotificationEmitter;
import javax.management.openmbean.CompositeData;

/**
 * This JVM's garbage-collection pauses, recorded as they end. A pause stops whichever side of a
 * benchmark is running, so a single long one can set a latency run's p99; {@link Tally} counts the
 * pauses that ended while one side ran. A pause is placed by when its notification arrives, a
 * moment after it ends, so one that ends at the very end of a stretch may count in the next.
 */
public final class GcPauses {

  private record Pause(long endNanos, long millis) {}

  private final ConcurrentLinkedQueue<Pause> pauses = new ConcurrentLinkedQueue<>();

  private GcPauses() {}

  /** Starts recording; collectors that report concurrent work rather than pauses are left out. */
  public static GcPauses record() {
    GcPauses recorder = new GcPauses();
    for (GarbageCollectorMXBean collector : ManagementFactory.getGarbageCollectorMXBeans()) {
      if (collector instanceof NotificationEmitter emitter
          && !collector.getName().contains("Concurrent")) {
        emitter.addNotificationListener(
            (notification, handback) -> {
              if (GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION.equals(
                  notification.getType())) {
                long millis =
                    GarbageCollectionNotificationInfo.from(
                            (CompositeData) notification.getUserData())
                        .getGcInfo()
                        .getDuration();
                recorder.pauses.add(new Pause(System.nanoTime(), millis));
              }
            },
            null,
            null);
      }
    }
    return recorder;
  }

  /** A new tally of the pauses in some stretches of time. */
  public Tally tally() {
    return new Tally();
  }

  /** The pauses that ended in the stretches {@link #add}ed, summed. */
  public final class Tally {
    private final List<Long> millis = new ArrayList<>();

    private Tally() {}

    /** Adds the pauses that ended between the two {@link System#nanoTime} readings. */
    public void add(long fromNanos, long toNanos) {
      for (Pause pause : pauses) {
        if (pause.endNanos() >= fromNanos && pause.endNanos() <= toNanos) {
          millis.add(pause.millis());
        }
      }
    }

    /** e.g. "12 pauses, 310 ms in all, the longest 36 ms". */
    public String describe() {
      long total = millis.stream().mapToLong(Long::longValue).sum();
      long longest = millis.stream().mapToLong(Long::longValue).max().orElse(0);
      return String.format(
          "%d pauses, %d ms in all, the longest %d ms", millis.size(), total, longest);
    }
  }
}
