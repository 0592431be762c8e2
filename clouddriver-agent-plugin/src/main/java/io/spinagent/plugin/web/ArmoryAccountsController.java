package io.spinagent.plugin.web;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.spinagent.plugin.accounts.AccountRegistry;
import io.spinagent.plugin.accounts.AccountRequestException;
import io.spinagent.plugin.accounts.AccountState;
import io.spinagent.plugin.accounts.AccountStore;
import io.spinagent.plugin.accounts.DynamicAccountSpec;
import io.spinagent.plugin.config.SpinAgentProperties;
import io.spinagent.plugin.identity.ReplicaIdentity;
import java.io.InputStream;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PatchMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * Armory Scale Agent's dynamic accounts API ({@code /armory/accounts…}, {@code
 * /agents/kubernetes/accounts/…}), so that scripts written for it work unchanged. Each account in a
 * request is one {@link AccountCommand}, run by the replica holding its agents' stream, exactly as
 * {@code /spinagent/accounts} runs it. Bodies are arrays of accounts (a single object is taken as
 * an array of one); a body with any bad element is refused as a whole, naming the element and
 * field, before any account is touched.
 *
 * <p>Past 500 lines because Armory's request checks and answer shapes (records below) are kept with
 * the endpoints that use them, where a reader comparing with Armory's documentation looks.
 */
@RestController
public class ArmoryAccountsController extends ApiErrors {

  private static final int MAX_LIMIT = 500;
  private static final ObjectMapper JSON = new ObjectMapper();

  /** The fields of an account in Armory's {@code PATCH /armory/accounts}. */
  private static final Set<String> PATCH_FIELDS = Set.of("name", "state", "zoneId");

  /** Armory's name of custom resources in a dynamic account (its agent's account key). */
  private static final String ARMORY_CUSTOM_RESOURCES = "customResourceDefinitions";

  /** Armory's fields of a custom resource, and the Clouddriver fields Armory's form lacks. */
  private static final Set<String> ARMORY_CUSTOM_RESOURCE_FIELDS =
      new LinkedHashSet<>(List.of("kind", "scope", "spinnakerKind", "deployPriority", "versioned"));

  /** The fields of an account in Armory's {@code POST /armory/accounts} (migration). */
  private static final Set<String> MIGRATE_FIELDS =
      Set.of("name", "zoneId", "agentId", "kubeconfigFile");

  private final AccountRegistry registry;
  private final AccountViews views;
  private final AccountCommands commands;
  private final long maxBodyBytes;
  private final int maxAccounts;

  public ArmoryAccountsController(
      AccountRegistry registry,
      AccountStore store,
      AccountCommands commands,
      ReplicaIdentity replica,
      SpinAgentProperties properties) {
    this.registry = registry;
    this.views = new AccountViews(registry, store, replica.id());
    this.commands = commands;
    this.maxBodyBytes = properties.getAccounts().getMaxRequestBody().toBytes();
    this.maxAccounts = properties.getAccounts().getMaxAccountsPerRequest();
  }

  /** Armory's listing: pages from 1, {@code limit} accounts per page, in name order. */
  @GetMapping(
      path = {"/armory/accounts", "/armory/accounts/"},
      produces = MediaType.APPLICATION_JSON_VALUE)
  public ArmoryPage list(
      @RequestParam(defaultValue = "1") int page, @RequestParam(defaultValue = "100") int limit) {
    if (page < 1) {
      throw StrictJson.invalid("page: must be 1 or more (Armory's pages start at 1)");
    }
    if (limit < 1 || limit > MAX_LIMIT) {
      throw StrictJson.invalid("limit: must be between 1 and " + MAX_LIMIT);
    }
    AccountViews.Page matching = views.page(null, (long) (page - 1) * limit, limit);
    return new ArmoryPage(
        matching.views().stream().map(ArmoryAccount::of).toList(), page, limit, matching.total());
  }

