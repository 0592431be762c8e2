package io.spinagent.agent.tunnel;

import io.spinagent.agent.config.OperationsConfig.AllowRule;
import io.spinagent.common.KubernetesRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Decides whether a relayed request may run, from {@code operations.allow}: with no rules every
 * request may; otherwise a request runs when one rule lists its verb and matches its path.
 * Discovery always runs, since kubectl cannot do anything without it.
 */
public final class OperationPolicy {

  public static final OperationPolicy ALLOW_ALL = new OperationPolicy(List.of());

  private record CompiledRule(int index, AllowRule rule, List<Pattern> paths) {

    boolean matchesPath(String path) {
      return paths.stream().anyMatch(p -> p.matcher(path).matches());
    }

    boolean allowsVerb(String verb) {
      return rule.verbs().contains("*") || rule.verbs().contains(verb);
    }
  }

  private final List<CompiledRule> rules;

  private OperationPolicy(List<CompiledRule> rules) {
    this.rules = rules;
  }

  public static OperationPolicy of(List<AllowRule> allow) {
    List<CompiledRule> rules = new ArrayList<>();
    for (int i = 0; i < allow.size(); i++) {
      rules.add(
          new CompiledRule(
              i,
              allow.get(i),
              allow.get(i).paths().stream().map(OperationPolicy::compile).toList()));
    }
    return new OperationPolicy(List.copyOf(rules));
  }

  /** Why the request may not run, naming the rule concerned; empty when it may. */
  Optional<String> refusal(String method, String path, String query) {
    KubernetesRequest request = KubernetesRequest.of(method, path, query);
    if (rules.isEmpty() || request.discovery()) {
      return Optional.empty();
    }
    String verb = request.verb();
    CompiledRule pathOnly = null;
    for (CompiledRule rule : rules) {
      if (rule.matchesPath(path)) {
        if (rule.allowsVerb(verb)) {
          return Optional.empty();
        }
        if (pathOnly == null) {
          pathOnly = rule;
        }
      }
    }
    if (pathOnly != null) {
      return Optional.of(
          "operations.allow["
              + pathOnly.index()
              + "] ("
              + pathOnly.rule().describe()
              + ") matches the path but not the verb '"
              + verb
              + "'");
    }
    return Optional.of("no rule of operations.allow matches the path (verb '" + verb + "')");
  }

  /** {@code *} within a segment, {@code **} as a segment for any number of segments. */
  private static Pattern compile(String glob) {
    StringBuilder regex = new StringBuilder();
    for (String segment : glob.substring(1).split("/", -1)) {
      if (segment.equals("**")) {
        regex.append("(/[^/]+)*");
        continue;
      }
      regex.append('/');
      String[] literals = segment.split("\\*", -1);
      for (int i = 0; i < literals.length; i++) {
        if (i > 0) {
          regex.append("[^/]*");
        }
        regex.append(Pattern.quote(literals[i]));
      }
    }
    return Pattern.compile(regex.toString());
  }
}
