package io.spinagent.sandbox

import com.netflix.spinnaker.clouddriver.security.AccountDefinitionMapper
import com.netflix.spinnaker.clouddriver.security.AccountDefinitionRepository
import com.netflix.spinnaker.credentials.definition.CredentialsDefinition
import org.springframework.http.MediaType
import org.springframework.http.ResponseEntity
import org.springframework.web.bind.annotation.DeleteMapping
import org.springframework.web.bind.annotation.PathVariable
import org.springframework.web.bind.annotation.PostMapping
import org.springframework.web.bind.annotation.PutMapping
import org.springframework.web.bind.annotation.RequestBody
import org.springframework.web.bind.annotation.RequestMapping
import org.springframework.web.bind.annotation.RestController

/**
 * Clouddriver 5.90.0's Account Management API as its {@code CredentialsController} and {@code
 * AccountDefinitionService} serve it (clouddriver-web is not published, so the host cannot run the
 * real one): POST creates (400 when the account exists), PUT saves, DELETE deletes, each through
 * Clouddriver's own {@code AccountDefinitionMapper} and the account storage the plugin uses. Fiat's
 * checks are left out: the sandbox has no users. It counts the requests that reached it, so a spec
 * can tell what the plugin let through.
 */
@RestController
@RequestMapping('/credentials')
class CredentialsEndpoint {

  final AccountDefinitionRepository repository
  final AccountDefinitionMapper mapper
  final List<String> reached = Collections.synchronizedList([])

  CredentialsEndpoint(AccountDefinitionRepository repository, AccountDefinitionMapper mapper) {
    this.repository = repository
    this.mapper = mapper
  }

  @PostMapping
  ResponseEntity<String> create(@RequestBody String body) {
    reached << 'POST'
    CredentialsDefinition definition
    try {
      definition = mapper.deserialize(body)
    } catch (Exception e) {
      return error(400, "cannot read the definition: ${e.message}")
    }
    if (repository.getByName(definition.name) != null) {
      return error(400, "Cannot create an account which already exists (name: ${definition.name})")
    }
    repository.create(definition)
    ResponseEntity.ok().contentType(MediaType.APPLICATION_JSON).body(mapper.serialize(definition))
  }

  @PutMapping
  ResponseEntity<String> save(@RequestBody String body) {
    reached << 'PUT'
    def definition = mapper.deserialize(body)
    repository.save(definition)
    ResponseEntity.ok().contentType(MediaType.APPLICATION_JSON).body(mapper.serialize(definition))
  }

  @DeleteMapping('/{accountName}')
  void delete(@PathVariable String accountName) {
    reached << 'DELETE'
    repository.delete(accountName)
  }

  private static ResponseEntity<String> error(int status, String message) {
    ResponseEntity.status(status).contentType(MediaType.APPLICATION_JSON)
      .body(groovy.json.JsonOutput.toJson([status: status, message: message]))
  }
}
