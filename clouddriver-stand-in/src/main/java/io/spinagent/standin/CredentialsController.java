package io.spinagent.standin;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.netflix.spinnaker.clouddriver.security.AccountDefinitionMapper;
import com.netflix.spinnaker.clouddriver.security.AccountDefinitionRepository;
import com.netflix.spinnaker.credentials.definition.CredentialsDefinition;
import com.netflix.spinnaker.credentials.definition.CredentialsDefinitionSource;
import io.spinagent.testkit.clouddriver.KubernetesAccountDefinition;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * Clouddriver's {@code /credentials}, as its {@code CredentialsController} and {@code
 * AccountDefinitionService} serve it (clouddriver-web is not on Maven Central): the accounts
 * Clouddriver has loaded, and the account storage API (POST creates, 400 when the account exists;
 * PUT saves; DELETE deletes), through Clouddriver's own {@link AccountDefinitionMapper}. Loaded
 * accounts are read from the Kubernetes account source at each request, as if Clouddriver's
 * credentials poller had just run. Fiat's checks are left out: the stand-in has no users, so {@code
 * /credentials/{account}/authorized} (Spinnaker 2026.3) answers as the plain details do. It records
 * the requests that reached it, so that a spec can tell what the plugin let through.
 */
@RestController
@RequestMapping(path = "/credentials", produces = MediaType.APPLICATION_JSON_VALUE)
public class CredentialsController {

  private static final ObjectMapper JSON = new ObjectMapper();

  private final CredentialsDefinitionSource<KubernetesAccountDefinition> loaded;
  private final Optional<AccountDefinitionRepository> storage;
  private final Optional<AccountDefinitionMapper> mapper;
  private final List<String> reached = Collections.synchronizedList(new ArrayList<>());

  public CredentialsController(
      CredentialsDefinitionSource<KubernetesAccountDefinition> kubernetesAccountSource,
      ObjectProvider<AccountDefinitionRepository> storage,
      ObjectProvider<AccountDefinitionMapper> mapper) {
    this.loaded = kubernetesAccountSource;
    this.storage = Optional.ofNullable(storage.getIfAvailable());
    this.mapper = Optional.ofNullable(mapper.getIfAvailable());
  }

  /** The methods of the requests that reached Clouddriver's handling, in order. */
  List<String> reached() {
    return List.copyOf(reached);
  }

  void forgetReached() {
    reached.clear();
  }

  @GetMapping
  public List<Map<String, Object>> list() {
    reached.add("GET");
    return loaded.getCredentialsDefinitions().stream().map(CredentialsController::summary).toList();
  }

  @GetMapping("/{account}")
  public ResponseEntity<Object> details(@PathVariable String account) {
    reached.add("GET");
    return loaded.getCredentialsDefinitions().stream()
        .filter(definition -> definition.getName().equals(account))
        .findFirst()
        .<ResponseEntity<Object>>map(definition -> ResponseEntity.ok(details(definition)))
        .orElseGet(() -> error(404, "Account does not exist (name: " + account + ")"));
  }

  @GetMapping("/{account}/authorized")
  public ResponseEntity<Object> authorizedDetails(@PathVariable String account) {
    return details(account);
  }

  @GetMapping("/type/{type}")
  public ResponseEntity<Object> listByType(@PathVariable String type) {
    reached.add("GET");
    if (storage.isEmpty()) {
      return storageOff();
    }
    return ResponseEntity.ok(storage.get().listByType(type));
  }

  @PostMapping(consumes = MediaType.APPLICATION_JSON_VALUE)
  public ResponseEntity<Object> create(@RequestBody String body) {
    reached.add("POST");
    if (storage.isEmpty()) {
      return storageOff();
    }
    CredentialsDefinition definition;
    try {
      definition = mapper.get().deserialize(body);
    } catch (Exception e) {
      return error(400, "cannot read the definition: " + e.getMessage());
    }
    if (storage.get().getByName(definition.getName()) != null) {
      return error(
          400,
          "Cannot create an account which already exists (name: " + definition.getName() + ")");
    }
    storage.get().create(definition);
    return stored(definition);
  }

  @PutMapping(consumes = MediaType.APPLICATION_JSON_VALUE)
  public ResponseEntity<Object> save(@RequestBody String body) {
    reached.add("PUT");
    if (storage.isEmpty()) {
      return storageOff();
    }
    CredentialsDefinition definition;
    try {
      definition = mapper.get().deserialize(body);
    } catch (Exception e) {
      return error(400, "cannot read the definition: " + e.getMessage());
    }
    storage.get().save(definition);
    return stored(definition);
  }

  @PutMapping(path = "/{account}", consumes = MediaType.APPLICATION_JSON_VALUE)
  public ResponseEntity<Object> update(@PathVariable String account, @RequestBody String body) {
    if (storage.isEmpty()) {
      reached.add("PUT");
      return storageOff();
    }
    String name;
    try {
      name = mapper.get().deserialize(body).getName();
    } catch (Exception e) {
      reached.add("PUT");
      return error(400, "cannot read the definition: " + e.getMessage());
    }
    if (!account.equals(name)) {
      reached.add("PUT");
      return error(
          400,
          "Mismatched account names. URI value: "
              + account
              + ". Request body value: "
              + name
              + ".");
    }
    return save(body);
  }

  @DeleteMapping("/{account}")
  public ResponseEntity<Object> delete(@PathVariable String account) {
    reached.add("DELETE");
    if (storage.isEmpty()) {
      return storageOff();
    }
    storage.get().delete(account);
    return ResponseEntity.ok().build();
  }

  private ResponseEntity<Object> stored(CredentialsDefinition definition) {
    try {
      return ResponseEntity.ok(JSON.readTree(mapper.get().serialize(definition)));
    } catch (Exception e) {
      return error(500, "cannot write the definition: " + e.getMessage());
    }
  }

  private static Map<String, Object> summary(KubernetesAccountDefinition definition) {
    Map<String, Object> summary = new LinkedHashMap<>();
    summary.put("name", definition.name);
    summary.put("type", "kubernetes");
    summary.put("environment", definition.environment);
    summary.put("accountType", definition.accountType);
    summary.put("permissions", definition.permissions);
    return summary;
  }

  private static Map<String, Object> details(KubernetesAccountDefinition definition) {
    Map<String, Object> details =
        JSON.convertValue(definition, new TypeReference<Map<String, Object>>() {});
    details.put("type", "kubernetes");
    return details;
  }

  private static ResponseEntity<Object> storageOff() {
    return error(
        400,
        "Cannot use AccountDefinitionService endpoints without enabling AccountDefinitionService"
            + " bean (account.storage.enabled)");
  }

  private static ResponseEntity<Object> error(int status, String message) {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("status", status);
    body.put("message", message);
    return ResponseEntity.status(status).contentType(MediaType.APPLICATION_JSON).body(body);
  }
}
