package io.spinagent.agent.stream;

import io.grpc.CallCredentials;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.ConnectivityState;
import io.grpc.ForwardingClientCall;
import io.grpc.ForwardingClientCallListener;
import io.grpc.HttpConnectProxiedSocketAddress;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.ProxiedSocketAddress;
import io.grpc.ProxyDetector;
import io.grpc.Status;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.netty.handler.proxy.ProxyConnectException;
import io.spinagent.agent.config.ClouddriverConfig;
import io.spinagent.agent.config.ProxyEnvironment;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The agent's one gRPC channel to Clouddriver ({@code clouddriver.*}): transport security, bearer
 * token, keepalive and proxy. It does not make calls itself; {@link AgentStreamClient} opens the
 * stream on it and reopens it after failures.
 *
 * <p>The agent connects with {@link #open} (Netty, with everything configured); specs hand the
 * client a {@link Factory} built on {@link #over} with gRPC's in-process transport instead, as
 * grpc-java's examples do.
 */
public final class ClouddriverConnection implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(ClouddriverConnection.class);

  /**
   * Frames from the plugin are small (acks, decisions); 16 MiB leaves room for future commands
   * carrying kubeconfigs while still refusing a runaway frame.
   */
  static final int MAX_INBOUND_MESSAGE_BYTES = 16 << 20;

  /**
   * Opens the connection {@link AgentStreamClient} calls Clouddriver on, given the client's stream
   * thread: it runs gRPC's callbacks for the channel and re-reads certificate files.
   */
  @FunctionalInterface
  public interface Factory {
    ClouddriverConnection open(ScheduledExecutorService streamThread);
  }

  private final String target;
  private final ManagedChannel channel;
  private final Optional<ClientTls> tls;
  private final Optional<BearerTokenCredentials> token;

  private ClouddriverConnection(
      String target,
      ManagedChannel channel,
      Optional<ClientTls> tls,
      Optional<BearerTokenCredentials> token) {
    this.target = target;
    this.channel = channel;
    this.tls = tls;
    this.token = token;
  }

  /** The production connection: {@link #open} over Netty with the environment's proxy settings. */
  public static Factory netty(ClouddriverConfig config) {
    return streamThread -> open(config, streamThread, streamThread);
  }

  /**
   * A connection over a channel the caller chose the transport of (in specs, gRPC's in-process
   * one), with the settings every transport shares and no credentials.
   *
   * @param target what log lines call Clouddriver
   * @param callbackExecutor runs gRPC's callbacks for calls on this channel
   */
  public static ClouddriverConnection over(
      ManagedChannelBuilder<?> builder, String target, Executor callbackExecutor) {
    return new ClouddriverConnection(
        target, common(builder, callbackExecutor).build(), Optional.empty(), Optional.empty());
  }

  /** What the channel needs whatever carries it. */
  private static <T extends ManagedChannelBuilder<T>> T common(
      ManagedChannelBuilder<T> builder, Executor callbackExecutor) {
    return builder
        .executor(callbackExecutor)
        .maxInboundMessageSize(MAX_INBOUND_MESSAGE_BYTES)
        // The stream is reopened by AgentStreamClient with its own backoff; gRPC's retries
        // would resend frames behind its back.
        .disableRetry();
  }

  /**
   * Reads every file {@link #open} reads (the token file, the CA bundle, the client certificate and
   * key) as it reads them, and checks that a token command can be run, without connecting or
   * running it: what {@code --check} verifies.
   *
   * @return a problem per key at fault; empty when the connection can be set up
   */
  public static List<ChannelSetupException> checkFiles(ClouddriverConfig config) {
    List<ChannelSetupException> problems = new ArrayList<>();
    try {
      BearerTokenCredentials.from(config.auth()).ifPresent(BearerTokenCredentials::close);
    } catch (ChannelSetupException e) {
      problems.add(e);
    }
    problems.addAll(ClientTls.check(config));
    return problems;
  }

  /**
   * Builds the channel, with the proxy settings of the agent's environment; it connects lazily, at
   * the first call.
   *
   * @param callbackExecutor runs gRPC's callbacks for calls on this channel
   * @param fileReloader re-reads certificate, key and CA files
   * @throws ChannelSetupException naming the configuration key when a file cannot be used
   */
  public static ClouddriverConnection open(
      ClouddriverConfig config, Executor callbackExecutor, ScheduledExecutorService fileReloader) {
    return open(config, callbackExecutor, fileReloader, ProxyEnvironment.system());
  }

  /**
   * Builds the channel as {@link #open(ClouddriverConfig, Executor, ScheduledExecutorService)}
   * does, with the proxy variables given instead of the environment's.
   *
   * @param proxies the proxy variables to honour, unless {@code clouddriver.noProxy}
   */
  public static ClouddriverConnection open(
      ClouddriverConfig config,
      Executor callbackExecutor,
      ScheduledExecutorService fileReloader,
      ProxyEnvironment proxies) {
    Optional<BearerTokenCredentials> token = BearerTokenCredentials.from(config.auth());
    ClientTls tls;
    try {
      tls = ClientTls.from(config, fileReloader);
    } catch (RuntimeException e) {
      token.ifPresent(BearerTokenCredentials::close);
      throw e;
    }
    NettyChannelBuilder builder =
        common(
                NettyChannelBuilder.forAddress(
                    config.grpc().host(), config.grpc().port(), tls.credentials()),
                callbackExecutor)
            .intercept(new TlsFailureHint(config));
    if (config.keepAliveHeartbeatSeconds() > 0) {
      // Pings on an idle connection keep load balancers from dropping it, and an unanswered
      // ping ends a half-open connection within the timeout instead of the OS's TCP timeout.
      builder
          .keepAliveTime(config.keepAliveHeartbeatSeconds(), TimeUnit.SECONDS)
          .keepAliveTimeout(config.keepAliveTimeoutSeconds(), TimeUnit.SECONDS)
          .keepAliveWithoutCalls(true);
    }
    String proxied = proxy(builder, config, proxies);
    if (!config.insecure() && config.tls().serverName().isPresent()) {
      // The name checked in Clouddriver's certificate and sent as SNI.
      builder.overrideAuthority(config.tls().serverName().get() + ":" + config.grpc().port());
    }
    ManagedChannel channel = builder.build();
    log.info(
        "Connecting to Clouddriver at {} ({}{}{}{})",
        config.grpc(),
        config.insecure() ? "plaintext" : "TLS",
        config.insecure() || config.tls().serverName().isEmpty()
            ? ""
            : ", server name " + config.tls().serverName().get(),
        token.isPresent() ? ", bearer token" : "",
        proxied);
    return new ClouddriverConnection(config.grpc().toString(), channel, Optional.of(tls), token);
  }

  /**
   * Routes the channel through {@code HTTPS_PROXY} (HTTP CONNECT), as Armory Scale Agent's gRPC
   * connection does, unless {@code clouddriver.noProxy} or {@code NO_PROXY} says otherwise.
   *
   * @return how the connection is made, for the log
   */
  private static String proxy(
      NettyChannelBuilder builder, ClouddriverConfig config, ProxyEnvironment proxies) {
    if (config.noProxy()) {
      // Neither the variables nor the JVM's proxy settings.
      builder.proxyDetector(target -> null);
      return ", no proxy (clouddriver.noProxy)";
    }
    if (!proxies.isSet()) {
      return "";
    }
    Optional<ProxyEnvironment.Proxy> proxy;
    try {
      proxy = proxies.proxyFor("https", config.grpc().host(), config.grpc().port());
    } catch (IllegalArgumentException e) {
      throw new ChannelSetupException(
          "clouddriver.grpc",
          "cannot connect through the proxy: "
              + e.getMessage()
              + " (set clouddriver.noProxy: true to connect directly)",
          e);
    }
    builder.proxyDetector(new EnvironmentProxyDetector(proxy));
    proxy.ifPresent(p -> builder.intercept(new ProxyFailureHint(p, config.grpc().toString())));
    return proxy.map(p -> ", through proxy " + p.describe()).orElse(", not proxied (NO_PROXY)");
  }

  /** Answers gRPC's question with the proxy the environment names for Clouddriver. */
  private static final class EnvironmentProxyDetector implements ProxyDetector {

    private final Optional<ProxyEnvironment.Proxy> proxy;

    EnvironmentProxyDetector(Optional<ProxyEnvironment.Proxy> proxy) {
      this.proxy = proxy;
    }

    @Override
    public ProxiedSocketAddress proxyFor(SocketAddress target) {
      if (proxy.isEmpty() || !(target instanceof InetSocketAddress address)) {
        return null;
      }
      ProxyEnvironment.Proxy p = proxy.get();
      HttpConnectProxiedSocketAddress.Builder proxied =
          HttpConnectProxiedSocketAddress.newBuilder()
              // Clouddriver's name is resolved by the proxy, as with Go's HTTP CONNECT.
              .setTargetAddress(address)
              .setProxyAddress(new InetSocketAddress(p.host(), p.port()));
      p.username().ifPresent(proxied::setUsername);
      p.password().ifPresent(proxied::setPassword);
      return proxied.build();
    }
  }

  /** Rewrites the status a call ends with, to say what the operator needs to know about it. */
  abstract static class StatusHint implements ClientInterceptor {

    @Override
    public <Q, R> ClientCall<Q, R> interceptCall(
        MethodDescriptor<Q, R> method, CallOptions options, Channel next) {
      return new ForwardingClientCall.SimpleForwardingClientCall<>(next.newCall(method, options)) {
        @Override
        public void start(Listener<R> listener, Metadata headers) {
          super.start(
              new ForwardingClientCallListener.SimpleForwardingClientCallListener<>(listener) {
                @Override
                public void onClose(Status status, Metadata trailers) {
                  super.onClose(withHint(status), trailers);
                }
              },
              headers);
        }
      };
    }

    /** {@code status}, or a status that says more about the same failure. */
    abstract Status withHint(Status status);
  }

  /**
   * Names the proxy, and its answer, in the status of a call that failed to connect through it:
   * gRPC says only "io exception".
   */
  static final class ProxyFailureHint extends StatusHint {

    private final ProxyEnvironment.Proxy proxy;
    private final String target;

    ProxyFailureHint(ProxyEnvironment.Proxy proxy, String target) {
      this.proxy = proxy;
      this.target = target;
    }

    @Override
    Status withHint(Status status) {
      for (Throwable t = status.getCause(); t != null; t = t.getCause()) {
        if (t instanceof ProxyConnectException refused) {
          return Status.fromCode(status.getCode())
              .withDescription(describe(refused))
              .withCause(status.getCause());
        }
      }
      return status;
    }

    /**
     * Netty's message is {@code "http, basic, proxy => target, status: 407 Proxy Authentication
     * Required"}, or ends in what else went wrong ({@code timeout}, {@code disconnected}).
     */
    private String describe(ProxyConnectException refused) {
      String message = refused.getMessage() == null ? "" : refused.getMessage();
      int arrow = message.indexOf(" => ");
      int detail = arrow < 0 ? -1 : message.indexOf(", ", arrow);
      String what = detail < 0 ? message : message.substring(detail + 2);
      return what.startsWith("status: ")
          ? proxy.refusal(what.substring("status: ".length()), target)
          : "the proxy " + proxy.describe() + " failed to CONNECT " + target + ": " + what;
    }
  }

  /**
   * Adds what to do to the status of a call that failed in the TLS handshake. The most likely cause
   * with a file carried over from Armory Scale Agent: Armory's agent connected in plaintext unless
   * told otherwise, SpinAgent's uses TLS unless {@code clouddriver.insecure} is true.
   */
  static final class TlsFailureHint extends StatusHint {

    private final ClouddriverConfig config;

    TlsFailureHint(ClouddriverConfig config) {
      this.config = config;
    }

    @Override
    Status withHint(Status status) {
      if (config.insecure() || status.getCode() != Status.Code.UNAVAILABLE) {
        return status;
      }
      for (Throwable t = status.getCause(); t != null; t = t.getCause()) {
        if (t instanceof SSLException ssl) {
          return status.augmentDescription(hint(ssl));
        }
      }
      return status;
    }

    private String hint(SSLException cause) {
      String armory =
          "Armory Scale Agent (1.0.42 and later) connects in plaintext unless clouddriver.insecure"
              + " is false; SpinAgent connects with TLS unless clouddriver.insecure is true";
      // Netty's NotSslRecordException: the other end does not speak TLS at all.
      if (cause.getClass().getSimpleName().equals("NotSslRecordException")) {
        return "Clouddriver at "
            + config.grpc()
            + " did not answer the TLS handshake with TLS: its agent port is plaintext. Set"
            + " clouddriver.insecure: true, or enable TLS on the plugin"
            + " (spinagent.grpc.security.enabled). "
            + armory
            + ".";
      }
      return "The TLS handshake with Clouddriver at "
          + config.grpc()
          + " failed ("
          + cause.getMessage()
          + "). If its agent port is plaintext, set clouddriver.insecure: true ("
          + armory
          + "); otherwise check clouddriver.tls (cacertFile, serverName).";
    }
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
    return target;
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
    tls.ifPresent(ClientTls::close);
    token.ifPresent(BearerTokenCredentials::close);
  }
}
