package io.spinagent.benchmarks.fleet;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.spinagent.testkit.kubernetes.KubernetesApiServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

/**
 * One account of the fault soak: a test API server of its own (so that it can be restarted and
 * compacted alone) seeded with an application, the changes the soak makes to it (pods created,
 * objects relabelled, pods and services deleted), and what it holds now, which the cache must match
 * once quiet. Changes go straight to the server's store, so they go on while its listener is down,
 * as a real cluster's do while its API server is unreachable.
 */
final class SoakCluster implements AutoCloseable {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String NAMESPACE = "shop";

  /** The namespaces every test API server starts with. */
  private static final List<String> DEFAULT_NAMESPACES =
      List.of("default", "kube-system", "kube-public", "kube-node-lease");

  private final String account;
  private final KubernetesApiServer server;
  private final Path kubeconfig;

  /** The objects the soak created and has not deleted, by kind/namespace/name. */
  private final Map<String, Ref> objects = new TreeMap<>();

  private final List<ObjectNode> podTemplates = new ArrayList<>();
  private int created;

  private record Ref(String apiVersion, String kind, String namespace, String name) {}

  SoakCluster(String account, Path dir, int seedObjects) {
    this.account = account;
    this.server = KubernetesApiServer.builder().start();
    ObjectNode namespace = JSON.createObjectNode();
    namespace.put("apiVersion", "v1").put("kind", "Namespace");
    namespace.putObject("metadata").put("name", NAMESPACE);
    create(namespace);
    for (ObjectNode object : ClusterObjects.application(NAMESPACE, seedObjects)) {
      create(object);
      if (object.path("kind").asText().equals("Pod")) {
        podTemplates.add(object.deepCopy());
      }
    }
    this.kubeconfig =
        server.kubeconfig().name(account).writeTo(dir.resolve(account + ".kubeconfig"));
  }

  String account() {
    return account;
  }

  Path kubeconfig() {
    return kubeconfig;
  }

  /**
   * One change: a pod created (owned by a seeded ReplicaSet), an object relabelled, a pod deleted,
   * or a service created or deleted.
   */
  synchronized String change(Random random) {
    int choice = random.nextInt(10);
    if (choice < 3) {
      ObjectNode pod = podTemplates.get(random.nextInt(podTemplates.size())).deepCopy();
      ObjectNode metadata = (ObjectNode) pod.get("metadata");
      created++;
      metadata.put("name", metadata.path("name").asText() + "-c" + created);
      create(pod);
      return "create";
    }
    if (choice < 5) {
      List<Ref> pods = ofKind("Pod");
      if (pods.size() > 1) {
        delete(pods.get(random.nextInt(pods.size())));
        return "delete";
      }
    }
    if (choice == 5) {
      List<Ref> services = ofKind("Service");
      if (!services.isEmpty() && random.nextBoolean()) {
        delete(services.get(random.nextInt(services.size())));
        return "delete";
      }
      ObjectNode service = JSON.createObjectNode();
      service.put("apiVersion", "v1").put("kind", "Service");
      ObjectNode metadata = service.putObject("metadata");
      created++;
      metadata.put("name", "svc-c" + created).put("namespace", NAMESPACE);
      metadata.putObject("labels").put("app", "shop");
      ObjectNode spec = service.putObject("spec");
      spec.putObject("selector").put("app", "shop").put("component", "web" + random.nextInt(2));
      spec.putArray("ports").addObject().put("port", 80).put("targetPort", 8080);
      create(service);
      return "create";
    }
    List<Ref> all = new ArrayList<>(objects.values());
    all.removeIf(ref -> ref.kind().equals("Namespace"));
    Ref ref = all.get(random.nextInt(all.size()));
    created++;
    server.mergePatchObject(
        ref.apiVersion(),
        ref.kind(),
        ref.namespace(),
        ref.name(),
        "{\"metadata\":{\"labels\":{\"soak-change\":\"" + created + "\"}}}");
    return "update";
  }

  /** Every object the cluster holds now, as its API server would return it. */
  synchronized List<JsonNode> objects() {
    List<JsonNode> now = new ArrayList<>();
    for (String name : DEFAULT_NAMESPACES) {
      server.getObject("v1", "Namespace", null, name).map(SoakCluster::parse).ifPresent(now::add);
    }
    for (Ref ref : objects.values()) {
      server
          .getObject(ref.apiVersion(), ref.kind(), ref.namespace(), ref.name())
          .map(SoakCluster::parse)
          .ifPresent(now::add);
    }
    return now;
  }

  /** Stops the API server's listener (watches end, connections are refused) for {@code down}. */
  void restartApiServer(java.time.Duration down) throws InterruptedException {
    server.stop();
    try {
      Thread.sleep(down.toMillis());
    } finally {
      server.start();
    }
  }

  /**
   * With the API server down, changes the cluster three times and compacts its history, then starts
   * the server again: the agent's watches resume from a version the server no longer has and get
   * 410 Gone, so the agent lists the cluster again.
   */
  void compactWhileAway(Random random) {
    server.stop();
    try {
      for (int i = 0; i < 3; i++) {
        change(random);
      }
      server.compact();
    } finally {
      server.start();
    }
  }

  @Override
  public void close() {
    server.close();
  }

  private List<Ref> ofKind(String kind) {
    return objects.values().stream().filter(ref -> ref.kind().equals(kind)).toList();
  }

  private void create(ObjectNode object) {
    JsonNode stored = parse(server.createObject(object.toString()));
    JsonNode metadata = stored.path("metadata");
    Ref ref =
        new Ref(
            stored.path("apiVersion").asText(),
            stored.path("kind").asText(),
            metadata.hasNonNull("namespace") ? metadata.path("namespace").asText() : null,
            metadata.path("name").asText());
    objects.put(key(ref), ref);
  }

  private void delete(Ref ref) {
    server.deleteObject(ref.apiVersion(), ref.kind(), ref.namespace(), ref.name());
    objects.remove(key(ref));
  }

  private static String key(Ref ref) {
    return ref.kind() + "/" + ref.namespace() + "/" + ref.name();
  }

  private static JsonNode parse(String json) {
    try {
      return JSON.readTree(json);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
