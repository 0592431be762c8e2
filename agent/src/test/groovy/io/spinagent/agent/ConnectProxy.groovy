package io.spinagent.agent

import java.nio.charset.StandardCharsets
import java.util.concurrent.CopyOnWriteArrayList
import java.util.concurrent.ExecutorService
import java.util.concurrent.Executors

/**
 * A small HTTP proxy for specs: it answers HTTP CONNECT (as corporate proxies do for TLS and for
 * gRPC), tunnels bytes both ways, and records each target it was asked for. Names in {@code hosts}
 * are resolved by the proxy alone, so a target only the proxy knows proves a connection went
 * through it. With {@code credentials} set, a CONNECT without them is answered 407, as proxies
 * asking for Basic authentication do.
 */
class ConnectProxy implements AutoCloseable {

  final ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())
  final List<String> targets = new CopyOnWriteArrayList<>()
  final List<String> refused = new CopyOnWriteArrayList<>()
  private final Map<String, String> hosts
  private final String credentials
  private final ExecutorService threads = Executors.newCachedThreadPool { Runnable r ->
    def thread = new Thread(r, 'spec-connect-proxy')
    thread.daemon = true
    thread
  }

  /**
   * @param hosts names this proxy resolves itself, to addresses
   * @param credentials {@code user:password} it requires, or null
   */
  ConnectProxy(Map<String, String> hosts, String credentials = null) {
    this.hosts = hosts
    this.credentials = credentials
    threads.execute { accept() }
  }

  int port() {
    server.localPort
  }

  /** {@code http://[user:password@]127.0.0.1:port}, for HTTPS_PROXY. */
  String url(String userInfo = null) {
    "http://${userInfo ? userInfo + '@' : ''}127.0.0.1:${port()}"
  }

  private void accept() {
    while (!server.closed) {
      Socket client
      try {
        client = server.accept()
      } catch (IOException closed) {
        return
      }
      threads.execute { handle(client) }
    }
  }

  private void handle(Socket client) {
    client.withCloseable {
      def in = new BufferedInputStream(client.inputStream)
      def requestLine = line(in)
      Map<String, String> headers = [:]
      for (String header = line(in); header; header = line(in)) {
        int colon = header.indexOf(':')
        headers[header.substring(0, colon).trim().toLowerCase()] = header.substring(colon + 1).trim()
      }
      def parts = requestLine?.split(' ')
      if (parts == null || parts.length < 2 || parts[0] != 'CONNECT') {
        reply(client, '405 Method Not Allowed')
        return
      }
      String expected = credentials ? 'Basic ' + credentials.bytes.encodeBase64().toString() : null
      if (expected && headers['proxy-authorization'] != expected) {
        refused << parts[1]
        reply(client, '407 Proxy Authentication Required', 'Proxy-Authenticate: Basic realm="spec"\r\n')
        return
      }
      targets << parts[1]
      int colon = parts[1].lastIndexOf(':')
      String host = parts[1].substring(0, colon).replace('[', '').replace(']', '')
      int port = parts[1].substring(colon + 1) as int
      Socket upstream
      try {
        upstream = new Socket(hosts.getOrDefault(host, host), port)
      } catch (IOException e) {
        reply(client, '502 Bad Gateway')
        return
      }
      upstream.withCloseable {
        reply(client, '200 Connection established')
        def done = threads.submit { pump(in, upstream.outputStream, upstream) }
        pump(upstream.inputStream, client.outputStream, client)
        done.cancel(true)
      }
    }
  }

  private static void reply(Socket client, String status, String headers = '') {
    client.outputStream.write("HTTP/1.1 $status\r\n${headers}Content-Length: 0\r\n\r\n".getBytes(StandardCharsets.US_ASCII))
    client.outputStream.flush()
  }

  private static void pump(InputStream from, OutputStream to, Socket target) {
    byte[] buffer = new byte[16384]
    try {
      int n
      while ((n = from.read(buffer)) >= 0) {
        to.write(buffer, 0, n)
        to.flush()
      }
      target.shutdownOutput()
    } catch (IOException ended) {
      // One side closed.
    }
  }

  private static String line(InputStream in) {
    def bytes = new ByteArrayOutputStream()
    int b
    while ((b = in.read()) >= 0 && b != '\n') {
      if (b != '\r') {
        bytes.write(b)
      }
    }
    b < 0 && bytes.size() == 0 ? null : bytes.toString('US-ASCII')
  }

  @Override
  void close() {
    server.close()
    threads.shutdownNow()
  }
}
