package io.spinagent.plugin.tunnel;

import com.fasterxml.jackson.core.io.JsonStringEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Base64;

/**
 * The kubeconfig Clouddriver uses for an agent account: the account's path on the loopback tunnel,
 * the tunnel's CA, and the account's token. It holds no cluster credential.
 */
public final class TunnelKubeconfig {

  private TunnelKubeconfig() {}

  public static String render(String account, String serverUrl, String caCertificatePem, String token) {
    String name = quote("spinagent-" + account);
    String ca = Base64.getEncoder().encodeToString(caCertificatePem.getBytes(StandardCharsets.US_ASCII));
    return String.join("\n",
        "apiVersion: v1",
        "kind: Config",
        "clusters:",
        "- name: " + name,
        "  cluster:",
        "    server: " + quote(serverUrl),
        "    certificate-authority-data: " + quote(ca),
        "users:",
        "- name: " + name,
        "  user:",
        "    token: " + quote(token),
        "contexts:",
        "- name: " + quote(account),
        "  context:",
        "    cluster: " + name,
        "    user: " + name,
        "current-context: " + quote(account),
        "");
  }

  /** A double-quoted scalar: JSON string syntax is valid YAML, whatever the account name holds. */
  private static String quote(String value) {
    return "\"" + new String(JsonStringEncoder.getInstance().quoteAsString(value)) + "\"";
  }
}
