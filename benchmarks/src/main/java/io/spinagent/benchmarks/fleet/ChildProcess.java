package io.spinagent.benchmarks.fleet;

import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * A process the benchmark starts (a JVM, mostly) whose output goes to a log file, with what the
 * benchmark asks of it: wait for a line, read its threads and memory from {@code /proc}, stop it
 * with SIGTERM and time the exit, force a full GC and read the heap with {@code jcmd}.
 */
final class ChildProcess implements AutoCloseable {

  /** Output lines a failure to get ready quotes. */
  private static final int LINES_IN_FAILURES = 20;

  private static final Pattern HEAP_USED = Pattern.compile("used (\\d+)K");

  /** Processes still running; stopped if the benchmark itself is stopped (Ctrl-C, SIGTERM). */
  private static final Set<ChildProcess> RUNNING = ConcurrentHashMap.newKeySet();

  static {
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> RUNNING.forEach(child -> child.process.destroyForcibly()),
                "fleet-bench-children-shutdown"));
  }

  private final String name;
  private final Process process;
  private final Path log;
  private final Path javaHome;
  private final Thread outputPump;
  private final List<String> lines = new ArrayList<>();

  /** The last output lines of any kind, guarded by {@code lines}. */
  private final ArrayDeque<String> tail = new ArrayDeque<>();

  private final Writer stdin;

  private ChildProcess(String name, Process process, Path log, Path javaHome) {
    this.name = name;
    this.process = process;
    this.log = log;
    this.javaHome = javaHome;
    this.stdin =
        new BufferedWriter(
            new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8));
    this.outputPump = new Thread(this::pumpOutput, "fleet-bench-output-" + name);
    outputPump.setDaemon(true);
    outputPump.start();
    RUNNING.add(this);
    // Removing from a concurrent set cannot fail.
    CompletableFuture<Void> unused = process.onExit().thenRun(() -> RUNNING.remove(this));
  }

  /**
   * Starts {@code command}; its stdout and stderr go to {@code log}.
   *
   * @param javaHome the JDK running it, whose {@code jcmd} {@link #heapAfterFullGc()} uses (null
   *     when it is not a JVM)
   */
  static ChildProcess start(String name, List<String> command, Path log, Path javaHome) {
    try {
      Files.createDirectories(log.toAbsolutePath().getParent());
      Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
      return new ChildProcess(name, process, log, javaHome);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start " + name + ": " + command, e);
    }
  }

  /**
   * {@code command} at the lowest CPU priority, for a process that stands in for another machine:
   * {@code nice -n 19}, and where the kernel groups tasks by session (autogroup, {@code
   * /proc/self/autogroup}) also in a session of its own whose group is at nice 19. With autogroup,
   * nice orders only the tasks of one session, and each session's group competes with the others at
   * normal priority: niced alone, the process would still take the CPU from PostgreSQL, whose
   * backends each run in a session of their own. As it is where there is no {@code nice}.
   */
  static List<String> atLowestPriority(List<String> command) {
    Optional<Path> nice = executable("nice");
    if (nice.isEmpty()) {
      return command;
    }
    List<String> niced = new ArrayList<>();
    Optional<Path> setsid = executable("setsid");
    if (setsid.isPresent() && Files.isWritable(Path.of("/proc/self/autogroup"))) {
      // sh becomes the session leader, lowers its new group, then becomes the command (same pid)
      niced.addAll(
          List.of(
              setsid.get().toString(),
              "/bin/sh",
              "-c",
              "echo 19 > /proc/self/autogroup; exec \"$0\" \"$@\""));
    }
    niced.addAll(List.of(nice.get().toString(), "-n", "19"));
    niced.addAll(command);
    return niced;
  }

  private static Optional<Path> executable(String name) {
    return Stream.of("/usr/bin/" + name, "/bin/" + name)
        .map(Path::of)
        .filter(Files::isExecutable)
        .findFirst();
  }

  String name() {
    return name;
  }

  long pid() {
    return process.pid();
  }

  Path log() {
    return log;
  }

  boolean isAlive() {
    return process.isAlive();
  }

  /**
   * Waits for an output line matching {@code wanted} and returns it.
   *
   * @throws IllegalStateException when the process ends or {@code timeout} passes first, naming the
   *     log
   */
  String awaitLine(Predicate<String> wanted, Duration timeout) {
    return awaitLine(0, wanted, timeout);
  }

  /** Sends {@code command} and waits for the next output line starting with {@code reply}. */
  String ask(String command, String reply, Duration timeout) {
    int from;
    synchronized (lines) {
      from = lines.size();
    }
    send(command);
    return awaitLine(from, line -> line.startsWith(reply), timeout);
  }

  /**
   * The process's last lines, so that a failure explains itself where the log is gone (a test's
   * temporary directory, the next run of a loop). Called holding {@code lines}.
   */
  private String lastLines() {
    return tail.isEmpty() ? "" : "; its last lines:\n    " + String.join("\n    ", tail);
  }

  private String awaitLine(int from, Predicate<String> wanted, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    int seen = from;
    synchronized (lines) {
      while (true) {
        for (; seen < lines.size(); seen++) {
          if (wanted.test(lines.get(seen))) {
            return lines.get(seen);
          }
        }
        long left = deadline - System.nanoTime();
        if (left <= 0 || (!process.isAlive() && !outputPump.isAlive())) {
          throw new IllegalStateException(
              name
                  + (process.isAlive()
                      ? " did not get ready within " + timeout
                      // 128 + n: killed by signal n (137: SIGKILL, the OOM killer's)
                      : " ended with exit code " + process.exitValue())
                  + "; see "
                  + log
                  + lastLines());
        }
        try {
          lines.wait(Math.max(1, Math.min(TimeUnit.NANOSECONDS.toMillis(left), 200)));
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IllegalStateException("interrupted", e);
        }
      }
    }
  }

  /** Sends a line to the process's stdin. */
  void send(String line) {
    try {
      stdin.write(line + "\n");
      stdin.flush();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write to " + name, e);
    }
  }

  /** Threads and memory now, from /proc. */
  ProcStatus status() {
    return ProcStatus.of(process.pid());
  }

  /**
   * Forces two full collections, then reads the heap in use: {@code jcmd <pid> GC.run}, then {@code
   * GC.heap_info}'s "used" (live objects, plus what the collector keeps in use between GCs).
   */
  long heapAfterFullGc() {
    Path jcmd = javaHome.resolve("bin/jcmd");
    run(List.of(jcmd.toString(), String.valueOf(pid()), "GC.run"));
    run(List.of(jcmd.toString(), String.valueOf(pid()), "GC.run"));
    String info = run(List.of(jcmd.toString(), String.valueOf(pid()), "GC.heap_info"));
    Matcher used = HEAP_USED.matcher(info);
    if (!used.find()) {
      throw new IllegalStateException("no 'used' in GC.heap_info of " + name + ": " + info);
    }
    return Long.parseLong(used.group(1)) * 1024;
  }

  /**
   * Writes the live objects by class ({@code jcmd <pid> GC.class_histogram}, which collects first)
   * to {@code file}, for finding what a heap figure is made of.
   */
  void writeClassHistogram(Path file) {
    Path jcmd = javaHome.resolve("bin/jcmd");
    try {
      Files.writeString(
          file, run(List.of(jcmd.toString(), String.valueOf(pid()), "GC.class_histogram")));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + file, e);
    }
  }

  /**
   * Sends SIGTERM and waits up to {@code limit} for the process to end; returns how long it took,
   * or empty if it had not ended by then (it is then killed).
   */
  Optional<Duration> terminate(Duration limit) {
    if (!process.isAlive()) {
      return Optional.of(Duration.ZERO);
    }
    long start = System.nanoTime();
    process.destroy();
    try {
      if (process.waitFor(limit.toMillis(), TimeUnit.MILLISECONDS)) {
        return Optional.of(Duration.ofNanos(System.nanoTime() - start));
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    kill();
    return Optional.empty();
  }

  void kill() {
    process.destroyForcibly();
    try {
      process.waitFor(30, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public void close() {
    if (process.isAlive()) {
      terminate(Duration.ofSeconds(30));
    }
  }

  private void pumpOutput() {
    try (BufferedReader reader =
            new BufferedReader(
                new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        Writer out = Files.newBufferedWriter(log, StandardCharsets.UTF_8)) {
      String line;
      while ((line = reader.readLine()) != null) {
        out.write(line);
        out.write('\n');
        out.flush();
        synchronized (lines) {
          if (tail.size() == LINES_IN_FAILURES) {
            tail.removeFirst();
          }
          tail.addLast(line);
          // Keep only the lines the benchmark waits for; logs can be long.
          if (line.startsWith("READY") || line.startsWith("STATS") || line.startsWith("RESULT")) {
            lines.add(line);
            lines.notifyAll();
          }
        }
      }
    } catch (IOException e) {
      // The process ended; its log says why.
    } finally {
      synchronized (lines) {
        lines.notifyAll();
      }
    }
  }

  private static String run(List<String> command) {
    try {
      Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
      String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!p.waitFor(120, TimeUnit.SECONDS) || p.exitValue() != 0) {
        throw new IllegalStateException(command + " failed: " + output);
      }
      return output;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }
}
