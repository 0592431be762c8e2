package io.spinagent.plugin.web;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import io.spinagent.plugin.accounts.AccountRegistry;
import io.spinagent.plugin.accounts.AccountRequestException;
import io.spinagent.plugin.accounts.AccountState;
import io.spinagent.plugin.accounts.AccountTable;
import io.spinagent.plugin.accounts.AgentAccount;
import io.spinagent.plugin.accounts.DynamicAccountSpec;
import io.spinagent.plugin.accounts.DynamicAccounts;
import io.spinagent.plugin.accounts.DynamicAccounts.MigrationResult;
import io.spinagent.plugin.accounts.StoredAccount;
import io.spinagent.plugin.config.SpinAgentProperties;
import io.spinagent.plugin.identity.ReplicaIdentity;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import javax.servlet.http.HttpServletRequest;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code /spinagent/accounts}: the accounts agents serve, and the dynamic accounts operators
 * create, change, switch on and off, delete and migrate. Bodies are read strictly: an unknown or
 * mistyped field is a 400 naming it, never silently ignored.
 */
@RestController
@RequestMapping(path = "/spinagent/accounts", produces = MediaType.APPLICATION_JSON_VALUE)
public class AccountsController extends ApiErrors {

  private static final int MAX_PAGE_SIZE = 500;
  private static final ObjectMapper STRICT =
      new ObjectMapper()
          .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
          .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES);

  private final AccountRegistry registry;
  private final Optional<AccountTable> table;
  private final DynamicAccounts dynamicAccounts;
  private final ReplicaIdentity replica;
  private final long maxBodyBytes;

  public AccountsController(
      AccountRegistry registry,
      Optional<AccountTable> table,
      DynamicAccounts dynamicAccounts,
      ReplicaIdentity replica,
      SpinAgentProperties properties) {
    this.registry = registry;
    this.table = table;
    this.dynamicAccounts = dynamicAccounts;
    this.replica = replica;
    this.maxBodyBytes = properties.getAccounts().getMaxRequestBody().toBytes();
  }

  @GetMapping
  public AccountPage list(
      @RequestParam(required = false) String state,
      @RequestParam(defaultValue = "0") int page,
      @RequestParam(defaultValue = "100") int size) {
    AccountState wanted = state == null ? null : parseState(state, "state");
    if (page < 0) {
      throw new AccountRequestException(
          AccountRequestException.Problem.INVALID, "page: must be 0 or more");
    }
    if (size < 1 || size > MAX_PAGE_SIZE) {
      throw new AccountRequestException(
          AccountRequestException.Problem.INVALID, "size: must be between 1 and " + MAX_PAGE_SIZE);
    }
    Map<String, AccountView> views = new LinkedHashMap<>();
    if (table.isPresent()) {
      // Rows of other replicas come from the table; this replica's live state overlays its own.
      for (StoredAccount stored : table.get().all()) {
        views.put(
            stored.name(),
            AccountView.of(stored, registry.find(stored.name()).orElse(null), replica.id()));
      }
    }
    for (AgentAccount live : registry.all()) {
      views.putIfAbsent(live.name(), AccountView.of(null, live, replica.id()));
    }
    List<AccountView> matching =
        views.values().stream()
            .filter(
                v ->
                    wanted == null
                        ? !v.state().equals(AccountState.REMOVED.name())
                        : v.state().equals(wanted.name()))
            .sorted((a, b) -> a.name().compareTo(b.name()))
            .toList();
    int from = (int) Math.min((long) page * size, matching.size());
    int to = Math.min(from + size, matching.size());
    return new AccountPage(matching.subList(from, to), page, size, matching.size());
  }

  @GetMapping("/{name}")
  public AccountView get(@PathVariable String name) {
    return view(name)
        .orElseThrow(
            () ->
                new AccountRequestException(
                    AccountRequestException.Problem.NOT_FOUND, "no account named '" + name + "'"));
  }

  @PostMapping(consumes = MediaType.APPLICATION_JSON_VALUE)
  public ResponseEntity<AccountView> create(HttpServletRequest request) {
    DynamicAccountSpec spec = read(body(request), DynamicAccountSpec.class);
    DynamicAccounts.Change created = dynamicAccounts.create(spec);
    // 202: stored, but its agents had not answered yet; GET shows the outcome once they do.
    return ResponseEntity.status(
            created.awaitingAgents() ? HttpStatus.ACCEPTED : HttpStatus.CREATED)
        .location(URI.create("/spinagent/accounts/" + spec.name()))
        .body(AccountView.of(created.account(), null, replica.id()));
  }

  /**
   * Either {@code {"state": "ACTIVE"|"INACTIVE"}}, which switches any account on or off, or a whole
   * new definition of a dynamic account (optionally with a state).
   */
  @PutMapping(path = "/{name}", consumes = MediaType.APPLICATION_JSON_VALUE)
  public ResponseEntity<AccountView> update(@PathVariable String name, HttpServletRequest request) {
    Map<String, Object> fields = read(body(request), Map.class);
    Object state = fields.remove("state");
    boolean awaitingAgents = false;
    if (!fields.isEmpty()) {
      DynamicAccountSpec spec = read(json(withName(fields, name)), DynamicAccountSpec.class);
      awaitingAgents = dynamicAccounts.update(spec).awaitingAgents();
    }
    if (state != null) {
      AccountState target = parseState(String.valueOf(state), "state");
      if (target != AccountState.ACTIVE && target != AccountState.INACTIVE) {
        throw new AccountRequestException(
            AccountRequestException.Problem.INVALID,
            "state: only ACTIVE or INACTIVE can be set, not " + target);
      }
      dynamicAccounts.setActive(name, target == AccountState.ACTIVE);
    } else if (fields.isEmpty()) {
      throw new AccountRequestException(
          AccountRequestException.Problem.INVALID,
          "body: give a state (ACTIVE or INACTIVE) or the account's new definition");
    }
    return ResponseEntity.status(awaitingAgents ? HttpStatus.ACCEPTED : HttpStatus.OK)
        .body(get(name));
  }

  @DeleteMapping("/{name}")
  public ResponseEntity<Void> delete(@PathVariable String name) {
    dynamicAccounts.delete(name);
    return ResponseEntity.noContent().build();
  }

  @PostMapping(path = "/migrate", consumes = MediaType.APPLICATION_JSON_VALUE)
  public ResponseEntity<MigrationResponse> migrate(HttpServletRequest http) {
    MigrationRequest request = read(body(http), MigrationRequest.class);
    List<MigrationResult> results =
        dynamicAccounts.migrate(request.accounts(), request.agentId(), request.zoneId());
    boolean any = results.stream().anyMatch(MigrationResult::migrated);
    return ResponseEntity.status(any ? HttpStatus.OK : HttpStatus.BAD_REQUEST)
        .body(new MigrationResponse(results));
  }

  private Optional<AccountView> view(String name) {
    Optional<StoredAccount> stored = table.flatMap(t -> t.find(name));
    Optional<AgentAccount> live = registry.find(name);
    if (stored.isEmpty() && live.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(AccountView.of(stored.orElse(null), live.orElse(null), replica.id()));
  }

  private static Map<String, Object> withName(Map<String, Object> fields, String name) {
    Object given = fields.get("name");
    if (given != null && !name.equals(given)) {
      throw new AccountRequestException(
          AccountRequestException.Problem.INVALID,
          "name: '"
              + given
              + "' differs from the account in the path ('"
              + name
              + "'); accounts cannot be renamed");
    }
    Map<String, Object> copy = new LinkedHashMap<>(fields);
    copy.put("name", name);
    return copy;
  }

  private static String json(Map<String, Object> fields) {
    try {
      return STRICT.writeValueAsString(fields);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  private static AccountState parseState(String value, String field) {
    try {
      return AccountState.valueOf(value.toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw new AccountRequestException(
          AccountRequestException.Problem.INVALID,
          field + ": '" + value + "' is not one of " + List.of(AccountState.values()));
    }
  }

  @SuppressWarnings("unchecked")
  /**
   * The request's body, read only up to the limit: a client that declares or sends more gets a 413
   * before the plugin holds more than the limit of it.
   */
  private String body(HttpServletRequest request) {
    long declared = request.getContentLengthLong();
    if (declared > maxBodyBytes) {
      throw tooLarge(declared + " bytes");
    }
    try {
      byte[] bytes = request.getInputStream().readNBytes((int) maxBodyBytes + 1);
      if (bytes.length > maxBodyBytes) {
        throw tooLarge("more than " + maxBodyBytes + " bytes");
      }
      return new String(bytes, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new AccountRequestException(
          AccountRequestException.Problem.INVALID, "body: cannot be read: " + e.getMessage());
    }
  }

  private AccountRequestException tooLarge(String size) {
    return new AccountRequestException(
        AccountRequestException.Problem.TOO_LARGE,
        "body: "
            + size
            + " is over the limit of "
            + maxBodyBytes
            + " bytes (spinagent.accounts.max-request-body)");
  }

  private static <T> T read(String body, Class<?> type) {
    if (body == null || body.isBlank()) {
      throw new AccountRequestException(
          AccountRequestException.Problem.INVALID, "body: a JSON object is required");
    }
    try {
      T value = (T) STRICT.readValue(body, type);
      if (value == null) {
        throw new AccountRequestException(
            AccountRequestException.Problem.INVALID, "body: a JSON object is required, not null");
      }
      return value;
    } catch (UnrecognizedPropertyException e) {
      throw new AccountRequestException(
          AccountRequestException.Problem.INVALID,
          e.getPropertyName() + ": unknown field (known: " + e.getKnownPropertyIds() + ")");
    } catch (JsonProcessingException e) {
      String path =
          e instanceof com.fasterxml.jackson.databind.JsonMappingException mapping
                  && !mapping.getPath().isEmpty()
              ? fieldPath(mapping) + ": "
              : "body: ";
      throw new AccountRequestException(
          AccountRequestException.Problem.INVALID,
          path + "malformed JSON: " + e.getOriginalMessage());
    }
  }

  private static String fieldPath(com.fasterxml.jackson.databind.JsonMappingException e) {
    List<String> parts = new ArrayList<>();
    for (var reference : e.getPath()) {
      parts.add(
          reference.getFieldName() != null
              ? reference.getFieldName()
              : "[" + reference.getIndex() + "]");
    }
    return String.join(".", parts);
  }

  public record AccountPage(List<AccountView> accounts, int page, int size, int total) {}

  public record MigrationRequest(List<String> accounts, String agentId, String zoneId) {}

  public record MigrationResponse(List<MigrationResult> results) {}
}
