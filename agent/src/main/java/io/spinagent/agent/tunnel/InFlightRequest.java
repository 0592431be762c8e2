package io.spinagent.agent.tunnel;

import java.time.Instant;
import java.util.Objects;

/**
 * A Kubernetes API request Clouddriver relayed through this agent that has not finished yet, as the
 * admin endpoint's {@code /operations} shows it.
 *
 * @param id the request's stream id in the tunnel
 * @param account the account it is made for
 * @param method the HTTP method
 * @param verb the Kubernetes API verb (get, list, watch, create, patch, ...)
 * @param path the API path, without the query
 * @param received when the agent received it
 * @param running true once it is being performed; false while it waits for one of the account's
 *     {@code operations.maxConcurrentPerAccount} slots
 */
public record InFlightRequest(
    long id,
    String account,
    String method,
    String verb,
    String path,
    Instant received,
    boolean running) {

  public InFlightRequest {
    Objects.requireNonNull(account, "account");
    Objects.requireNonNull(method, "method");
    Objects.requireNonNull(verb, "verb");
    Objects.requireNonNull(path, "path");
    Objects.requireNonNull(received, "received");
  }
}