  @GetMapping(
      path = {"/armory/accounts/{name}", "/armory/accounts/{name}/"},
      produces = MediaType.APPLICATION_JSON_VALUE)
  public ArmoryAccount get(@PathVariable String name) {
    return ArmoryAccount.of(find(name));
  }

  /** Creates dynamic accounts; Armory's {@code POST /armory/accounts/dynamic}. */
  @PostMapping(
      path = {"/armory/accounts/dynamic", "/armory/accounts/dynamic/"},
      consumes = MediaType.APPLICATION_JSON_VALUE,
      produces = MediaType.APPLICATION_JSON_VALUE)
  public ResponseEntity<Results> create(InputStream body) {
    return run(commands(body, definitionCommand(AccountCommand.Kind.CREATE)));
  }

  /** New definitions of dynamic accounts; Armory's {@code PUT /armory/accounts/dynamic}. */
  @PutMapping(
      path = {"/armory/accounts/dynamic", "/armory/accounts/dynamic/"},
      consumes = MediaType.APPLICATION_JSON_VALUE,
      produces = MediaType.APPLICATION_JSON_VALUE)
  public ResponseEntity<Results> update(InputStream body) {
    return run(commands(body, definitionCommand(AccountCommand.Kind.CHANGE)));
  }

  /** An element of a create or update body: an account definition, as a command of {@code kind}. */
  private ItemCommand definitionCommand(AccountCommand.Kind kind) {
    return (item, i) -> new AccountCommand(kind, name(item, i), definition(item, i));
  }

  /** The command each element of an array body stands for, given the element and its index. */
  @FunctionalInterface
  private interface ItemCommand {
    AccountCommand of(JsonNode item, int index);
  }

  /** One command per element of the body (an array, or one object taken as an array of one). */
  private List<AccountCommand> commands(InputStream body, ItemCommand command) {
    List<AccountCommand> batch = new ArrayList<>();
    List<JsonNode> items = items(body);
    for (int i = 0; i < items.size(); i++) {
      batch.add(command.of(items.get(i), i));
    }
    return batch;
  }

  /**
   * Switches accounts on or off: {@code [{"name": …, "state": "ACTIVE"|"INACTIVE"}]}; Armory's
   * {@code PATCH /armory/accounts}.
   */
  @PatchMapping(
      path = {"/armory/accounts", "/armory/accounts/"},
      consumes = MediaType.APPLICATION_JSON_VALUE,
      produces = MediaType.APPLICATION_JSON_VALUE)
  public ResponseEntity<Results> setState(InputStream body) {
    return run(commands(body, this::stateCommand));
  }

  private AccountCommand stateCommand(JsonNode item, int i) {
    String name = name(item, i);
    onlyFields(item, PATCH_FIELDS, i);
    JsonNode state = item.get("state");
    if (state == null || !state.isTextual()) {
      throw StrictJson.invalid("[" + i + "].state: required, ACTIVE or INACTIVE");
    }
    AccountState target;
    try {
      target = AccountCommands.parseState(state.asText());
    } catch (AccountRequestException e) {
      throw StrictJson.invalid("[" + i + "]." + e.getMessage());
    }
    if (target != AccountState.ACTIVE && target != AccountState.INACTIVE) {
      throw StrictJson.invalid(
          "[" + i + "].state: only ACTIVE or INACTIVE can be set, not " + target);
    }
    requireSameZone(item, name, i);
    ObjectNode body = JsonNodeFactory.instance.objectNode().put("state", target.name());
    return new AccountCommand(AccountCommand.Kind.CHANGE, name, body);
  }

