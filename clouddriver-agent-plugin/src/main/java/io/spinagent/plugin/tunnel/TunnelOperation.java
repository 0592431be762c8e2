package io.spinagent.plugin.tunnel;

import java.time.Duration;
import java.time.Instant;

/**
 * One request the tunnel served, as {@link TunnelOperationListener}s see it when it is over.
 *
 * @param account the account named in the URL (also when no such account exists)
 * @param agentId the agent that performed it; null when it never reached one
 * @param method the HTTP method
 * @param path the Kubernetes API path, without {@code /clusters/<account>}
 * @param query the raw query string, empty when there is none
 * @param status the HTTP status answered; -1 when the client went away before any
 * @param startedAt when the request arrived
 * @param timeToFirstByte until the response head was sent (the whole duration when none was)
 * @param duration until the response ended, a watch's or followed log's whole life included
 */
public record TunnelOperation(
    String account,
    String agentId,
    String method,
    String path,
    String query,
    int status,
    Instant startedAt,
    Duration timeToFirstByte,
    Duration duration) {}
