package io.spinagent.agent.stream;

import io.grpc.ChannelCredentials;
import io.grpc.InsecureChannelCredentials;
import io.grpc.TlsChannelCredentials;
import io.grpc.util.AdvancedTlsX509KeyManager;
import io.grpc.util.AdvancedTlsX509TrustManager;
import io.grpc.util.AdvancedTlsX509TrustManager.Verification;
import io.spinagent.agent.config.ClouddriverConfig;
import io.spinagent.agent.config.TlsConfig;
import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The transport credentials for the connection to Clouddriver, from {@code clouddriver.insecure}
 * and {@code clouddriver.tls.*}. Certificate, key and CA files are read now (so that a mistake
 * stops the agent at start-up, naming the key) and then re-read every minute, so rotated
 * certificates (cert-manager, mounted Secrets) take effect at the next reconnect without a restart.
 */
final class ClientTls implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(ClientTls.class);

  /**
   * Certificate, CA and key files are a few kilobytes; a bundle of every public CA is about 200
   * KiB. A larger file is the wrong file.
   */
  static final long MAX_PEM_BYTES = 1L << 20;

  /** How often the files are read again (grpc-java's minimum when it reads them itself). */
  private static final long RELOAD_MINUTES = 1;

  private final ChannelCredentials credentials;
  private final List<Closeable> reloaders;

  private ClientTls(ChannelCredentials credentials, List<Closeable> reloaders) {
    this.credentials = credentials;
    this.reloaders = reloaders;
  }

  static ClientTls from(ClouddriverConfig config, ScheduledExecutorService reloadExecutor) {
    if (config.insecure()) {
      log.warn(
          "clouddriver.insecure is true: the connection to Clouddriver at {} is plaintext{}",
          config.grpc(),
          config.auth().isConfigured() ? ", and the bearer token travels unencrypted" : "");
      return new ClientTls(InsecureChannelCredentials.create(), List.of());
    }
    TlsConfig tls = config.tls();
    List<Closeable> reloaders = new ArrayList<>();
    try {
      TlsChannelCredentials.Builder builder = TlsChannelCredentials.newBuilder();
      if (tls.insecureSkipVerify()) {
        log.warn(
            "clouddriver.tls.insecureSkipVerify is true: any certificate is accepted for"
                + " Clouddriver at {}; the connection is encrypted but not authenticated. Use it"
                + " for testing only.",
            config.grpc());
        builder.trustManager(
            AdvancedTlsX509TrustManager.newBuilder()
                .setVerification(Verification.INSECURELY_SKIP_ALL_VERIFICATION)
                .build());
      } else if (tls.cacertFile().isPresent()) {
        AdvancedTlsX509TrustManager trust =
            AdvancedTlsX509TrustManager.newBuilder()
                .setVerification(Verification.CERTIFICATE_AND_HOST_NAME_VERIFICATION)
                .build();
        ClientTrust cas = new ClientTrust(tls.cacertFile().get(), trust);
        cas.load();
        reloaders.add(cas.reloadEvery(RELOAD_MINUTES, TimeUnit.MINUTES, reloadExecutor));
        builder.trustManager(trust);
      }
      // Otherwise the JVM's default trust store, which TlsChannelCredentials uses when none is set.
      if (tls.clientCertFile().isPresent() != tls.clientKeyFile().isPresent()) {
        String missing =
            tls.clientCertFile().isPresent()
                ? "clouddriver.tls.clientKeyFile"
                : "clouddriver.tls.clientCertFile";
        throw new ChannelSetupException(
            missing,
            "is required for mutual TLS together with "
                + (tls.clientCertFile().isPresent()
                    ? "clouddriver.tls.clientCertFile"
                    : "clouddriver.tls.clientKeyFile"),
            null);
      }
      if (tls.clientCertFile().isPresent()) {
        Path certFile = tls.clientCertFile().get();
        Path keyFile = tls.clientKeyFile().get();
        checkReadable("clouddriver.tls.clientCertFile", certFile);
        checkReadable("clouddriver.tls.clientKeyFile", keyFile);
        AdvancedTlsX509KeyManager keys = new AdvancedTlsX509KeyManager();
        ClientIdentity identity =
            new ClientIdentity(certFile, keyFile, tls.clientKeyFilePassword(), keys);
        identity.load();
        reloaders.add(identity.reloadEvery(RELOAD_MINUTES, TimeUnit.MINUTES, reloadExecutor));
        builder.keyManager(keys);
      }
      return new ClientTls(builder.build(), reloaders);
    } catch (GeneralSecurityException e) {
      closeAll(reloaders);
      throw new ChannelSetupException("clouddriver.tls", "cannot set up TLS: " + e.getMessage(), e);
    } catch (RuntimeException e) {
      closeAll(reloaders);
      throw e;
    }
  }

  /**
   * Reads and parses each file {@link #from} reads (the CA bundle, the client certificate and its
   * key) as it reads them, keeping nothing and connecting nowhere: what {@code --check} verifies.
   *
   * @return a problem per key at fault
   */
  static List<ChannelSetupException> check(ClouddriverConfig config) {
    List<ChannelSetupException> problems = new ArrayList<>();
    TlsConfig tls = config.tls();
    if (config.insecure()) {
      return problems;
    }
    if (!tls.insecureSkipVerify() && tls.cacertFile().isPresent()) {
      try {
        AdvancedTlsX509TrustManager trust =
            AdvancedTlsX509TrustManager.newBuilder()
                .setVerification(Verification.CERTIFICATE_AND_HOST_NAME_VERIFICATION)
                .build();
        new ClientTrust(tls.cacertFile().get(), trust).load();
      } catch (ChannelSetupException e) {
        problems.add(e);
      } catch (GeneralSecurityException e) {
        problems.add(
            new ChannelSetupException(
                "clouddriver.tls", "cannot set up TLS: " + e.getMessage(), e));
      }
    }
    if (tls.clientCertFile().isPresent() && tls.clientKeyFile().isPresent()) {
      Path certFile = tls.clientCertFile().get();
      Path keyFile = tls.clientKeyFile().get();
      try {
        checkReadable("clouddriver.tls.clientCertFile", certFile);
        checkReadable("clouddriver.tls.clientKeyFile", keyFile);
        new ClientIdentity(
                certFile, keyFile, tls.clientKeyFilePassword(), new AdvancedTlsX509KeyManager())
            .load();
      } catch (ChannelSetupException e) {
        problems.add(e);
      }
    }
    return problems;
  }

  ChannelCredentials credentials() {
    return credentials;
  }

  /** Stops re-reading the files. */
  @Override
  public void close() {
    closeAll(reloaders);
  }

  private static void checkReadable(String key, Path file) {
    if (!Files.isReadable(file)) {
      throw new ChannelSetupException(
          key,
          "cannot read "
              + file
              + ": "
              + (Files.exists(file) ? "permission denied" : "no such file"),
          null);
    }
  }

  private static void closeAll(List<Closeable> closeables) {
    for (Closeable closeable : closeables) {
      try {
        closeable.close();
      } catch (IOException | RuntimeException e) {
        log.debug("Stopping a certificate reloader failed", e);
      }
    }
  }
}
