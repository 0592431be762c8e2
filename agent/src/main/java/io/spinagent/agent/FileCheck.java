package io.spinagent.agent;

import io.spinagent.agent.cluster.Kubeconfigs;
import io.spinagent.agent.config.AgentConfig;
import io.spinagent.agent.config.KubernetesAccountConfig;
import io.spinagent.agent.config.yaml.Origin;
import io.spinagent.agent.config.yaml.Problems;
import io.spinagent.agent.stream.ChannelSetupException;
import io.spinagent.agent.stream.ClouddriverConnection;
import java.nio.file.Path;
import java.util.List;

/**
 * What {@code --check} verifies beyond the configuration's own rules: every file the running agent
 * reads, read and parsed as the agent reads it (with the same size caps), connecting nowhere and
 * running nothing. The token file, the CA bundle, client certificate and key for Clouddriver; each
 * account's kubeconfig, its context, and the CA, certificate, key and token files it names. A
 * configuration that passes does not fail at start on a file it names (unless the file changes).
 */
final class FileCheck {

  private FileCheck() {}

  /**
   * The problems of the files {@code config} names: the first {@link Problems#MAX_KEPT} kept, the
   * rest counted.
   *
   * @param configFile the file the problems are reported against (the keys come from it or its
   *     overlay)
   */
  static Problems problems(AgentConfig config, Path configFile) {
    Origin origin = Origin.of(configFile);
    Problems problems = new Problems();
    for (ChannelSetupException e : ClouddriverConnection.checkFiles(config.clouddriver())) {
      problems.add(origin, e.key(), e.problem());
    }
    List<KubernetesAccountConfig> accounts = config.kubernetes().accounts();
    for (int i = 0; i < accounts.size(); i++) {
      KubernetesAccountConfig account = accounts.get(i);
      String key =
          "kubernetes.accounts["
              + i
              + "]."
              + (account.kubeconfigFile().isPresent() ? "kubeconfigFile" : "kubeconfigContents");
      Kubeconfigs.problem(account).ifPresent(problem -> problems.add(origin, key, problem));
    }
    return problems;
  }
}
