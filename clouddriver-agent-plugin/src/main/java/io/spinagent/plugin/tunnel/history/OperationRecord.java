package io.spinagent.plugin.tunnel.history;

import java.time.Instant;

/**
 * One row of the operation history: a Kubernetes API request Clouddriver sent through the tunnel.
 *
 * @param account the account named in the request
 * @param method the HTTP method
 * @param verb what kubectl would call it, one of {@code get, list, watch, create, replace, patch,
 *     delete, deletecollection, scale, logs, discovery}; empty when the path says nothing
 * @param path the Kubernetes API path, query included
 * @param status the HTTP status answered; -1 when the client left before any
 * @param timeToFirstByteMs from arrival to the response head
 * @param durationMs from arrival to the end of the response
 * @param replica the Clouddriver replica that served it
 * @param agentId the agent that performed it; empty when none did (refused by the tunnel)
 * @param startedAt when it arrived
 */
public record OperationRecord(
    String account,
    String method,
    String verb,
    String path,
    int status,
    long timeToFirstByteMs,
    long durationMs,
    String replica,
    String agentId,
    Instant startedAt) {}
