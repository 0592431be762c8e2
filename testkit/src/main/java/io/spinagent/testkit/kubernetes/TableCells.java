package io.spinagent.testkit.kubernetes;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The cell formats of a Kubernetes 1.32 API server's printers ({@code
 * pkg/printers/internalversion/printers.go} and the apimachinery helpers it calls): human
 * durations, label maps and selectors, container lists, and the derived values of Services,
 * Ingresses, Jobs, CronJobs and Nodes. Pods, whose status line is longest, are {@link PodCells}.
 *
 * <p>A real server prints objects after its defaulting; the test server stores them as sent. So
 * where defaulting would have filled a field in, the cells use the default it would have set
 * (replicas 1, Service type ClusterIP, port protocol TCP, Secret type Opaque, Namespace phase
 * Active, a Job's completions, a CronJob's suspend), and where the API server converts between
 * fields (a Pod's podIP into podIPs, a Service's clusterIP into clusterIPs) they read either.
 */
final class TableCells {

  static final String NONE = "<none>";
  static final String UNKNOWN = "<unknown>";

  private TableCells() {}

  // --- general ------------------------------------------------------------------------------

  /** The text at a dotted path, or {@code fallback} when absent or empty. */
  static String text(JsonNode object, String path, String fallback) {
    String value = Json.text(object, path);
    return value == null || value.isEmpty() ? fallback : value;
  }

  /** The whole number at a dotted path, 0 when absent. */
  static long number(JsonNode object, String path) {
    JsonNode node = at(object, path);
    return node.canConvertToLong() ? node.asLong() : 0;
  }

  static JsonNode at(JsonNode object, String path) {
    JsonNode current = object;
    for (String part : path.split("\\.", 0)) {
      current = current.path(part);
    }
    return current;
  }

  /** {@code spec.replicas}, 1 when unset (as defaulting sets it). */
  static long desiredReplicas(JsonNode object) {
    JsonNode replicas = at(object, "spec.replicas");
    return replicas.canConvertToLong() ? replicas.asLong() : 1;
  }

  /** {@code "<ready>/<desired>"} of a Deployment or StatefulSet. */
  static String readyOfDesired(JsonNode object) {
    return number(object, "status.readyReplicas") + "/" + desiredReplicas(object);
  }

  /** How long ago {@code metadata.creationTimestamp} was ({@code translateTimestampSince}). */
  static String age(JsonNode object, Instant now) {
    return since(Json.text(object, "metadata.creationTimestamp"), now);
  }

  /** How long ago a timestamp was, {@code <unknown>} when there is none. */
  static String since(String timestamp, Instant now) {
    Instant then = instant(timestamp);
    return then == null ? UNKNOWN : humanDuration(Duration.between(then, now));
  }

  static Instant instant(String timestamp) {
    if (timestamp == null || timestamp.isEmpty()) {
      return null;
    }
    try {
      return Instant.parse(timestamp);
    } catch (DateTimeParseException e) {
      return null;
    }
  }

  /** apimachinery's {@code duration.HumanDuration}: "45s", "3m12s", "5h7m", "2d4h", "3y12d". */
  static String humanDuration(Duration duration) {
    long seconds = duration.toSeconds();
    if (seconds < -1) {
      return "<invalid>";
    } else if (seconds < 0) {
      return "0s";
    } else if (seconds < 60 * 2) {
      return seconds + "s";
    }
    long minutes = duration.toMinutes();
    if (minutes < 10) {
      long s = seconds % 60;
      return s == 0 ? minutes + "m" : minutes + "m" + s + "s";
    } else if (minutes < 60 * 3) {
      return minutes + "m";
    }
    long hours = duration.toHours();
    if (hours < 8) {
      long m = minutes % 60;
      return m == 0 ? hours + "h" : hours + "h" + m + "m";
    } else if (hours < 48) {
      return hours + "h";
    } else if (hours < 24 * 8) {
      long h = hours % 24;
      return h == 0 ? (hours / 24) + "d" : (hours / 24) + "d" + h + "h";
    } else if (hours < 24 * 365 * 2) {
      return (hours / 24) + "d";
    } else if (hours < 24 * 365 * 8) {
      long days = (hours / 24) % 365;
      return days == 0 ? (hours / 24 / 365) + "y" : (hours / 24 / 365) + "y" + days + "d";
    }
    return (hours / 24 / 365) + "y";
  }

  /** {@code labels.FormatLabels}: "k=v" pairs sorted and comma-separated, or {@code <none>}. */
  static String formatLabels(JsonNode labels) {
    List<String> pairs = new ArrayList<>();
    labels.fields().forEachRemaining(e -> pairs.add(e.getKey() + "=" + e.getValue().asText()));
    pairs.sort(Comparator.naturalOrder());
    return pairs.isEmpty() ? NONE : String.join(",", pairs);
  }

