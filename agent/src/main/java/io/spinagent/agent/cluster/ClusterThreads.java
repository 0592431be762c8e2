package io.spinagent.agent.cluster;

import com.google.common.util.concurrent.MoreExecutors;
import io.spinagent.common.DaemonThreads;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import okhttp3.ConnectionPool;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Every thread of the cluster side, shared by all accounts, so that the agent's thread count does
 * not grow with accounts × kinds (docs/architecture.md, "Threads of the agent"):
 *
 * <ul>
 *   <li><b>watches</b>: one task per list-then-watch loop ({@link Reflector}), each blocking on the
 *       one connection it holds. On Java 21 and later every task is a virtual thread, so a watch
 *       costs its connection and a few kilobytes of heap; on Java 17 a platform thread each ({@code
 *       spinagent-watch-…}), which is the cost of running on 17.
 *   <li><b>account work</b>: connecting, discovery, access reviews, decisions; serial per account
 *       ({@link #serialExecutor}), at most {@link #ACCOUNT_WORKERS} accounts at once, on virtual
 *       threads where available ({@code spinagent-account-…}).
 *   <li><b>timers</b>: one platform thread ({@code spinagent-cluster-timer}) for retries,
 *       rediscovery, staggered starts and progress reports. Timer tasks only hand work on; they
 *       never block.
 *   <li><b>connection pools</b>: {@link #CONNECTION_POOLS} for the accounts' pooled connections,
 *       each account using one, and one for the connections used once (Secrets). OkHttp finds a
 *       reusable connection by walking its pool, every connection in use included (a watch holds
 *       one): with one pool for all, every request of every account walked the whole fleet's
 *       connections, a fifth of the agent's CPU while 200 accounts synced. A pool per account would
 *       walk only its own, but OkHttp cleans each pool with a task on its shared task threads, and
 *       pools whose clean-ups fall due together start a thread each. Connections are only ever
 *       reused for the same address, TLS settings included, so accounts never share one.
 * </ul>
 *
 * <p>Virtual threads are looked up by reflection, since the agent is compiled for Java 17; the
 * system property {@code spinagent.virtualThreads=false} keeps platform threads on any Java.
 */
public final class ClusterThreads implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(ClusterThreads.class);

  /** Accounts connecting or rediscovering at once: bounds the bursts against API servers. */
  static final int ACCOUNT_WORKERS = 32;

  /**
   * Pools the accounts' connections are spread over: each request walks an eighth of the fleet's
   * connections, and the pools' clean-ups take at most eight of OkHttp's task threads at once.
   */
  static final int CONNECTION_POOLS = 8;

  /** Idle connections kept per pool, for the next lists and watches. */
  static final int IDLE_CONNECTIONS = 256 / CONNECTION_POOLS;

  /** An account worker idle this long ends: after start-up the account work is occasional. */
  static final Duration ACCOUNT_WORKER_IDLE = Duration.ofSeconds(5);

  /** Turns virtual threads off when set to {@code false}. */
  public static final String VIRTUAL_THREADS_PROPERTY = "spinagent.virtualThreads";

  /** Which threads run the watches, and why. */
  public record Mode(boolean virtual, String reason) {
    public String describe() {
      return virtual
          ? "virtual threads (" + reason + ")"
          : "platform threads, one per watch (" + reason + ")";
    }
  }

  private final Mode mode;
  private final ExecutorService watches;
  private final ThreadPoolExecutor accountWork;
  private final ScheduledThreadPoolExecutor timers;
  private final List<ConnectionPool> connections =
      Stream.generate(() -> new ConnectionPool(IDLE_CONNECTIONS, 1, TimeUnit.MINUTES))
          .limit(CONNECTION_POOLS)
          .toList();
  private final AtomicInteger accountsPooled = new AtomicInteger();
  private final ConnectionPool singleUseConnections =
      new ConnectionPool(0, 1, TimeUnit.MILLISECONDS);

  public ClusterThreads() {
    this(System.getProperty(VIRTUAL_THREADS_PROPERTY));
  }

  ClusterThreads(String property) {
    Optional<VirtualThreads> virtual = VirtualThreads.available(property);
    this.mode = mode(Runtime.version().feature(), property, virtual.isPresent());
    ThreadFactory watchThreads =
        virtual
            .map(v -> v.factory("spinagent-watch-"))
            .orElse(DaemonThreads.numbered("spinagent-watch"));
    ThreadFactory accountThreads =
        virtual
            .map(v -> v.factory("spinagent-account-"))
            .orElse(DaemonThreads.numbered("spinagent-account"));
    this.watches =
        virtual.isPresent()
            ? virtual.get().perTaskExecutor(watchThreads)
            : Executors.newCachedThreadPool(watchThreads);
    this.accountWork =
        new ThreadPoolExecutor(
            ACCOUNT_WORKERS,
            ACCOUNT_WORKERS,
            ACCOUNT_WORKER_IDLE.toMillis(),
            TimeUnit.MILLISECONDS,
            new LinkedBlockingQueue<>(),
            accountThreads);
    accountWork.allowCoreThreadTimeOut(true);
    this.timers =
        new ScheduledThreadPoolExecutor(1, DaemonThreads.named("spinagent-cluster-timer"));
    timers.setRemoveOnCancelPolicy(true);
    log.info("Kubernetes watches run on {}", mode.describe());
  }

  /**
   * The mode for Java {@code feature} with {@code property} as {@value #VIRTUAL_THREADS_PROPERTY},
   * when virtual threads could ({@code available}) or could not be set up.
   */
  static Mode mode(int feature, String property, boolean available) {
    if ("false".equalsIgnoreCase(property)) {
      return new Mode(false, VIRTUAL_THREADS_PROPERTY + "=false");
    }
    if (feature < 21) {
      return new Mode(false, "Java " + feature + "; virtual threads need Java 21 or later");
    }
    if (!available) {
      return new Mode(false, "Java " + feature + ", but virtual threads could not be created");
    }
    return new Mode(true, "Java " + feature);
  }

  public Mode mode() {
    return mode;
  }

  /** Runs list-then-watch loops, one task (and thread) each. */
  ExecutorService watches() {
    return watches;
  }

  /** Runs one account's tasks one at a time, in order, on the shared account workers. */
  Executor serialExecutor() {
    return MoreExecutors.newSequentialExecutor(accountWork);
  }

  ScheduledExecutorService timers() {
    return timers;
  }

  /** Where a new account keeps its connections between requests: the pools take turns. */
  ConnectionPool connections() {
    return connections.get(Math.floorMod(accountsPooled.getAndIncrement(), CONNECTION_POOLS));
  }

  /** A pool that keeps nothing: each connection is closed after its response (for Secrets). */
  ConnectionPool singleUseConnections() {
    return singleUseConnections;
  }

  /**
   * Stops every thread: interrupts what still runs and waits at most {@code timeout} for it. Loops
   * are expected to have been stopped (their calls cancelled) before.
   */
  void close(Duration timeout) {
    connections.forEach(ConnectionPool::evictAll);
    timers.shutdownNow();
    accountWork.shutdownNow();
    watches.shutdownNow();
    long deadline = System.nanoTime() + timeout.toNanos();
    try {
      for (ExecutorService executor : new ExecutorService[] {watches, accountWork, timers}) {
        long left = deadline - System.nanoTime();
        if (left <= 0 || !executor.awaitTermination(left, TimeUnit.NANOSECONDS)) {
          log.debug("Cluster threads still running after {}", timeout);
          return;
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public void close() {
    close(Duration.ofSeconds(2));
  }

  /** Java 21's virtual-thread API, reached by reflection. */
  private static final class VirtualThreads {
    private final Method ofVirtual;
    private final Method name;
    private final Method factory;
    private final Method perTask;

    private VirtualThreads() throws ReflectiveOperationException {
      Class<?> builder = Class.forName("java.lang.Thread$Builder$OfVirtual");
      this.ofVirtual = Thread.class.getMethod("ofVirtual");
      this.name = builder.getMethod("name", String.class, long.class);
      this.factory = builder.getMethod("factory");
      this.perTask = Executors.class.getMethod("newThreadPerTaskExecutor", ThreadFactory.class);
    }

    static Optional<VirtualThreads> available(String property) {
      if ("false".equalsIgnoreCase(property) || Runtime.version().feature() < 21) {
        return Optional.empty();
      }
      try {
        VirtualThreads threads = new VirtualThreads();
        threads.factory("spinagent-probe-"); // fails here if the API is there but not enabled
        return Optional.of(threads);
      } catch (ReflectiveOperationException | RuntimeException e) {
        log.warn("Virtual threads are not available, using platform threads: {}", e.toString());
        return Optional.empty();
      }
    }

    ThreadFactory factory(String prefix) {
      try {
        Object builder = name.invoke(ofVirtual.invoke(null), prefix, 1L);
        return (ThreadFactory) factory.invoke(builder);
      } catch (IllegalAccessException e) {
        throw new IllegalStateException(e);
      } catch (InvocationTargetException e) {
        throw new IllegalStateException(e.getCause());
      }
    }

    ExecutorService perTaskExecutor(ThreadFactory threads) {
      try {
        return (ExecutorService) perTask.invoke(null, threads);
      } catch (IllegalAccessException e) {
        throw new IllegalStateException(e);
      } catch (InvocationTargetException e) {
        throw new IllegalStateException(e.getCause());
      }
    }
  }
}
