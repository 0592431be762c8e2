package io.spinagent.plugin.web;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.spinagent.common.Backoff;
import io.spinagent.host.CredentialsExchange;
import io.spinagent.host.CredentialsHandler;
import io.spinagent.plugin.accounts.AccountRequestException;
import io.spinagent.plugin.accounts.AccountState;
import io.spinagent.plugin.accounts.AccountStore;
import io.spinagent.plugin.accounts.ClouddriverAccountDefinitions;
import io.spinagent.plugin.accounts.MigrationTarget;
import io.spinagent.plugin.accounts.StoredAccount;
import io.spinagent.plugin.config.SpinAgentProperties;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.jooq.exception.DataAccessException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.HttpStatus;

/**
 * Armory's {@code kubesvc.dynamicAccounts.interceptor}: Kubernetes accounts written through
 * Clouddriver's Account Management API become agent accounts. It sits in front of Clouddriver's
 * {@code CredentialsController} (as the host layer's servlet filter) and lets Clouddriver do its
 * part first, so Clouddriver's own checks (Fiat's account-manager and write permissions, "already
 * exists", body validation) decide every request exactly as without SpinAgent:
 *
 * <ul>
 *   <li>{@code POST /credentials} with a {@code kubernetes} definition: once Clouddriver stored it,
 *       the account is migrated to the configured zone or agent (on the replica holding their
 *       stream). A migration that fails deletes the definition again and answers why, so the
 *       account is created under SpinAgent or not at all. So is {@code PUT /credentials} of a
 *       {@code kubernetes} account Clouddriver has no definition of: Clouddriver's PUT saves, so it
 *       creates the account.
 *   <li>{@code DELETE /credentials/{name}} of a dynamic SpinAgent account: once Clouddriver deleted
 *       the definition, the account is deleted from SpinAgent and its agents.
 *   <li>{@code PUT /credentials[/{name}]} and {@code DELETE /credentials/{name}} of an account of
 *       an agent's configuration answer 409: the agent's configuration is its authority.
 *   <li>{@code PUT /credentials[/{name}]} of a dynamic SpinAgent account changes the account as
 *       {@code PUT /spinagent/accounts/{name}} would ({@link KubernetesDefinitionChange} says which
 *       fields carry over), once Clouddriver's checks allowed the caller to change it.
 *       Clouddriver's stored definition stays the tunnel one: the body's kubeconfig goes to the
 *       agent, never to Clouddriver.
 * </ul>
 *
 * Any other request, other account types, and everything while off pass through untouched.
 */
public final class CredentialsInterceptor implements CredentialsHandler {

  private static final Logger log = LoggerFactory.getLogger(CredentialsInterceptor.class);
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String PATH = "/credentials";
  private static final String TYPE = "kubernetes";

  /**
   * Removing the definition of an account that could not be migrated is tried again for this long:
   * a migration fails mostly when something else does (a replica restarting, the database failing
   * over), and the definition left behind would have Clouddriver reach the cluster itself.
   */
  private static final Duration DELETE_RETRIES = Duration.ofSeconds(15);

  private static final Backoff DELETE_BACKOFF =
      Backoff.doubling(Duration.ofMillis(250), Duration.ofSeconds(4));

  private final boolean enabled;
  private final MigrationTarget target;
  private final AccountCommands commands;
  private final AccountStore store;
  private final Optional<ClouddriverAccountDefinitions> clouddriver;
  private final long maxBodyBytes;
  private final Duration deleteRetries;

  /**
   * @throws IllegalArgumentException when on without exactly one of zone-id and agent-id:
   *     Clouddriver does not start
   */
  public CredentialsInterceptor(
      SpinAgentProperties.CredentialsInterceptor settings,
      AccountCommands commands,
      AccountStore store,
      Optional<ClouddriverAccountDefinitions> clouddriver,
      long maxBodyBytes) {
    this(settings, commands, store, clouddriver, maxBodyBytes, DELETE_RETRIES);
  }

  /** As the public constructor, removing a definition left behind for {@code deleteRetries}. */
  CredentialsInterceptor(
      SpinAgentProperties.CredentialsInterceptor settings,
      AccountCommands commands,
      AccountStore store,
      Optional<ClouddriverAccountDefinitions> clouddriver,
      long maxBodyBytes,
      Duration deleteRetries) {
    this.enabled = settings.isEnabled();
    this.target =
        enabled
            ? MigrationTarget.of(
                "spinagent.accounts.credentials-interceptor (enabled)",
                settings.getZoneId(),
                settings.getAgentId(),
                "accounts created through /credentials")
            : null;
    this.commands = commands;
    this.store = store;
    this.clouddriver = clouddriver;
    this.maxBodyBytes = maxBodyBytes;
    this.deleteRetries = deleteRetries;
    if (enabled && clouddriver.isEmpty()) {
      log.warn(
          "spinagent.accounts.credentials-interceptor is enabled but Clouddriver's account storage"
              + " is off (account.storage.enabled): /credentials cannot store accounts, so none"
              + " are intercepted");
    }
  }

