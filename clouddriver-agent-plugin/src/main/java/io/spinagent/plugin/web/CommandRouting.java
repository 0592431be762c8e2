package io.spinagent.plugin.web;

import io.spinagent.plugin.ha.AccountOwner;
import io.spinagent.plugin.ha.ReplicaCommands;
import java.util.Optional;

/**
 * Which other Clouddriver replica must run an account command, and the way there. The wiring
 * chooses {@link OwnerCommands} when replicas share a database, {@link #HERE} when this replica
 * works alone.
 */
public interface CommandRouting {

  /** A replica alone: every command runs here. */
  CommandRouting HERE =
      new CommandRouting() {
        @Override
        public Optional<AccountOwner> ownerElsewhere(AccountCommand command) {
          return Optional.empty();
        }

        @Override
        public ReplicaCommands.Reply send(AccountOwner owner, byte[] command) {
          throw new IllegalStateException(
              "replica '"
                  + owner.replicaId()
                  + "' is not reachable from a replica that works alone");
        }
      };

  /** The live replica other than this one that must run {@code command}, or empty for this one. */
  Optional<AccountOwner> ownerElsewhere(AccountCommand command);

  /** Sends {@code command} (as JSON) to {@code owner} and returns its answer. */
  ReplicaCommands.Reply send(AccountOwner owner, byte[] command) throws InterruptedException;
}
