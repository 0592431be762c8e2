package io.spinagent.plugin.grpc.session;

import java.time.Instant;
import java.util.List;

/**
 * An agent connected to this replica, as the REST API shows it.
 *
 * @param principal who its connection authenticated as, which the accounts it registers are bound
 *     to
 */
public record ConnectedAgent(
    String id,
    String version,
    String zoneId,
    String peer,
    String principal,
    String sessionId,
    String replicaId,
    Instant connectedAt,
    List<String> accounts) {}