  @Override
  public void handle(CredentialsExchange exchange) throws IOException {
    String path = exchange.path();
    if (!enabled || clouddriver.isEmpty() || !(path.equals(PATH) || path.startsWith(PATH + "/"))) {
      exchange.passThrough(null);
      return;
    }
    String method = exchange.method();
    String tail = path.substring(PATH.length());
    try {
      if ("DELETE".equals(method) && tail.matches("/[^/]+")) {
        delete(tail.substring(1), exchange);
      } else if (("POST".equals(method) && tail.isEmpty())
          || ("PUT".equals(method) && (tail.isEmpty() || tail.matches("/[^/]+")))) {
        write(method, tail, exchange);
      } else {
        exchange.passThrough(null);
      }
    } catch (DataAccessException e) {
      // spinagent_accounts failed (a database restart or failover) outside an account command,
      // which answers 503 itself: nothing was answered yet, and the caller can try again.
      String message = AccountRequestException.databaseUnreachable("", e).getMessage();
      log.warn("{} {}: answered 503: {}", method, path, message);
      answer(exchange, HttpStatus.SERVICE_UNAVAILABLE, message);
    }
  }

  private void write(String method, String tail, CredentialsExchange exchange) throws IOException {
    if (!isJson(exchange.contentType())) {
      exchange.passThrough(null); // Clouddriver reads only JSON, and answers 415 itself
      return;
    }
    byte[] body = exchange.body((int) Math.min(maxBodyBytes, 1 << 30));
    if (body.length > maxBodyBytes) {
      answer(
          exchange,
          HttpStatus.PAYLOAD_TOO_LARGE,
          "an account definition is at most "
              + maxBodyBytes
              + " bytes (spinagent.accounts.max-request-body)");
      return;
    }
    JsonNode definition;
    try {
      StrictJson.requireDepth(new String(body, StandardCharsets.UTF_8));
      definition = JSON.readTree(body);
    } catch (AccountRequestException e) {
      answer(exchange, HttpStatus.BAD_REQUEST, e.getMessage());
      return;
    } catch (IOException e) {
      answer(
          exchange,
          HttpStatus.BAD_REQUEST,
          "body: not a JSON account definition: " + e.getMessage().lines().findFirst().orElse(""));
      return;
    }
    if (definition == null || !definition.isObject()) {
      answer(exchange, HttpStatus.BAD_REQUEST, "body: a JSON object (an account definition)");
      return;
    }
    if (!definition.has("type") && TYPE.equals(text(definition, "@type"))) {
      answer(
          exchange,
          HttpStatus.BAD_REQUEST,
          "type: Clouddriver reads an account's type from \"type\"; \"@type\" was the spelling of"
              + " its experimental API. Send \"type\": \"kubernetes\"");
      return;
    }
    if (!TYPE.equals(text(definition, "type"))) {
      exchange.passThrough(body); // not ours: Clouddriver's, untouched
      return;
    }
    String name = text(definition, "name");
    if (name == null || name.isBlank()) {
      answer(exchange, HttpStatus.BAD_REQUEST, "name: a kubernetes account needs a name");
      return;
    }
    if ("PUT".equals(method)) {
      Optional<StoredAccount> account = spinAgentAccount(name);
      if (account.isPresent() && account.get().definition() == null) {
        refuseAgentConfigured(account.get(), "changed", exchange);
      } else if (account.isPresent()) {
        update(tail, definition, account.get(), exchange);
      } else if (tail.isEmpty() && clouddriver.get().find(name).isEmpty()) {
        // Clouddriver's PUT /credentials saves: finding no definition, it creates the account,
        // which is then migrated as a POST's would be (or not created at all).
        create(name, body, exchange);
      } else {
        exchange.passThrough(body); // Clouddriver's own account: not migrated by a PUT
      }
      return;
    }
    create(name, body, exchange);
  }

