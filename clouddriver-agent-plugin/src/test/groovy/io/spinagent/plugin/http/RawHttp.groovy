package io.spinagent.plugin.http

import com.fasterxml.jackson.databind.ObjectMapper

import java.nio.charset.StandardCharsets

/**
 * HTTP/1.1 written and read by hand on a socket, as a careless or hostile client speaks it: the
 * specs of {@link NettyHttpServer}'s limits send half requests, huge headers and bodies that no
 * HTTP client library would send.
 */
class RawHttp {

  /**
   * Sends {@code request} as it is, then reads the answer and whether the server closed the
   * connection after it; closes the socket.
   */
  static Map exchange(Socket socket, String request) {
    try {
      send(socket, request)
      def answer = readAnswer(socket.inputStream)
      answer.closed = socket.inputStream.read() == -1
      answer
    } finally {
      socket.close()
    }
  }

  static void send(Socket socket, String request) {
    socket.outputStream.write(request.getBytes(StandardCharsets.US_ASCII))
    socket.outputStream.flush()
  }

  /**
   * One HTTP answer with a Content-Length body: its status line, headers (names in lower case),
   * body, and the Kubernetes Status it holds, if it is one.
   */
  static Map readAnswer(InputStream in) {
    def statusLine = line(in)
    Map<String, String> headers = [:]
    String header
    while ((header = line(in))) {
      def colon = header.indexOf(':')
      headers[header.substring(0, colon).trim().toLowerCase()] = header.substring(colon + 1).trim()
    }
    def body = new String(in.readNBytes(headers['content-length'] as int), StandardCharsets.UTF_8)
    def status = headers['content-type'] == 'application/json' && body.contains('"Status"') ?
      new ObjectMapper().readValue(body, Map) : null
    [statusLine: statusLine, headers: headers, body: body, status: status]
  }

  private static String line(InputStream in) {
    def bytes = new ByteArrayOutputStream()
    int b
    while ((b = in.read()) != -1 && b != '\n'.charAt(0) as int) {
      if (b != '\r'.charAt(0) as int) {
        bytes.write(b)
      }
    }
    bytes.toString(StandardCharsets.US_ASCII)
  }
}
