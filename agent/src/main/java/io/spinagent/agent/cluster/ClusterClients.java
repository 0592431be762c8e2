package io.spinagent.agent.cluster;

import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.util.ClientBuilder;
import io.kubernetes.client.util.KubeConfig;
import io.spinagent.agent.config.KubernetesAccountConfig;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Optional;

/** Builds the Kubernetes client of an account from its credentials, and the CA it trusts. */
final class ClusterClients {

  /** Where Kubernetes mounts a pod's service account (token, CA, namespace). */
  static final Path SERVICE_ACCOUNT_DIR = Path.of("/var/run/secrets/kubernetes.io/serviceaccount");

  private ClusterClients() {}

  /** A client plus what identifies its cluster before any request is made. */
  record Connection(ApiClient client, String apiServerHost, String caFingerprintSha256) {}

  static Connection connect(KubernetesAccountConfig account, int timeoutSeconds)
      throws IOException {
    ApiClient client;
    byte[] ca;
    if (account.serviceAccount()) {
      client = ClientBuilder.cluster().setReadTimeout(Duration.ofSeconds(timeoutSeconds)).build();
      Path caFile = SERVICE_ACCOUNT_DIR.resolve("ca.crt");
      ca = Files.isReadable(caFile) ? Files.readAllBytes(caFile) : null;
    } else {
      String source =
          account.kubeconfigFile().map(file -> "kubeconfig " + file).orElse("kubeconfig contents");
      KubeConfig kubeConfig;
      try {
        kubeConfig = Kubeconfigs.load(account);
      } catch (Kubeconfigs.InvalidKubeconfigException e) {
        throw new IOException(source + ": " + e.getMessage(), e);
      }
      client =
          ClientBuilder.kubeconfig(kubeConfig)
              .setReadTimeout(Duration.ofSeconds(timeoutSeconds))
              .build();
      ca = caOf(kubeConfig, account.kubeconfigFile(), source);
    }
    return new Connection(client, hostOf(client.getBasePath()), fingerprint(ca));
  }

  /**
   * The CA named by the current context's cluster: inline data, or a file relative to the
   * kubeconfig file (to the working directory for kubeconfig contents).
   */
  private static byte[] caOf(KubeConfig kubeConfig, Optional<Path> kubeconfigFile, String source)
      throws IOException {
    String data = kubeConfig.getCertificateAuthorityData();
    if (data != null && !data.isBlank()) {
      try {
        return java.util.Base64.getMimeDecoder().decode(data.trim());
      } catch (IllegalArgumentException e) {
        throw new IOException(source + ": certificate-authority-data is not base64", e);
      }
    }
    String file = kubeConfig.getCertificateAuthorityFile();
    if (file != null && !file.isBlank()) {
      Path path = Path.of(file);
      Path parent = kubeconfigFile.map(f -> f.toAbsolutePath().getParent()).orElse(null);
      return Files.readAllBytes(path.isAbsolute() || parent == null ? path : parent.resolve(path));
    }
    return null;
  }

  static String hostOf(String basePath) {
    URI uri = URI.create(basePath);
    int port = uri.getPort();
    if (port < 0) {
      port = "http".equalsIgnoreCase(uri.getScheme()) ? 80 : 443;
    }
    return uri.getHost() + ":" + port;
  }

  /**
   * Lower-case hex SHA-256 of the DER encoding of the first certificate in {@code pem}; "" if none.
   */
  static String fingerprint(byte[] pem) throws IOException {
    if (pem == null || pem.length == 0) {
      return "";
    }
    try {
      X509Certificate certificate =
          (X509Certificate)
              CertificateFactory.getInstance("X.509")
                  .generateCertificate(new ByteArrayInputStream(pem));
      return HexFormat.of()
          .formatHex(MessageDigest.getInstance("SHA-256").digest(certificate.getEncoded()));
    } catch (CertificateException e) {
      throw new IOException("the cluster's CA certificate is not readable: " + e.getMessage(), e);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
