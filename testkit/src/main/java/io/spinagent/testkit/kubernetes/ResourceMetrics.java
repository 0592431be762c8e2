package io.spinagent.testkit.kubernetes;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.Quantity;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.Clock;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;

/**
 * The resource metrics API, {@code metrics.k8s.io/v1beta1}, in the shape metrics-server serves it
 * (PodMetrics and NodeMetrics, what {@code kubectl top} reads), computed from the stored Pods and
 * Nodes instead of scraped from kubelets, so that values are stable and checkable:
 *
 * <ul>
 *   <li>a Pod has metrics while its {@code status.phase} is Running (a kubelet reports no others);
 *       each container uses what it requests, or its limit when it requests nothing (defaulting
 *       makes that its request), or {@value #DEFAULT_CPU} CPU and {@value #DEFAULT_MEMORY} memory
 *       when it declares neither;
 *   <li>every Node has metrics: the sum of its running Pods' usage ({@code spec.nodeName}).
 * </ul>
 *
 * <p>Usage is written in canonical form: CPU in cores or millicores, memory in bytes or the largest
 * binary unit that divides it.
 */
final class ResourceMetrics {

  static final String GROUP = "metrics.k8s.io";
  static final String VERSION = "v1beta1";
  static final String DEFAULT_CPU = "1m";
  static final String DEFAULT_MEMORY = "16Mi";

  /** The collection window metrics-server reports with its default 15 s resolution. */
  static final String WINDOW = "15s";

