package io.spinagent.testkit.kubernetes;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.SSLContext;

/**
 * The HTTP(S) listener in front of one simulated cluster ({@link KubernetesApiServer}) or many
 * ({@link KubernetesApiFleet}): the JDK's server, a pool of handler threads that serve a request
 * each and return, and the {@link WatchPump} that streams the watches they started. Lives from
 * {@code start} to {@link #stop}; a restarted server gets a new one on the same port.
 *
 * <p>A handler thread is added only when every existing one is busy, up to {@link #HANDLERS}; more
 * requests wait in line, as a real API server's {@code max-requests-inflight} makes them (hundreds
 * of clients starting together would otherwise cost a thread each). Idle handler threads end after
 * a minute.
 */
final class ApiListener {

  static final int HANDLERS = 64;

  /** Connections waiting to be accepted; the kernel caps it at {@code net.core.somaxconn}. */
  private static final int BACKLOG = 4096;

  /** Serves one exchange on a handler thread; a watch continues on {@code pump}. */
  @FunctionalInterface
  interface Handler {
    void handle(HttpExchange exchange, WatchPump pump) throws IOException;
  }

  private final HttpServer server;
  private final ExecutorService handlers;
  private final WatchPump pump;

  private ApiListener(HttpServer server, ExecutorService handlers, WatchPump pump) {
    this.server = server;
    this.handlers = handlers;
    this.pump = pump;
  }

  /**
   * Listens on {@code host:port} (0: a free port), with TLS when {@code tls} is not null. Binding
   * the port of a listener that just stopped is retried for a few seconds.
   *
   * @param threadPrefix names the threads: {@code <prefix>-<n>} handle requests, {@code
   *     <prefix>-watch-*} stream watches
   */
  static ApiListener start(
      String host,
      int port,
      SSLContext tls,
      String threadPrefix,
      Duration watchStallTimeout,
      Handler handler) {
    HttpServer server = bind(new InetSocketAddress(host, port), tls);
    HandlerQueue queue = new HandlerQueue();
    ThreadPoolExecutor handlers =
        new ThreadPoolExecutor(
            0,
            HANDLERS,
            60,
            TimeUnit.SECONDS,
            queue,
            named(threadPrefix + "-"),
            (request, pool) -> queue.enqueue(request));
    queue.pool = handlers;
    WatchPump pump = new WatchPump(threadPrefix, watchStallTimeout);
    server.createContext("/", exchange -> handler.handle(exchange, pump));
    server.setExecutor(handlers);
    server.start();
    return new ApiListener(server, handlers, pump);
  }

  int port() {
    return server.getAddress().getPort();
  }

  /** Watches being streamed. */
  int openWatches() {
    return pump.openWatches();
  }

  /**
   * Stops listening and closes every connection, then runs {@code endWatches} (which closes the
   * watches' subscriptions) and lets the pump write their ends before its threads stop.
   */
  void stop(Runnable endWatches) {
    server.stop(0);
    endWatches.run();
    pump.shutdown();
    handlers.shutdownNow();
    try {
      handlers.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static HttpServer bind(InetSocketAddress address, SSLContext tls) {
    // A real API server (Go) sets TCP_NODELAY on every connection; the JDK server only does when
    // this property is set before its first server starts. Without it each response's body waits
    // for the client's delayed acknowledgement of its headers (about 40 ms).
    if (System.getProperty("sun.net.httpserver.nodelay") == null) {
      System.setProperty("sun.net.httpserver.nodelay", "true");
    }
    // A Go server listens with the kernel's somaxconn as its backlog (4096 on current Linux); with
    // the JDK's usual 50 or 128, hundreds of clients connecting in the same second to a fleet
    // behind one port overflow the queue, and each dropped SYN costs its client 1, 3, 7… seconds.
    long giveUpAt = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (true) {
      try {
        if (tls == null) {
          return HttpServer.create(address, BACKLOG);
        }
        HttpsServer https = HttpsServer.create(address, BACKLOG);
        https.setHttpsConfigurator(new HttpsConfigurator(tls));
        return https;
      } catch (BindException e) {
        // On restart the old socket may linger for a moment; the port is ours, so wait for it.
        if (address.getPort() == 0 || System.nanoTime() > giveUpAt) {
          throw new UncheckedIOException("could not bind " + address, e);
        }
        sleep(50);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }

  /**
   * Refuses a request while every handler is busy and more may be started, so that the pool starts
   * one; queues it otherwise (the pool's rejection, at its maximum, queues it too).
   */
  private static final class HandlerQueue extends LinkedBlockingQueue<Runnable> {
    private static final long serialVersionUID = 1L;
    private transient ThreadPoolExecutor pool;

    @Override
    public boolean offer(Runnable request) {
      if (pool.getActiveCount() >= pool.getPoolSize()
          && pool.getPoolSize() < pool.getMaximumPoolSize()) {
        return false;
      }
      return super.offer(request);
    }

    void enqueue(Runnable request) {
      if (!pool.isShutdown()) {
        super.offer(request);
      }
    }
  }

  private static ThreadFactory named(String prefix) {
    AtomicInteger count = new AtomicInteger();
    return runnable -> {
      Thread thread = new Thread(runnable, prefix + count.incrementAndGet());
      thread.setDaemon(true);
      return thread;
    };
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
