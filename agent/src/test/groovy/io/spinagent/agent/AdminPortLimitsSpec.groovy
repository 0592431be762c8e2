package io.spinagent.agent

import java.net.http.HttpRequest
import java.net.http.HttpResponse
import java.nio.charset.StandardCharsets
import java.nio.file.Files
import java.time.Duration
import java.util.concurrent.CopyOnWriteArrayList
import java.util.concurrent.Executors
import java.util.concurrent.TimeUnit

/**
 * The agent's admin port against slow, idle and oversized clients, as anyone who reaches port 8082
 * in a cluster could be: probes and scrapes are answered while they hold connections, and each is
 * answered with the limit it broke (server.headerTimeout, server.idleTimeout, server.maxConnections,
 * the head size) and disconnected. Clients here speak raw HTTP on sockets; a probe is the JDK's
 * HttpClient with a timeout of a few seconds, whose expiry fails the spec.
 */
class AdminPortLimitsSpec extends AgentSpecification {

  List<Socket> sockets = new CopyOnWriteArrayList<>()
  def trickler = Executors.newSingleThreadScheduledExecutor()

  def cleanup() {
    trickler.shutdownNow()
    sockets.each { it.close() }
  }

  AgentRuntime agent(String server) {
    start("""\
      clouddriver: {grpc: '${channel.target()}', insecure: true}
      agent: {id: test-agent}
      server: $server
      """.stripIndent())
  }

  Socket connect(AgentRuntime runtime) {
    def socket = new Socket('127.0.0.1', runtime.adminPort())
    socket.soTimeout = 20_000
    sockets << socket
    socket
  }

  static void send(Socket socket, String text) {
    socket.outputStream.write(text.getBytes(StandardCharsets.ISO_8859_1))
    socket.outputStream.flush()
  }

