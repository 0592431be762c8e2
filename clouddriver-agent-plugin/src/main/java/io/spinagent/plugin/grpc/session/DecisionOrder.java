package io.spinagent.plugin.grpc.session;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.spinagent.protocol.v1.AccountDecision;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * Keeps what an agent hears about its accounts in the order it was decided. A decision the registry
 * changes while one of the session's claims is decided but not yet answered waits for that answer:
 * sent before it, it would reach the agent first and be overwritten by the older answer (an account
 * switched on just as its claim was refused as switched off would stay refused at the agent while
 * the registry waits for it to stream).
 */
final class DecisionOrder {

  private final Consumer<AccountDecision> send;

  @GuardedBy("this")
  private int claimsUnanswered;

  @GuardedBy("this")
  private final List<AccountDecision> held = new ArrayList<>();

  DecisionOrder(Consumer<AccountDecision> send) {
    this.send = send;
  }

  /** A decision changed: sent now, or after the answers of the claims being decided. */
  synchronized void changed(AccountDecision decision) {
    if (claimsUnanswered > 0) {
      held.add(decision);
    } else {
      send.accept(decision);
    }
  }

  /**
   * Runs {@code claimAndAnswer}, which decides a claim and sends its answer; the decisions changed
   * meanwhile are sent after it, also when it throws.
   */
  void claim(Runnable claimAndAnswer) {
    synchronized (this) {
      claimsUnanswered++;
    }
    try {
      claimAndAnswer.run();
    } finally {
      answered();
    }
  }

  private synchronized void answered() {
    if (--claimsUnanswered == 0) {
      held.forEach(send);
      held.clear();
    }
  }
}
