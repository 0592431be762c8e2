package io.spinagent.plugin.accounts;

import io.spinagent.plugin.config.SpinAgentProperties;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * Whether accounts are bound to the principal that registered them, and which other principals the
 * operator allows to serve them anyway ({@code spinagent.accounts.binding}).
 */
public final class BindingPolicy {

  /** Binding on, nobody else allowed: the defaults. */
  public static final BindingPolicy DEFAULT = new BindingPolicy(true, List.of());

  private static final String KEY = "spinagent.accounts.binding.also-allowed";

  private final boolean enabled;
  private final List<Rule> alsoAllowed;

  private BindingPolicy(boolean enabled, List<Rule> alsoAllowed) {
    this.enabled = enabled;
    this.alsoAllowed = List.copyOf(alsoAllowed);
  }

  /**
   * The policy {@code spinagent.accounts.binding} configures.
   *
   * @throws IllegalStateException naming the key, when an entry has no principal or a pattern that
   *     is not a regular expression
   */
  public static BindingPolicy from(SpinAgentProperties.Binding binding) {
    List<Rule> rules = new ArrayList<>();
    List<SpinAgentProperties.AlsoAllowed> entries = binding.getAlsoAllowed();
    for (int i = 0; i < entries.size(); i++) {
      SpinAgentProperties.AlsoAllowed entry = entries.get(i);
      String key = KEY + "[" + i + "]";
      if (entry.getPrincipal() == null || entry.getPrincipal().isBlank()) {
        throw new IllegalStateException(
            key + ".principal is required: a regular expression matching whole principals");
      }
      rules.add(
          new Rule(
              compile(key + ".principal", entry.getPrincipal()),
              compile(
                  key + ".accounts", entry.getAccounts() == null ? ".*" : entry.getAccounts())));
    }
    return new BindingPolicy(binding.isEnabled(), rules);
  }

  public boolean enabled() {
    return enabled;
  }

  /** Whether the operator allows {@code principal} to serve {@code account}, whoever holds it. */
  public boolean alsoAllows(String principal, String account) {
    return alsoAllowed.stream()
        .anyMatch(
            rule ->
                rule.principal.matcher(principal).matches()
                    && rule.accounts.matcher(account).matches());
  }

  private static Pattern compile(String key, String regex) {
    try {
      return Pattern.compile(regex);
    } catch (PatternSyntaxException e) {
      throw new IllegalStateException(
          key + ": '" + regex + "' is not a regular expression: " + e.getDescription(), e);
    }
  }

  private record Rule(Pattern principal, Pattern accounts) {}
}