  private static final BigDecimal THOUSAND = BigDecimal.valueOf(1000);
  private static final String[] BINARY_UNITS = {"Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};

  private final ResourceStore store;
  private final ResourceTypeRegistry registry;
  private final Clock clock;

  ResourceMetrics(ResourceStore store, ResourceTypeRegistry registry, Clock clock) {
    this.store = store;
    this.registry = registry;
    this.clock = clock;
  }

  /** PodMetrics or NodeMetrics of one object; 404 when it does not exist or has no metrics. */
  ObjectNode get(ResourceType type, String namespace, String name) {
    if (isPods(type)) {
      ObjectNode pod = store.get(core("pods"), namespace, name).tree();
      if (!running(pod)) {
        throw new ApiError(
            404,
            "NotFound",
            "podmetrics." + GROUP + " \"" + namespace + "/" + name + "\" not found",
            namespace + "/" + name,
            GROUP,
            "podmetrics");
      }
      return podMetrics(pod);
    }
    ObjectNode node = store.get(core("nodes"), null, name).tree();
    return nodeMetrics(node, runningPods(null, Selectors.EVERYTHING));
  }

  /**
   * The metrics of the Pods (in {@code namespace}, or everywhere when null) or Nodes that {@code
   * selector} selects, ordered by namespace and name as metrics-server orders them.
   */
  List<ObjectNode> list(ResourceType type, String namespace, Selectors.Selector selector) {
    List<ObjectNode> items = new ArrayList<>();
    if (isPods(type)) {
      runningPods(namespace, selector).forEach(pod -> items.add(podMetrics(pod)));
      return items;
    }
    List<ObjectNode> pods = runningPods(null, Selectors.EVERYTHING);
    for (StoredObject node : listed(core("nodes"), null, selector)) {
      items.add(nodeMetrics(node.tree(), pods));
    }
    return items;
  }

  /** What a container of a running pod uses: cpu and memory, canonical. */
  static ObjectNode containerUsage(JsonNode container) {
    JsonNode resources = container.path("resources");
    ObjectNode usage = Json.object();
    usage.put("cpu", cpu(amount(resources, "cpu", DEFAULT_CPU, container)));
    usage.put("memory", memory(amount(resources, "memory", DEFAULT_MEMORY, container)));
    return usage;
  }

  /** The sum of a usage resource ({@code cpu} or {@code memory}) over several usages, canonical. */
  static String sum(List<JsonNode> usages, String resource) {
    BigDecimal total = BigDecimal.ZERO;
    for (JsonNode usage : usages) {
      total = total.add(Quantity.parse(usage.path(resource).asText("0")).getNumericalAmount());
    }
    return resource.equals("cpu") ? cpu(total) : memory(total);
  }

  private ObjectNode podMetrics(ObjectNode pod) {
    ObjectNode metrics = envelope("PodMetrics", pod);
    ArrayNode containers = metrics.putArray("containers");
    for (JsonNode container : pod.path("spec").path("containers")) {
      containers
          .addObject()
          .put("name", container.path("name").asText())
          .set("usage", containerUsage(container));
    }
    return metrics;
  }

  private ObjectNode nodeMetrics(ObjectNode node, List<ObjectNode> runningPods) {
    String name = Json.text(node, "metadata.name");
    List<JsonNode> usages = new ArrayList<>();
    for (ObjectNode pod : runningPods) {
      if (name.equals(Json.text(pod, "spec.nodeName"))) {
        pod.path("spec").path("containers").forEach(c -> usages.add(containerUsage(c)));
      }
    }
    ObjectNode metrics = envelope("NodeMetrics", node);
    metrics.putObject("usage").put("cpu", sum(usages, "cpu")).put("memory", sum(usages, "memory"));
    return metrics;
  }

  /** Kind, metadata (name, namespace, labels of the object measured), timestamp and window. */
  private ObjectNode envelope(String kind, ObjectNode measured) {
    String now = clock.instant().truncatedTo(ChronoUnit.SECONDS).toString();
    ObjectNode metrics = Json.object();
    metrics.put("kind", kind);
    metrics.put("apiVersion", GROUP + "/" + VERSION);
    ObjectNode metadata = metrics.putObject("metadata");
    metadata.put("name", Json.text(measured, "metadata.name"));
    String namespace = Json.text(measured, "metadata.namespace");
    if (namespace != null) {
      metadata.put("namespace", namespace);
    }
    metadata.put("creationTimestamp", now);
    JsonNode labels = measured.path("metadata").get("labels");
    if (labels != null && labels.isObject()) {
      metadata.set("labels", labels.deepCopy());
    }
    metrics.put("timestamp", now);
    metrics.put("window", WINDOW);
    return metrics;
  }

  private List<ObjectNode> runningPods(String namespace, Selectors.Selector selector) {
    List<ObjectNode> pods = new ArrayList<>();
    for (StoredObject pod : listed(core("pods"), namespace, selector)) {
      ObjectNode tree = pod.tree();
      if (running(tree)) {
        pods.add(tree);
      }
    }
    return pods;
  }

  private List<StoredObject> listed(
      ResourceType type, String namespace, Selectors.Selector selector) {
    return store.list(type, namespace, selector, ResourceStore.ListOptions.ALL).items();
  }

  private ResourceType core(String plural) {
    return registry
        .find("", "v1", plural)
        .orElseThrow(() -> new IllegalStateException("core/v1 " + plural + " is not served"));
  }

  private static boolean isPods(ResourceType type) {
    return type.plural().equals("pods");
  }

  private static boolean running(ObjectNode pod) {
    return "Running".equals(Json.text(pod, "status.phase"));
  }

  /** A container's request for a resource, else its limit, else the default; in base units. */
  private static BigDecimal amount(
      JsonNode resources, String resource, String fallback, JsonNode container) {
    String declared = Json.text(resources, "requests." + resource);
    if (declared == null) {
      declared = Json.text(resources, "limits." + resource);
    }
    String quantity = declared == null ? fallback : declared;
    try {
      return Quantity.parse(quantity).getNumericalAmount();
    } catch (IllegalArgumentException | ArithmeticException e) {
      throw new ApiError(
          500,
          "InternalError",
          "container "
              + container.path("name").asText()
              + " declares "
              + resource
              + " \""
              + quantity
              + "\", which is not a Kubernetes quantity");
    }
  }

  /** Cores as Kubernetes writes them: whole cores plain, otherwise millicores (rounded up). */
  private static String cpu(BigDecimal cores) {
    BigDecimal millis = cores.multiply(THOUSAND).setScale(0, RoundingMode.CEILING);
    if (millis.remainder(THOUSAND).signum() == 0) {
      return millis.divide(THOUSAND).toPlainString();
    }
    return millis.toPlainString() + "m";
  }

  /** Bytes in the largest binary unit that divides them (rounded up to whole bytes). */
  private static String memory(BigDecimal bytes) {
    BigDecimal value = bytes.setScale(0, RoundingMode.CEILING);
    BigDecimal unit = BigDecimal.valueOf(1024);
    String suffix = "";
    for (String binary : BINARY_UNITS) {
      if (value.signum() == 0 || value.remainder(unit).signum() != 0) {
        break;
      }
      value = value.divide(unit);
      suffix = binary;
    }
    return value.toPlainString() + suffix;
  }
}
