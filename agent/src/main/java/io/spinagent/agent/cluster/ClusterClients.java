package io.spinagent.agent.cluster;

import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.util.ClientBuilder;
import io.kubernetes.client.util.KubeConfig;
import io.spinagent.agent.config.KubernetesAccountConfig;
import io.spinagent.agent.config.ProxyEnvironment;
import io.spinagent.agent.config.yaml.BoundedFiles;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Proxy;
import java.net.ProxySelector;
import java.net.SocketAddress;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import okhttp3.Credentials;
import okhttp3.HttpUrl;
import okhttp3.OkHttpClient;

/**
 * Builds the Kubernetes client of an account from its credentials, and the CA it trusts. Requests
 * go through the proxy the environment names ({@link ProxyEnvironment}) unless the account (or
 * {@code kubernetes.noProxy}) says {@code noProxy}.
 */
final class ClusterClients {

  /** Where Kubernetes mounts a pod's service account (token, CA, namespace). */
  static final Path SERVICE_ACCOUNT_DIR = Path.of("/var/run/secrets/kubernetes.io/serviceaccount");

  private ClusterClients() {}

  /** A client plus what identifies its cluster before any request is made. */
  record Connection(ApiClient client, String apiServerHost, String caFingerprintSha256) {}

  static Connection connect(KubernetesAccountConfig account, int timeoutSeconds)
      throws IOException {
    return connect(account, timeoutSeconds, ProxyEnvironment.system());
  }

  /**
   * @param timeoutSeconds read timeout of a request; 0 for none
   */
  static Connection connect(
      KubernetesAccountConfig account, int timeoutSeconds, ProxyEnvironment proxies)
      throws IOException {
    ApiClient client;
    byte[] ca;
    if (account.serviceAccount()) {
      ClientBuilder builder =
          ClientBuilder.cluster().setReadTimeout(Duration.ofSeconds(timeoutSeconds));
      if (account.insecure()) {
        builder.setVerifyingSsl(false);
      }
      client = builder.build();
      Path caFile = SERVICE_ACCOUNT_DIR.resolve("ca.crt");
      ca =
          Files.isReadable(caFile)
              ? BoundedFiles.read(caFile, Kubeconfigs.MAX_BYTES, "a certificate file")
              : null;
    } else {
      KubeConfig kubeConfig;
      try {
        kubeConfig = Kubeconfigs.load(account);
      } catch (Kubeconfigs.InvalidKubeconfigException e) {
        throw new IOException(e.describe(account), e);
      }
      ClientBuilder builder =
          ClientBuilder.kubeconfig(kubeConfig).setReadTimeout(Duration.ofSeconds(timeoutSeconds));
      if (account.insecure()) {
        // Only to switch verification off: a kubeconfig's insecure-skip-tls-verify stands.
        builder.setVerifyingSsl(false);
      }
      client = builder.build();
      ca = caOf(kubeConfig);
    }
    if (!account.noProxy()) {
      checkProxy(client.getBasePath(), proxies);
    }
    applyProxy(client, account.noProxy() ? null : proxies);
    return new Connection(client, hostOf(client.getBasePath()), fingerprint(ca));
  }

  /** A proxy variable that cannot be used fails the account now, naming the variable. */
  private static void checkProxy(String basePath, ProxyEnvironment proxies) throws IOException {
    URI uri = URI.create(basePath);
    int port = uri.getPort() >= 0 ? uri.getPort() : "http".equals(uri.getScheme()) ? 80 : 443;
    try {
      proxies.proxyFor(uri.getScheme(), uri.getHost(), port);
    } catch (IllegalArgumentException e) {
      throw new IOException(
          e.getMessage()
              + " (set noProxy: true on the account, or kubernetes.noProxy, to connect directly)",
          e);
    }
  }

  /**
   * Sends the client's requests through the proxy the environment names for them: {@code
   * HTTPS_PROXY} for an {@code https} API server, tunnelled with HTTP CONNECT. {@code proxies} null
   * means no proxy at all ({@code noProxy}); no proxy variable set leaves the client as it is.
   */
  static void applyProxy(ApiClient client, ProxyEnvironment proxies) {
    OkHttpClient.Builder http = client.getHttpClient().newBuilder();
    if (proxies == null) {
      http.proxy(Proxy.NO_PROXY);
    } else if (proxies.isSet()) {
      http.proxySelector(new EnvironmentProxySelector(proxies))
          .proxyAuthenticator(
              (route, response) -> {
                if (route == null || !(route.proxy().address() instanceof InetSocketAddress)) {
                  return null;
                }
                HttpUrl target = response.request().url();
                Optional<ProxyEnvironment.Proxy> proxy =
                    proxies.proxyFor(target.scheme(), target.host(), target.port());
                if (proxy.isEmpty()) {
                  return null;
                }
                // OkHttp asks first with a made-up 407, to send credentials with the first CONNECT.
                boolean preemptive =
                    "OkHttp-Preemptive".equals(response.header("Proxy-Authenticate"));
                if (!preemptive
                    && (response.request().header("Proxy-Authorization") != null
                        || proxy.get().username().isEmpty())) {
                  // The proxy refused: OkHttp's own message names neither the proxy nor its answer.
                  throw new IOException(
                      proxy
                          .get()
                          .refusal(
                              response.code() + " " + response.message(),
                              target.host() + ":" + target.port()));
                }
                if (proxy.get().username().isEmpty()) {
                  return null;
                }
                return response
                    .request()
                    .newBuilder()
                    .header(
                        "Proxy-Authorization",
                        Credentials.basic(
                            proxy.get().username().get(), proxy.get().password().orElse("")))
                    .build();
              });
    } else {
      return;
    }
    client.setHttpClient(http.build());
  }

  /** The proxy of each request's URL, as the environment names it. */
  private static final class EnvironmentProxySelector extends ProxySelector {

    private final ProxyEnvironment proxies;

    EnvironmentProxySelector(ProxyEnvironment proxies) {
      this.proxies = proxies;
    }

    @Override
    public List<Proxy> select(URI uri) {
      int port = uri.getPort() >= 0 ? uri.getPort() : "http".equals(uri.getScheme()) ? 80 : 443;
      // An unusable variable is an IllegalArgumentException naming it, which fails the request
      // and so the account (FAILED, with the message), not the agent.
      return proxies
          .proxyFor(uri.getScheme(), uri.getHost(), port)
          .map(
              p ->
                  List.of(
                      new Proxy(
                          Proxy.Type.HTTP, InetSocketAddress.createUnresolved(p.host(), p.port()))))
          .orElse(List.of(Proxy.NO_PROXY));
    }

    @Override
    public void connectFailed(URI uri, SocketAddress address, IOException e) {
      // The request fails and the account is retried; nothing to remember.
    }
  }

  /**
   * The CA of the current context's cluster, which {@link Kubeconfigs#load} has checked and put in
   * the kubeconfig as data when it named a file.
   */
  private static byte[] caOf(KubeConfig kubeConfig) {
    String data = kubeConfig.getCertificateAuthorityData();
    return data == null || data.isBlank() ? null : Base64.getMimeDecoder().decode(data.trim());
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
