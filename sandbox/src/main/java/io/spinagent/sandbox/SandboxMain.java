package io.spinagent.sandbox;

import io.spinagent.sandbox.host.PluginBundle;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.LoggerFactory;
import sun.misc.Signal;

/**
 * The README's command: starts the {@link Sandbox} and runs until Ctrl-C (SIGINT) or SIGTERM, which
 * stop everything in order and exit with status 0. Flags come from the command line and, under
 * Maven, from {@code -Dsandbox.args="..."} (system property {@value #ARGS_PROPERTY}).
 */
public final class SandboxMain {

  static final String ARGS_PROPERTY = "spinagent.sandbox.args";

  /** Read by logback.xml: the level of SpinAgent's own loggers. */
  static final String LOG_LEVEL_PROPERTY = "spinagent.sandbox.log-level";

  private SandboxMain() {}

  /** The sandbox's logback configuration; the agent's jar brings a logback.xml of its own. */
  static final String LOGGING_CONFIG = "sandbox-logback.xml";

  public static void main(String[] commandLine) {
    String[] args = withPropertyArgs(commandLine);
    if (SandboxOptions.wantsHelp(args)) {
      System.out.print(SandboxOptions.USAGE);
      return;
    }
    List<String> rest = new ArrayList<>(List.of(args));
    if (rest.remove("--verbose")) {
      System.setProperty(LOG_LEVEL_PROPERTY, "INFO");
    }
    System.setProperty("logback.configurationFile", LOGGING_CONFIG);
    LoggerFactory.getILoggerFactory();
    // Read once; Spring Boot takes logging.config instead and warns when it sees this property.
    System.clearProperty("logback.configurationFile");
    SandboxOptions options;
    try {
      options = SandboxOptions.parse(rest.toArray(String[]::new));
    } catch (SandboxOptions.UsageException e) {
      System.err.println("sandbox: " + e.getMessage());
      System.err.print(SandboxOptions.USAGE);
      System.exit(2);
      return;
    }

    SingleStop stop = new SingleStop();
    // SIGINT/SIGTERM stop the sandbox and exit 0; the hook covers every other way the JVM ends.
    Runtime.getRuntime().addShutdownHook(new Thread(stop, "sandbox-shutdown"));
    Signal.handle(new Signal("INT"), signal -> exitAfter(stop));
    Signal.handle(new Signal("TERM"), signal -> exitAfter(stop));

    try {
      stop.started(Sandbox.start(options, PluginBundle.built(), System.out));
    } catch (RuntimeException | Error e) {
      stop.started(null);
      System.err.println("\nsandbox: cannot start: " + describe(e));
      System.exit(1);
    }
  }

  private static void exitAfter(SingleStop stop) {
    // Off the signal thread, so a second Ctrl-C is not queued behind a slow stop.
    Thread stopper =
        new Thread(
            () -> {
              int status = 0;
              try {
                stop.run();
              } catch (RuntimeException e) {
                System.err.println("sandbox: " + describe(e));
                status = 1;
              }
              System.exit(status);
            },
            "sandbox-stop");
    // Not a daemon like the signal thread it comes from: the JVM would end as soon as Clouddriver's
    // threads are gone, in the middle of stopping the rest.
    stopper.setDaemon(false);
    stopper.start();
  }

  /**
   * Stops the sandbox once. Whoever asks while that stop runs (a second signal: Ctrl-C reaches both
   * Maven and the sandbox, and Maven then sends SIGTERM; or the shutdown hook) waits until it has
   * finished, so the JVM never exits half-way through it: the temporary directory, which holds the
   * generated CA key and the tunnel tokens, is deleted last. A stop asked for while the sandbox
   * starts waits for the start to end, then stops what started.
   */
  private static final class SingleStop implements Runnable {
    /**
     * The sandbox once started; null when its start failed (it then stopped what it had started).
     */
    private final CompletableFuture<Sandbox> started = new CompletableFuture<>();

    private final CompletableFuture<Void> stopped = new CompletableFuture<>();
    private final AtomicBoolean stopping = new AtomicBoolean();

    void started(Sandbox sandbox) {
      started.complete(sandbox);
    }

    @Override
    public void run() {
      if (!stopping.compareAndSet(false, true)) {
        stopped.join();
        return;
      }
      try {
        // What is printed may go nowhere (tee may have ended with the Ctrl-C): PrintStream drops
        // it.
        System.out.println(
            started.isDone()
                ? "\nStopping the sandbox..."
                : "\nStopping the sandbox once it has finished starting...");
        Sandbox sandbox = started.join();
        if (sandbox != null) {
          sandbox.close();
          System.out.println("Sandbox stopped; nothing left behind.");
          System.out.flush();
        }
        stopped.complete(null);
      } catch (RuntimeException | Error e) {
        stopped.completeExceptionally(e);
        throw e;
      }
    }
  }

  private static String describe(Throwable e) {
    StringBuilder message = new StringBuilder(String.valueOf(e.getMessage()));
    for (Throwable cause = e.getCause();
        cause != null && cause != cause.getCause();
        cause = cause.getCause()) {
      if (cause.getMessage() != null && !message.toString().contains(cause.getMessage())) {
        message.append("\n  caused by: ").append(cause.getMessage());
      }
    }
    return message.toString();
  }

  private static String[] withPropertyArgs(String[] commandLine) {
    List<String> all = new ArrayList<>(List.of(commandLine));
    String extra = System.getProperty(ARGS_PROPERTY, "").trim();
    if (!extra.isEmpty()) {
      all.addAll(List.of(extra.split("\\s+")));
    }
    return all.toArray(String[]::new);
  }
}
