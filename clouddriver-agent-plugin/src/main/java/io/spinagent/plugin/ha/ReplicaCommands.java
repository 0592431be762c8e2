package io.spinagent.plugin.ha;

import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;

/**
 * Sends an account command to the replica that holds its agent's stream, over that replica's
 * forwarding endpoint ({@link ForwardingEndpoint#COMMANDS_PATH}, the shared secret and replica TLS
 * as for tunnel requests), and returns the owner's answer as it gave it. The owner runs it and
 * never forwards it again.
 */
public final class ReplicaCommands {

  private final HttpClient client;
  private final String sharedSecret;
  private final Duration answerTimeout;
  private final MeterRegistry meters;

  /**
   * @param answerTimeout how long to wait for the owner's answer: the owner answers after at most
   *     {@code spinagent.accounts.command-timeout} itself, so this is a little longer
   */
  public ReplicaCommands(HaProperties properties, Duration answerTimeout, MeterRegistry meters) {
    this.client = ReplicaTls.httpClient(properties);
    this.sharedSecret = properties.getSharedSecret();
    this.answerTimeout = answerTimeout;
    this.meters = meters;
  }

  /**
   * The owner's answer to {@code command} (JSON), or a 503/504 answer naming the owner when it
   * cannot be reached or does not answer in time.
   */
  public Reply send(AccountOwner owner, byte[] command) throws InterruptedException {
    HttpRequest request =
        HttpRequest.newBuilder(URI.create(owner.forwardUrl() + ForwardingEndpoint.COMMANDS_PATH))
            .timeout(answerTimeout)
            .header("Content-Type", "application/json")
            .header(ForwardingEndpoint.SECRET_HEADER, sharedSecret)
            .POST(HttpRequest.BodyPublishers.ofByteArray(command))
            .build();
    try {
      HttpResponse<String> response = client.send(request, HttpResponse.BodyHandlers.ofString());
      count(Integer.toString(response.statusCode()));
      return new Reply(response.statusCode(), response.body(), null);
    } catch (HttpTimeoutException e) {
      count("timeout");
      return new Reply(
          504,
          null,
          "Clouddriver replica '"
              + owner.replicaId()
              + "' ("
              + owner.forwardUrl()
              + "), which holds the agent's stream, did not answer within "
              + answerTimeout.toSeconds()
              + "s; GET the account to see whether the command took effect");
    } catch (IOException e) {
      count("unreachable");
      return new Reply(
          503,
          null,
          "Clouddriver replica '"
              + owner.replicaId()
              + "' ("
              + owner.forwardUrl()
              + "), which holds the agent's stream, cannot be reached ("
              + e
              + "); its agent reconnects to another replica if it is gone");
    }
  }

  private void count(String outcome) {
    meters.counter("spinagent.ha.forwarded.commands", "outcome", outcome).increment();
  }

  /**
   * The owner's answer.
   *
   * @param body the owner's JSON body as it sent it (null when it sent none, or could not answer)
   * @param problem why the owner gave no answer (null when it did)
   */
  public record Reply(int status, String body, String problem) {}
}
