package io.spinagent.agent.stream;

import io.grpc.util.AdvancedTlsX509TrustManager;
import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.cert.X509Certificate;
import java.util.Arrays;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The CA certificates trusted for Clouddriver's certificate ({@code clouddriver.tls.cacertFile}),
 * read from a PEM file of at most {@link ClientTls#MAX_PEM_BYTES} and handed to the trust manager;
 * read again periodically, so a rotated CA bundle is used for the next connection. (gRPC's own file
 * reloading would read a file of any size.)
 */
final class ClientTrust {

  private static final Logger log = LoggerFactory.getLogger(ClientTrust.class);

  static final String KEY = "clouddriver.tls.cacertFile";

  private final Path caFile;
  private final AdvancedTlsX509TrustManager trust;
  private byte[] loaded;

  ClientTrust(Path caFile, AdvancedTlsX509TrustManager trust) {
    this.caFile = caFile;
    this.trust = trust;
  }

  /**
   * Reads the file and hands its certificates to the trust manager.
   *
   * @throws ChannelSetupException naming the key, when the file cannot be read or holds no PEM
   *     certificate
   */
  synchronized void load() {
    byte[] pem = read(caFile);
    try {
      trust.updateTrustCredentials(certificates(caFile, pem));
    } catch (IOException | GeneralSecurityException e) {
      throw new ChannelSetupException(KEY, "cannot use " + caFile + ": " + e.getMessage(), e);
    }
    loaded = pem;
  }

  /** Re-reads the file every {@code period}; a file that cannot be used keeps the previous CAs. */
  Closeable reloadEvery(long period, TimeUnit unit, ScheduledExecutorService executor) {
    ScheduledFuture<?> task =
        executor.scheduleWithFixedDelay(this::reloadIfChanged, period, period, unit);
    return () -> task.cancel(false);
  }

  private synchronized void reloadIfChanged() {
    try {
      if (!Arrays.equals(read(caFile), loaded)) {
        load();
        log.info("Reloaded the CA certificates {}", caFile);
      }
    } catch (ChannelSetupException e) {
      log.warn("Keeping the previous CA certificates: {}", e.getMessage());
    }
  }

  private static byte[] read(Path file) {
    return PemFiles.read(KEY, file);
  }

  private static X509Certificate[] certificates(Path file, byte[] pem) {
    return PemFiles.certificates(KEY, file, pem, "CA certificates (PEM)");
  }
}
