package io.spinagent.plugin.http;

/**
 * The largest request body a {@link NettyHttpServer} accepts, and the setting that says so (named
 * in the answer to a client over it). A request that declares a larger {@code Content-Length} is
 * answered {@code 413} before its handler runs; a chunked body that grows past the limit ends the
 * handler's reading with an error, and the client is answered {@code 413} unless the handler had
 * answered already.
 *
 * @param maxBytes the largest body, in bytes
 * @param setting where {@code maxBytes} is configured
 */
public record RequestBodyLimit(long maxBytes, String setting) {

  /** Bodies of any size: for a server whose handler streams them on (the tunnel). */
  public static final RequestBodyLimit NONE = new RequestBodyLimit(Long.MAX_VALUE, "none");

  /**
   * The answer's message for a body that declared {@code declaredBytes}, or, when that is -1, one
   * that grew past the limit as it arrived.
   */
  String exceeded(long declaredBytes) {
    String limit = "the limit of " + maxBytes + " bytes (" + setting + ")";
    return declaredBytes < 0
        ? "the request body is over " + limit
        : "the request body is " + declaredBytes + " bytes, over " + limit;
  }
}