  /** Deletes accounts: {@code [{"name": …}]} (or plain names); Armory's {@code DELETE}. */
  @DeleteMapping(
      path = {"/armory/accounts", "/armory/accounts/"},
      consumes = MediaType.APPLICATION_JSON_VALUE,
      produces = MediaType.APPLICATION_JSON_VALUE)
  public ResponseEntity<Results> delete(InputStream body) {
    return run(
        commands(
            body,
            (item, i) -> {
              if (item.isTextual()) {
                return new AccountCommand(AccountCommand.Kind.DELETE, item.asText(), null);
              }
              String name = name(item, i);
              onlyFields(item, Set.of("name"), i);
              return new AccountCommand(AccountCommand.Kind.DELETE, name, null);
            }));
  }

  /**
   * Puts Clouddriver-managed accounts under agent management: {@code [{"name": …, "zoneId": …}]};
   * Armory's {@code POST /armory/accounts}.
   */
  @PostMapping(
      path = {"/armory/accounts", "/armory/accounts/"},
      consumes = MediaType.APPLICATION_JSON_VALUE,
      produces = MediaType.APPLICATION_JSON_VALUE)
  public ResponseEntity<Results> migrate(InputStream body) {
    return run(commands(body, this::migrateCommand));
  }

  private AccountCommand migrateCommand(JsonNode item, int i) {
    String name = name(item, i);
    JsonNode kubeconfigFile = item.get("kubeconfigFile");
    if (kubeconfigFile != null
        && (!kubeconfigFile.isTextual() || kubeconfigFile.asText().isBlank())) {
      throw StrictJson.invalid(
          "["
              + i
              + "].kubeconfigFile: a path on the agent's machine (the kubeconfig the agent uses"
              + " instead of the one in Clouddriver's definition)");
    }
    onlyFields(item, MIGRATE_FIELDS, i);
    requireTarget(item, i);
    return new AccountCommand(AccountCommand.Kind.MIGRATE, name, item);
  }

  /** Armory's view of an account its agents handle. */
  @GetMapping(
      path = {"/agents/kubernetes/accounts/{name}", "/agents/kubernetes/accounts/{name}/"},
      produces = MediaType.APPLICATION_JSON_VALUE)
  public AgentAccountView agentAccount(@PathVariable String name) {
    return AgentAccountView.of(find(name));
  }

  /**
   * The namespaces the account is limited to (empty: all namespaces); Armory's {@code GET
   * /agents/kubernetes/accounts/{name}/namespaces}.
   */
  @GetMapping(
      path = {
        "/agents/kubernetes/accounts/{name}/namespaces",
        "/agents/kubernetes/accounts/{name}/namespaces/"
      },
      produces = MediaType.APPLICATION_JSON_VALUE)
  public List<String> namespaces(@PathVariable String name) {
    AccountView account = find(name);
    if (account.definition() != null) {
      return account.definition().namespaces();
    }
    // An agent's own account: what its agent reported, to the replica it streams to.
    return registry
        .find(name)
        .filter(live -> live.reported() != null)
        .map(live -> List.copyOf(live.reported().getNamespacesList()))
        .orElse(List.of());
  }

  private AccountView find(String name) {
    return views
        .find(name)
        .orElseThrow(
            () ->
                new AccountRequestException(
                    AccountRequestException.Problem.NOT_FOUND, "no account named '" + name + "'"));
  }

  /** Runs each command in turn and answers for all of them (see docs/accounts.md). */
  private ResponseEntity<Results> run(List<AccountCommand> batch) {
    List<Result> results = new ArrayList<>();
    for (AccountCommand command : batch) {
      AccountCommands.Outcome outcome = commands.run(command);
      results.add(Result.of(command.name(), outcome));
    }
    boolean anyFailed = results.stream().anyMatch(r -> r.status() >= 300);
    boolean anySucceeded = results.stream().anyMatch(r -> r.status() < 300);
    int status;
    if (!anyFailed) {
      status = results.stream().anyMatch(r -> r.status() == 202) ? 202 : 200;
    } else if (anySucceeded) {
      status = 207;
    } else {
      status = results.get(0).status();
    }
    return ResponseEntity.status(status).body(new Results(results));
  }

