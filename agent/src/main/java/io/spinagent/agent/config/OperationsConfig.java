package io.spinagent.agent.config;

import java.util.List;

/**
 * What the agent does with the Kubernetes API requests Clouddriver relays to it ({@code
 * operations.*}).
 *
 * @param maxConcurrentPerAccount requests of one account performed at once
 * @param maxQueuedPerAccount requests of one account waiting for one of those slots; past this they
 *     are answered 429 at once (0: no waiting)
 * @param allow the requests allowed; empty means every request (the agent's own RBAC still
 *     applies). API discovery is always allowed: kubectl cannot work without it.
 */
public record OperationsConfig(
    int maxConcurrentPerAccount, int maxQueuedPerAccount, List<AllowRule> allow) {

  /** Enough for Clouddriver's parallel deploy stages; one account cannot take every worker. */
  public static final int DEFAULT_MAX_CONCURRENT_PER_ACCOUNT = 32;

  /** A burst of a pipeline's stages waits rather than failing. */
  public static final int DEFAULT_MAX_QUEUED_PER_ACCOUNT = 64;

  public static final OperationsConfig DEFAULT =
      new OperationsConfig(
          DEFAULT_MAX_CONCURRENT_PER_ACCOUNT, DEFAULT_MAX_QUEUED_PER_ACCOUNT, List.of());

  public OperationsConfig {
    allow = List.copyOf(allow);
  }

  /**
   * One entry of {@code operations.allow}: a request is allowed when its verb is one of {@code
   * verbs} and its path matches one of {@code paths}.
   *
   * @param verbs Kubernetes API verbs (get, list, watch, create, update, patch, delete,
   *     deletecollection) or {@code *}
   * @param paths API paths, where {@code *} stands for any characters within one segment and a
   *     {@code **} segment for any number of segments: {@code /apis/apps/v1/**}
   */
  public record AllowRule(List<String> verbs, List<String> paths) {

    public AllowRule {
      verbs = List.copyOf(verbs);
      paths = List.copyOf(paths);
    }

    /** As written in the configuration, for messages. */
    public String describe() {
      return "verbs [" + String.join(", ", verbs) + "] on [" + String.join(", ", paths) + "]";
    }
  }
}
