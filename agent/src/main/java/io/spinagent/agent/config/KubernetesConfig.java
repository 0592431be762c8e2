package io.spinagent.agent.config;

import java.util.List;

/**
 * The clusters this agent serves ({@code kubernetes.*}).
 *
 * @param accounts statically configured accounts, in file order, names unique. May be empty:
 *     accounts can also be added at run time by Clouddriver (dynamic accounts).
 */
public record KubernetesConfig(List<KubernetesAccountConfig> accounts) {

  public KubernetesConfig {
    accounts = List.copyOf(accounts);
  }
}
