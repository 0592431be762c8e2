package io.spinagent.agent.config.binding;

import io.spinagent.agent.config.AgentConfig;
import io.spinagent.agent.config.AgentIdentityConfig;
import io.spinagent.agent.config.AuthConfig;
import io.spinagent.agent.config.ClouddriverConfig;
import io.spinagent.agent.config.KubernetesAccountConfig;
import io.spinagent.agent.config.KubernetesConfig;
import io.spinagent.agent.config.OperationsConfig;
import io.spinagent.agent.config.TlsConfig;
import java.util.ArrayList;
import java.util.List;

/**
 * Describes a loaded configuration in a few log lines, so an operator can see at start what the
 * agent will do. Never includes the auth token: only whether one is configured and where from.
 */
public final class ConfigSummary {

  private ConfigSummary() {}

  public static List<String> lines(AgentConfig config) {
    List<String> lines = new ArrayList<>();
    AgentIdentityConfig agent = config.agent();
    lines.add("agent id " + agent.id() + agent.zoneId().map(z -> ", zone " + z).orElse(""));
    lines.add(
        "clouddriver "
            + config.clouddriver().grpc()
            + " over "
            + transport(config.clouddriver())
            + ", auth: "
            + auth(config.clouddriver().auth()));

    List<KubernetesAccountConfig> accounts = config.kubernetes().accounts();
    if (accounts.isEmpty()) {
      lines.add("no static accounts (Clouddriver may add accounts at run time)");
    } else {
      lines.add(accounts.size() + (accounts.size() == 1 ? " account:" : " accounts:"));
      accounts.forEach(account -> lines.add("  " + account(account)));
    }
    KubernetesConfig.CacheGroups groups = config.kubernetes().cacheGroups();
    if (groups.isStaggered()) {
      lines.add(
          "accounts start in groups of "
              + groups.size()
              + ", "
              + groups.delay().toMillis()
              + " ms apart (kubernetes.cacheGroupSize, cacheGroupDelayMs)");
    }

    lines.add(
        "server port "
            + config.server().port()
            + ", prometheus "
            + (config.prometheus().enabled() ? "port " + config.prometheus().port() : "disabled")
            + ", logging "
            + config.logging().format().configName()
            + " at "
            + config.logging().level().configName());
    lines.add(operations(config.operations()));
    return lines;
  }

  private static String operations(OperationsConfig operations) {
    return "operations: "
        + operations.maxConcurrentPerAccount()
        + " at once and "
        + operations.maxQueuedPerAccount()
        + " queued per account, "
        + (operations.allow().isEmpty()
            ? "every request allowed"
            : "allowed only: "
                + String.join(
                    "; ",
                    operations.allow().stream()
                        .map(OperationsConfig.AllowRule::describe)
                        .toList()));
  }

  private static String transport(ClouddriverConfig clouddriver) {
    if (clouddriver.insecure()) {
      return "plaintext (insecure)";
    }
    TlsConfig tls = clouddriver.tls();
    List<String> details = new ArrayList<>();
    tls.serverName().ifPresent(name -> details.add("server name " + name));
    tls.cacertFile().ifPresent(file -> details.add("CA " + file));
    if (tls.hasClientCertificate()) {
      details.add("client certificate " + tls.clientCertFile().get());
    }
    if (tls.insecureSkipVerify()) {
      details.add("certificate NOT verified");
    }
    return details.isEmpty() ? "TLS" : "TLS (" + String.join(", ", details) + ")";
  }

  private static String auth(AuthConfig auth) {
    if (auth.token().isPresent()) {
      return "token from configuration";
    }
    return auth.tokenFile().map(file -> "token from " + file).orElse("none");
  }

  private static String account(KubernetesAccountConfig account) {
    List<String> details = new ArrayList<>();
    details.add(
        account.serviceAccount()
            ? "in-cluster service account"
            : "kubeconfig "
                + account.kubeconfigFile().map(Object::toString).orElse("?")
                + account.context().map(c -> " context " + c).orElse(""));
    if (!account.namespaces().isEmpty()) {
      details.add("namespaces " + String.join(",", account.namespaces()));
    } else if (!account.omitNamespaces().isEmpty()) {
      details.add("all namespaces except " + String.join(",", account.omitNamespaces()));
    } else {
      details.add("all namespaces");
    }
    if (!account.kinds().isEmpty()) {
      details.add("kinds " + String.join(",", account.kinds()));
    } else if (!account.omitKinds().isEmpty()) {
      details.add("all kinds except " + String.join(",", account.omitKinds()));
    }
    if (account.onlyNamespacedResources()) {
      details.add("namespaced resources only");
    }
    if (account.onlySpinnakerManaged()) {
      details.add("Spinnaker-managed objects only");
    }
    details.add(
        account.permissions().isRestricted()
            ? "READ " + account.permissions().read() + " WRITE " + account.permissions().write()
            : "unrestricted");
    return account.name() + ": " + String.join("; ", details);
  }
}
