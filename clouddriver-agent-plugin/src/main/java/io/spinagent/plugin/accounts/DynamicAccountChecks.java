package io.spinagent.plugin.accounts;

import static io.spinagent.plugin.accounts.AccountRequestException.invalid;

import java.util.Optional;
import java.util.regex.Pattern;

/** The checks of a dynamic account's definition, made before anything is stored or sent. */
final class DynamicAccountChecks {

  /** Kubernetes-style names: they appear in URLs, kubeconfigs and cache keys. */
  private static final Pattern NAME = Pattern.compile("[a-z0-9]([-a-z0-9_.]{0,98}[a-z0-9])?");

  private DynamicAccountChecks() {}

  /**
   * Refuses ({@code 400}, naming the field) a definition no agent could serve: a bad name, not
   * exactly one agent or zone, not exactly one way to reach the cluster, a kubeconfig that cannot
   * work, or custom resources Clouddriver would misread or could not load.
   */
  static void validate(DynamicAccountSpec spec) {
    if (spec.name() == null || spec.name().isBlank()) {
      throw invalid("name: required");
    }
    if (!NAME.matcher(spec.name()).matches()) {
      throw invalid(
          "name: '"
              + spec.name()
              + "' is not a valid account name (lower-case letters, digits, '-', '_',"
              + " '.', starting and ending with a letter or digit, at most 100 characters)");
    }
    if ((spec.agentId() == null) == (spec.zoneId() == null)) {
      throw invalid(
          "agentId, zoneId: give exactly one: the agent, or the zone of agents, that serves the"
              + " account");
    }
    int sources =
        (spec.kubeconfigContents() != null ? 1 : 0)
            + (spec.kubeconfigFile() != null ? 1 : 0)
            + (Boolean.TRUE.equals(spec.serviceAccount()) ? 1 : 0);
    if (sources != 1) {
      throw invalid(
          "kubeconfigContents, kubeconfigFile, serviceAccount: give exactly one way for the agent"
              + " to reach the cluster");
    }
    if (spec.kubeconfigFile() != null) {
      kubeconfigFileProblem(spec.kubeconfigFile())
          .ifPresent(
              problem -> {
                throw invalid("kubeconfigFile: " + problem);
              });
    }
    if (spec.kubeconfigContents() != null) {
      KubeconfigCheck.problem(spec.kubeconfigContents(), spec.context())
          .ifPresent(
              problem -> {
                throw invalid(problem);
              });
    }
    spec.customResourcesProblem()
        .ifPresent(
            problem -> {
              throw invalid(problem);
            });
  }

  /**
   * Why the agent cannot read a kubeconfig at {@code file}: the agent reads a file on its own
   * machine, by absolute path (a command has no directory a relative one could be resolved
   * against), and resolves no secret references (Armory's agent resolved them through its secret
   * engines).
   */
  private static Optional<String> kubeconfigFileProblem(String file) {
    if (KubeconfigCheck.isSecretReference(file)) {
      return Optional.of(
          "'"
              + file
              + "' is a secret reference, which SpinAgent's agent does not resolve: mount the"
              + " secret into the agent's pod and give the kubeconfig's path there, e.g."
              + " /opt/spinagent/kubeconfigs/config");
    }
    if (!file.startsWith("/")) {
      return Optional.of(
          "'"
              + file
              + "' is not an absolute path; give the kubeconfig's full path on the agent's"
              + " machine, e.g. /opt/spinagent/kubeconfigs/config");
    }
    return Optional.empty();
  }
}
