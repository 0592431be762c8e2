package io.spinagent.agent.stream;

import io.grpc.CallCredentials;
import io.grpc.ConnectivityState;
import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.spinagent.agent.config.ClouddriverConfig;
import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The agent's one gRPC channel to Clouddriver ({@code clouddriver.*}): transport security, bearer
 * token and keepalive. It does not make calls itself; {@link AgentStreamClient} opens the stream on
 * it and reopens it after failures.
 */
public final class ClouddriverConnection implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(ClouddriverConnection.class);

  /**
   * Frames from the plugin are small (acks, decisions); 16 MiB leaves room for future commands
   * carrying kubeconfigs while still refusing a runaway frame.
   */
  static final int MAX_INBOUND_MESSAGE_BYTES = 16 << 20;

  private final ClouddriverConfig config;
  private final ManagedChannel channel;
  private final ClientTls tls;
  private final Optional<BearerTokenCredentials> token;

  private ClouddriverConnection(
      ClouddriverConfig config,
      ManagedChannel channel,
      ClientTls tls,
      Optional<BearerTokenCredentials> token) {
    this.config = config;
    this.channel = channel;
    this.tls = tls;
    this.token = token;
  }

  /**
   * Builds the channel; it connects lazily, at the first call.
   *
   * @param callbackExecutor runs gRPC's callbacks for calls on this channel
   * @param fileReloader re-reads certificate, key and CA files
   * @throws ChannelSetupException naming the configuration key when a file cannot be used
   */
  public static ClouddriverConnection open(
      ClouddriverConfig config, Executor callbackExecutor, ScheduledExecutorService fileReloader) {
    Optional<BearerTokenCredentials> token = BearerTokenCredentials.from(config.auth());
    ClientTls tls = ClientTls.from(config, fileReloader);
    NettyChannelBuilder builder =
        NettyChannelBuilder.forAddress(
                config.grpc().host(), config.grpc().port(), tls.credentials())
            .executor(callbackExecutor)
            .maxInboundMessageSize(MAX_INBOUND_MESSAGE_BYTES)
            // Pings on an idle connection keep load balancers from dropping it, and an unanswered
            // ping ends a half-open connection within the timeout instead of the OS's TCP timeout.
            .keepAliveTime(config.keepAliveHeartbeatSeconds(), TimeUnit.SECONDS)
            .keepAliveTimeout(config.keepAliveTimeoutSeconds(), TimeUnit.SECONDS)
            .keepAliveWithoutCalls(true)
            // The stream is reopened by AgentStreamClient with its own backoff; gRPC's retries
            // would resend frames behind its back.
            .disableRetry();
    if (!config.insecure() && config.tls().serverName().isPresent()) {
      // The name checked in Clouddriver's certificate and sent as SNI.
      builder.overrideAuthority(config.tls().serverName().get() + ":" + config.grpc().port());
    }
    ManagedChannel channel = builder.build();
    log.info(
        "Connecting to Clouddriver at {} ({}{}{})",
        config.grpc(),
        config.insecure() ? "plaintext" : "TLS",
        config.insecure() || config.tls().serverName().isEmpty()
            ? ""
            : ", server name " + config.tls().serverName().get(),
        token.isPresent() ? ", bearer token" : "");
    return new ClouddriverConnection(config, channel, tls, token);
  }

  public ManagedChannel channel() {
    return channel;
  }

  /** The bearer token as call credentials, when one is configured. */
  public Optional<CallCredentials> callCredentials() {
    return token.map(CallCredentials.class::cast);
  }

  /** {@code host:port} of Clouddriver, for log messages. */
  public String target() {
    return config.grpc().toString();
  }

  /**
   * Called before each attempt: gRPC keeps its own reconnect backoff for a failed transport, which
   * would otherwise make calls fail fast for up to two minutes regardless of {@code
   * clouddriver.backoff}.
   */
  void prepareAttempt() {
    if (channel.getState(false) == ConnectivityState.TRANSIENT_FAILURE) {
      channel.resetConnectBackoff();
    }
  }

  @Override
  public void close() {
    channel.shutdownNow();
    try {
      channel.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    tls.close();
  }
}
