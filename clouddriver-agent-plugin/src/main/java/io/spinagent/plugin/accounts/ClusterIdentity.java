package io.spinagent.plugin.accounts;

/**
 * What makes two agents' claims on an account name the same cluster: the API server they reach and
 * the CA that signs it. The Kubernetes version is reported but may change with an upgrade.
 */
public record ClusterIdentity(
    String apiServerHost, String caFingerprintSha256, String kubernetesVersion) {

  public boolean sameClusterAs(ClusterIdentity other) {
    return apiServerHost.equals(other.apiServerHost)
        && caFingerprintSha256.equals(other.caFingerprintSha256);
  }

  @Override
  public String toString() {
    return apiServerHost
        + (caFingerprintSha256.isEmpty()
            ? ""
            : " (CA sha256 " + abbreviate(caFingerprintSha256) + ")");
  }

  private static String abbreviate(String fingerprint) {
    return fingerprint.length() <= 16 ? fingerprint : fingerprint.substring(0, 16) + "…";
  }
}
