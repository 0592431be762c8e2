package io.spinagent.agent.cluster;

import io.kubernetes.client.util.KubeConfig;
import io.spinagent.agent.cluster.Kubeconfigs.InvalidKubeconfigException;
import io.spinagent.agent.config.yaml.BoundedFiles;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.openssl.PEMKeyPair;
import org.bouncycastle.openssl.PEMParser;

/**
 * The files the selected context of a kubeconfig names (its cluster's {@code
 * certificate-authority}, its user's {@code client-certificate}, {@code client-key} and {@code
 * tokenFile}), read now with a size cap and checked, then put into the kubeconfig as data ({@code
 * certificate-authority-data}, ...). The Kubernetes client then never reads a file itself (it would
 * read {@code /dev/zero} until the heap is full), and what is wrong with one is said before
 * anything connects. Data written in the kubeconfig is checked the same way.
 */
final class KubeconfigFiles {

  /** A token is a line of a few kilobytes (a JWT); a file far larger is the wrong file. */
  static final long MAX_TOKEN_BYTES = 64L << 10;

  private KubeconfigFiles() {}

  /**
   * Reads and checks the files of the current context of {@code kubeConfig}, and puts them in it.
   *
   * @param baseDir where relative paths are resolved (the kubeconfig's directory), or null for the
   *     working directory
   */
  static void inline(KubeConfig kubeConfig, Path baseDir) throws InvalidKubeconfigException {
    Map<String, Object> context =
        entry(kubeConfig.getContexts(), kubeConfig.getCurrentContext(), "context");
    if (context == null) {
      return;
    }
    String clusterName = Objects.toString(context.get("cluster"), null);
    Map<String, Object> cluster = entry(kubeConfig.getClusters(), clusterName, "cluster");
    if (cluster != null) {
      inline(
          cluster,
          "certificate-authority",
          "cluster '" + clusterName + "'",
          Pem.CERTIFICATES,
          baseDir);
    }
    String userName = Objects.toString(context.get("user"), null);
    Map<String, Object> user = entry(kubeConfig.getUsers(), userName, "user");
    if (user != null) {
      String where = "user '" + userName + "'";
      inline(user, "client-certificate", where, Pem.CERTIFICATES, baseDir);
      inline(user, "client-key", where, Pem.PRIVATE_KEY, baseDir);
      // The client reads tokenFile only when nothing before it in its order gives credentials.
      if (!user.containsKey("auth-provider")
          && !user.containsKey("exec")
          && !user.containsKey("token")
          && user.get("tokenFile") instanceof String tokenFile) {
        byte[] content =
            read(tokenFile, "tokenFile", where, "a token file", MAX_TOKEN_BYTES, baseDir);
        // A mounted Secret or an `echo` ends with a newline that is not part of the token.
        String token = new String(content, StandardCharsets.UTF_8).strip();
        if (token.isEmpty()) {
          throw new InvalidKubeconfigException(
              "tokenFile of " + where + ": " + tokenFile + " is empty", null);
        }
        user.put("token", token);
        user.remove("tokenFile");
      }
    }
  }

  /** What a PEM file or data must hold. */
  private enum Pem {
    CERTIFICATES("a PEM certificate") {
      @Override
      boolean holds(byte[] pem) {
        try {
          return !CertificateFactory.getInstance("X.509")
              .generateCertificates(new ByteArrayInputStream(pem))
              .isEmpty();
        } catch (CertificateException e) {
          return false;
        }
      }
    },
    PRIVATE_KEY("a PEM private key (PKCS#8, PKCS#1 or SEC 1, not encrypted)") {
      @Override
      boolean holds(byte[] pem) {
        try (PEMParser parser =
            new PEMParser(new StringReader(new String(pem, StandardCharsets.US_ASCII)))) {
          Object parsed = parser.readObject();
          return parsed instanceof PEMKeyPair || parsed instanceof PrivateKeyInfo;
        } catch (IOException | RuntimeException e) {
          return false;
        }
      }
    };

    final String description;

    Pem(String description) {
      this.description = description;
    }

    abstract boolean holds(byte[] pem);
  }

  /**
   * Checks {@code <key>-data}, or reads the file {@code <key>} names into it; the client prefers
   * the data when both are set.
   */
  private static void inline(
      Map<String, Object> section, String key, String where, Pem expected, Path baseDir)
      throws InvalidKubeconfigException {
    String dataKey = key + "-data";
    if (section.get(dataKey) instanceof String data && !data.isBlank()) {
      byte[] decoded;
      try {
        decoded = Base64.getMimeDecoder().decode(data.trim());
      } catch (IllegalArgumentException e) {
        throw new InvalidKubeconfigException(dataKey + " of " + where + " is not base64", e);
      }
      if (!expected.holds(decoded)) {
        throw new InvalidKubeconfigException(
            dataKey + " of " + where + " is not " + expected.description, null);
      }
      return;
    }
    if (!(section.get(key) instanceof String file) || file.isBlank()) {
      return;
    }
    byte[] content =
        read(file, key, where, "a certificate or key file", Kubeconfigs.MAX_BYTES, baseDir);
    if (!expected.holds(content)) {
      throw new InvalidKubeconfigException(
          key + " of " + where + ": " + file + " is not " + expected.description, null);
    }
    section.put(dataKey, Base64.getEncoder().encodeToString(content));
    section.remove(key);
  }

  private static byte[] read(
      String written, String key, String where, String what, long limit, Path baseDir)
      throws InvalidKubeconfigException {
    Path file;
    try {
      file = baseDir == null ? Path.of(written) : baseDir.resolve(written);
    } catch (InvalidPathException e) {
      throw new InvalidKubeconfigException(
          key + " of " + where + ": '" + written + "' is not a file path", e);
    }
    try {
      return BoundedFiles.read(file, limit, what);
    } catch (BoundedFiles.UnreadableFileException e) {
      throw new InvalidKubeconfigException(
          key + " of " + where + ": cannot read " + file + ": it " + e.reason(), e);
    }
  }

  /**
   * The {@code field} map of the entry named {@code name} in a kubeconfig list ({@code contexts},
   * {@code clusters}, {@code users}), as the client finds it; null when there is none.
   */
  @SuppressWarnings("unchecked")
  private static Map<String, Object> entry(List<Object> entries, String name, String field) {
    if (entries == null || name == null) {
      return null;
    }
    for (Object entry : entries) {
      if (entry instanceof Map<?, ?> map
          && name.equals(map.get("name"))
          && map.get(field) instanceof Map<?, ?> value) {
        return (Map<String, Object>) value;
      }
    }
    return null;
  }
}
