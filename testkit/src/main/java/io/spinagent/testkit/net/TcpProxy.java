package io.spinagent.testkit.net;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A TCP proxy on a free loopback port, for tests that need a network that fails: every connection
 * to {@link #port()} is forwarded to the target, and the test can {@linkplain #cut() reset} the
 * connections, {@linkplain #stall() stop forwarding} without closing anything (a half-open or
 * black-holed connection, as after a NAT or load balancer drops its state), or {@linkplain
 * #refuse(boolean) refuse} new connections.
 *
 * <p>Plain blocking sockets, two daemon threads per connection. {@link #close()} closes every
 * socket and waits for the threads.
 */
public final class TcpProxy implements AutoCloseable {

  private static final int BUFFER_BYTES = 16 * 1024;

  private volatile InetSocketAddress target;
  private final ServerSocket listener;
  private final Thread acceptor;
  private final Set<Connection> connections = ConcurrentHashMap.newKeySet();
  private final List<Thread> threads = new ArrayList<>();
  private final AtomicInteger accepted = new AtomicInteger();
  private final Object forwarding = new Object();
  private volatile boolean stalled;
  private volatile boolean refusing;
  private volatile boolean closed;

  private TcpProxy(InetSocketAddress target, ServerSocket listener) {
    this.target = target;
    this.listener = listener;
    this.acceptor = new Thread(this::acceptLoop, "tcp-proxy-accept-" + listener.getLocalPort());
    acceptor.setDaemon(true);
  }

  /** Starts a proxy to {@code targetHost:targetPort} on a free loopback port. */
  public static TcpProxy start(String targetHost, int targetPort) {
    try {
      ServerSocket listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
      TcpProxy proxy = new TcpProxy(new InetSocketAddress(targetHost, targetPort), listener);
      proxy.acceptor.start();
      return proxy;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot listen on a loopback port", e);
    }
  }

  /** The loopback port to connect to instead of the target. */
  public int port() {
    return listener.getLocalPort();
  }

  /** {@code host:port} to connect to. */
  public String address() {
    return listener.getInetAddress().getHostAddress() + ":" + port();
  }

  /**
   * Sends new connections to {@code targetHost:targetPort} from now on (e.g. another server
   * replica, as a load balancer would after the first one went away); open connections keep their
   * target.
   */
  public void retarget(String targetHost, int targetPort) {
    target = new InetSocketAddress(targetHost, targetPort);
  }

  /** Connections accepted so far, including refused ones. */
  public int acceptedConnections() {
    return accepted.get();
  }

  /** Connections currently open. */
  public int openConnections() {
    return connections.size();
  }

  /**
   * Resets every open connection on both sides (RST, via SO_LINGER 0), as a crashed middlebox
   * would. New connections are still accepted.
   */
  public void cut() {
    for (Connection connection : List.copyOf(connections)) {
      connection.reset();
    }
  }

  /**
   * Stops forwarding bytes in both directions on every connection, open or new, without closing
   * any: each side sees a connection that accepts writes (until its buffers fill) and never
   * answers.
   */
  public void stall() {
    stalled = true;
  }

  /** Forwards bytes again after {@link #stall()}. */
  public void resume() {
    synchronized (forwarding) {
      stalled = false;
      forwarding.notifyAll();
    }
  }

  /** While true, new connections are reset as soon as they are accepted. */
  public void refuse(boolean refuse) {
    this.refusing = refuse;
  }

  /** Stops listening, resets every connection and waits for the proxy's threads. */
  @Override
  public void close() {
    closed = true;
    try {
      listener.close();
    } catch (IOException ignored) {
      // Closing anyway.
    }
    cut();
    resume();
    List<Thread> toJoin;
    synchronized (threads) {
      toJoin = new ArrayList<>(threads);
    }
    toJoin.add(acceptor);
    for (Thread thread : toJoin) {
      try {
        thread.join(5_000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }

  private void acceptLoop() {
    while (!closed) {
      Socket client;
      try {
        client = listener.accept();
      } catch (IOException e) {
        return; // closed
      }
      accepted.incrementAndGet();
      if (refusing || closed) {
        resetQuietly(client);
        continue;
      }
      Socket upstream = new Socket();
      try {
        upstream.connect(target, 5_000);
      } catch (IOException e) {
        // Like a host that refuses: the client sees its connection reset.
        resetQuietly(upstream);
        resetQuietly(client);
        continue;
      }
      Connection connection = new Connection(client, upstream);
      connections.add(connection);
      connection.start();
    }
  }

  private void pump(Connection connection, Socket from, Socket to) {
    byte[] buffer = new byte[BUFFER_BYTES];
    // The streams are not closed here: closing a socket's stream closes the socket, and with it the
    // other direction.
    try {
      InputStream in = from.getInputStream();
      OutputStream out = to.getOutputStream();
      while (true) {
        awaitForwarding(connection);
        int read = in.read(buffer);
        if (read < 0) {
          // Half-close: pass the end of stream on, keep the other direction going.
          to.shutdownOutput();
          connection.finishOne(false);
          return;
        }
        awaitForwarding(connection);
        if (connection.closed) {
          connection.finishOne(true);
          return;
        }
        out.write(buffer, 0, read);
        out.flush();
      }
    } catch (IOException | InterruptedException e) {
      // One side reset or the proxy cut the connection: the other side sees a reset too.
      connection.finishOne(true);
    }
  }

  private void awaitForwarding(Connection connection) throws InterruptedException {
    synchronized (forwarding) {
      while (stalled && !connection.closed && !closed) {
        forwarding.wait(100);
      }
    }
  }

  private static void resetQuietly(Socket socket) {
    try {
      if (!socket.isClosed()) {
        socket.setSoLinger(true, 0);
      }
    } catch (SocketException ignored) {
      // Not connected: closing is all that is left.
    }
    try {
      socket.close();
    } catch (IOException ignored) {
      // Already closed.
    }
  }

  /** One proxied connection: the accepted socket and the one to the target. */
  private final class Connection {
    final Socket client;
    final Socket upstream;
    final AtomicInteger running = new AtomicInteger(2);
    volatile boolean closed;

    Connection(Socket client, Socket upstream) {
      this.client = client;
      this.upstream = upstream;
    }

    void start() {
      Thread toTarget =
          new Thread(() -> pump(this, client, upstream), "tcp-proxy-up-" + client.getPort());
      Thread toClient =
          new Thread(() -> pump(this, upstream, client), "tcp-proxy-down-" + client.getPort());
      toTarget.setDaemon(true);
      toClient.setDaemon(true);
      synchronized (threads) {
        threads.removeIf(thread -> !thread.isAlive());
        threads.add(toTarget);
        threads.add(toClient);
      }
      toTarget.start();
      toClient.start();
    }

    void reset() {
      closed = true;
      resetQuietly(client);
      resetQuietly(upstream);
      connections.remove(this);
      synchronized (forwarding) {
        forwarding.notifyAll();
      }
    }

    /** One direction ended; when both have, or on failure, the connection is closed for good. */
    void finishOne(boolean failed) {
      if (failed) {
        reset();
      }
      if (running.decrementAndGet() == 0) {
        closed = true;
        closeQuietly(client);
        closeQuietly(upstream);
        connections.remove(this);
      }
    }
  }

  private static void closeQuietly(Socket socket) {
    try {
      socket.close();
    } catch (IOException ignored) {
      // Already closed.
    }
  }
}
