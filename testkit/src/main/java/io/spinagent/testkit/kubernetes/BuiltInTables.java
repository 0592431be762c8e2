package io.spinagent.testkit.kubernetes;

import static io.spinagent.testkit.kubernetes.TableCells.at;
import static io.spinagent.testkit.kubernetes.TableCells.containerImages;
import static io.spinagent.testkit.kubernetes.TableCells.containerNames;
import static io.spinagent.testkit.kubernetes.TableCells.number;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;

/**
 * The server-side tables of the built-in kinds, one column list per kind, as a Kubernetes 1.32 API
 * server's printers define them (names, types, formats, priorities; the descriptions are in {@code
 * table-column-descriptions.properties}). Priority 1 columns are the {@code -o wide} ones.
 *
 * <p>Kinds without an entry here get {@link ServerSideTables}' default columns.
 */
final class BuiltInTables {

  private static final Properties DESCRIPTIONS = descriptions();

  /** group/Kind ("apps/Deployment", "/Pod") to its columns. */
  private static final Map<String, List<TableColumn>> BY_KIND =
      Map.ofEntries(
          Map.entry("/Pod", pod()),
          Map.entry("apps/ReplicaSet", replicaSet()),
          Map.entry("apps/DaemonSet", daemonSet()),
          Map.entry("apps/Deployment", deployment()),
          Map.entry("apps/StatefulSet", statefulSet()),
          Map.entry("batch/Job", job()),
          Map.entry("batch/CronJob", cronJob()),
          Map.entry("/Service", service()),
          Map.entry("networking.k8s.io/Ingress", ingress()),
          Map.entry("/ConfigMap", configMap()),
          Map.entry("/Secret", secret()),
          Map.entry("/Namespace", namespace()),
          Map.entry("/Node", node()),
          Map.entry("apiextensions.k8s.io/CustomResourceDefinition", customResourceDefinition()),
          Map.entry(ResourceMetrics.GROUP + "/PodMetrics", metrics("PodMetrics")),
          Map.entry(ResourceMetrics.GROUP + "/NodeMetrics", metrics("NodeMetrics")));

  private BuiltInTables() {}

  static Optional<List<TableColumn>> columns(ResourceType type) {
    return type.crdName() != null
        ? Optional.empty()
        : Optional.ofNullable(BY_KIND.get(type.group() + "/" + type.kind()));
  }

  private static List<TableColumn> pod() {
    return new Columns("Pod")
        .name()
        .add("Ready", "string", (o, now) -> PodCells.of(o, now).ready())
        .add("Status", "string", (o, now) -> PodCells.of(o, now).status())
        .add("Restarts", "string", (o, now) -> PodCells.of(o, now).restarts())
        .age()
        .wide("IP", (o, now) -> PodCells.ip(o))
        .wide("Node", (o, now) -> TableCells.text(o, "spec.nodeName", TableCells.NONE))
        .wide(
            "Nominated Node",
            (o, now) -> TableCells.text(o, "status.nominatedNodeName", TableCells.NONE))
        .wide("Readiness Gates", (o, now) -> PodCells.readinessGates(o))
        .build();
  }

  private static List<TableColumn> replicaSet() {
    return new Columns("ReplicaSet")
        .name()
        .add("Desired", "integer", (o, now) -> TableCells.desiredReplicas(o))
        .add("Current", "integer", (o, now) -> number(o, "status.replicas"))
        .add("Ready", "integer", (o, now) -> number(o, "status.readyReplicas"))
        .age()
        .templateContainers("spec.template.spec")
        .wide("Selector", (o, now) -> TableCells.formatLabelSelector(at(o, "spec.selector")))
        .build();
  }

  private static List<TableColumn> daemonSet() {
    return new Columns("DaemonSet")
        .name()
        .add("Desired", "integer", (o, now) -> number(o, "status.desiredNumberScheduled"))
        .add("Current", "integer", (o, now) -> number(o, "status.currentNumberScheduled"))
        .add("Ready", "integer", (o, now) -> number(o, "status.numberReady"))
        .add("Up-to-date", "integer", (o, now) -> number(o, "status.updatedNumberScheduled"))
        .add("Available", "integer", (o, now) -> number(o, "status.numberAvailable"))
        .add(
            "Node Selector",
            "string",
            (o, now) -> TableCells.formatLabels(at(o, "spec.template.spec.nodeSelector")))
        .age()
        .templateContainers("spec.template.spec")
        .wide("Selector", (o, now) -> TableCells.formatLabelSelector(at(o, "spec.selector")))
        .build();
  }

