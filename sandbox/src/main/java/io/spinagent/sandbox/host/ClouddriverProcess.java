package io.spinagent.sandbox.host;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * A Clouddriver stand-in of one Spinnaker line (clouddriver-stand-in/) running the released plugin
 * bundle, in a process of its own on that line's class path, as a real Clouddriver would be next to
 * the sandbox and the specs. Its output goes to a log file; {@link #close()} stops it as a SIGTERM
 * stops Clouddriver, and kills it if it does not stop in time.
 */
public final class ClouddriverProcess implements AutoCloseable {

  /** System property naming the clouddriver-stand-in directory; Maven sets it. */
  public static final String STAND_INS_PROPERTY = "spinagent.standins";

  /** The Spinnaker lines with a stand-in, oldest first. */
  public static final List<String> LINES = List.of("1.36", "2025.4", "2026.1", "2026.2");

  /** The line the sandbox and the specs use unless told otherwise. */
  public static final String NEWEST_LINE = "2026.2";

  private static final Duration START_TIMEOUT = Duration.ofMinutes(3);
  private static final Duration STOP_TIMEOUT = Duration.ofSeconds(30);

  private final String line;
  private final Process process;
  private final Path log;
  private final int port;

  private ClouddriverProcess(String line, Process process, Path log, int port) {
    this.line = line;
    this.process = process;
    this.log = log;
    this.port = port;
  }

  /** The database Clouddriver runs on: a JDBC URL and its credentials. */
  public record Database(String jdbcUrl, String user, String password) {}

  /**
   * Starts the stand-in of {@code line} with the plugins root holding {@code bundle}, on {@code
   * database} (none: Clouddriver without SQL), with {@code properties} as Clouddriver's
   * configuration; returns once it answers HTTP. Its output goes to {@code log}.
   */
  public static ClouddriverProcess start(
      String line, Path bundle, Optional<Database> database, Map<String, ?> properties, Path log) {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-Xmx768m");
    command.add("-cp");
    command.add(classPath(line));
    command.add("io.spinagent.standin.ClouddriverStandInMain");
    command.add("--standin.bundle=" + bundle.toAbsolutePath());
    database.ifPresent(
        db -> {
          command.add("--standin.jdbc-url=" + db.jdbcUrl());
          command.add("--standin.db-user=" + db.user());
          command.add("--standin.db-password=" + db.password());
        });
    properties.forEach((key, value) -> command.add("--" + key + "=" + value));
    Process process;
    try {
      process =
          new ProcessBuilder(command)
              .redirectErrorStream(true)
              .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
              .start();
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot start Clouddriver (Spinnaker " + line + ")", e);
    }
    try {
      return new ClouddriverProcess(line, process, log, awaitReady(line, process, log));
    } catch (RuntimeException e) {
      process.destroyForcibly();
      throw e;
    }
  }

  /** The class path of the stand-in module of {@code line}: its classes, then its libraries. */
  static String classPath(String line) {
    if (!LINES.contains(line)) {
      throw new IllegalArgumentException(
          "no Clouddriver stand-in for Spinnaker " + line + "; the lines are " + LINES);
    }
    String standIns = System.getProperty(STAND_INS_PROPERTY);
    if (standIns == null || standIns.isBlank() || standIns.startsWith("${")) {
      throw new IllegalStateException(
          "System property " + STAND_INS_PROPERTY + " does not name clouddriver-stand-in/");
    }
    Path module = Path.of(standIns, "spinnaker-" + line, "target");
    Path libraries = module.resolve("runtime.classpath");
    if (!Files.isRegularFile(libraries)) {
      throw new IllegalStateException(
          "The Clouddriver stand-in of Spinnaker "
              + line
              + " is not built ("
              + libraries
              + " is missing): build it first (./mvnw -DskipTests package)");
    }
    try {
      return module.resolve("classes")
          + System.getProperty("path.separator")
          + Files.readString(libraries).trim();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static int awaitReady(String line, Process process, Path log) {
    Instant deadline = Instant.now().plus(START_TIMEOUT);
    while (Instant.now().isBefore(deadline)) {
      Optional<Integer> port = readyPort(log);
      if (port.isPresent()) {
        return port.get();
      }
      if (!process.isAlive()) {
        throw new IllegalStateException(
            "Clouddriver (Spinnaker "
                + line
                + ") exited with status "
                + process.exitValue()
                + " before it started; its log "
                + log
                + " ends with:\n"
                + tail(log));
      }
      try {
        Thread.sleep(100);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while Clouddriver started", e);
      }
    }
    throw new IllegalStateException(
        "Clouddriver (Spinnaker "
            + line
            + ") did not start within "
            + START_TIMEOUT.toSeconds()
            + " s; its log "
            + log
            + " ends with:\n"
            + tail(log));
  }

  private static Optional<Integer> readyPort(Path log) {
    try {
      for (String line : Files.readAllLines(log, StandardCharsets.UTF_8)) {
        if (line.startsWith("READY ")) {
          return Optional.of(Integer.parseInt(line.substring("READY ".length()).trim()));
        }
      }
      return Optional.empty();
    } catch (IOException e) {
      return Optional.empty();
    }
  }

  /** The last lines of the log, for an error that says why. */
  public static String tail(Path log) {
    try {
      List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
      return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
    } catch (IOException e) {
      return "(unreadable: " + e.getMessage() + ")";
    }
  }

  public String line() {
    return line;
  }

  /** Clouddriver's HTTP port. */
  public int port() {
    return port;
  }

  /** Clouddriver's base URL, {@code http://127.0.0.1:<port>}. */
  public String url() {
    return "http://127.0.0.1:" + port;
  }

  public Path log() {
    return log;
  }

  public boolean isAlive() {
    return process.isAlive();
  }

  /** Stops Clouddriver as SIGTERM does; kills it when it does not stop in time. */
  @Override
  public void close() {
    process.destroy();
    try {
      if (!process.waitFor(STOP_TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor(STOP_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    }
  }
}
