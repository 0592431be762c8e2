package io.spinagent.plugin.grpc;

import io.grpc.netty.shaded.io.grpc.netty.GrpcSslContexts;
import io.grpc.netty.shaded.io.netty.handler.ssl.ClientAuth;
import io.grpc.netty.shaded.io.netty.handler.ssl.SslContext;
import io.grpc.netty.shaded.io.netty.handler.ssl.SslContextBuilder;
import io.grpc.netty.shaded.io.netty.handler.ssl.SslProvider;
import io.grpc.util.AdvancedTlsX509KeyManager;
import io.grpc.util.AdvancedTlsX509TrustManager;
import io.spinagent.plugin.config.SpinAgentProperties;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The agent port's transport security, from {@code spinagent.grpc.security}. Certificate, key and
 * trust files are checked every {@code reloadInterval} and re-read when they change, so rotated
 * certificates take effect for new connections without a restart; a rotation that cannot be read
 * (say, a half-written key) is logged and the previous material stays in use.
 *
 * <p>The key and trust managers are gRPC's AdvancedTls ones, updated in place. Their own file
 * polling is not used: in grpc-java 1.68 it does not pick up rewritten files. The JDK's TLS engine
 * is used because the OpenSSL one caches key material per alias and would keep serving the old
 * certificate.
 */
final class ServerTls implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(ServerTls.class);

  /** Plaintext: no TLS context, nothing to reload. */
  static final ServerTls NONE = new ServerTls(null, null);

  private final SslContext sslContext;
  private final ScheduledFuture<?> reload;

  private ServerTls(SslContext sslContext, ScheduledFuture<?> reload) {
    this.sslContext = sslContext;
    this.reload = reload;
  }

  static ServerTls from(SpinAgentProperties.Security security, ScheduledExecutorService scheduler) {
    if (!security.isEnabled()) {
      if (security.getClientAuth() != SpinAgentProperties.ClientAuth.NONE) {
        throw new IllegalStateException(
            "spinagent.grpc.security.client-auth is "
                + security.getClientAuth()
                + " but spinagent.grpc.security.enabled is false: client certificates need TLS");
      }
      return NONE;
    }
    Path chain = required(security.getCertificateChain(), "certificate-chain");
    Path key = required(security.getPrivateKey(), "private-key");
    Path trust =
        security.getClientAuth() == SpinAgentProperties.ClientAuth.NONE
            ? null
            : required(security.getTrustCertCollection(), "trust-cert-collection");
    try {
      AdvancedTlsX509KeyManager keyManager = new AdvancedTlsX509KeyManager();
      keyManager.updateIdentityCredentials(chain.toFile(), key.toFile());
      SslContextBuilder builder = SslContextBuilder.forServer(keyManager);
      AdvancedTlsX509TrustManager trustManager = null;
      if (trust != null) {
        trustManager =
            AdvancedTlsX509TrustManager.newBuilder()
                // Agents are clients: their certificates name no host to verify.
                .setVerification(
                    AdvancedTlsX509TrustManager.Verification.CERTIFICATE_ONLY_VERIFICATION)
                .build();
        trustManager.updateTrustCredentials(trust.toFile());
        builder.trustManager(trustManager);
        builder.clientAuth(
            security.getClientAuth() == SpinAgentProperties.ClientAuth.REQUIRE
                ? ClientAuth.REQUIRE
                : ClientAuth.OPTIONAL);
      }
      SslContext context = GrpcSslContexts.configure(builder, SslProvider.JDK).build();
      Reloader reloader = new Reloader(chain, key, trust, keyManager, trustManager);
      long period = security.getReloadInterval().toMillis();
      return new ServerTls(
          context,
          scheduler.scheduleWithFixedDelay(
              reloader::reloadIfChanged, period, period, TimeUnit.MILLISECONDS));
    } catch (IOException | GeneralSecurityException e) {
      throw new IllegalStateException(
          "spinagent.grpc.security: cannot load TLS material (certificate-chain "
              + chain
              + ", private-key "
              + key
              + ", trust-cert-collection "
              + trust
              + "): "
              + e.getMessage(),
          e);
    }
  }

  /** The TLS context for the server, or null for plaintext. */
  SslContext sslContext() {
    return sslContext;
  }

  @Override
  public void close() {
    if (reload != null) {
      reload.cancel(false);
    }
  }

  private static Path required(Path path, String key) {
    if (path == null) {
      throw new IllegalStateException(
          "spinagent.grpc.security."
              + key
              + " is required when spinagent.grpc.security is enabled");
    }
    return path;
  }

  /** Re-reads the files whose modification time or size changed since the last read. */
  private static final class Reloader {
    private final Path chain;
    private final Path key;
    private final Path trust;
    private final AdvancedTlsX509KeyManager keyManager;
    private final AdvancedTlsX509TrustManager trustManager;
    private List<Object> identityVersion;
    private List<Object> trustVersion;

    Reloader(
        Path chain,
        Path key,
        Path trust,
        AdvancedTlsX509KeyManager keyManager,
        AdvancedTlsX509TrustManager trustManager) {
      this.chain = chain;
      this.key = key;
      this.trust = trust;
      this.keyManager = keyManager;
      this.trustManager = trustManager;
      this.identityVersion = version(chain, key);
      this.trustVersion = trust == null ? null : version(trust);
    }

    void reloadIfChanged() {
      List<Object> identity = version(chain, key);
      if (!identity.equals(identityVersion)) {
        try {
          keyManager.updateIdentityCredentials(chain.toFile(), key.toFile());
          identityVersion = identity;
          log.info("Reloaded the agent port's certificate from {} and {}", chain, key);
        } catch (IOException | GeneralSecurityException | RuntimeException e) {
          log.warn(
              "Cannot reload the agent port's certificate from {} and {}; keeping the previous one:"
                  + " {}",
              chain,
              key,
              e.toString());
        }
      }
      if (trust != null) {
        List<Object> trusted = version(trust);
        if (!trusted.equals(trustVersion)) {
          try {
            trustManager.updateTrustCredentials(trust.toFile());
            trustVersion = trusted;
            log.info("Reloaded trusted agent CAs from {}", trust);
          } catch (IOException | GeneralSecurityException | RuntimeException e) {
            log.warn(
                "Cannot reload trusted agent CAs from {}; keeping the previous ones: {}",
                trust,
                e.toString());
          }
        }
      }
    }

    private static List<Object> version(Path... files) {
      List<Object> version = new ArrayList<>();
      for (Path file : files) {
        try {
          version.add(Files.getLastModifiedTime(file));
          version.add(Files.size(file));
        } catch (IOException e) {
          version.add(e.getClass().getSimpleName());
        }
      }
      return version;
    }
  }
}