  /** {@code metav1.FormatLabelSelector}: the selector's string, or {@code <none>} when empty. */
  static String formatLabelSelector(JsonNode selector) {
    String formatted = labelSelector(selector);
    return formatted.isEmpty() ? NONE : formatted;
  }

  /**
   * {@code LabelSelectorAsSelector(selector).String()}: requirements sorted by key, values of
   * {@code in}/{@code notin} sorted; empty for a missing or empty selector, {@code <invalid>} for
   * an unknown operator.
   */
  static String labelSelector(JsonNode selector) {
    Map<String, List<String>> byKey = new TreeMap<>();
    selector
        .path("matchLabels")
        .fields()
        .forEachRemaining(
            e ->
                byKey
                    .computeIfAbsent(e.getKey(), k -> new ArrayList<>())
                    .add(e.getKey() + "=" + e.getValue().asText()));
    for (JsonNode expression : selector.path("matchExpressions")) {
      String key = expression.path("key").asText();
      List<String> values = new ArrayList<>();
      expression.path("values").forEach(v -> values.add(v.asText()));
      values.sort(Comparator.naturalOrder());
      String requirement =
          switch (expression.path("operator").asText()) {
            case "In" -> key + " in (" + String.join(",", values) + ")";
            case "NotIn" -> key + " notin (" + String.join(",", values) + ")";
            case "Exists" -> key;
            case "DoesNotExist" -> "!" + key;
            default -> null;
          };
      if (requirement == null) {
        return "<invalid>";
      }
      byKey.computeIfAbsent(key, k -> new ArrayList<>()).add(requirement);
    }
    List<String> requirements = new ArrayList<>();
    byKey.values().forEach(requirements::addAll);
    return String.join(",", requirements);
  }

  /** The names of a pod spec's containers, comma-separated ({@code layoutContainerCells}). */
  static String containerNames(JsonNode podSpec) {
    return joined(podSpec.path("containers"), "name");
  }

  /** The images of a pod spec's containers, comma-separated. */
  static String containerImages(JsonNode podSpec) {
    return joined(podSpec.path("containers"), "image");
  }

  private static String joined(JsonNode array, String field) {
    List<String> values = new ArrayList<>();
    array.forEach(item -> values.add(item.path(field).asText("")));
    return String.join(",", values);
  }

  // --- Service ------------------------------------------------------------------------------

  static String serviceType(JsonNode service) {
    return text(service, "spec.type", "ClusterIP");
  }

  static String clusterIp(JsonNode service) {
    JsonNode clusterIps = at(service, "spec.clusterIPs");
    if (clusterIps.isArray() && !clusterIps.isEmpty()) {
      return clusterIps.get(0).asText();
    }
    return text(service, "spec.clusterIP", NONE);
  }

  /** {@code getServiceExternalIP} for a wide table (load balancer addresses never cut short). */
  static String externalIp(JsonNode service) {
    List<String> externalIps = new ArrayList<>();
    at(service, "spec.externalIPs").forEach(ip -> externalIps.add(ip.asText()));
    switch (serviceType(service)) {
      case "ClusterIP", "NodePort" -> {
        return externalIps.isEmpty() ? NONE : String.join(",", externalIps);
      }
      case "LoadBalancer" -> {
        List<String> results = new ArrayList<>(loadBalancerAddresses(service));
        if (!externalIps.isEmpty()) {
          results.addAll(externalIps);
          return String.join(",", results);
        }
        return results.isEmpty() ? "<pending>" : String.join(",", results);
      }
      case "ExternalName" -> {
        return text(service, "spec.externalName", "");
      }
      default -> {
        return UNKNOWN;
      }
    }
  }

  /** Each port as port[:nodePort]/protocol, or {@code <none>} ({@code makePortString}). */
  static String ports(JsonNode service) {
    List<String> pieces = new ArrayList<>();
    for (JsonNode port : at(service, "spec.ports")) {
      String protocol = text(port, "protocol", "TCP");
      long nodePort = number(port, "nodePort");
      pieces.add(
          nodePort > 0
              ? number(port, "port") + ":" + nodePort + "/" + protocol
              : number(port, "port") + "/" + protocol);
    }
    return pieces.isEmpty() ? NONE : String.join(",", pieces);
  }

  /** The distinct IPs (else host names) of {@code status.loadBalancer.ingress}, sorted. */
  static List<String> loadBalancerAddresses(JsonNode object) {
    TreeSet<String> addresses = new TreeSet<>();
    for (JsonNode ingress : at(object, "status.loadBalancer.ingress")) {
      String ip = text(ingress, "ip", "");
      String hostname = text(ingress, "hostname", "");
      if (!ip.isEmpty()) {
        addresses.add(ip);
      } else if (!hostname.isEmpty()) {
        addresses.add(hostname);
      }
    }
    return List.copyOf(addresses);
  }

  // --- Ingress ------------------------------------------------------------------------------

  static String ingressClass(JsonNode ingress) {
    String className = Json.text(ingress, "spec.ingressClassName");
    return className == null ? NONE : className;
  }

