package io.spinagent.host;

import java.io.IOException;

/**
 * The plugin's handling of a request to Clouddriver's {@code /credentials} (the account management
 * API), called by the host layer's servlet filter for every such request.
 */
@FunctionalInterface
public interface CredentialsHandler {

  /**
   * Handles {@code exchange}: answers it, or lets Clouddriver handle it, or both in turn. The
   * handler must do one of them before it returns.
   */
  void handle(CredentialsExchange exchange) throws IOException;
}
