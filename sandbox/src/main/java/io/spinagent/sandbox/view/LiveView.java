package io.spinagent.sandbox.view;

import java.io.PrintStream;
import java.time.Duration;
import java.time.LocalTime;
import java.time.ZoneId;
import java.time.temporal.ChronoUnit;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads the cache tables every {@code refresh} and prints the view when it differs from the last
 * one printed, so the terminal follows the cache without scrolling while nothing happens.
 */
public final class LiveView implements AutoCloseable {

  /** Printed before every view; the specs look for it. */
  public static final String HEADER = "=== Clouddriver cache";

  private static final Logger log = LoggerFactory.getLogger(LiveView.class);

  private final CacheTables tables;
  private final ViewRenderer renderer;
  private final Supplier<String> footer;
  private final PrintStream out;
  private final ScheduledExecutorService timer;
  private String lastPrinted;
  private String lastError;

  private LiveView(
      CacheTables tables, ViewRenderer renderer, Supplier<String> footer, PrintStream out) {
    this.tables = tables;
    this.renderer = renderer;
    this.footer = footer;
    this.out = out;
    this.timer =
        Executors.newSingleThreadScheduledExecutor(
            runnable -> {
              Thread thread = new Thread(runnable, "sandbox-live-view");
              thread.setDaemon(true);
              return thread;
            });
  }

  /**
   * Starts printing the view of {@code tables} to {@code out}, at once and then every {@code
   * refresh}.
   *
   * @param footer printed under the view, e.g. the change latency ({@link ChangeLatency}); a new
   *     footer prints the view again
   */
  public static LiveView start(
      CacheTables tables,
      ViewRenderer renderer,
      Supplier<String> footer,
      PrintStream out,
      Duration refresh) {
    LiveView view = new LiveView(tables, renderer, footer, out);
    // refresh logs its own failures (a database hiccup must not end the view).
    ScheduledFuture<?> unused =
        view.timer.scheduleWithFixedDelay(
            view::refresh, 0, refresh.toMillis(), TimeUnit.MILLISECONDS);
    return view;
  }

  private void refresh() {
    try {
      String text = renderer.render(CacheView.read(tables)) + footer.get();
      lastError = null;
      if (!text.equals(lastPrinted)) {
        lastPrinted = text;
        out.print(
            "\n"
                + HEADER
                + " at "
                + LocalTime.now(ZoneId.systemDefault()).truncatedTo(ChronoUnit.MILLIS)
                + " ===\n"
                + text);
        out.flush();
      }
    } catch (RuntimeException e) {
      // A database hiccup must not end the view; say so once, not every tick.
      if (!String.valueOf(e.getMessage()).equals(lastError)) {
        lastError = String.valueOf(e.getMessage());
        log.warn("Cannot read the cache tables: {}", e.getMessage());
      }
    }
  }

  @Override
  public void close() {
    timer.shutdownNow();
    try {
      timer.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
