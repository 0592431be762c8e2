package io.spinagent.benchmarks.fleet;

import java.time.Duration;
import java.util.function.BooleanSupplier;
import java.util.function.LongConsumer;

/** Runs an action at a steady rate, open loop: a late action does not move the schedule. */
final class Pace {

  private Pace() {}

  /**
   * Runs {@code action} (given its index, from 0) {@code perSecond} times a second while running.
   */
  static void run(int perSecond, BooleanSupplier running, LongConsumer action) {
    long started = System.nanoTime();
    long done = 0;
    while (running.getAsBoolean()) {
      long wait = started + done * 1_000_000_000L / perSecond - System.nanoTime();
      if (wait > 0) {
        Sleep.of(Duration.ofNanos(wait));
        continue;
      }
      action.accept(done);
      done++;
    }
  }
}
