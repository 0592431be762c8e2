package io.spinagent.testkit.kubernetes;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;

/**
 * Writes a kubeconfig for the test server that both the official Java client ({@code
 * Config.fromConfig}) and kubectl ({@code --kubeconfig}) read: server URL, the CA as
 * certificate-authority-data (HTTPS only), an optional bearer token, a context and its namespace.
 */
public final class KubeconfigWriter {

  /** Written when no token was chosen; anonymous access accepts any token. */
  public static final String PLACEHOLDER_TOKEN = "spinagent-testkit-anonymous";

  private final String serverUrl;
  private final String caCertificatePem;
  private String token;
  private String namespace = "default";
  private String name = "spinagent-testkit";

  public KubeconfigWriter(String serverUrl, String caCertificatePem) {
    this.serverUrl = serverUrl;
    this.caCertificatePem = caCertificatePem;
  }

  public static KubeconfigWriter forServer(KubernetesApiServer server) {
    return new KubeconfigWriter(server.url(), server.isHttps() ? server.caCertificatePem() : null);
  }

  public KubeconfigWriter token(String token) {
    this.token = token;
    return this;
  }

  public KubeconfigWriter namespace(String namespace) {
    this.namespace = namespace;
    return this;
  }

  /** Name of the cluster, user and context entries (and so the current context). */
  public KubeconfigWriter name(String name) {
    this.name = name;
    return this;
  }

  public String toYaml() {
    ObjectNode config = Json.object();
    config.put("apiVersion", "v1");
    config.put("kind", "Config");
    ObjectNode cluster =
        config.putArray("clusters").addObject().put("name", name).putObject("cluster");
    cluster.put("server", serverUrl);
    if (caCertificatePem != null) {
      cluster.put(
          "certificate-authority-data",
          Base64.getEncoder().encodeToString(caCertificatePem.getBytes(StandardCharsets.US_ASCII)));
    }
    ObjectNode user = config.putArray("users").addObject().put("name", name).putObject("user");
    // kubectl prompts for a user name when an HTTPS cluster's user has no credentials at all, so
    // without a
    // token of the test's choosing a placeholder goes in; while no token is registered it is
    // accepted.
    user.put("token", token != null ? token : PLACEHOLDER_TOKEN);
    ObjectNode context =
        config.putArray("contexts").addObject().put("name", name).putObject("context");
    context.put("cluster", name);
    context.put("user", name);
    if (namespace != null) {
      context.put("namespace", namespace);
    }
    config.put("current-context", name);
    config.putObject("preferences");
    try {
      return Json.YAML.writeValueAsString(config);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  public Path writeTo(Path file) {
    try {
      Path parent = file.toAbsolutePath().getParent();
      if (parent != null) {
        Files.createDirectories(parent);
      }
      Files.writeString(file, toYaml(), StandardCharsets.UTF_8);
      return file;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Writes to a new temporary file (the caller deletes it; it is also deleted when the JVM exits).
   */
  public Path writeTempFile() {
    try {
      Path file = Files.createTempFile("spinagent-kubeconfig-", ".yaml");
      file.toFile().deleteOnExit();
      return writeTo(file);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
