package io.spinagent.plugin.web;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.spinagent.plugin.accounts.AccountRegistry;
import io.spinagent.plugin.accounts.AccountRequestException;
import io.spinagent.plugin.accounts.AccountState;
import io.spinagent.plugin.accounts.AccountStore;
import io.spinagent.plugin.config.SpinAgentProperties;
import io.spinagent.plugin.identity.ReplicaIdentity;
import java.io.InputStream;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
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
 * mistyped field is a 400 naming it, never silently ignored. Every path answers with and without a
 * trailing slash, whatever the Spring line's matching does.
 */
@RestController
@RequestMapping(path = "/spinagent/accounts", produces = MediaType.APPLICATION_JSON_VALUE)
public class AccountsController extends ApiErrors {

  private static final int MAX_PAGE_SIZE = 500;

  private final AccountViews views;
  private final AccountCommands commands;
  private final long maxBodyBytes;

  public AccountsController(
      AccountRegistry registry,
      AccountStore store,
      AccountCommands commands,
      ReplicaIdentity replica,
      SpinAgentProperties properties) {
    this.views = new AccountViews(registry, store, replica.id());
    this.commands = commands;
    this.maxBodyBytes = properties.getAccounts().getMaxRequestBody().toBytes();
  }

  @GetMapping({"", "/"})
  public AccountPage list(
      @RequestParam(required = false) String state,
      @RequestParam(defaultValue = "0") int page,
      @RequestParam(defaultValue = "100") int size) {
    AccountState wanted = state == null ? null : AccountCommands.parseState(state);
    if (page < 0) {
      throw StrictJson.invalid("page: must be 0 or more");
    }
    if (size < 1 || size > MAX_PAGE_SIZE) {
      throw StrictJson.invalid("size: must be between 1 and " + MAX_PAGE_SIZE);
    }
    AccountViews.Page matching = views.page(wanted, (long) page * size, size);
    return new AccountPage(matching.views(), page, size, matching.total());
  }

  @GetMapping({"/{name}", "/{name}/"})
  public AccountView get(@PathVariable String name) {
    return views
        .find(name)
        .orElseThrow(
            () ->
                new AccountRequestException(
                    AccountRequestException.Problem.NOT_FOUND, "no account named '" + name + "'"));
  }

  @PostMapping(
      path = {"", "/"},
      consumes = MediaType.APPLICATION_JSON_VALUE)
  public ResponseEntity<JsonNode> create(InputStream body) {
    JsonNode spec = StrictJson.tree(StrictJson.body(body, maxBodyBytes), "a JSON object");
    JsonNode name = spec.get("name");
    AccountCommands.Outcome outcome =
        commands.run(
            new AccountCommand(
                AccountCommand.Kind.CREATE, name == null ? "" : name.asText(), spec));
    ResponseEntity.BodyBuilder answer = ResponseEntity.status(outcome.status());
    if (outcome.status() == 201 || outcome.status() == 202) {
      answer.location(URI.create("/spinagent/accounts/" + name.asText()));
    }
    return answer.body(outcome.body());
  }

  /**
   * Either {@code {"state": "ACTIVE"|"INACTIVE"}}, which switches any account on or off, or a whole
   * new definition of a dynamic account (optionally with a state).
   */
  @PutMapping(
      path = {"/{name}", "/{name}/"},
      consumes = MediaType.APPLICATION_JSON_VALUE)
  public ResponseEntity<JsonNode> update(@PathVariable String name, InputStream body) {
    JsonNode fields = StrictJson.tree(StrictJson.body(body, maxBodyBytes), "a JSON object");
    return answer(commands.run(new AccountCommand(AccountCommand.Kind.CHANGE, name, fields)));
  }

  @DeleteMapping({"/{name}", "/{name}/"})
  public ResponseEntity<JsonNode> delete(@PathVariable String name) {
    return answer(commands.run(new AccountCommand(AccountCommand.Kind.DELETE, name, null)));
  }

  /** Each account is migrated by the replica its agent is connected to; a result per account. */
  @PostMapping(
      path = {"/migrate", "/migrate/"},
      consumes = MediaType.APPLICATION_JSON_VALUE)
  public ResponseEntity<MigrationResponse> migrate(InputStream body) {
    MigrationRequest request =
        StrictJson.read(
            StrictJson.tree(StrictJson.body(body, maxBodyBytes), "a JSON object"),
            MigrationRequest.class,
            "");
    if (request.accounts() == null || request.accounts().isEmpty()) {
      throw StrictJson.invalid("accounts: list the names of the Clouddriver accounts to migrate");
    }
    ObjectNode target = JsonNodeFactory.instance.objectNode();
    target.put("agentId", request.agentId());
    target.put("zoneId", request.zoneId());
    List<JsonNode> results = new ArrayList<>();
    boolean any = false;
    for (String name : request.accounts()) {
      AccountCommands.Outcome outcome =
          commands.run(new AccountCommand(AccountCommand.Kind.MIGRATE, name, target));
      any |= outcome.status() == 200;
      results.add(migrationResult(name, outcome));
    }
    return ResponseEntity.status(any ? HttpStatus.OK.value() : HttpStatus.BAD_REQUEST.value())
        .body(new MigrationResponse(results));
  }

  /** A migration's result; a command that failed before migrating (e.g. 503) as a failed one. */
  static JsonNode migrationResult(String name, AccountCommands.Outcome outcome) {
    JsonNode body = outcome.body();
    if (body != null && body.has("migrated")) {
      return body;
    }
    ObjectNode failed = JsonNodeFactory.instance.objectNode();
    failed.put("name", name);
    failed.put("migrated", false);
    failed.put("error", body != null && body.has("message") ? body.get("message").asText() : null);
    return failed;
  }

  private static ResponseEntity<JsonNode> answer(AccountCommands.Outcome outcome) {
    return ResponseEntity.status(outcome.status()).body(outcome.body());
  }

  public record AccountPage(List<AccountView> accounts, int page, int size, int total) {}

  public record MigrationRequest(List<String> accounts, String agentId, String zoneId) {}

  public record MigrationResponse(List<JsonNode> results) {}
}