  private static List<TableColumn> deployment() {
    return new Columns("Deployment")
        .name()
        .add("Ready", "string", (o, now) -> TableCells.readyOfDesired(o))
        .add("Up-to-date", "string", (o, now) -> number(o, "status.updatedReplicas"))
        .add("Available", "string", (o, now) -> number(o, "status.availableReplicas"))
        .age()
        .templateContainers("spec.template.spec")
        // Unlike the other workloads, not formatted: an empty selector is an empty cell.
        .wide("Selector", (o, now) -> TableCells.labelSelector(at(o, "spec.selector")))
        .build();
  }

  private static List<TableColumn> statefulSet() {
    return new Columns("StatefulSet")
        .name()
        .add("Ready", "string", (o, now) -> TableCells.readyOfDesired(o))
        .age()
        .templateContainers("spec.template.spec")
        .build();
  }

  private static List<TableColumn> job() {
    return new Columns("Job")
        .name()
        .add("Status", "string", (o, now) -> TableCells.jobStatus(o))
        .add("Completions", "string", (o, now) -> TableCells.jobCompletions(o))
        .add("Duration", "string", TableCells::jobDuration)
        .age()
        .templateContainers("spec.template.spec")
        .wide("Selector", (o, now) -> TableCells.formatLabelSelector(at(o, "spec.selector")))
        .build();
  }

  private static List<TableColumn> cronJob() {
    return new Columns("CronJob")
        .name()
        .add("Schedule", "string", (o, now) -> TableCells.text(o, "spec.schedule", ""))
        .add("Timezone", "string", (o, now) -> TableCells.text(o, "spec.timeZone", TableCells.NONE))
        .add("Suspend", "boolean", (o, now) -> TableCells.cronJobSuspend(o))
        .add("Active", "integer", (o, now) -> (long) at(o, "status.active").size())
        .add("Last Schedule", "string", TableCells::cronJobLastSchedule)
        .age()
        .templateContainers("spec.jobTemplate.spec.template.spec")
        .wide(
            "Selector",
            (o, now) -> TableCells.formatLabelSelector(at(o, "spec.jobTemplate.spec.selector")))
        .build();
  }

  private static List<TableColumn> service() {
    return new Columns("Service")
        .name()
        .add("Type", "string", (o, now) -> TableCells.serviceType(o))
        .add("Cluster-IP", "string", (o, now) -> TableCells.clusterIp(o))
        .add("External-IP", "string", (o, now) -> TableCells.externalIp(o))
        .add("Port(s)", "string", (o, now) -> TableCells.ports(o))
        .age()
        .wide("Selector", (o, now) -> TableCells.formatLabels(at(o, "spec.selector")))
        .build();
  }

  private static List<TableColumn> ingress() {
    return new Columns("Ingress")
        .name()
        .add("Class", "string", (o, now) -> TableCells.ingressClass(o))
        .add("Hosts", "string", (o, now) -> TableCells.ingressHosts(o))
        .add("Address", "string", (o, now) -> String.join(",", TableCells.loadBalancerAddresses(o)))
        .add("Ports", "string", (o, now) -> TableCells.ingressPorts(o))
        .age()
        .build();
  }

  private static List<TableColumn> configMap() {
    return new Columns("ConfigMap")
        .name()
        .add(
            "Data",
            "string",
            (o, now) -> (long) (at(o, "data").size() + at(o, "binaryData").size()))
        .age()
        .build();
  }

  private static List<TableColumn> secret() {
    return new Columns("Secret")
        .name()
        .add("Type", "string", (o, now) -> TableCells.text(o, "type", "Opaque"))
        .add("Data", "string", (o, now) -> secretKeys(o))
        .age()
        .build();
  }

  /** The keys of data, and of stringData, which the API server merges into data on writes. */
  private static long secretKeys(JsonNode secret) {
    Set<String> keys = new HashSet<>();
    at(secret, "data").fieldNames().forEachRemaining(keys::add);
    at(secret, "stringData").fieldNames().forEachRemaining(keys::add);
    return keys.size();
  }

  private static List<TableColumn> namespace() {
    return new Columns("Namespace")
        .name()
        .add("Status", "string", (o, now) -> TableCells.text(o, "status.phase", "Active"))
        .age()
        .build();
  }

