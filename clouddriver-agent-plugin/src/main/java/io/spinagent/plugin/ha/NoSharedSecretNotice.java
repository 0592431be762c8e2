package io.spinagent.plugin.ha;

import io.spinagent.plugin.config.StartupPhases;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;

/**
 * Says, when the plugin starts ({@link StartupPhases#REPLICAS}) with Clouddriver's database but
 * without {@code spinagent.ha.shared-secret}, that this replica works alone: a second replica on
 * the same database would neither forward tunnel requests nor account commands to it.
 */
public final class NoSharedSecretNotice implements SmartLifecycle {

  private static final Logger log = LoggerFactory.getLogger(NoSharedSecretNotice.class);

  private final String replicaId;
  private volatile boolean running;

  public NoSharedSecretNotice(String replicaId) {
    this.replicaId = replicaId;
  }

  @Override
  public void start() {
    log.warn(
        "spinagent.ha.shared-secret is not set: replica '{}' does not forward tunnel requests to"
            + " other replicas. Run one Clouddriver replica, or set the same secret on all of"
            + " them.",
        replicaId);
    running = true;
  }

  @Override
  public void stop() {
    running = false;
  }

  @Override
  public boolean isRunning() {
    return running;
  }

  @Override
  public int getPhase() {
    return StartupPhases.REPLICAS;
  }
}
