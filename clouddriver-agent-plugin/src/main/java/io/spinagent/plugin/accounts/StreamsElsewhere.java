package io.spinagent.plugin.accounts;

import java.util.Optional;

/**
 * Which other Clouddriver replica holds an account's agent stream right now. A command that reaches
 * an account's agents (change, switch off, delete) reaches only the agents connected to the replica
 * that runs it: run on another replica, it would change the stored account and leave the agent that
 * serves it as it was. {@code ha.ReplicaGroup} answers it (never elsewhere for a replica alone).
 */
@FunctionalInterface
public interface StreamsElsewhere {

  /** The id of another replica whose live agent stream serves {@code account}, or empty. */
  Optional<String> replicaServing(String account);
}
