package io.spinagent.plugin.identity;

import java.lang.management.ManagementFactory;
import java.security.SecureRandom;
import java.util.HexFormat;

/**
 * Names this Clouddriver replica to agents, in logs and in the account ownership table: the JVM's
 * {@code pid@hostname} and a random suffix, unique among replicas (also when a container reuses pid
 * and hostname after a restart, or tests run two in one JVM) and stable for the replica's life.
 */
public final class ReplicaIdentity {

  private final String id = ManagementFactory.getRuntimeMXBean().getName() + "/" + randomSuffix();

  private static String randomSuffix() {
    byte[] bytes = new byte[3];
    new SecureRandom().nextBytes(bytes);
    return HexFormat.of().formatHex(bytes);
  }

  public String id() {
    return id;
  }
}
