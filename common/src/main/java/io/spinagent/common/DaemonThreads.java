package io.spinagent.common;

import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Thread factories for SpinAgent's own threads: daemon threads (the JVM's shutdown is never held up
 * by them; whoever owns them stops them), each named after its job so a thread dump says whose it
 * is. The names are those listed in the thread model of {@code docs/architecture.md}.
 *
 * <p>Not Guava's {@code ThreadFactoryBuilder}, which both sides could use: it numbers threads from
 * 0, and SpinAgent's numbered threads (and the JDK's virtual threads the agent names the same way)
 * count from 1.
 */
public final class DaemonThreads {

  private DaemonThreads() {}

  /** Every thread it makes is called {@code name}: for an executor of one thread. */
  public static ThreadFactory named(String name) {
    return runnable -> daemon(runnable, name);
  }

  /** Threads called {@code prefix-1}, {@code prefix-2}, … in the order they are made. */
  public static ThreadFactory numbered(String prefix) {
    AtomicLong made = new AtomicLong();
    return runnable -> daemon(runnable, prefix + "-" + made.incrementAndGet());
  }

  private static Thread daemon(Runnable runnable, String name) {
    Thread thread = new Thread(runnable, name);
    thread.setDaemon(true);
    return thread;
  }
}
