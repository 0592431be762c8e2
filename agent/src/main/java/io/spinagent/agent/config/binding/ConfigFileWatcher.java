package io.spinagent.agent.config.binding;

import io.spinagent.agent.config.yaml.YamlFileReader;
import io.spinagent.common.DaemonThreads;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.ClosedWatchServiceException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.Arrays;
import java.util.Objects;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Notices when the configuration file or its {@code -local} overlay changes, and hands the result
 * of loading them again to a consumer.
 *
 * <p>Change is decided by content: a SHA-256 of both files (read through symbolic links) compared
 * with the last one seen. That covers editors that replace the file, and Kubernetes ConfigMap
 * volumes, which swap a {@code ..data} symbolic link in the directory rather than touching the
 * file: the directory is watched (any event there triggers a check), and the check also runs on a
 * short period in case events are missed (some file systems do not report them).
 */
public final class ConfigFileWatcher implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(ConfigFileWatcher.class);

  private final Path configFile;
  private final ConfigLoader loader;
  private final Consumer<ConfigLoadResult> onChange;
  private final ScheduledExecutorService scheduler;
  private final WatchService watchService;
  private final Thread eventThread;
  private byte[] lastHash;

  /**
   * @param initialHash the content hash of what is running now ({@link #hash}), so the first check
   *     does not reload it again
   * @param poll period of the fallback check
   */
  public ConfigFileWatcher(
      Path configFile,
      ConfigLoader loader,
      byte[] initialHash,
      Duration poll,
      Consumer<ConfigLoadResult> onChange) {
    this.configFile = configFile.toAbsolutePath();
    this.loader = Objects.requireNonNull(loader, "loader");
    this.onChange = Objects.requireNonNull(onChange, "onChange");
    this.lastHash = initialHash;
    this.scheduler =
        new ScheduledThreadPoolExecutor(1, DaemonThreads.named("spinagent-config-watch"));
    WatchService service = null;
    try {
      service = FileSystems.getDefault().newWatchService();
      this.configFile
          .getParent()
          .register(
              service,
              StandardWatchEventKinds.ENTRY_CREATE,
              StandardWatchEventKinds.ENTRY_MODIFY,
              StandardWatchEventKinds.ENTRY_DELETE);
    } catch (IOException | UnsupportedOperationException e) {
      log.info(
          "Not watching {} for events ({}); checking it every {} ms",
          this.configFile.getParent(),
          e,
          poll.toMillis());
      if (service != null) {
        try {
          service.close();
        } catch (IOException ignored) {
          // Polling only.
        }
      }
      service = null;
    }
    this.watchService = service;
    if (service != null) {
      eventThread = DaemonThreads.named("spinagent-config-events").newThread(this::events);
      eventThread.start();
    } else {
      eventThread = null;
    }
    // check() catches and logs its own failures: the future never holds one.
    ScheduledFuture<?> unused =
        scheduler.scheduleWithFixedDelay(
            this::check, poll.toMillis(), poll.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** SHA-256 over the main file and the overlay (absent files count as empty, distinctly). */
  public static byte[] hash(Path configFile) {
    try {
      MessageDigest digest = MessageDigest.getInstance("SHA-256");
      for (Path file : new Path[] {configFile, ConfigLoader.overlayFor(configFile)}) {
        if (Files.isRegularFile(file)) {
          digest.update((byte) 1);
          update(digest, file);
        } else {
          digest.update((byte) 0);
        }
      }
      return digest.digest();
    } catch (IOException e) {
      // Mid-swap or unreadable: report a hash no content has, so the next readable state reloads.
      return new byte[] {(byte) 0xff};
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * Adds the file's content to {@code digest} as it is read, up to one byte past what the loader
   * accepts: a file grown far past that (which the loader refuses) is never held in memory.
   */
  private static void update(MessageDigest digest, Path file) throws IOException {
    try (InputStream in = Files.newInputStream(file)) {
      byte[] chunk = new byte[8192];
      long remaining = YamlFileReader.MAX_BYTES + 1;
      int read;
      while (remaining > 0
          && (read = in.read(chunk, 0, (int) Math.min(chunk.length, remaining))) >= 0) {
        digest.update(chunk, 0, read);
        remaining -= read;
      }
    }
  }

  private void events() {
    while (true) {
      WatchKey key;
      try {
        key = watchService.take();
      } catch (InterruptedException | ClosedWatchServiceException e) {
        return;
      }
      key.pollEvents();
      key.reset();
      try {
        // Let a burst of events (a ConfigMap swap is several) settle, then check once.
        // check() catches and logs its own failures: the future never holds one.
        ScheduledFuture<?> unused = scheduler.schedule(this::check, 100, TimeUnit.MILLISECONDS);
      } catch (RejectedExecutionException e) {
        return;
      }
    }
  }

  private synchronized void check() {
    try {
      byte[] now = hash(configFile);
      if (Arrays.equals(now, lastHash)) {
        return;
      }
      lastHash = now;
      log.info("Configuration {} changed, reloading", configFile);
      onChange.accept(loader.load(configFile));
    } catch (RuntimeException e) {
      log.error("Reloading {} failed", configFile, e);
    }
  }

  @Override
  public void close() {
    scheduler.shutdownNow();
    if (watchService != null) {
      try {
        watchService.close();
      } catch (IOException ignored) {
        // Closing anyway.
      }
    }
    if (eventThread != null) {
      eventThread.interrupt();
    }
  }
}
