package io.spinagent.plugin.tunnel;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.function.Function;

/**
 * The kubeconfig through which a client reaches one account's cluster "as Clouddriver": the
 * tunnel's URL for the account, the tunnel's CA, and the account's tunnel token. The plugin also
 * offers it to the host application as the bean {@value #HOST_BEAN_NAME}, a {@code
 * java.util.function.Function<String, String>} from account name to kubeconfig YAML, so that a host
 * embedding the plugin (the sandbox) can hand it to a user without seeing the plugin's classes.
 */
public final class TunnelKubeconfigs implements Function<String, String> {

  /**
   * The name under which the host application context finds this as a {@code Function<String,
   * String>}.
   */
  public static final String HOST_BEAN_NAME = "spinAgentTunnelKubeconfigs";

  private final TunnelServerLifecycle tunnel;
  private final TunnelTokens tokens;

  public TunnelKubeconfigs(TunnelServerLifecycle tunnel, TunnelTokens tokens) {
    this.tunnel = tunnel;
    this.tokens = tokens;
  }

  /** The account's kubeconfig YAML, as {@link #kubeconfig}. */
  @Override
  public String apply(String account) {
    return kubeconfig(account);
  }

  /** The account's kubeconfig YAML; issues the account's token if it has none yet. */
  public String kubeconfig(String account) {
    TunnelHttpServer server =
        tunnel
            .server()
            .orElseThrow(() -> new IllegalStateException("the SpinAgent tunnel is not running"));
    String ca =
        Base64.getEncoder()
            .encodeToString(server.caCertificatePem().getBytes(StandardCharsets.US_ASCII));
    String name = quoted(account);
    return "apiVersion: v1\n"
        + "kind: Config\n"
        + "clusters:\n"
        + "- name: "
        + name
        + "\n"
        + "  cluster:\n"
        + "    server: "
        + quoted(server.clusterUrl(account))
        + "\n"
        + "    certificate-authority-data: "
        + ca
        + "\n"
        + "users:\n"
        + "- name: "
        + name
        + "\n"
        + "  user:\n"
        + "    token: "
        + quoted(tokens.issue(account))
        + "\n"
        + "contexts:\n"
        + "- name: "
        + name
        + "\n"
        + "  context:\n"
        + "    cluster: "
        + name
        + "\n"
        + "    user: "
        + name
        + "\n"
        + "current-context: "
        + name
        + "\n";
  }

  /**
   * A YAML single-quoted scalar: account names and tokens may hold characters YAML would read
   * otherwise.
   */
  private static String quoted(String value) {
    return "'" + value.replace("'", "''") + "'";
  }
}
