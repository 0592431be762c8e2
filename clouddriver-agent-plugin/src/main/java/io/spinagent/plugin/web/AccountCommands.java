package io.spinagent.plugin.web;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.common.util.concurrent.Striped;
import com.sun.net.httpserver.HttpExchange;
import io.spinagent.plugin.accounts.AccountRegistry;
import io.spinagent.plugin.accounts.AccountRequestException;
import io.spinagent.plugin.accounts.AccountState;
import io.spinagent.plugin.accounts.AccountStore;
import io.spinagent.plugin.accounts.DynamicAccountSpec;
import io.spinagent.plugin.accounts.DynamicAccounts;
import io.spinagent.plugin.accounts.DynamicAccounts.MigrationResult;
import io.spinagent.plugin.config.StartupPhases;
import io.spinagent.plugin.ha.AccountOwner;
import io.spinagent.plugin.ha.ReplicaCommands;
import io.spinagent.plugin.ha.ReplicaGroup;
import java.io.IOException;
import java.io.InputStream;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.locks.Lock;
import org.jooq.exception.DataAccessException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;
import org.springframework.http.HttpStatus;

/**
 * Runs the accounts API's commands, one account at a time, on the replica that can carry them out:
 * the one holding the stream of the account's agents. A command for an account (or an agent, or a
 * zone) whose stream another live replica holds is sent to that replica over its forwarding
 * endpoint, and its answer (status and body) is the caller's answer; a command that arrives that
 * way is run here and never forwarded again, so commands cannot loop between replicas. Which
 * replica that is, {@link CommandRouting} says: with one replica (or no shared secret), always this
 * one.
 */
public final class AccountCommands implements SmartLifecycle {

  private static final Logger log = LoggerFactory.getLogger(AccountCommands.class);
  private static final ObjectMapper JSON = new ObjectMapper();

  /** Room for the command's envelope around a body of at most the request limit. */
  private static final int ENVELOPE_BYTES = 4096;

  private final AccountViews views;
  private final DynamicAccounts dynamicAccounts;
  private final CommandRouting routing;
  private final ReplicaGroup replicas;
  private final String replicaId;
  private final long maxBodyBytes;
  private final Striped<Lock> accountLocks = Striped.lazyWeakLock(64);
  private volatile boolean running;

  public AccountCommands(
      AccountRegistry registry,
      AccountStore store,
      DynamicAccounts dynamicAccounts,
      CommandRouting routing,
      ReplicaGroup replicas,
      String replicaId,
      long maxBodyBytes) {
    this.views = new AccountViews(registry, store, replicaId);
    this.dynamicAccounts = dynamicAccounts;
    this.routing = routing;
    this.replicas = replicas;
    this.replicaId = replicaId;
    this.maxBodyBytes = maxBodyBytes;
  }

  /**
   * Runs {@code command} here, or on the replica holding its agents' stream. When that stream moved
   * to another replica while the command waited its turn here (an account switched on through
   * another replica meanwhile), the command goes there, once.
   */
  public Outcome run(AccountCommand command) {
    Optional<Outcome> sent = sendToOwner(command);
    if (sent.isPresent()) {
      return sent.get();
    }
    try {
      return runHereOrThrow(command);
    } catch (AccountRequestException e) {
      if (e.problem() == AccountRequestException.Problem.SERVED_ELSEWHERE) {
        Optional<Outcome> resent = sendToOwner(command);
        if (resent.isPresent()) {
          return resent.get();
        }
      }
      return Outcome.error(ApiErrors.statusOf(e.problem()), e.getMessage());
    }
  }

  /** The owning replica's answer to {@code command}, or empty when it is this replica's to run. */
  private Optional<Outcome> sendToOwner(AccountCommand command) {
    Optional<AccountOwner> owner;
    try {
      owner = routing.ownerElsewhere(command);
    } catch (RuntimeException e) {
      return Optional.of(
          Outcome.error(
              HttpStatus.SERVICE_UNAVAILABLE,
              "cannot look up which Clouddriver replica holds the agent's stream for account '"
                  + command.name()
                  + "' (database: "
                  + e.getMessage()
                  + ")"));
    }
    return owner.map(replica -> send(command, replica));
  }

