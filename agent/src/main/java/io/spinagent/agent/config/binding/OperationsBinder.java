package io.spinagent.agent.config.binding;

import io.spinagent.agent.config.OperationsConfig;
import io.spinagent.agent.config.OperationsConfig.AllowRule;
import io.spinagent.agent.config.yaml.ConfigNode;
import java.util.List;
import java.util.Set;
import java.util.function.Function;

/** Binds and checks {@code operations.*}. */
final class OperationsBinder {

  static final Set<String> VERBS =
      Set.of(
          "get", "list", "watch", "create", "update", "patch", "delete", "deletecollection", "*");

  private OperationsBinder() {}

  static OperationsConfig bind(MapReader o) {
    int concurrent =
        o.integer(
            "maxConcurrentPerAccount",
            OperationsConfig.DEFAULT_MAX_CONCURRENT_PER_ACCOUNT,
            1,
            10_000);
    int queued =
        o.integer(
            "maxQueuedPerAccount", OperationsConfig.DEFAULT_MAX_QUEUED_PER_ACCOUNT, 0, 100_000);
    List<AllowRule> allow = o.mapList("allow", "rule", (rule, index) -> rule(rule));
    if (o.node("allow") instanceof ConfigNode.ListNode list && list.items().isEmpty()) {
      o.problem(
          "allow",
          "is empty, which would refuse every request; remove "
              + o.pathOf("allow")
              + " to allow every request, or list the rules to allow");
    }
    return new OperationsConfig(concurrent, queued, allow);
  }

  private static AllowRule rule(MapReader rule) {
    List<String> verbs =
        required(
            rule,
            "verbs",
            OperationsBinder::verbProblem,
            "the verbs this rule allows: " + String.join(", ", VERBS.stream().sorted().toList()));
    List<String> paths =
        required(
            rule,
            "paths",
            OperationsBinder::pathProblem,
            "the API paths this rule allows, e.g. /apis/apps/v1/namespaces/*/deployments/**");
    return new AllowRule(verbs, paths);
  }

  private static List<String> required(
      MapReader rule, String key, Function<String, String> check, String what) {
    if (!rule.isSet(key)) {
      rule.problem(key, "is required: list " + what);
      return List.of();
    }
    List<String> values = rule.stringList(key, check);
    if (values.isEmpty()
        && rule.node(key) instanceof ConfigNode.ListNode list
        && list.items().isEmpty()) {
      rule.problem(key, "is empty, so the rule allows nothing: list " + what);
    }
    return values;
  }

  private static String verbProblem(String verb) {
    if (VERBS.contains(verb)) {
      return null;
    }
    return "'"
        + verb
        + "' is not a Kubernetes API verb: use one of "
        + String.join(", ", VERBS.stream().sorted().toList());
  }

  static String pathProblem(String path) {
    if (!path.startsWith("/")) {
      return "'"
          + path
          + "' is not an API path: it must start with '/', e.g. /api/v1/namespaces/*/pods/*/log";
    }
    if (path.contains("?")) {
      return "'" + path + "' has a query: rules match the path only";
    }
    for (String segment : path.substring(1).split("/", -1)) {
      if (segment.contains("**") && !segment.equals("**")) {
        return "'"
            + path
            + "': '**' must be a whole segment (/apis/**), not part of one ('"
            + segment
            + "')";
      }
    }
    return null;
  }
}
