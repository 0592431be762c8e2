package io.spinagent.benchmarks.fleet;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Finds the agents' sessions that the plugin ended over an account (issue 34: a late change for an
 * account being removed or switched off must be dropped, not end the session of every account of
 * that agent). The plugin says so in its log: {@code Closing session of agent '…' (…): <what the
 * agent broke>} when a frame breaks the protocol (ended with {@code FAILED_PRECONDITION} or {@code
 * INVALID_ARGUMENT}); those that name an account are the ones account churn can cause. Faults end
 * sessions otherwise (a cut connection, a killed process), which is logged differently.
 *
 * <p>Reads every replica's logs ({@code plugin-*.log}, one per start) from where the last call
 * stopped, leaving out those of earlier runs of the soak (not written since the watch began).
 */
final class SessionEndWatch {

  private static final String CLOSING = "Closing session of agent";

  private final Path logs;
  private final Map<Path, Long> read = new HashMap<>();
  private final FileTime began;

  /**
   * @param began when this run of the soak began: logs last written before are an earlier run's
   */
  SessionEndWatch(Path logs, Instant began) {
    this.logs = logs;
    this.began = FileTime.from(began);
  }

  /** The lines logged since the last call that end a session over an account. */
  List<String> sinceLastCall() {
    List<String> found = new ArrayList<>();
    try (DirectoryStream<Path> files = Files.newDirectoryStream(logs, "plugin-*.log")) {
      for (Path file : files) {
        if (Files.getLastModifiedTime(file).compareTo(began) < 0) {
          continue;
        }
        long from = read.getOrDefault(file, 0L);
        try (RandomAccessFile log = new RandomAccessFile(file.toFile(), "r")) {
          long to = log.length();
          byte[] bytes = new byte[Math.toIntExact(to - from)];
          log.seek(from);
          log.readFully(bytes);
          // only whole lines: one still being written is read at the next call
          String text = new String(bytes, StandardCharsets.UTF_8);
          int end = text.lastIndexOf('\n') + 1;
          read.put(file, from + text.substring(0, end).getBytes(StandardCharsets.UTF_8).length);
          text.substring(0, end)
              .lines()
              .filter(line -> line.contains(CLOSING) && line.contains("account '"))
              .forEach(line -> found.add(file.getFileName() + ": " + line.strip()));
        }
      }
    } catch (IOException e) {
      found.add("cannot read the plugin's logs in " + logs + ": " + e);
    }
    return found;
  }
}