  private Outcome send(AccountCommand command, AccountOwner owner) {
    log.info(
        "Account '{}': {} sent to Clouddriver replica '{}', which holds its agent's stream",
        command.name(),
        command.kind(),
        owner.replicaId());
    try {
      ReplicaCommands.Reply reply = routing.send(owner, JSON.writeValueAsBytes(command));
      if (reply.problem() != null) {
        return Outcome.error(HttpStatus.valueOf(reply.status()), reply.problem());
      }
      JsonNode body =
          reply.body() == null || reply.body().isBlank() ? null : JSON.readTree(reply.body());
      return new Outcome(reply.status(), body);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Outcome.error(
          HttpStatus.SERVICE_UNAVAILABLE, "interrupted while waiting for the owning replica");
    } catch (JsonProcessingException e) {
      return Outcome.error(
          HttpStatus.BAD_GATEWAY,
          "Clouddriver replica '"
              + owner.replicaId()
              + "' answered with a body that is not JSON: "
              + e.getOriginalMessage());
    }
  }

  /**
   * Runs {@code command} on this replica, whatever replica holds its agents' stream, after the
   * commands for the same account that came before it: each runs whole (the registry's change, the
   * agents told, the answer read back) before the next starts, so concurrent callers settle to the
   * last command and the agents hear the changes in that order.
   */
  Outcome runHere(AccountCommand command) {
    try {
      return runHereOrThrow(command);
    } catch (AccountRequestException e) {
      return Outcome.error(ApiErrors.statusOf(e.problem()), e.getMessage());
    }
  }

  private Outcome runHereOrThrow(AccountCommand command) {
    Lock lock = accountLocks.get(command.name());
    lock.lock();
    try {
      return switch (command.kind()) {
        case CREATE -> create(command);
        case CHANGE -> change(command);
        case DELETE -> delete(command);
        case MIGRATE -> migrate(command);
      };
    } catch (DataAccessException e) {
      // The shared table failed mid-command (a database restart or failover): the caller can try
      // again, and the agents and the registry settle to the command that succeeds.
      log.warn(
          "Account '{}': {} failed: spinagent_accounts cannot be read or written ({})",
          command.name(),
          command.kind(),
          e.getMessage());
      throw AccountRequestException.databaseUnreachable("account '" + command.name() + "': ", e);
    } finally {
      lock.unlock();
    }
  }

  private Outcome create(AccountCommand command) {
    DynamicAccountSpec spec = StrictJson.read(command.body(), DynamicAccountSpec.class, "");
    DynamicAccounts.Change created = dynamicAccounts.create(spec);
    AccountView view =
        views.find(spec.name()).orElseGet(() -> AccountView.of(created.account(), null, replicaId));
    if (created.awaitingAgents()) {
      // 202: stored, but its agents had not answered yet; GET shows the outcome once they do.
      return new Outcome(202, JSON.valueToTree(view));
    }
    // An agent accepted it: it is ACTIVATING until listed, even before its claim reaches here.
    boolean claimPending = AccountState.ORPHANED.name().equals(view.state());
    return new Outcome(
        201, JSON.valueToTree(claimPending ? view.inState(AccountState.ACTIVATING) : view));
  }

  /**
   * Either {@code {"state": "ACTIVE"|"INACTIVE"}}, which switches any account on or off, or a whole
   * new definition of a dynamic account (optionally with a state).
   */
  private Outcome change(AccountCommand command) {
    String name = command.name();
    if (!command.body().isObject()) {
      throw StrictJson.invalid("body: a JSON object is required");
    }
    ObjectNode fields = ((ObjectNode) command.body()).deepCopy();
    JsonNode state = fields.remove("state");
    boolean awaitingAgents = false;
    if (!fields.isEmpty()) {
      JsonNode given = fields.get("name");
      if (given != null && !name.equals(given.asText())) {
        throw StrictJson.invalid(
            "name: '"
                + given.asText()
                + "' differs from the account in the path ('"
                + name
                + "'); accounts cannot be renamed");
      }
      fields.put("name", name);
      DynamicAccountSpec spec = StrictJson.read(fields, DynamicAccountSpec.class, "");
      awaitingAgents = dynamicAccounts.update(spec).awaitingAgents();
    }
    if (state != null && !state.isNull()) {
      AccountState target = parseState(state.asText());
      if (target != AccountState.ACTIVE && target != AccountState.INACTIVE) {
        throw StrictJson.invalid("state: only ACTIVE or INACTIVE can be set, not " + target);
      }
      dynamicAccounts.setActive(name, target == AccountState.ACTIVE);
    } else if (fields.isEmpty()) {
      throw StrictJson.invalid(
          "body: give a state (ACTIVE or INACTIVE) or the account's new definition");
    }
    return new Outcome(
        awaitingAgents ? 202 : 200, views.find(name).<JsonNode>map(JSON::valueToTree).orElse(null));
  }