  /**
   * A new Kubernetes account: Clouddriver checks and stores it, then it is migrated to the
   * configured zone or agent; if that fails, Clouddriver's definition is deleted again.
   */
  private void create(String name, byte[] body, CredentialsExchange exchange) throws IOException {
    CredentialsExchange.ClouddriverAnswer clouddrivers = exchange.handleByClouddriver(body);
    if (!isSuccess(clouddrivers.status())) {
      clouddrivers.send();
      return;
    }
    AccountCommands.Outcome outcome = commands.run(migration(name));
    if (isSuccess(outcome.status())) {
      log.info(
          "Account '{}' created through Clouddriver's /credentials: migrated to {}", name, target);
      clouddrivers.send();
      return;
    }
    String reason = reason(outcome);
    try {
      deleteDefinition(name);
    } catch (RuntimeException e) {
      log.error(
          "Account '{}': migrating it to {} failed ({}) and removing its Clouddriver definition"
              + " failed too; Clouddriver serves it directly until it is deleted",
          name,
          target,
          reason,
          e);
      answer(
          exchange,
          outcome.status(),
          "account '"
              + name
              + "' was stored by Clouddriver but could not be migrated to "
              + target
              + ": "
              + reason
              + "; removing it again failed too ("
              + e.getMessage()
              + "): delete it with DELETE /credentials/"
              + name);
      return;
    }
    log.warn(
        "Account '{}' created through Clouddriver's /credentials could not be migrated to {}, so"
            + " it was not created: {}",
        name,
        target,
        reason);
    answer(
        exchange,
        outcome.status(),
        "account '"
            + name
            + "' was not created: it could not be migrated to "
            + target
            + " (spinagent.accounts.credentials-interceptor): "
            + reason);
  }

  /**
   * A new definition of an account SpinAgent serves: Clouddriver's checks decide whether the caller
   * may change the account (its PUT is run with the definition it stores, the tunnel one, so that
   * nothing else is stored), then the change goes to the account's agents as {@code PUT
   * /spinagent/accounts/{name}} sends it, on the replica holding their stream.
   */
  private void update(
      String tail, JsonNode definition, StoredAccount account, CredentialsExchange exchange)
      throws IOException {
    String name = account.name();
    if (!tail.isEmpty() && !tail.substring(1).equals(name)) {
      answer(
          exchange,
          HttpStatus.BAD_REQUEST,
          "name: '"
              + name
              + "' differs from the account in the path ('"
              + tail.substring(1)
              + "')");
      return;
    }
    Optional<Map<String, Object>> stored = clouddriver.get().find(name);
    if (stored.isEmpty()) {
      answer(
          exchange,
          HttpStatus.CONFLICT,
          "account '"
              + name
              + "' has no Clouddriver definition now (state "
              + account.state()
              + "), so Clouddriver cannot check who may change it; change it with PUT"
              + " /spinagent/accounts/"
              + name);
      return;
    }
    ObjectNode change;
    try {
      change = KubernetesDefinitionChange.of(definition, account.definition(), stored.get());
    } catch (AccountRequestException e) {
      answer(exchange, ApiErrors.statusOf(e.problem()).value(), e.getMessage());
      return;
    }
    // A writer of the definition between this read and Clouddriver's save (the bridge, after an
    // agent's report) is overwritten with what it replaced; it writes again at the next report.
    // One the bridge removed meanwhile (the account switched off) is back until the bridge's next
    // definition check removes it again.
    CredentialsExchange.ClouddriverAnswer clouddrivers =
        exchange.handleByClouddriver(JSON.writeValueAsBytes(stored.get()));
    if (!isSuccess(clouddrivers.status())) {
      clouddrivers.send();
      return;
    }
    AccountCommands.Outcome outcome =
        commands.run(new AccountCommand(AccountCommand.Kind.CHANGE, name, change));
    if (!isSuccess(outcome.status())) {
      answer(
          exchange,
          outcome.status(),
          "account '"
              + name
              + "' was not changed: "
              + reason(outcome)
              + " (Clouddriver keeps its tunnel definition)");
      return;
    }
    log.info("Account '{}' changed through Clouddriver's /credentials", name);
    answer(exchange, outcome.status(), outcome.body());
  }

  private void delete(String name, CredentialsExchange exchange) throws IOException {
    Optional<StoredAccount> account = spinAgentAccount(name);
    if (account.isEmpty()) {
      exchange.passThrough(null);
      return;
    }
    if (account.get().definition() == null) {
      refuseAgentConfigured(account.get(), "deleted", exchange);
      return;
    }
    CredentialsExchange.ClouddriverAnswer clouddrivers = exchange.handleByClouddriver(null);
    if (!isSuccess(clouddrivers.status())) {
      clouddrivers.send();
      return;
    }
    AccountCommands.Outcome outcome =
        commands.run(new AccountCommand(AccountCommand.Kind.DELETE, name, null));
    if (isSuccess(outcome.status()) || outcome.status() == HttpStatus.NOT_FOUND.value()) {
      log.info("Account '{}' deleted through Clouddriver's /credentials", name);
      clouddrivers.send();
      return;
    }
    answer(
        exchange,
        outcome.status(),
        "Clouddriver deleted the definition of account '"
            + name
            + "', but SpinAgent could not delete the account: "
            + reason(outcome)
            + "; delete it with DELETE /spinagent/accounts/"
            + name);
  }

