package io.spinagent.agent.cluster;

import java.time.Duration;

/**
 * Tunables of the cluster side that are not in the configuration file.
 *
 * @param retryBaseDelay first delay before reconnecting to a cluster that failed
 * @param retryMaxDelay cap on that delay (doubling per failure)
 * @param rediscoveryInterval how often served resources are discovered again (CRD changes also
 *     trigger discovery when CustomResourceDefinitions are watched)
 * @param pageSize {@code limit} of each list request
 * @param progressInterval least time between two watch progress reports of one kind (protocol
 *     version 2); a few seconds keeps Clouddriver's resume points fresh without a write per event
 * @param scrubSecrets always true in the agent; false only in tests that prove the scrubbing works
 *     by showing what happens without it
 */
public record ClusterOptions(
    Duration retryBaseDelay,
    Duration retryMaxDelay,
    Duration rediscoveryInterval,
    int pageSize,
    Duration progressInterval,
    boolean scrubSecrets) {

  public static final ClusterOptions DEFAULTS =
      new ClusterOptions(
          Duration.ofSeconds(1),
          Duration.ofSeconds(60),
          Duration.ofMinutes(5),
          500,
          Duration.ofSeconds(5),
          true);

  public ClusterOptions withRetry(Duration base, Duration max) {
    return new ClusterOptions(
        base, max, rediscoveryInterval, pageSize, progressInterval, scrubSecrets);
  }

  public ClusterOptions withPageSize(int size) {
    return new ClusterOptions(
        retryBaseDelay, retryMaxDelay, rediscoveryInterval, size, progressInterval, scrubSecrets);
  }

  public ClusterOptions withProgressInterval(Duration interval) {
    return new ClusterOptions(
        retryBaseDelay, retryMaxDelay, rediscoveryInterval, pageSize, interval, scrubSecrets);
  }

  /** Test only: turns off Secret scrubbing (metadata-only requests and skipped fields). */
  ClusterOptions withoutSecretScrubbingForTests() {
    return new ClusterOptions(
        retryBaseDelay, retryMaxDelay, rediscoveryInterval, pageSize, progressInterval, false);
  }
}
