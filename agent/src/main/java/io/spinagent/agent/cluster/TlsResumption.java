package io.spinagent.agent.cluster;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Proxy;
import java.time.Duration;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import okhttp3.Call;
import okhttp3.EventListener;
import okhttp3.Protocol;
import okhttp3.Response;

/**
 * Lets one account's new TLS connections resume the session of its previous one instead of each
 * doing a full handshake.
 *
 * <p>An account opens a connection per kind when its watches start (a watch keeps its connection
 * for as long as it runs, over HTTP/1.1), a dozen at the same moment. A full TLS handshake costs
 * the agent a signature verification and a certificate chain check, and the API server a signature;
 * a resumed one costs neither. But a TLS 1.3 session ticket is used once (the JDK keeps one per
 * server and hands it to a single new connection), and the server sends the next one only after
 * that connection's handshake, which the JDK reads with the first response. So connections opened
 * together all do full handshakes, and connections opened one after another all resume.
 *
 * <p>Here a new connection's handshake waits until the account's previous new connection has read
 * its first response headers (and with them its ticket), at most {@link #MAX_WAIT}; after that it
 * goes ahead with whatever the session cache holds, so that a server slow to answer delays the
 * account's other connections by that much once, never more. With a server that issues no tickets
 * the connections still take turns, each for a round trip and its server's first answer.
 *
 * <p>One instance per account (its client's TLS settings and session cache); its listener is
 * installed on the account's HTTP clients.
 */
final class TlsResumption {

  /**
   * How long a new connection waits for the one before it to bring the next session ticket: long
   * enough for an agent starting hundreds of accounts on busy cores (where the saving matters
   * most), short beside an account's start.
   */
  static final Duration MAX_WAIT = Duration.ofSeconds(5);

  private final Semaphore ticket = new Semaphore(1);
  private final long maxWaitNanos;

  TlsResumption() {
    this(MAX_WAIT);
  }

  TlsResumption(Duration maxWait) {
    this.maxWaitNanos = maxWait.toNanos();
  }

  /** 1 when no new connection holds the turn, else 0. */
  int turnsFree() {
    return ticket.availablePermits();
  }

  /** A listener per call, as OkHttp asks for them. */
  EventListener.Factory listeners() {
    return call -> new HandshakeTurn();
  }

  /**
   * One call's turn: taken when its connection's TLS handshake starts, given back once its first
   * response headers are read or the call fails or ends.
   */
  private final class HandshakeTurn extends EventListener {

    private final AtomicBoolean holding = new AtomicBoolean();

    @Override
    public void secureConnectStart(Call call) {
      try {
        if (ticket.tryAcquire(maxWaitNanos, TimeUnit.NANOSECONDS)) {
          holding.set(true);
        }
      } catch (InterruptedException e) {
        // Cancelled while waiting: the handshake fails on the interrupted thread's socket.
        Thread.currentThread().interrupt();
      }
    }

    @Override
    public void responseHeadersEnd(Call call, Response response) {
      giveBack();
    }

    @Override
    public void connectFailed(
        Call call, InetSocketAddress address, Proxy proxy, Protocol protocol, IOException failure) {
      giveBack();
    }

    @Override
    public void callFailed(Call call, IOException failure) {
      giveBack();
    }

    @Override
    public void callEnd(Call call) {
      giveBack();
    }

    @Override
    public void canceled(Call call) {
      giveBack();
    }

    private void giveBack() {
      if (holding.compareAndSet(true, false)) {
        ticket.release();
      }
    }
  }
}
