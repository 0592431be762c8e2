package io.spinagent.agent.stream;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import com.google.gson.JsonSyntaxException;
import io.spinagent.agent.config.TokenCommandConfig;
import io.spinagent.common.DaemonThreads;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * Runs {@code clouddriver.auth.tokenCommand} for the bearer token, as Armory Scale Agent does: the
 * command (without a shell) prints the token, raw or as a JSON object with a {@code token} field. A
 * token is reused for {@code refreshIntervalSeconds}; with 0, every connection runs the command.
 *
 * <p>The command is stopped after {@link #TIMEOUT}, with every process it started, and its output
 * read up to {@link #MAX_OUTPUT} bytes; its standard input is closed. Failures name the command,
 * never its output: that may be the token.
 */
final class TokenCommand {

  static final String KEY = "clouddriver.auth.tokenCommand";
  static final Duration TIMEOUT = Duration.ofSeconds(30);
  static final int MAX_OUTPUT = 64 * 1024;

  /** What of the command's error output goes into a message: enough for a reason. */
  private static final int MAX_ERROR_CHARS = 300;

  private final TokenCommandConfig config;
  private final LongSupplier nanoTime;
  private final Duration timeout;
  private String token;
  private long obtainedAt;

  TokenCommand(TokenCommandConfig config) {
    this(config, System::nanoTime, TIMEOUT);
  }

  /**
   * @param nanoTime the clock {@code refreshIntervalSeconds} is measured with
   * @param timeout how long the command may run
   */
  TokenCommand(TokenCommandConfig config, LongSupplier nanoTime, Duration timeout) {
    this.config = config;
    this.nanoTime = nanoTime;
    this.timeout = timeout;
  }

  /**
   * Checks that the command can be found, so that a wrong path stops the agent at start-up.
   *
   * @throws ChannelSetupException naming the key
   */
  void checkRunnable() {
    if (resolve(config.command()).isEmpty()) {
      throw new ChannelSetupException(
          KEY + ".command",
          "'"
              + config.command()
              + "' "
              + (config.command().contains("/")
                  ? "is not an executable file"
                  : "is not an executable file on PATH"),
          null);
    }
  }

  /**
   * The token: the last one while it is younger than {@code refreshIntervalSeconds}, otherwise a
   * new one from the command.
   *
   * @throws ChannelSetupException when the command fails or prints no token
   */
  synchronized String token() {
    long now = nanoTime.getAsLong();
    if (token != null
        && config.refreshIntervalSeconds() > 0
        && now - obtainedAt < TimeUnit.SECONDS.toNanos(config.refreshIntervalSeconds())) {
      return token;
    }
    token = run();
    obtainedAt = now;
    return token;
  }

  private String run() {
    String name = config.command();
    List<String> commandLine = new ArrayList<>();
    commandLine.add(name);
    commandLine.addAll(config.args());
    Process process;
    try {
      process = new ProcessBuilder(commandLine).start();
    } catch (IOException e) {
      throw failure("cannot run '" + name + "': " + e.getMessage(), e);
    }
    try {
      process.getOutputStream().close();
      Capture out = Capture.start(process.getInputStream(), MAX_OUTPUT, "spinagent-token-command");
      Capture err =
          Capture.start(process.getErrorStream(), MAX_OUTPUT, "spinagent-token-command-err");
      if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        destroyTree(process);
        throw failure(
            "'"
                + name
                + "' did not finish within "
                + (timeout.toMillis() % 1000 == 0
                    ? timeout.toSeconds() + " seconds"
                    : timeout.toMillis() + " ms"));
      }
      byte[] output = out.bytes();
      if (process.exitValue() != 0) {
        throw failure(
            "'" + name + "' exited with " + process.exitValue() + describeErrors(err.bytes()));
      }
      if (out.overflowed()) {
        throw failure(
            "'"
                + name
                + "' printed more than "
                + MAX_OUTPUT / 1024
                + "Ki; a token command prints one token");
      }
      return parse(name, new String(output, StandardCharsets.UTF_8));
    } catch (InterruptedException e) {
      destroyTree(process);
      Thread.currentThread().interrupt();
      throw failure("interrupted while running '" + name + "'", e);
    } catch (IOException e) {
      throw failure("cannot read the output of '" + name + "': " + e.getMessage(), e);
    } finally {
      process.destroy();
    }
  }

  /**
   * Kills the command and every process it started: a shell script's children would otherwise run
   * on, one more with each attempt, and keep its output open. The descendants are listed first,
   * while they are still the command's.
   */
  private static void destroyTree(Process process) {
    List<ProcessHandle> descendants = process.descendants().toList();
    process.destroyForcibly();
    descendants.forEach(ProcessHandle::destroyForcibly);
  }

  private String parse(String name, String output) {
    if (config.format() == TokenCommandConfig.Format.RAW) {
      String raw = output.strip();
      if (raw.isEmpty()) {
        throw failure("'" + name + "' printed nothing (format raw: the output is the token)");
      }
      return raw;
    }
    try {
      JsonElement json = JsonParser.parseString(output);
      if (json.isJsonObject()) {
        JsonObject object = json.getAsJsonObject();
        JsonElement field = object.get("token");
        if (field != null && field.isJsonPrimitive() && field.getAsJsonPrimitive().isString()) {
          String value = field.getAsString().strip();
          if (!value.isEmpty()) {
            return value;
          }
        }
      }
    } catch (JsonSyntaxException e) {
      // Reported below, without the output, which may hold the token.
    }
    throw failure(
        "'"
            + name
            + "' did not print a JSON object with a non-empty string field 'token' (format json,"
            + " the default; set format: raw if the output is the token itself)");
  }

  private static String describeErrors(byte[] stderr) {
    String text = new String(stderr, StandardCharsets.UTF_8).replaceAll("\\p{Cntrl}+", " ").strip();
    if (text.isEmpty()) {
      return "";
    }
    return ": "
        + (text.length() > MAX_ERROR_CHARS ? text.substring(0, MAX_ERROR_CHARS) + "..." : text);
  }

  private static ChannelSetupException failure(String message) {
    return failure(message, null);
  }

  private static ChannelSetupException failure(String message, Throwable cause) {
    return new ChannelSetupException(KEY, message, cause);
  }

  /** The executable the command names: a path, or the first match on {@code PATH}. */
  static Optional<Path> resolve(String command) {
    if (command.contains("/") || command.contains(File.separator)) {
      Path path = Path.of(command);
      return Files.isRegularFile(path) && Files.isExecutable(path)
          ? Optional.of(path)
          : Optional.empty();
    }
    String pathVariable = System.getenv("PATH");
    if (pathVariable == null) {
      return Optional.empty();
    }
    for (String directory : pathVariable.split(File.pathSeparator, 0)) {
      if (directory.isEmpty()) {
        continue;
      }
      Path candidate = Path.of(directory, command);
      if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
        return Optional.of(candidate);
      }
    }
    return Optional.empty();
  }

  /** Reads a stream to its end on a thread of its own, keeping at most {@code limit} bytes. */
  private static final class Capture implements Runnable {

    private final InputStream in;
    private final int limit;
    private final ByteArrayOutputStream kept = new ByteArrayOutputStream();
    private final Thread thread;
    private boolean overflowed;

    private Capture(InputStream in, int limit, String threadName) {
      this.in = in;
      this.limit = limit;
      this.thread = DaemonThreads.named(threadName).newThread(this);
    }

    static Capture start(InputStream in, int limit, String threadName) {
      Capture capture = new Capture(in, limit, threadName);
      capture.thread.start();
      return capture;
    }

    @Override
    public void run() {
      byte[] buffer = new byte[8192];
      try (in) {
        int n;
        while ((n = in.read(buffer)) >= 0) {
          synchronized (this) {
            int room = limit - kept.size();
            if (n > room) {
              overflowed = true;
            }
            // Read on to the end even past the limit, so the command is never blocked writing.
            kept.write(buffer, 0, Math.max(0, Math.min(n, room)));
          }
        }
      } catch (IOException e) {
        // The process ended or was destroyed; what was read is kept.
      }
    }

    /** Waits for the end of the stream (the process has exited, so it comes). */
    byte[] bytes() throws InterruptedException {
      thread.join(TIMEOUT.toMillis());
      synchronized (this) {
        return kept.toByteArray();
      }
    }

    synchronized boolean overflowed() {
      return overflowed;
    }
  }
}