  /** The body's accounts: an array (or one object), at most the configured number, names unique. */
  private List<JsonNode> items(InputStream request) {
    JsonNode body =
        StrictJson.tree(StrictJson.body(request, maxBodyBytes), "a JSON array of accounts");
    List<JsonNode> items = new ArrayList<>();
    if (body.isArray()) {
      body.forEach(items::add);
    } else if (body.isObject()) {
      items.add(body);
    } else {
      throw StrictJson.invalid("body: a JSON array of accounts is required");
    }
    if (items.isEmpty()) {
      throw StrictJson.invalid("body: the array names no account");
    }
    if (items.size() > maxAccounts) {
      throw StrictJson.invalid(
          "body: "
              + items.size()
              + " accounts is over the limit of "
              + maxAccounts
              + " per request (spinagent.accounts.max-accounts-per-request); send them in"
              + " several requests");
    }
    Set<String> names = new HashSet<>();
    for (int i = 0; i < items.size(); i++) {
      JsonNode item = items.get(i);
      String name = item.isTextual() ? item.asText() : item.path("name").asText(null);
      if (name != null && !names.add(name)) {
        throw StrictJson.invalid(
            "[" + i + "].name: '" + name + "' is named more than once in the request");
      }
    }
    return items;
  }

  private static String name(JsonNode item, int index) {
    if (!item.isObject()) {
      throw StrictJson.invalid("[" + index + "]: an account (a JSON object) is required");
    }
    JsonNode name = item.get("name");
    if (name == null || !name.isTextual() || name.asText().isBlank()) {
      throw StrictJson.invalid("[" + index + "].name: required");
    }
    return name.asText();
  }

  /**
   * An element as a definition of ours: Armory's list form of permissions ({@code [{"READ": [...]},
   * {"WRITE": [...]}]}) and its upper-case keys become ours, Armory's {@code
   * customResourceDefinitions} ({@code kind}, {@code scope}) join {@code customResources}; anything
   * else is read strictly, naming the element and field.
   */
  private static JsonNode definition(JsonNode item, int index) {
    name(item, index);
    ObjectNode definition = ((ObjectNode) item).deepCopy();
    JsonNode permissions = definition.get("permissions");
    if (permissions != null && !permissions.isNull()) {
      definition.set("permissions", permissions(permissions, index));
    }
    JsonNode armoryResources = definition.remove(ARMORY_CUSTOM_RESOURCES);
    if (armoryResources != null && !armoryResources.isNull()) {
      definition.set(
          "customResources",
          customResources(definition.get("customResources"), armoryResources, index));
    }
    StrictJson.read(definition, DynamicAccountSpec.class, "[" + index + "].");
    return definition;
  }

  /**
   * {@code customResources} with Armory's {@code customResourceDefinitions} after them, each
   * written in Clouddriver's form: {@code kind} as {@code kubernetesKind}, {@code scope} ({@code
   * Namespaced} or {@code Cluster}) as {@code namespaced}, and the Clouddriver fields Armory's form
   * lacks as they are.
   */
  private static ArrayNode customResources(JsonNode ours, JsonNode armory, int index) {
    String where = "[" + index + "]." + ARMORY_CUSTOM_RESOURCES;
    if (!armory.isArray()) {
      throw StrictJson.invalid(where + ": a list of custom resources ({\"kind\", \"scope\"})");
    }
    ArrayNode all = JsonNodeFactory.instance.arrayNode();
    if (ours != null && !ours.isNull()) {
      if (!ours.isArray()) {
        throw StrictJson.invalid("[" + index + "].customResources: a list of custom resources");
      }
      all.addAll((ArrayNode) ours);
    }
    for (int i = 0; i < armory.size(); i++) {
      JsonNode resource = armory.get(i);
      String at = where + "[" + i + "]";
      if (!resource.isObject()) {
        throw StrictJson.invalid(at + ": a custom resource ({\"kind\", \"scope\"}) is required");
      }
      onlyFields(resource, ARMORY_CUSTOM_RESOURCE_FIELDS, at + ".");
      if (!resource.path("kind").isTextual()) {
        throw StrictJson.invalid(at + ".kind: required, the kind as Kind.group");
      }
      ObjectNode converted = JsonNodeFactory.instance.objectNode();
      converted.set("kubernetesKind", resource.get("kind"));
      for (String field : List.of("spinnakerKind", "deployPriority", "versioned")) {
        if (resource.has(field)) {
          converted.set(field, resource.get(field));
        }
      }
      JsonNode scope = resource.get("scope");
      if (scope != null && !scope.isNull()) {
        String value = scope.asText().toLowerCase(Locale.ROOT);
        if (!scope.isTextual() || !(value.equals("namespaced") || value.equals("cluster"))) {
          throw StrictJson.invalid(at + ".scope: Namespaced or Cluster, not " + scope);
        }
        converted.put("namespaced", value.equals("namespaced"));
      }
      all.add(converted);
    }
    return all;
  }

