package io.spinagent.agent.config;

import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;

/**
 * TLS towards Clouddriver ({@code clouddriver.tls.*}). Relative paths have been resolved against
 * the directory of the configuration file that named them.
 *
 * @param serverName name expected in Clouddriver's certificate, when it differs from the host in
 *     {@code clouddriver.grpc} (e.g. connecting through an IP)
 * @param insecureSkipVerify accept any server certificate; testing only
 * @param clientCertFile PEM client certificate for mutual TLS (with {@code clientKeyFile})
 * @param clientKeyFile PEM private key of the client certificate
 * @param cacertFile PEM CA bundle to trust instead of the JVM's default trust store
 * @param clientKeyFilePassword the password of {@code clientKeyFile} when it is encrypted; never
 *     printed
 */
public record TlsConfig(
    Optional<String> serverName,
    boolean insecureSkipVerify,
    Optional<Path> clientCertFile,
    Optional<Path> clientKeyFile,
    Optional<Path> cacertFile,
    Optional<String> clientKeyFilePassword) {

  public TlsConfig {
    Objects.requireNonNull(serverName, "serverName");
    Objects.requireNonNull(clientCertFile, "clientCertFile");
    Objects.requireNonNull(clientKeyFile, "clientKeyFile");
    Objects.requireNonNull(cacertFile, "cacertFile");
    Objects.requireNonNull(clientKeyFilePassword, "clientKeyFilePassword");
  }

  /** Without a key password. */
  public TlsConfig(
      Optional<String> serverName,
      boolean insecureSkipVerify,
      Optional<Path> clientCertFile,
      Optional<Path> clientKeyFile,
      Optional<Path> cacertFile) {
    this(
        serverName,
        insecureSkipVerify,
        clientCertFile,
        clientKeyFile,
        cacertFile,
        Optional.empty());
  }

  /** True when the agent presents a client certificate (mutual TLS). */
  public boolean hasClientCertificate() {
    return clientCertFile.isPresent();
  }

  /** Without the key's password. */
  @Override
  public String toString() {
    return "TlsConfig[serverName="
        + serverName
        + ", insecureSkipVerify="
        + insecureSkipVerify
        + ", clientCertFile="
        + clientCertFile
        + ", clientKeyFile="
        + clientKeyFile
        + ", cacertFile="
        + cacertFile
        + ", clientKeyFilePassword="
        + (clientKeyFilePassword.isPresent() ? "<redacted>" : "<none>")
        + "]";
  }
}
