package io.spinagent.plugin.tunnel;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The per-account secrets that Clouddriver's kubeconfigs carry to the tunnel: a request for one
 * account's cluster must present that account's token, so a kubeconfig leaked for one account opens
 * no other. A token, once made, never changes, so every replica may keep what it has read.
 */
public final class TunnelTokens {

  /** Where tokens live: this replica's memory, or a table every replica shares. */
  public interface Store {
    /**
     * Keeps {@code candidate} unless the account already has a token; returns the account's token.
     */
    String keepFirst(String account, String candidate);

    Optional<String> find(String account);

    /** This replica's memory: a replica without a database, whose tokens are its own. */
    static Store inMemory() {
      Map<String, String> tokens = new ConcurrentHashMap<>();
      return new Store() {
        @Override
        public String keepFirst(String account, String candidate) {
          String existing = tokens.putIfAbsent(account, candidate);
          return existing == null ? candidate : existing;
        }

        @Override
        public Optional<String> find(String account) {
          return Optional.ofNullable(tokens.get(account));
        }
      };
    }
  }

  private final SecureRandom random = new SecureRandom();
  private final Map<String, String> known = new ConcurrentHashMap<>();
  private final Store store;

  /** Tokens of this replica alone (no database). */
  public TunnelTokens() {
    this(Store.inMemory());
  }

  public TunnelTokens(Store store) {
    this.store = store;
  }

  /** The account's token, made on first use; the same on every replica sharing the store. */
  public String issue(String account) {
    return known.computeIfAbsent(account, a -> store.keepFirst(a, newToken()));
  }

  public boolean accepts(String account, String token) {
    Optional<String> expected = Optional.ofNullable(known.get(account)).or(() -> stored(account));
    return expected.isPresent()
        && token != null
        && MessageDigest.isEqual(
            expected.get().getBytes(StandardCharsets.UTF_8),
            token.getBytes(StandardCharsets.UTF_8));
  }

  /** Whether any replica has made a token for the account. */
  public boolean exists(String account) {
    return known.containsKey(account) || stored(account).isPresent();
  }

  private Optional<String> stored(String account) {
    Optional<String> token = store.find(account);
    token.ifPresent(t -> known.putIfAbsent(account, t));
    return token;
  }

  private String newToken() {
    byte[] bytes = new byte[32];
    random.nextBytes(bytes);
    return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
  }
}