  /** A probe as kubelet sends it, on a connection of its own; a few seconds without an answer fail it. */
  HttpResponse<String> probe(AgentRuntime runtime, String path) {
    http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:${runtime.adminPort()}$path"))
        .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString())
  }

  /** The status line of the answer on {@code socket}, or 'closed' when it ends without one. */
  static String answer(Socket socket) {
    try {
      def line = new BufferedReader(new InputStreamReader(socket.inputStream, StandardCharsets.ISO_8859_1)).readLine()
      line ?: 'closed'
    } catch (SocketException reset) {
      'closed'
    }
  }

  /**
   * Status line, headers (lower-case names), body and, with {@code readEnd}, whether the connection
   * ended after it.
   */
  static Map exchange(Socket socket, boolean readEnd = true) {
    def in = new DataInputStream(socket.inputStream)
    def statusLine = line(in)
    Map<String, String> headers = [:]
    for (String header = line(in); header; header = line(in)) {
      headers[header.substring(0, header.indexOf(':')).toLowerCase()] = header.substring(header.indexOf(':') + 1).trim()
    }
    def body = new String(in.readNBytes(headers['content-length'] as int), StandardCharsets.UTF_8)
    [statusLine: statusLine, headers: headers, body: body, closed: readEnd && in.read() == -1]
  }

  static String line(InputStream in) {
    def bytes = new ByteArrayOutputStream()
    for (int b = in.read(); b != -1 && b != '\n' as char; b = in.read()) {
      if (b != '\r' as char) {
        bytes.write(b)
      }
    }
    bytes.toString(StandardCharsets.ISO_8859_1)
  }

  def "with 100 connections trickling or stopped in their requests, /health and /metrics are answered, and each of them is answered 408 or closed"() {
    given: 'with the default limits, more connections than server.maxConnections (64): half trickle a byte of a header now and then, half stop'
    def runtime = agent('{}')
    List<Socket> slow = (1..100).collect { connect(runtime) }
    slow.each { send(it, 'GET /health HTTP/1.1\r\nHost: agent\r\nX-Slow: ') }
    def trickling = slow.findAll { slow.indexOf(it) % 2 == 0 }
    trickler.scheduleAtFixedRate({
      trickling.each { socket ->
        try {
          send(socket, 'x')
        } catch (IOException answeredAndClosed) {
          // Its answer is read below.
        }
      }
    }, 100, 200, TimeUnit.MILLISECONDS)

    when: 'probes and a scrape arrive while they are open'
    def probes = (1..5).collect { probe(runtime, '/health') }
    def scrape = probe(runtime, '/metrics')

    then:
    probes*.statusCode() == [200] * 5
    probes.every { it.body().contains('"status": "UP"') }
    scrape.statusCode() == 200
    scrape.body().contains('spinagent_agent_connected')

    and: 'every slow connection ends: answered 408 at server.headerTimeout (10s), or closed to make room for a probe'
    def ends = slow.collect { answer(it) }
    ends.every { it in ['HTTP/1.1 408 Request Timeout', 'closed'] }
    ends.count { it == 'HTTP/1.1 408 Request Timeout' } >= 40
  }

  def "a client that does not send its request within server.headerTimeout is answered 408 naming the key, and disconnected"() {
    given:
    def runtime = agent('{headerTimeout: 1s}')
    def socket = connect(runtime)

    when: 'a request line and part of the headers, then nothing'
    send(socket, 'GET /health HTTP/1.1\r\nHost: agent\r\nAccept: ')
    def answer = exchange(socket)

    then:
    answer.statusLine == 'HTTP/1.1 408 Request Timeout'
    answer.headers['connection'] == 'close'
    answer.headers['content-type'] == 'application/json; charset=utf-8'
    answer.body.contains('"error": "the request did not arrive within 1000 ms (server.headerTimeout)"')
    answer.closed
  }

  def "a kept-alive connection serves one request after another, and is closed once idle past server.idleTimeout"() {
    given:
    def runtime = agent('{idleTimeout: 1s}')
    def socket = connect(runtime)

    when:
    send(socket, 'GET /health HTTP/1.1\r\nHost: agent\r\n\r\n')
    def first = exchange(socket, false)
    send(socket, 'GET /version HTTP/1.1\r\nHost: agent\r\n\r\n')
    def second = exchange(socket, false)

    then:
    first.statusLine == 'HTTP/1.1 200 OK'
    second.statusLine == 'HTTP/1.1 200 OK'
    second.body.contains('"agentId": "test-agent"')

    and: 'then nothing: the connection is closed without an answer that could cross a next request'
    socket.inputStream.read() == -1
  }

  def "headers over 16Ki are answered 431 with Connection: close, even #size bytes of them"() {
    given:
    def runtime = agent('{}')
    def socket = connect(runtime)

    when:
    send(socket, "GET /health HTTP/1.1\r\nHost: agent\r\nX-Padding: ${'x' * size}\r\n\r\n")
    def answer = exchange(socket)

    then:
    answer.statusLine == 'HTTP/1.1 431 Request Header Fields Too Large'
    answer.headers['connection'] == 'close'
    answer.body.contains("the request's headers are over 16384 bytes, the limit of the admin port")
    answer.closed

    where:
    size << [20_000, 1024 * 1024]
  }

  def "curl sending half a megabyte of headers gets the 431"() {
    given: 'curl reads the headers from a file: that is more than one argument may hold (curl sends at most 1Mi)'
    def runtime = agent('{}')
    def headers = dir.resolve('headers')
    Files.writeString(headers, "X-Padding: ${'x' * (512 * 1024)}\n")

    when:
    def curl = new ProcessBuilder('curl', '--silent', '--show-error', '--max-time', '20', '--header', "@$headers",
        '--dump-header', '-', '--output', '/dev/null', "http://127.0.0.1:${runtime.adminPort()}/health")
        .redirectErrorStream(true).start()
    def output = curl.inputStream.text
    curl.waitFor(30, TimeUnit.SECONDS)

    then:
    output.readLines()[0] == 'HTTP/1.1 431 Request Header Fields Too Large'
    output.toLowerCase().contains('connection: close')
  }

  def "past server.maxConnections, a new connection takes the place of the one that waited longest"() {
    given: 'four connections that asked nothing yet, the first one oldest'
    def runtime = agent('{maxConnections: 4}')
    List<Socket> idle = (1..4).collect { connect(runtime) }
    // Each is accepted before the next is opened, so that their order is known.
    idle.each { send(it, 'GET /health HTTP/1.1\r\nHost: agent\r\n\r\n'); assert exchange(it, false).statusLine == 'HTTP/1.1 200 OK' }

    when:
    def probed = probe(runtime, '/health')

    then: 'the probe is answered, and the longest idle connection gave way'
    probed.statusCode() == 200
    idle[0].inputStream.read() == -1
  }
}
