package io.spinagent.plugin.tunnel;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The per-account secrets that Clouddriver's kubeconfigs carry to the tunnel: a request for one
 * account's cluster must present that account's token, so a kubeconfig leaked for one account
 * opens no other.
 */
public final class TunnelTokens {

  private final SecureRandom random = new SecureRandom();
  private final Map<String, String> byAccount = new ConcurrentHashMap<>();

  /** The account's token, made on first use. */
  public String issue(String account) {
    return byAccount.computeIfAbsent(account, a -> newToken());
  }

  public boolean accepts(String account, String token) {
    String expected = byAccount.get(account);
    return expected != null
        && token != null
        && MessageDigest.isEqual(expected.getBytes(StandardCharsets.UTF_8), token.getBytes(StandardCharsets.UTF_8));
  }

  private String newToken() {
    byte[] bytes = new byte[32];
    random.nextBytes(bytes);
    return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
  }
}