  private static ObjectNode permissions(JsonNode given, int index) {
    List<Map.Entry<String, JsonNode>> entries = new ArrayList<>();
    if (given.isArray()) {
      for (JsonNode element : given) {
        if (!element.isObject() || element.size() != 1) {
          throw StrictJson.invalid(
              "["
                  + index
                  + "].permissions: each element is a map of one key, READ or WRITE, to roles");
        }
        element.fields().forEachRemaining(entries::add);
      }
    } else if (given.isObject()) {
      given.fields().forEachRemaining(entries::add);
    } else {
      throw StrictJson.invalid(
          "[" + index + "].permissions: a map of READ and WRITE to roles is required");
    }
    ObjectNode ours = JsonNodeFactory.instance.objectNode();
    for (Map.Entry<String, JsonNode> entry : entries) {
      String key = entry.getKey().toLowerCase(Locale.ROOT);
      if (!key.equals("read") && !key.equals("write")) {
        throw StrictJson.invalid(
            "["
                + index
                + "].permissions."
                + entry.getKey()
                + ": unknown permission (READ or WRITE)");
      }
      if (!entry.getValue().isArray()) {
        throw StrictJson.invalid(
            "[" + index + "].permissions." + entry.getKey() + ": a list of roles is required");
      }
      ArrayNode roles = ours.has(key) ? (ArrayNode) ours.get(key) : ours.putArray(key);
      roles.addAll((ArrayNode) entry.getValue());
    }
    return ours;
  }

  private static void onlyFields(JsonNode item, Set<String> known, int index) {
    onlyFields(item, known, "[" + index + "].");
  }

  private static void onlyFields(JsonNode item, Set<String> known, String where) {
    for (Iterator<String> fields = item.fieldNames(); fields.hasNext(); ) {
      String field = fields.next();
      if (!known.contains(field)) {
        throw StrictJson.invalid(where + field + ": unknown field (known: " + known + ")");
      }
    }
  }

  private static void requireTarget(JsonNode item, int index) {
    boolean agent = item.hasNonNull("agentId");
    boolean zone = item.hasNonNull("zoneId");
    if (agent == zone) {
      throw StrictJson.invalid(
          "["
              + index
              + "].zoneId: required (or agentId, not both): SpinAgent hands an account to the"
              + " agents of one zone, or to one agent; it does not pick agents on its own");
    }
  }

  /** Armory lets activation name the zone; here the zone is the account's, set when created. */
  private void requireSameZone(JsonNode item, String name, int index) {
    JsonNode zone = item.get("zoneId");
    if (zone == null || zone.isNull()) {
      return;
    }
    String current = views.find(name).map(AccountView::zoneId).orElse(null);
    if (!zone.asText().equals(current)) {
      throw StrictJson.invalid(
          "["
              + index
              + "].zoneId: '"
              + zone.asText()
              + "' is not the zone of account '"
              + name
              + "' ("
              + current
              + "); change an account's zone with PUT /armory/accounts/dynamic");
    }
  }

