package io.spinagent.plugin.grpc.session;

import java.time.Instant;
import java.util.List;

/** An agent connected to this replica, as the REST API shows it. */
public record ConnectedAgent(
    String id,
    String version,
    String zoneId,
    String peer,
    String sessionId,
    String replicaId,
    Instant connectedAt,
    List<String> accounts) {}
