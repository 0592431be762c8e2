package io.spinagent.agent

import java.nio.file.Files
import java.nio.file.Path
import java.util.concurrent.TimeUnit

/**
 * The agent's main class in a JVM of its own, as operators run it: the test class path and a
 * 256 MB heap, the smallest the agent is documented to run in.
 */
class AgentJvm {

  static final Path BUILD_JDK = Path.of(System.getProperty('java.home'))
  static final String HEAP = '-Xmx256m'

  /** The command that runs {@link Main} with {@code args} on {@code jdk}. */
  static ProcessBuilder command(Path jdk = BUILD_JDK, List<String> args) {
    def classpath = System.getProperty('surefire.test.class.path') ?: System.getProperty('java.class.path')
    new ProcessBuilder([jdk.resolve('bin/java').toString(), HEAP, '-cp', classpath, Main.name] + args)
  }

  /** How a run ended: its exit code and everything it printed (standard output and error). */
  static class Ended {
    int exitCode
    String output
  }

  /**
   * Runs the agent with {@code args} to its end, its output in {@code log}; fails if it has not
   * ended after a generous minute, so that a hung agent fails the test instead of the build.
   */
  static Ended run(List<String> args, Path log) {
    def process = command(args).redirectErrorStream(true).redirectOutput(log.toFile()).start()
    if (!process.waitFor(60, TimeUnit.SECONDS)) {
      process.destroyForcibly().waitFor(30, TimeUnit.SECONDS)
      throw new AssertionError("the agent did not end: ${Files.readString(log)}")
    }
    new Ended(exitCode: process.exitValue(), output: Files.readString(log))
  }
}
