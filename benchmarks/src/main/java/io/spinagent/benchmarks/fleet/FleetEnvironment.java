package io.spinagent.benchmarks.fleet;

import io.spinagent.benchmarks.fleet.Jdks.Jdk;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Where the benchmark's processes come from: the JDKs ({@link Jdks}), the agent's jar, the plugin's
 * bundle, the class paths (the benchmark's own for the test API servers and the informer baseline,
 * the sandbox's for the Clouddriver stand-in) and the directory for logs and generated files.
 */
final class FleetEnvironment {

  private final FleetOptions options;
  private final Jdk agentJdk;
  private final Jdk hostJdk;
  private final String benchmarkClasspath;
  private final String hostClasspath;
  private final Path logs;

  FleetEnvironment(FleetOptions options) {
    this.options = options;
    this.agentJdk = Jdks.forAgent(options.agentJava(), 21);
    this.hostJdk = Jdks.current();
    this.benchmarkClasspath = System.getProperty("java.class.path");
    this.hostClasspath = hostClasspath(options);
    this.logs = options.work().resolve("logs");
    try {
      Files.createDirectories(logs);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    require(options.agentJar(), "the agent's jar (build it: ./mvnw -pl agent -am package)");
  }

  /**
   * The Clouddriver stand-in's classes, then its runtime class path (its {@code runtime.classpath}
   * file), jars and directories only: not the plugin's bundle (the host loads the plugin from its
   * plugins root only) nor the platform's POM.
   */
  private static String hostClasspath(FleetOptions options) {
    Path file = options.hostClasspath();
    require(file, "the Clouddriver stand-in's class path (built with clouddriver-stand-in)");
    try {
      String libraries = Files.readString(file).trim();
      return file.toAbsolutePath().getParent().resolve("classes")
          + java.io.File.pathSeparator
          + Arrays.stream(libraries.split(java.io.File.pathSeparator))
              .filter(entry -> entry.endsWith(".jar") || Files.isDirectory(Path.of(entry)))
              .collect(Collectors.joining(java.io.File.pathSeparator));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void require(Path file, String what) {
    if (file == null || !Files.isRegularFile(file)) {
      throw new IllegalStateException("missing " + what + ": " + file);
    }
  }

  FleetOptions options() {
    return options;
  }

  /** The agent's and its baseline's JDK. */
  Jdk agentJdk() {
    return agentJdk;
  }

  /**
   * The JDK of the agent scenario's test API servers: the agent's. They stand in for API servers on
   * other machines, yet share these cores with the agent, and most of their work is signing a TLS
   * handshake for each watch connection with the clusters' P-256 keys, which recent JDKs do with
   * far less CPU than Java 17 (docs/benchmarks.md, "Where the CPU goes").
   */
  Jdk clustersJdk() {
    return agentJdk;
  }

  /** The JDK of the Clouddriver stand-in (Clouddriver 5.90.0 runs on Java 17). */
  Jdk hostJdk() {
    return hostJdk;
  }

  String benchmarkClasspath() {
    return benchmarkClasspath;
  }

  String hostClasspath() {
    return hostClasspath;
  }

  Path bundle() {
    require(options.bundle(), "the plugin's bundle (built with the plugin module)");
    return options.bundle();
  }

  Path logs() {
    return logs;
  }

  Path work() {
    return options.work();
  }

  /**
   * Copies the logs as they are now to {@code name} in the work directory, which later runs do not
   * overwrite; says where they are.
   */
  String keepLogs(String name) {
    Path kept = work().resolve(name);
    try (Stream<Path> files = Files.list(logs)) {
      Files.createDirectories(kept);
      for (Path log : files.toList()) {
        Files.copy(log, kept.resolve(log.getFileName()));
      }
    } catch (IOException e) {
      return logs + " (not copied: " + e + "; the next run overwrites them)";
    }
    return kept.toString();
  }

  static int freePort() {
    try (ServerSocket socket = new ServerSocket(0, 0, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot find a free port", e);
    }
  }
}
