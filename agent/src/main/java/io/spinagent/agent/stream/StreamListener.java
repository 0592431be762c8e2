package io.spinagent.agent.stream;

import io.grpc.Status;
import io.spinagent.protocol.v1.AccountDecision;
import io.spinagent.protocol.v1.Command;
import io.spinagent.protocol.v1.CommandResult;
import io.spinagent.protocol.v1.Kind;
import io.spinagent.protocol.v1.TunnelFrame;
import java.util.List;
import java.util.function.Consumer;

/**
 * What the rest of the agent learns from the stream. Called on the stream's own thread: an
 * implementation must return quickly and must not put into the {@link Outbox} from the callback (a
 * put may block until the stream, which is that thread, frees space). Hand work to another thread.
 */
public interface StreamListener {

  /** A session with Clouddriver was established (Welcome received). */
  default void connected(String replicaId, String sessionId) {}

  /**
   * A session with Clouddriver was established, speaking {@code protocolVersion}. Called before the
   * Welcome's account decisions are reported. By default calls {@link #connected(String, String)}.
   */
  default void connected(String replicaId, String sessionId, int protocolVersion) {
    connected(replicaId, sessionId);
  }

  /** The session ended or could not be established; the client reconnects by itself. */
  default void disconnected(Status status) {}

  /**
   * Clouddriver decided about an account: accepted or refused, caching or standby, and for caching
   * accounts whether to list everything again ({@code resync_required}) and where each kind may
   * resume ({@code resume_points}, protocol version 2).
   */
  default void accountDecided(AccountDecision decision) {}

  /**
   * Clouddriver needs a complete listing of every kind of {@code account} (this agent started
   * streaming it, took over from another replica, or reconnected to a version 1 plugin): for each
   * kind a BEGIN marker, every object, and an END marker. Called after {@link #accountDecided} of
   * the decision that asks for it.
   */
  default void resyncRequired(String account) {}

  /**
   * Protocol version 2: Clouddriver asks for a complete listing of {@code kinds} of {@code account}
   * (e.g. it saw the END of a listing whose BEGIN reached another replica).
   */
  default void resyncRequested(String account, List<Kind> kinds, String reason) {}

  /**
   * A frame of a Kubernetes API request Clouddriver relays through this agent (see {@link
   * AgentStreamClient#sendTunnel}). Must not block: hand the work to another thread.
   */
  default void tunnelFrame(TunnelFrame frame) {}

  /**
   * Clouddriver sent an account command (AddAccount, UpdateAccount, RemoveAccount). Must not block:
   * carry it out on another thread and hand its result to {@code reply}, from any thread. Without
   * an implementation, the command is refused.
   */
  default void accountCommand(Command command, Consumer<CommandResult> reply) {
    reply.accept(
        CommandResult.newBuilder()
            .setCommandId(command.getCommandId())
            .setOk(false)
            .setError("this agent does not serve dynamic accounts")
            .build());
  }
}
