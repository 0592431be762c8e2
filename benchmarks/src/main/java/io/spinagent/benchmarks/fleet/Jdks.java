package io.spinagent.benchmarks.fleet;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * The JDKs the benchmark's processes run on. The agent uses virtual threads for its watches on Java
 * 21 and later (on 17 each watch keeps a platform thread), so the agent and its baseline run on the
 * newest JDK of at least 21 that can be found: {@code -Dbenchmark.fleet.agentJava=/path/to/java},
 * else {@code JAVA_HOME}, the JDK running the benchmark, and {@code /usr/lib/jvm/*}; so do the
 * agent scenario's test API servers ({@link FleetEnvironment#clustersJdk()}). The plugin's
 * Clouddriver runs on the benchmark's own JDK.
 */
final class Jdks {

  /** A JDK: its home, its {@code bin/java}, and its feature release (17, 21, 25, ...). */
  record Jdk(Path home, int feature, String version) {
    Path java() {
      return home.resolve("bin/java");
    }

    @Override
    public String toString() {
      return "Java " + version + " (" + home + ")";
    }
  }

  private Jdks() {}

  /** The JDK running this benchmark. */
  static Jdk current() {
    return new Jdk(
        Path.of(System.getProperty("java.home")),
        Runtime.version().feature(),
        Runtime.version().toString());
  }

  /**
   * The JDK for the agent: {@code override} (a {@code java} binary) when given, otherwise the
   * newest JDK of at least {@code minimum} found, otherwise the current one.
   */
  static Jdk forAgent(String override, int minimum) {
    if (override != null && !override.isBlank()) {
      Path java = Path.of(override).toAbsolutePath();
      return read(java.getParent().getParent())
          .orElseThrow(() -> new IllegalArgumentException(override + " is not the java of a JDK"));
    }
    List<Path> homes = new ArrayList<>();
    String javaHome = System.getenv("JAVA_HOME");
    if (javaHome != null && !javaHome.isBlank()) {
      homes.add(Path.of(javaHome));
    }
    homes.add(Path.of(System.getProperty("java.home")));
    Path jvms = Path.of("/usr/lib/jvm");
    if (Files.isDirectory(jvms)) {
      try (Stream<Path> listed = Files.list(jvms)) {
        listed.forEach(homes::add);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return homes.stream()
        .map(Jdks::read)
        .flatMap(Optional::stream)
        .filter(
            jdk -> jdk.feature() >= minimum && Files.isExecutable(jdk.home().resolve("bin/jcmd")))
        .max(Comparator.comparingInt(Jdk::feature))
        .orElse(current());
  }

  /** A JDK home's version, from its {@code release} file. */
  private static Optional<Jdk> read(Path home) {
    Path release = home.resolve("release");
    if (!Files.isRegularFile(release) || !Files.isExecutable(home.resolve("bin/java"))) {
      return Optional.empty();
    }
    try {
      for (String line : Files.readAllLines(release)) {
        if (line.startsWith("JAVA_VERSION=")) {
          String version = line.substring("JAVA_VERSION=".length()).replace("\"", "");
          String feature = version.split("[.+-]", 0)[0];
          return Optional.of(new Jdk(home.toRealPath(), Integer.parseInt(feature), version));
        }
      }
    } catch (IOException | NumberFormatException e) {
      return Optional.empty();
    }
    return Optional.empty();
  }
}
