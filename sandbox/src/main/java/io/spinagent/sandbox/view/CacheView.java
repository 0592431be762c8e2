package io.spinagent.sandbox.view;

import com.fasterxml.jackson.databind.JsonNode;
import io.spinagent.sandbox.view.CacheTables.Item;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What Deck's application screens would show from the cache: applications → clusters → server
 * groups → instances, and load balancers, found by following the cache's relationships from the
 * logical application rows, as Clouddriver's Kubernetes provider does.
 */
public record CacheView(List<Application> applications) {

  public record Application(
      String name, List<Cluster> clusters, List<LoadBalancer> loadBalancers) {}

  public record Cluster(
      String account, String name, List<String> managers, List<ServerGroup> serverGroups) {}

  /** {@code desired} is the manifest's spec.replicas, {@code null} when it has none. */
  public record ServerGroup(
      String kind,
      String name,
      String namespace,
      Integer desired,
      List<Instance> instances,
      List<String> loadBalancers) {}

  public record Instance(String name, String phase) {}

  /** A Service or Ingress; {@code backends} are the Services an Ingress routes to. */
  public record LoadBalancer(String kind, String name, String namespace, List<String> backends) {}

  static final List<String> SERVER_GROUP_TYPES =
      List.of("replicaSet", "statefulSet", "daemonSet", "job", "cronJob");
  static final List<String> LOAD_BALANCER_TYPES = List.of("service", "ingress");

  /** Reads the whole view in one go. */
  public static CacheView read(CacheTables tables) {
    Map<String, String> existing = tables.existingTypes();
    Map<String, Item> applications = tables.all("applications", existing);
    Map<String, Item> clusters = tables.all("clusters", existing);
    Map<String, Item> deployments = tables.all("deployment", existing);
    Map<String, Item> pods = tables.all("pod", existing);
    Map<String, Map<String, Item>> serverGroups = new LinkedHashMap<>();
    for (String type : SERVER_GROUP_TYPES) {
      serverGroups.put(type, tables.all(type, existing));
    }
    Map<String, Map<String, Item>> loadBalancers = new LinkedHashMap<>();
    for (String type : LOAD_BALANCER_TYPES) {
      loadBalancers.put(type, tables.all(type, existing));
    }

    List<Application> result = new ArrayList<>();
    for (Item app : applications.values()) {
      List<Cluster> appClusters = new ArrayList<>();
      for (String clusterKey : app.related("clusters")) {
        Item cluster = clusters.get(clusterKey);
        if (cluster == null) {
          continue;
        }
        List<ServerGroup> groups = new ArrayList<>();
        serverGroups.forEach(
            (type, items) ->
                cluster.related(type).stream()
                    .map(items::get)
                    .filter(Objects::nonNull)
                    .forEach(
                        sg ->
                            groups.add(serverGroup(type, sg, pods, loadBalancers.get("service")))));
        groups.sort(Comparator.comparing(ServerGroup::name));
        List<String> managers =
            cluster.related("deployment").stream()
                .map(deployments::get)
                .filter(Objects::nonNull)
                .map(d -> "deployment " + d.attribute("name"))
                .sorted()
                .toList();
        appClusters.add(
            new Cluster(accountOf(clusterKey), cluster.attribute("name"), managers, groups));
      }
      appClusters.sort(
          Comparator.comparing(Cluster::name, Comparator.nullsFirst(Comparator.naturalOrder())));
      List<LoadBalancer> appLoadBalancers = new ArrayList<>();
      loadBalancers.forEach(
          (type, items) ->
              app.related(type).stream()
                  .map(items::get)
                  .filter(Objects::nonNull)
                  .forEach(
                      lb ->
                          appLoadBalancers.add(
                              new LoadBalancer(
                                  type,
                                  lb.attribute("name"),
                                  lb.attribute("namespace"),
                                  lb.related("service").stream()
                                      .map(loadBalancers.get("service")::get)
                                      .filter(Objects::nonNull)
                                      .map(s -> s.attribute("name"))
                                      .sorted()
                                      .toList()))));
      appLoadBalancers.sort(
          Comparator.comparing(LoadBalancer::kind).thenComparing(LoadBalancer::name));
      result.add(new Application(app.attribute("name"), appClusters, appLoadBalancers));
    }
    result.sort(
        Comparator.comparing(Application::name, Comparator.nullsFirst(Comparator.naturalOrder())));
    return new CacheView(result);
  }

  private static ServerGroup serverGroup(
      String type, Item sg, Map<String, Item> pods, Map<String, Item> services) {
    List<Instance> instances =
        sg.related("pod").stream()
            .map(pods::get)
            .filter(Objects::nonNull)
            .map(pod -> new Instance(pod.attribute("name"), text(pod.manifest("status.phase"))))
            .sorted(Comparator.comparing(Instance::name))
            .toList();
    List<String> serviceNames =
        sg.related("service").stream()
            .map(services::get)
            .filter(Objects::nonNull)
            .map(s -> s.attribute("name"))
            .sorted()
            .toList();
    JsonNode replicas = sg.manifest("spec.replicas");
    return new ServerGroup(
        type,
        sg.attribute("name"),
        sg.attribute("namespace"),
        replicas == null ? null : replicas.asInt(),
        instances,
        serviceNames);
  }

  /** The account part of {@code kubernetes.v2:logical:clusters:<account>:<app>:<cluster>}. */
  static String accountOf(String clusterKey) {
    String[] parts = clusterKey.split(":", 6);
    return parts.length == 6 ? parts[3] : "?";
  }

  private static String text(JsonNode node) {
    return node == null ? null : node.asText();
  }

  /** Instances across all applications, e.g. for a quick count. */
  public int instanceCount() {
    return applications.stream()
        .flatMap(a -> a.clusters().stream())
        .flatMap(c -> c.serverGroups().stream())
        .mapToInt(sg -> sg.instances().size())
        .sum();
  }
}