  private static List<TableColumn> node() {
    return new Columns("Node")
        .name()
        .add("Status", "string", (o, now) -> TableCells.nodeStatus(o))
        .add("Roles", "string", (o, now) -> TableCells.nodeRoles(o))
        .age()
        .add(
            "Version",
            "string",
            (o, now) -> TableCells.text(o, "status.nodeInfo.kubeletVersion", ""))
        .wide("Internal-IP", (o, now) -> TableCells.nodeAddress(o, "InternalIP"))
        .wide("External-IP", (o, now) -> TableCells.nodeAddress(o, "ExternalIP"))
        .wide("OS-Image", (o, now) -> nodeInfo(o, "osImage"))
        .wide("Kernel-Version", (o, now) -> nodeInfo(o, "kernelVersion"))
        .wide("Container-Runtime", (o, now) -> nodeInfo(o, "containerRuntimeVersion"))
        .build();
  }

  private static String nodeInfo(JsonNode node, String field) {
    return TableCells.text(node, "status.nodeInfo." + field, TableCells.UNKNOWN);
  }

  /** CRDs have no printer: the API server's default table (its time in RFC 3339). */
  private static List<TableColumn> customResourceDefinition() {
    return new Columns("CustomResourceDefinition")
        .name()
        .add("Created At", "date", (o, now) -> TableCells.text(o, "metadata.creationTimestamp", ""))
        .build();
  }

  /** metrics-server's table: the name, each usage resource summed over containers, the window. */
  private static List<TableColumn> metrics(String kind) {
    return new Columns(kind)
        .name()
        .add("cpu", "string", "quantity", (o, now) -> usageSum(o, "cpu"))
        .add("memory", "string", "quantity", (o, now) -> usageSum(o, "memory"))
        .add("Window", "string", "duration", (o, now) -> TableCells.text(o, "window", ""))
        .build();
  }

  private static String usageSum(JsonNode metrics, String resource) {
    List<JsonNode> usages = new ArrayList<>();
    if (metrics.has("usage")) {
      usages.add(metrics.get("usage"));
    }
    metrics.path("containers").forEach(container -> usages.add(container.path("usage")));
    return ResourceMetrics.sum(usages, resource);
  }

  private static Properties descriptions() {
    Properties properties = new Properties();
    try (InputStream in =
        BuiltInTables.class.getResourceAsStream("table-column-descriptions.properties")) {
      if (in == null) {
        throw new IllegalStateException("table-column-descriptions.properties is missing");
      }
      properties.load(new InputStreamReader(in, StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return properties;
  }

  /** Builds a kind's columns, each with its description from the properties. */
  static final class Columns {
    private final String kind;
    private final List<TableColumn> columns = new ArrayList<>();

    Columns(String kind) {
      this.kind = kind;
    }

    /** The object's name, the column that identifies it. */
    Columns name() {
      return column("Name", "string", "name", 0, (o, now) -> Json.text(o, "metadata.name"));
    }

    Columns age() {
      return add("Age", "string", TableCells::age);
    }

    Columns add(String name, String type, TableColumn.Cell cell) {
      return add(name, type, "", cell);
    }

    Columns add(String name, String type, String format, TableColumn.Cell cell) {
      return column(name, type, format, 0, cell);
    }

    /** A string column kubectl shows only with {@code -o wide}. */
    Columns wide(String name, TableColumn.Cell cell) {
      return column(name, "string", "", 1, cell);
    }

    /** The wide Containers and Images columns of a pod template. */
    Columns templateContainers(String podSpecPath) {
      return wide("Containers", (o, now) -> containerNames(at(o, podSpecPath)))
          .wide("Images", (o, now) -> containerImages(at(o, podSpecPath)));
    }

    List<TableColumn> build() {
      return List.copyOf(columns);
    }

    private Columns column(
        String name, String type, String format, int priority, TableColumn.Cell cell) {
      String description = DESCRIPTIONS.getProperty(kind + "." + name);
      if (description == null) {
        description = DESCRIPTIONS.getProperty(name);
      }
      if (description == null) {
        throw new IllegalStateException(
            "table-column-descriptions.properties describes no column " + kind + "." + name);
      }
      columns.add(new TableColumn(name, type, format, priority, description, cell));
      return this;
    }
  }
}
