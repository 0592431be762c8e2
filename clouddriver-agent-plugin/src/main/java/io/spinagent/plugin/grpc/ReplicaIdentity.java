package io.spinagent.plugin.grpc;

import java.lang.management.ManagementFactory;
import org.springframework.stereotype.Component;

/**
 * Names this Clouddriver replica to agents and in logs: the JVM's {@code pid@hostname}, which is
 * unique among replicas and stable for the replica's life.
 */
@Component
public class ReplicaIdentity {

  private final String id = ManagementFactory.getRuntimeMXBean().getName();

  public String id() {
    return id;
  }
}
