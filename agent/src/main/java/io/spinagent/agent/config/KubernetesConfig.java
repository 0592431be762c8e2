package io.spinagent.agent.config;

import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * The clusters this agent serves ({@code kubernetes.*}).
 *
 * @param accounts statically configured accounts, in file order, names unique. May be empty:
 *     accounts can also be added at run time by Clouddriver (dynamic accounts).
 * @param cacheGroups how accounts start: all at once, or in groups ({@code cacheGroupSize}, {@code
 *     cacheGroupDelayMs})
 * @param noProxy connect to every cluster directly, even when proxy environment variables are set;
 *     already applied to each of {@code accounts}, and applied to dynamic accounts as they come
 */
public record KubernetesConfig(
    List<KubernetesAccountConfig> accounts, CacheGroups cacheGroups, boolean noProxy) {

  public KubernetesConfig {
    accounts = List.copyOf(accounts);
    Objects.requireNonNull(cacheGroups, "cacheGroups");
  }

  /** With every account starting at once, honouring the proxy environment variables. */
  public KubernetesConfig(List<KubernetesAccountConfig> accounts) {
    this(accounts, CacheGroups.NONE, false);
  }

  /**
   * Staggered start, Armory Scale Agent's {@code kubernetes.cacheGroupSize} and {@code
   * kubernetes.cacheGroupDelayMs}: accounts start connecting {@code size} at a time, {@code delay}
   * apart. Off (every account at once) unless both are above zero, as in Armory's agent.
   *
   * @param size accounts per group; 0 for no groups
   * @param delay time between the starts of two groups; zero for none
   */
  public record CacheGroups(int size, Duration delay) {

    public static final CacheGroups NONE = new CacheGroups(0, Duration.ZERO);

    public CacheGroups {
      if (size < 0) {
        throw new IllegalArgumentException("size must not be negative, got " + size);
      }
      Objects.requireNonNull(delay, "delay");
      if (delay.isNegative()) {
        throw new IllegalArgumentException("delay must not be negative, got " + delay);
      }
    }

    public boolean isStaggered() {
      return size > 0 && !delay.isZero();
    }
  }
}