  private Outcome delete(AccountCommand command) {
    dynamicAccounts.delete(command.name());
    return new Outcome(204, null);
  }

  private Outcome migrate(AccountCommand command) {
    List<MigrationResult> results =
        dynamicAccounts.migrate(
            List.of(command.name()),
            command.agentId(),
            command.zoneId(),
            command.body().path("kubeconfigFile").asText(null));
    MigrationResult result = results.get(0);
    return new Outcome(result.migrated() ? 200 : 400, JSON.valueToTree(result));
  }

  static AccountState parseState(String value) {
    try {
      return AccountState.valueOf(value.toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw StrictJson.invalid(
          "state: '" + value + "' is not one of " + List.of(AccountState.values()));
    }
  }

  /** A command another replica forwarded: run here, never forwarded again. */
  private void serveForwarded(HttpExchange exchange) throws IOException {
    try (exchange) {
      Outcome outcome;
      if (!"POST".equals(exchange.getRequestMethod())) {
        outcome = Outcome.error(HttpStatus.METHOD_NOT_ALLOWED, "account commands are POSTed");
      } else {
        outcome = runForwarded(exchange.getRequestBody());
      }
      byte[] body = outcome.body() == null ? null : JSON.writeValueAsBytes(outcome.body());
      exchange.getResponseHeaders().set("Content-Type", "application/json");
      exchange.sendResponseHeaders(outcome.status(), body == null ? -1 : body.length);
      if (body != null) {
        exchange.getResponseBody().write(body);
      }
    }
  }

  private Outcome runForwarded(InputStream in) throws IOException {
    long limit = maxBodyBytes + ENVELOPE_BYTES;
    byte[] bytes = in.readNBytes((int) limit + 1);
    if (bytes.length > limit) {
      return Outcome.error(
          HttpStatus.PAYLOAD_TOO_LARGE, "a forwarded command is over " + limit + " bytes");
    }
    AccountCommand command;
    try {
      command = JSON.readValue(bytes, AccountCommand.class);
    } catch (IOException e) {
      return Outcome.error(
          HttpStatus.BAD_REQUEST, "a forwarded command that cannot be read: " + e.getMessage());
    }
    if (command == null || command.kind() == null || command.name() == null) {
      return Outcome.error(HttpStatus.BAD_REQUEST, "a forwarded command needs a kind and a name");
    }
    log.info(
        "Account '{}': {} forwarded by another Clouddriver replica",
        command.name(),
        command.kind());
    return runHere(command);
  }

  @Override
  public void start() {
    replicas.serveCommandsWith(this::serveForwarded);
    running = true;
  }

  @Override
  public void stop() {
    replicas.serveCommandsWith(null);
    running = false;
  }

  @Override
  public boolean isRunning() {
    return running;
  }

  /** After the forwarding endpoint is up ({@link StartupPhases#REPLICAS}), with the tunnel. */
  @Override
  public int getPhase() {
    return StartupPhases.TUNNEL;
  }

  /**
   * A command's answer, as the REST API gives it.
   *
   * @param body the answer's JSON body; null for none (204)
   */
  public record Outcome(int status, JsonNode body) {

    static Outcome error(HttpStatus status, String message) {
      return new Outcome(
          status.value(),
          JSON.valueToTree(
              new ApiErrors.ApiError(status.value(), status.getReasonPhrase(), message)));
    }
  }
}
