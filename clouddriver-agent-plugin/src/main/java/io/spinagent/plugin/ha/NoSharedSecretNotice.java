package io.spinagent.plugin.ha;

import io.spinagent.plugin.config.StartupPhases;
import io.spinagent.plugin.config.StartupStep;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Says, when the plugin starts ({@link StartupPhases#REPLICAS}) with Clouddriver's database but
 * without {@code spinagent.ha.shared-secret}, that this replica works alone: a second replica on
 * the same database would neither forward tunnel requests nor account commands to it.
 */
public final class NoSharedSecretNotice extends StartupStep {

  private static final Logger log = LoggerFactory.getLogger(NoSharedSecretNotice.class);

  private final String replicaId;

  public NoSharedSecretNotice(String replicaId) {
    super(StartupPhases.REPLICAS);
    this.replicaId = replicaId;
  }

  @Override
  protected void run() {
    log.warn(
        "spinagent.ha.shared-secret is not set: replica '{}' does not forward tunnel requests to"
            + " other replicas. Run one Clouddriver replica, or set the same secret on all of"
            + " them.",
        replicaId);
  }
}