  /**
   * An account of an agent's configuration: its agent is the authority, so Clouddriver's checks are
   * not even asked. Changing or deleting the tunnel definition would break every deploy to the
   * account while SpinAgent still serves it.
   */
  private void refuseAgentConfigured(
      StoredAccount account, String verb, CredentialsExchange exchange) throws IOException {
    List<String> agents = new ArrayList<>();
    if (account.cachingAgent() != null) {
      agents.add(account.cachingAgent());
    }
    if (account.standbyAgents() != null) {
      agents.addAll(account.standbyAgents());
    }
    log.warn(
        "Refused to let /credentials change account '{}': it is in the configuration of agent(s)"
            + " {}",
        account.name(),
        agents);
    answer(
        exchange,
        HttpStatus.CONFLICT,
        "account '"
            + account.name()
            + "' is in the configuration of "
            + (agents.isEmpty() ? "an agent" : "agent(s) " + agents)
            + ", and its Clouddriver definition is SpinAgent's (through the tunnel), so it cannot"
            + " be "
            + verb
            + " here: change it in the agent's configuration, or switch it off with PUT"
            + " /spinagent/accounts/"
            + account.name()
            + " {\"state\": \"INACTIVE\"}");
  }

  /**
   * An account SpinAgent serves or has served, on any replica: a dynamic one (created through an
   * API or migrated, with a stored definition) or one of an agent's configuration (none).
   */
  private Optional<StoredAccount> spinAgentAccount(String name) {
    return store.find(name).filter(account -> account.state() != AccountState.REMOVED);
  }

  private AccountCommand migration(String name) {
    ObjectNode body = JsonNodeFactory.instance.objectNode();
    if (target.zoneId() != null) {
      body.put("zoneId", target.zoneId());
    } else {
      body.put("agentId", target.agentId());
    }
    return new AccountCommand(AccountCommand.Kind.MIGRATE, name, body);
  }

  /** The error an outcome's body carries: a migration result's or an API error's. */
  private static String reason(AccountCommands.Outcome outcome) {
    JsonNode body = outcome.body();
    if (body == null) {
      return "status " + outcome.status();
    }
    String error = text(body, "error");
    String message = text(body, "message");
    return message != null ? message : error != null ? error : body.toString();
  }

  /** {@code application/json}, with or without parameters, or a {@code +json} type. */
  private static boolean isJson(String contentType) {
    if (contentType == null) {
      return false;
    }
    String type = contentType.split(";", 2)[0].strip().toLowerCase(Locale.ROOT);
    return type.equals("application/json") || type.endsWith("+json");
  }

  private static boolean isSuccess(int status) {
    return status >= 200 && status < 300;
  }

  /** Answers with SpinAgent's error shape, in place of anything Clouddriver had answered. */
  private static void answer(CredentialsExchange exchange, HttpStatus status, String message)
      throws IOException {
    answer(exchange, status.value(), message);
  }

  private static void answer(CredentialsExchange exchange, int status, String message)
      throws IOException {
    HttpStatus known = HttpStatus.resolve(status);
    answer(
        exchange,
        status,
        JSON.valueToTree(
            new ApiErrors.ApiError(
                status, known == null ? "Error" : known.getReasonPhrase(), message)));
  }

  /** Answers {@code status} with {@code json}, in place of anything Clouddriver had answered. */
  private static void answer(CredentialsExchange exchange, int status, JsonNode json)
      throws IOException {
    exchange.answer(status, json == null ? new byte[0] : JSON.writeValueAsBytes(json));
  }

  private static String text(JsonNode node, String field) {
    JsonNode value = node.get(field);
    return value != null && value.isTextual() ? value.asText() : null;
  }

  /** Deletes Clouddriver's definition of {@code name}, trying again for {@code deleteRetries}. */
  private void deleteDefinition(String name) {
    long deadline = System.nanoTime() + deleteRetries.toNanos();
    for (int failures = 1; ; failures++) {
      try {
        clouddriver.get().delete(name);
        return;
      } catch (RuntimeException e) {
        Duration pause = DELETE_BACKOFF.delay(failures);
        if (System.nanoTime() + pause.toNanos() > deadline) {
          throw e;
        }
        log.warn(
            "Account '{}': removing its Clouddriver definition failed ({}); trying again in {} ms",
            name,
            e.getMessage(),
            pause.toMillis());
        try {
          Thread.sleep(pause.toMillis());
        } catch (InterruptedException interrupted) {
          Thread.currentThread().interrupt();
          throw e;
        }
      }
    }
  }
}