  /** Armory's page of accounts. */
  public record ArmoryPage(List<ArmoryAccount> items, int page, int limit, int total) {}

  /** The answer to a request naming accounts: one result per account, in request order. */
  public record Results(List<Result> accounts) {}

  /**
   * What became of one account of a request.
   *
   * @param status the HTTP status a request about this account alone would have had
   * @param account the account afterwards (for creates and changes)
   * @param error why it failed
   */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public record Result(String name, int status, JsonNode account, String error) {
    static Result of(String name, AccountCommands.Outcome outcome) {
      JsonNode body = outcome.body();
      if (outcome.status() >= 300) {
        String error =
            body == null
                ? null
                : body.has("message")
                    ? body.get("message").asText()
                    : body.has("error") ? body.get("error").asText() : body.toString();
        return new Result(name, outcome.status(), null, error);
      }
      return new Result(name, outcome.status(), body, null);
    }
  }

  /**
   * An account in Armory's shape: {@code source} is {@code static-agent-config} for accounts from
   * an agent's file and {@code clouddriver} for those created or migrated through the API.
   */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public record ArmoryAccount(
      String name,
      String type,
      String source,
      String state,
      JsonNode config,
      String zoneId,
      List<ArmoryAgent> agents,
      String lastAssignmentMsg) {

    static ArmoryAccount of(AccountView view) {
      List<ArmoryAgent> agents = new ArrayList<>();
      if (view.cachingAgent() != null) {
        agents.add(new ArmoryAgent(view.cachingAgent(), true));
      }
      if (view.standbyAgents() != null) {
        view.standbyAgents().forEach(agent -> agents.add(new ArmoryAgent(agent, false)));
      }
      ObjectNode config =
          view.definition() != null
              ? JSON.valueToTree(view.definition())
              : JsonNodeFactory.instance.objectNode().put("name", view.name());
      if (view.definition() == null && view.permissions() != null) {
        config.set("permissions", JSON.valueToTree(view.permissions()));
      }
      String message =
          view.lastError() != null
              ? view.lastError()
              : view.cachingAgent() != null ? "served by agent " + view.cachingAgent() : null;
      return new ArmoryAccount(
          view.name(),
          "kubernetes",
          "AGENT".equals(view.source()) ? "static-agent-config" : "clouddriver",
          view.state(),
          config,
          view.zoneId(),
          agents,
          message);
    }
  }

  /** An agent handling an account; {@code caching} for the one that streams it. */
  public record ArmoryAgent(String agentId, boolean caching) {}

  /** Armory's {@code /agents/kubernetes/accounts/{name}} shape. */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public record AgentAccountView(
      String name,
      String kubeHost,
      String certFingerprint,
      String kubeVersion,
      String zoneId,
      String status,
      boolean dynamic,
      String errorMessage,
      Long lastUpdated,
      Map<String, List<String>> permissions) {

    static AgentAccountView of(AccountView view) {
      AccountView.Cluster cluster = view.cluster();
      Map<String, List<String>> permissions =
          view.permissions() == null
              ? Map.of()
              : Map.of("READ", view.permissions().read(), "WRITE", view.permissions().write());
      String since = view.updatedAt() != null ? view.updatedAt() : view.stateSince();
      return new AgentAccountView(
          view.name(),
          cluster == null ? null : cluster.apiServerHost(),
          cluster == null ? null : cluster.caFingerprintSha256(),
          cluster == null ? null : cluster.kubernetesVersion(),
          view.zoneId(),
          view.state(),
          view.definition() != null,
          view.lastError(),
          since == null ? null : Instant.parse(since).toEpochMilli(),
          permissions);
    }
  }
}
