package io.spinagent.plugin.accounts;

import static io.spinagent.plugin.accounts.AccountRequestException.invalid;

import io.spinagent.protocol.v1.Command;
import io.spinagent.protocol.v1.CommandResult;
import io.spinagent.protocol.v1.RemoveAccount;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends account commands to agents and tallies their answers: those within the wait decide the
 * request; later ones settle it when they come.
 */
final class AgentCommandPush {

  // Dynamic accounts log under one name, whichever part of them acts.
  private static final Logger log = LoggerFactory.getLogger(DynamicAccounts.class);

  private final Duration answerWait;

  AgentCommandPush(Duration answerWait) {
    this.answerWait = answerWait;
  }

  /**
   * Sends {@code command} to every agent and waits up to {@code answerWait} for their answers.
   * Refused by every agent that answered, with none left to answer, it fails with their reasons;
   * otherwise the caller learns whether some answers are still awaited.
   */
  Answers push(List<AgentLink> agents, String name, Command.Builder command) {
    List<CompletableFuture<CommandResult>> results =
        agents.stream().map(agent -> agent.command(command.clone())).toList();
    long deadline = System.nanoTime() + answerWait.toNanos();
    Tally now = new Tally();
    List<CompletableFuture<Void>> awaited = new ArrayList<>();
    Tally later = new Tally();
    for (int i = 0; i < agents.size(); i++) {
      String agent = agents.get(i).agentId();
      CompletableFuture<CommandResult> result = results.get(i);
      try {
        now.add(agent, result.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS));
      } catch (TimeoutException notYet) {
        awaited.add(result.handle((late, error) -> later.add(agent, late, error)));
      } catch (ExecutionException e) {
        now.add(agent, null, e.getCause());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AccountRequestException(
            AccountRequestException.Problem.UNAVAILABLE, "interrupted");
      }
    }
    if (now.accepted() == 0 && awaited.isEmpty()) {
      throw invalid("account '" + name + "' was refused: " + String.join("; ", now.refusals()));
    }
    if (!now.refusals().isEmpty()) {
      log.warn("Account '{}': some agents refused it: {}", name, now.refusals());
    }
    CompletableFuture<Tally> all =
        CompletableFuture.allOf(awaited.toArray(CompletableFuture[]::new))
            .thenApply(done -> later.plus(now));
    boolean accepted = now.accepted() > 0;
    if (accepted && !awaited.isEmpty()) {
      CompletableFuture<?> unused =
          all.thenRun(
              () -> {
                if (!later.refusals().isEmpty()) {
                  log.warn("Account '{}': some agents refused it: {}", name, later.refusals());
                }
              });
    }
    return new Answers(!accepted, all);
  }

  /** Tells {@code agent} to remove account {@code name}; a failure is logged. */
  static void removeFrom(AgentLink agent, String name) {
    // The callback logs a failed command and only logs: nothing is lost with the future.
    CompletableFuture<?> unused =
        agent
            .command(
                Command.newBuilder().setRemoveAccount(RemoveAccount.newBuilder().setName(name)))
            .whenComplete(
                (result, error) -> {
                  if (error != null || !result.getOk()) {
                    log.warn(
                        "Agent '{}' did not remove account '{}': {}",
                        agent.agentId(),
                        name,
                        error != null ? error.getMessage() : result.getError());
                  }
                });
  }

  /**
   * The agents' answers to a command.
   *
   * @param awaited none accepted within the wait, and some have still to answer
   * @param late all answers, once every agent answered (or disconnected)
   */
  record Answers(boolean awaited, CompletableFuture<Tally> late) {}

  /** Agents that accepted a command, and the reasons of those that did not. */
  static final class Tally {
    private int accepted;
    private final List<String> refusals = new ArrayList<>();

    synchronized Void add(String agent, CommandResult result, Throwable error) {
      if (error != null) {
        refusals.add("agent '" + agent + "': " + describe(error));
      } else if (result.getOk()) {
        accepted++;
      } else {
        refusals.add("agent '" + agent + "': " + result.getError());
      }
      return null;
    }

    void add(String agent, CommandResult result) {
      add(agent, result, null);
    }

    synchronized int accepted() {
      return accepted;
    }

    synchronized List<String> refusals() {
      return List.copyOf(refusals);
    }

    synchronized Tally plus(Tally other) {
      Tally sum = new Tally();
      sum.accepted = accepted + other.accepted();
      sum.refusals.addAll(refusals);
      sum.refusals.addAll(other.refusals());
      return sum;
    }

    private static String describe(Throwable error) {
      Throwable cause =
          error instanceof CompletionException && error.getCause() != null
              ? error.getCause()
              : error;
      return cause.getMessage() == null ? cause.toString() : cause.getMessage();
    }
  }
}
