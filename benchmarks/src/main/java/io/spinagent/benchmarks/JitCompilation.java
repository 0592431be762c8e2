package io.spinagent.benchmarks;

import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;

/**
 * Time this JVM's just-in-time compilers spent while a benchmark phase ran. Compiler threads take
 * CPU from both sides on a small machine, and a side whose code is still being compiled runs slower
 * than it will in a long-running Clouddriver; a phase that shows seconds of compilation measured
 * code that had not settled yet.
 */
public final class JitCompilation {

  private static final CompilationMXBean COMPILER = ManagementFactory.getCompilationMXBean();

  private JitCompilation() {}

  /**
   * Compilation time so far in ms (summed over compiler threads), or -1 where the JVM does not
   * tell.
   */
  public static long millis() {
    return COMPILER != null && COMPILER.isCompilationTimeMonitoringSupported()
        ? COMPILER.getTotalCompilationTime()
        : -1;
  }

  /**
   * Compilation since {@code start} (from {@link #millis}), as "JIT compiling 1,234 ms", or "JIT
   * n/a".
   */
  public static String since(long start) {
    long now = millis();
    return start < 0 || now < 0 ? "JIT n/a" : String.format("JIT compiling %,d ms", now - start);
  }
}
