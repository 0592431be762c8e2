package io.spinagent.plugin.http;

import java.time.Duration;

/**
 * What a client of {@link NettyHttpServer} may take to send a request's line and headers, in bytes
 * and in time, and the settings that say so (named in the answers to clients over a limit).
 *
 * @param maxBytes the request line and headers together, which the handler holds requests to; the
 *     server itself stops reading a request line, or headers, at twice this and answers 414 or 431
 * @param maxBytesSetting where {@code maxBytes} is configured
 * @param timeout from the connection's start, or the first byte of its next request, to the end of
 *     the headers; a client that is slower is answered 408
 * @param timeoutSetting where {@code timeout} is configured
 */
public record RequestHeadLimits(
    long maxBytes, String maxBytesSetting, Duration timeout, String timeoutSetting) {}
