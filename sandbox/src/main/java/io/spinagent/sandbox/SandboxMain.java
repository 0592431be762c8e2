package io.spinagent.sandbox;

import io.spinagent.sandbox.host.PluginsRoot;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
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

    AtomicReference<Sandbox> running = new AtomicReference<>();
    // SIGINT/SIGTERM stop the sandbox and exit 0; the hook covers every other way the JVM ends.
    Runnable stop =
        () -> {
          Sandbox sandbox = running.getAndSet(null);
          if (sandbox != null) {
            System.out.println("\nStopping the sandbox...");
            sandbox.close();
            System.out.println("Sandbox stopped; nothing left behind.");
            System.out.flush();
          }
        };
    Runtime.getRuntime().addShutdownHook(new Thread(stop, "sandbox-shutdown"));
    Signal.handle(new Signal("INT"), signal -> exitAfter(stop));
    Signal.handle(new Signal("TERM"), signal -> exitAfter(stop));

    try {
      running.set(Sandbox.start(options, PluginsRoot.builtBundle(), System.out));
    } catch (RuntimeException | Error e) {
      System.err.println("\nsandbox: cannot start: " + describe(e));
      System.exit(1);
    }
  }

  private static void exitAfter(Runnable stop) {
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
