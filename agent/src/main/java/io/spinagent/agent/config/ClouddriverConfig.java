package io.spinagent.agent.config;

import java.util.Objects;

/**
 * The agent's one outbound connection to Clouddriver ({@code clouddriver.*}).
 *
 * @param grpc Clouddriver's gRPC endpoint for agents
 * @param insecure plaintext instead of TLS; for local sandboxes only
 * @param tls TLS settings, used unless {@code insecure}
 * @param auth the bearer token presented to the plugin, if any
 * @param keepAliveHeartbeatSeconds interval between gRPC keepalive pings on an idle connection; 0
 *     sends none
 * @param keepAliveTimeoutSeconds how long a ping may go unanswered before the connection is
 *     considered dead and re-established
 * @param backoff delays between reconnection attempts
 * @param outbox memory bound for changes not yet acknowledged by Clouddriver
 * @param noProxy connect directly even when proxy environment variables are set
 */
public record ClouddriverConfig(
    GrpcTarget grpc,
    boolean insecure,
    TlsConfig tls,
    AuthConfig auth,
    int keepAliveHeartbeatSeconds,
    int keepAliveTimeoutSeconds,
    BackoffConfig backoff,
    OutboxConfig outbox,
    boolean noProxy) {

  /** The Service name the Clouddriver plugin's documentation and manifests use. */
  public static final GrpcTarget DEFAULT_GRPC = new GrpcTarget("spin-clouddriver-grpc", 9091);

  /** Armory Scale Agent's default; below typical load balancer idle timeouts (60s and more). */
  public static final int DEFAULT_KEEP_ALIVE_HEARTBEAT_SECONDS = 20;

  /**
   * grpc-java's own default for an unanswered keepalive ping is 20s; half that notices loss sooner.
   */
  public static final int DEFAULT_KEEP_ALIVE_TIMEOUT_SECONDS = 10;

  /** grpc-go's default for an unanswered ping, which {@code keepAliveTimeoutSeconds: 0} means. */
  public static final int GRPC_DEFAULT_KEEP_ALIVE_TIMEOUT_SECONDS = 20;

  public ClouddriverConfig {
    Objects.requireNonNull(grpc, "grpc");
    Objects.requireNonNull(tls, "tls");
    Objects.requireNonNull(auth, "auth");
    Objects.requireNonNull(backoff, "backoff");
    Objects.requireNonNull(outbox, "outbox");
  }

  /** Honouring the proxy environment variables. */
  public ClouddriverConfig(
      GrpcTarget grpc,
      boolean insecure,
      TlsConfig tls,
      AuthConfig auth,
      int keepAliveHeartbeatSeconds,
      int keepAliveTimeoutSeconds,
      BackoffConfig backoff,
      OutboxConfig outbox) {
    this(
        grpc,
        insecure,
        tls,
        auth,
        keepAliveHeartbeatSeconds,
        keepAliveTimeoutSeconds,
        backoff,
        outbox,
        false);
  }
}