  /** Up to three rule hosts, then "+ n more..."; {@code *} when no rule names a host. */
  static String ingressHosts(JsonNode ingress) {
    JsonNode rules = at(ingress, "spec.rules");
    int max = 3;
    List<String> hosts = new ArrayList<>();
    boolean more = false;
    for (JsonNode rule : rules) {
      if (hosts.size() == max) {
        more = true;
      }
      String host = text(rule, "host", "");
      if (!more && !host.isEmpty()) {
        hosts.add(host);
      }
    }
    if (hosts.isEmpty()) {
      return "*";
    }
    String joined = String.join(",", hosts);
    return more ? joined + " + " + (rules.size() - max) + " more..." : joined;
  }

  static String ingressPorts(JsonNode ingress) {
    JsonNode tls = at(ingress, "spec.tls");
    return tls.isArray() && !tls.isEmpty() ? "80, 443" : "80";
  }

  // --- Job and CronJob ----------------------------------------------------------------------

  /** "succeeded/completions", or "succeeded/1 of parallelism" for a work queue. */
  static String jobCompletions(JsonNode job) {
    long succeeded = number(job, "status.succeeded");
    JsonNode completions = at(job, "spec.completions");
    JsonNode parallelism = at(job, "spec.parallelism");
    if (completions.canConvertToLong()) {
      return succeeded + "/" + completions.asLong();
    }
    // Defaulting sets both to 1 when neither is set.
    long workers = parallelism.canConvertToLong() ? parallelism.asLong() : 1;
    return workers > 1 ? succeeded + "/1 of " + workers : succeeded + "/1";
  }

  static String jobDuration(JsonNode job, Instant now) {
    Instant start = instant(Json.text(job, "status.startTime"));
    if (start == null) {
      return "";
    }
    Instant completion = instant(Json.text(job, "status.completionTime"));
    return humanDuration(Duration.between(start, completion == null ? now : completion));
  }

  static String jobStatus(JsonNode job) {
    if (conditionTrue(job, "Complete")) {
      return "Complete";
    } else if (conditionTrue(job, "Failed")) {
      return "Failed";
    } else if (Json.text(job, "metadata.deletionTimestamp") != null) {
      return "Terminating";
    } else if (conditionTrue(job, "Suspended")) {
      return "Suspended";
    } else if (conditionTrue(job, "FailureTarget")) {
      return "FailureTarget";
    }
    return "Running";
  }

  /** Whether the first status condition of this type is True ({@code hasJobCondition}). */
  static boolean conditionTrue(JsonNode object, String type) {
    for (JsonNode condition : at(object, "status.conditions")) {
      if (type.equals(condition.path("type").asText())) {
        return "True".equals(condition.path("status").asText());
      }
    }
    return false;
  }

  /** "True" or "False" ({@code printBoolPtr} of a field defaulting sets to false). */
  static String cronJobSuspend(JsonNode cronJob) {
    return at(cronJob, "spec.suspend").asBoolean(false) ? "True" : "False";
  }

  static String cronJobLastSchedule(JsonNode cronJob, Instant now) {
    String last = Json.text(cronJob, "status.lastScheduleTime");
    return last == null ? NONE : since(last, now);
  }

  // --- Node ---------------------------------------------------------------------------------

  /** Ready, NotReady or Unknown from the Ready condition, then SchedulingDisabled if cordoned. */
  static String nodeStatus(JsonNode node) {
    List<String> status = new ArrayList<>();
    for (JsonNode condition : at(node, "status.conditions")) {
      if ("Ready".equals(condition.path("type").asText())) {
        status.add("True".equals(condition.path("status").asText()) ? "Ready" : "NotReady");
      }
    }
    if (status.isEmpty()) {
      status.add("Unknown");
    }
    if (at(node, "spec.unschedulable").asBoolean(false)) {
      status.add("SchedulingDisabled");
    }
    return String.join(",", status);
  }

  /** node-role.kubernetes.io/ROLE labels and the kubernetes.io/role label, sorted. */
  static String nodeRoles(JsonNode node) {
    TreeSet<String> roles = new TreeSet<>();
    at(node, "metadata.labels")
        .fields()
        .forEachRemaining(
            label -> {
              String key = label.getKey();
              if (key.startsWith("node-role.kubernetes.io/")) {
                String role = key.substring("node-role.kubernetes.io/".length());
                if (!role.isEmpty()) {
                  roles.add(role);
                }
              } else if (key.equals("kubernetes.io/role") && !label.getValue().asText().isEmpty()) {
                roles.add(label.getValue().asText());
              }
            });
    return roles.isEmpty() ? NONE : String.join(",", roles);
  }

  /** The first address of this type ({@code InternalIP}, {@code ExternalIP}), or none. */
  static String nodeAddress(JsonNode node, String type) {
    for (JsonNode address : at(node, "status.addresses")) {
      if (type.equals(address.path("type").asText())) {
        return address.path("address").asText();
      }
    }
    return NONE;
  }
}
