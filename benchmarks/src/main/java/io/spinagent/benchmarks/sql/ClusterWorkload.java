package io.spinagent.benchmarks.sql;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.protobuf.ByteString;
import io.spinagent.protocol.v1.ChangeType;
import io.spinagent.protocol.v1.Kind;
import io.spinagent.protocol.v1.ObjectChange;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;

/**
 * One account's objects as an application team's cluster holds them — per Deployment one ReplicaSet
 * and eight Pods, linked by owner references, with labels, moniker annotations, last-applied
 * configuration, container specs and status (2–4 KB of JSON each) — and the change stream such a
 * cluster produces: mostly status updates of any object, with Pods replaced now and then (a delete
 * and a create), at increasing resourceVersions.
 *
 * <p>Deterministic for a seed. Not thread-safe: one thread generates; {@link #listing()} copies.
 */
final class ClusterWorkload {

  static final String ACCOUNT = "bench";
  static final String NAMESPACE = "prod";
  static final Kind DEPLOYMENT =
      Kind.newBuilder().setGroup("apps").setVersion("v1").setKind("Deployment").build();
  static final Kind REPLICA_SET =
      Kind.newBuilder().setGroup("apps").setVersion("v1").setKind("ReplicaSet").build();
  static final Kind POD = Kind.newBuilder().setGroup("").setVersion("v1").setKind("Pod").build();
  static final List<Kind> KINDS = List.of(DEPLOYMENT, REPLICA_SET, POD);

  private static final int PODS_PER_REPLICA_SET = 8;
  private static final int DEPLOYMENTS_PER_APPLICATION = 10;

  /** Share of changes that replace a Pod (delete + create) rather than update an object. */
  private static final double POD_REPLACEMENTS = 0.05;

  private final ObjectMapper mapper = new ObjectMapper();
  private final Random random;

  /**
   * Live objects by "Kind/name", in creation order, as JSON: the benchmark's own heap stays small
   * (as trees they would be hundreds of MB), so that its garbage collections do not stand in the
   * writer's latency figures.
   */
  private final Map<String, byte[]> live = new LinkedHashMap<>();

  private final List<String> liveKeys = new ArrayList<>();
  private long resourceVersion = 1_000;
  private long sequence;
  private int podSerial;

  /** The account's initial objects, about {@code objects} of them (a multiple of ten). */
  ClusterWorkload(int objects, long seed) {
    this.random = new Random(seed);
    int deployments = Math.max(1, objects / (2 + PODS_PER_REPLICA_SET));
    for (int d = 0; d < deployments; d++) {
      String app = "app" + (d / DEPLOYMENTS_PER_APPLICATION);
      String name = app + "-web" + (d % DEPLOYMENTS_PER_APPLICATION);
      ObjectNode deployment = deployment(app, name);
      put(deployment);
      ObjectNode replicaSet = replicaSet(deployment, app);
      put(replicaSet);
      for (int p = 0; p < PODS_PER_REPLICA_SET; p++) {
        put(pod(replicaSet, app));
      }
    }
  }

  int size() {
    return live.size();
  }

  /** Every live object as an upsert change (the agent's listing), in creation order. */
  List<ObjectChange> listing() {
    List<ObjectChange> changes = new ArrayList<>(live.size());
    for (String key : live.keySet()) {
      changes.add(upsert(object(key), live.get(key)));
    }
    return changes;
  }

  /** The next {@code count} changes of the stream, applied to the live objects. */
  List<ObjectChange> changes(int count) {
    List<ObjectChange> changes = new ArrayList<>(count);
    while (changes.size() < count) {
      if (random.nextDouble() < POD_REPLACEMENTS && changes.size() + 2 <= count) {
        replacePod(changes);
      } else {
        String key = liveKeys.get(random.nextInt(liveKeys.size()));
        ObjectNode object = object(key);
        touch(object);
        byte[] json = json(object);
        live.put(key, json);
        changes.add(upsert(object, json));
      }
    }
    return changes;
  }

  private void replacePod(List<ObjectChange> changes) {
    String key;
    do {
      key = liveKeys.get(random.nextInt(liveKeys.size()));
    } while (!key.startsWith("Pod/"));
    ObjectNode gone = object(key);
    live.remove(key);
    liveKeys.remove(key);
    changes.add(delete(POD, gone.path("metadata").path("name").asText(), ++resourceVersion));
    String app = gone.path("metadata").path("labels").path("app").asText();
    String owner = gone.path("metadata").path("ownerReferences").path(0).path("name").asText();
    ObjectNode created = pod(object("ReplicaSet/" + owner), app);
    changes.add(upsert(created, put(created)));
  }

  /** A status change, as a kubelet or controller makes many times a minute. */
  private void touch(ObjectNode object) {
    ObjectNode metadata = (ObjectNode) object.get("metadata");
    metadata.put("resourceVersion", Long.toString(++resourceVersion));
    ObjectNode status = (ObjectNode) object.get("status");
    status.put("observedGeneration", resourceVersion);
    ArrayNode conditions = (ArrayNode) status.get("conditions");
    ((ObjectNode) conditions.get(0)).put("lastProbeTime", timestamp(resourceVersion));
    if (status.has("containerStatuses")) {
      ObjectNode container = (ObjectNode) status.get("containerStatuses").get(0);
      container.put("restartCount", container.path("restartCount").asInt() + 1);
    }
  }

  /** Adds a new live object; returns its JSON. */
  private byte[] put(ObjectNode object) {
    String key = object.get("kind").asText() + "/" + object.path("metadata").path("name").asText();
    byte[] json = json(object);
    live.put(key, json);
    liveKeys.add(key);
    return json;
  }

  private ObjectNode object(String key) {
    try {
      return (ObjectNode) mapper.readTree(live.get(key));
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  private byte[] json(ObjectNode object) {
    try {
      return mapper.writeValueAsBytes(object);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  private ObjectChange upsert(ObjectNode object, byte[] json) {
    Kind kind =
        switch (object.get("kind").asText()) {
          case "Deployment" -> DEPLOYMENT;
          case "ReplicaSet" -> REPLICA_SET;
          default -> POD;
        };
    JsonNode metadata = object.get("metadata");
    return ObjectChange.newBuilder()
        .setSequence(++sequence)
        .setKind(kind)
        .setNamespace(NAMESPACE)
        .setName(metadata.get("name").asText())
        .setResourceVersion(metadata.get("resourceVersion").asText())
        .setType(ChangeType.CHANGE_TYPE_UPSERT)
        .setObjectJson(ByteString.copyFrom(json))
        .build();
  }

  private ObjectChange delete(Kind kind, String name, long rv) {
    return ObjectChange.newBuilder()
        .setSequence(++sequence)
        .setKind(kind)
        .setNamespace(NAMESPACE)
        .setName(name)
        .setResourceVersion(Long.toString(rv))
        .setType(ChangeType.CHANGE_TYPE_DELETE)
        .build();
  }

  // ------------------------------------------------------------------ object shapes

  private ObjectNode deployment(String app, String name) {
    ObjectNode d = object("apps/v1", "Deployment", name, app);
    ObjectNode annotations = (ObjectNode) d.path("metadata").get("annotations");
    annotations.put("moniker.spinnaker.io/cluster", "deployment " + name);
    annotations.put("deployment.kubernetes.io/revision", "3");
    ObjectNode spec = d.putObject("spec");
    spec.put("replicas", PODS_PER_REPLICA_SET);
    spec.put("revisionHistoryLimit", 2);
    spec.putObject("selector").putObject("matchLabels").put("app", app).put("deployment", name);
    spec.putObject("strategy")
        .put("type", "RollingUpdate")
        .putObject("rollingUpdate")
        .put("maxSurge", "25%")
        .put("maxUnavailable", "25%");
    ObjectNode template = spec.putObject("template");
    template.putObject("metadata").putObject("labels").put("app", app).put("deployment", name);
    template.set("spec", podSpec(app));
    annotations.put("kubectl.kubernetes.io/last-applied-configuration", spec.toString());
    status(d, false);
    return d;
  }

  private ObjectNode replicaSet(ObjectNode deployment, String app) {
    String deploymentName = deployment.path("metadata").path("name").asText();
    String hash = Long.toHexString(random.nextLong() & 0xfffffffffL);
    ObjectNode rs = object("apps/v1", "ReplicaSet", deploymentName + "-" + hash, app);
    ObjectNode metadata = (ObjectNode) rs.get("metadata");
    ((ObjectNode) metadata.get("labels")).put("pod-template-hash", hash);
    ObjectNode annotations = (ObjectNode) metadata.get("annotations");
    annotations.put("moniker.spinnaker.io/cluster", "deployment " + deploymentName);
    annotations.put("deployment.kubernetes.io/revision", "3");
    annotations.put(
        "deployment.kubernetes.io/desired-replicas", Integer.toString(PODS_PER_REPLICA_SET));
    annotations.put(
        "deployment.kubernetes.io/max-replicas", Integer.toString(PODS_PER_REPLICA_SET + 2));
    ownedBy(metadata, deployment);
    ObjectNode spec = rs.putObject("spec");
    spec.put("replicas", PODS_PER_REPLICA_SET);
    spec.putObject("selector")
        .putObject("matchLabels")
        .put("app", app)
        .put("pod-template-hash", hash);
    ObjectNode template = spec.putObject("template");
    template
        .putObject("metadata")
        .putObject("labels")
        .put("app", app)
        .put("pod-template-hash", hash);
    template.set("spec", podSpec(app));
    status(rs, false);
    return rs;
  }

  private ObjectNode pod(ObjectNode replicaSet, String app) {
    ObjectNode rsMetadata = (ObjectNode) replicaSet.get("metadata");
    String suffix = Integer.toString(36 * 36 * 36 * 36 + podSerial++, 36);
    ObjectNode pod = object("v1", "Pod", rsMetadata.get("name").asText() + "-" + suffix, app);
    ObjectNode metadata = (ObjectNode) pod.get("metadata");
    ((ObjectNode) metadata.get("labels"))
        .put("pod-template-hash", rsMetadata.path("labels").path("pod-template-hash").asText());
    ((ObjectNode) metadata.get("annotations"))
        .put(
            "moniker.spinnaker.io/cluster",
            rsMetadata.path("annotations").path("moniker.spinnaker.io/cluster").asText());
    ownedBy(metadata, replicaSet);
    ObjectNode spec = podSpec(app);
    spec.put("nodeName", "node-" + random.nextInt(40) + ".internal");
    pod.set("spec", spec);
    status(pod, true);
    return pod;
  }

  private ObjectNode object(String apiVersion, String kind, String name, String app) {
    ObjectNode o = mapper.createObjectNode();
    o.put("apiVersion", apiVersion);
    o.put("kind", kind);
    ObjectNode metadata = o.putObject("metadata");
    metadata.put("name", name);
    metadata.put("namespace", NAMESPACE);
    metadata.put("uid", new java.util.UUID(random.nextLong(), random.nextLong()).toString());
    metadata.put("resourceVersion", Long.toString(++resourceVersion));
    metadata.put("generation", 3);
    metadata.put("creationTimestamp", timestamp(resourceVersion));
    metadata
        .putObject("labels")
        .put("app", app)
        .put("app.kubernetes.io/managed-by", "spinnaker")
        .put("app.kubernetes.io/name", app)
        .put("team", "team-" + app.hashCode() % 7)
        .put("tier", "web");
    metadata
        .putObject("annotations")
        .put("moniker.spinnaker.io/application", app)
        .put("artifact.spinnaker.io/location", NAMESPACE)
        .put("artifact.spinnaker.io/name", name)
        .put("artifact.spinnaker.io/type", "kubernetes/" + kind.toLowerCase(Locale.ROOT))
        .put("prometheus.io/scrape", "true")
        .put("prometheus.io/port", "9090");
    return o;
  }

  private static void ownedBy(ObjectNode metadata, ObjectNode owner) {
    metadata
        .putArray("ownerReferences")
        .addObject()
        .put("apiVersion", owner.get("apiVersion").asText())
        .put("kind", owner.get("kind").asText())
        .put("name", owner.path("metadata").path("name").asText())
        .put("uid", owner.path("metadata").path("uid").asText())
        .put("controller", true)
        .put("blockOwnerDeletion", true);
  }

  private ObjectNode podSpec(String app) {
    ObjectNode spec = mapper.createObjectNode();
    ArrayNode containers = spec.putArray("containers");
    for (String container : List.of("web", "sidecar")) {
      ObjectNode c = containers.addObject();
      c.put("name", container);
      c.put(
          "image",
          "registry.example.com/" + app + "/" + container + ":1." + random.nextInt(50) + ".0");
      c.put("imagePullPolicy", "IfNotPresent");
      c.putArray("ports")
          .addObject()
          .put("name", "http")
          .put("containerPort", 8080)
          .put("protocol", "TCP");
      ArrayNode env = c.putArray("env");
      for (String variable :
          List.of("MODE", "REGION", "LOG_LEVEL", "FEATURE_FLAGS", "DB_HOST", "CACHE_TTL")) {
        env.addObject()
            .put("name", variable)
            .put("value", variable.toLowerCase(Locale.ROOT) + "-" + random.nextInt(1000));
      }
      ObjectNode resources = c.putObject("resources");
      resources.putObject("requests").put("cpu", "250m").put("memory", "256Mi");
      resources.putObject("limits").put("cpu", "1").put("memory", "512Mi");
      ObjectNode probe = c.putObject("readinessProbe");
      probe.putObject("httpGet").put("path", "/health").put("port", 8080).put("scheme", "HTTP");
      probe.put("periodSeconds", 10).put("timeoutSeconds", 1).put("failureThreshold", 3);
      c.putArray("volumeMounts")
          .addObject()
          .put("name", "config")
          .put("mountPath", "/etc/" + app)
          .put("readOnly", true);
    }
    spec.putArray("volumes")
        .addObject()
        .put("name", "config")
        .putObject("configMap")
        .put("name", app + "-config");
    spec.put("restartPolicy", "Always");
    spec.put("terminationGracePeriodSeconds", 30);
    spec.put("dnsPolicy", "ClusterFirst");
    spec.put("serviceAccountName", app);
    spec.putArray("tolerations")
        .addObject()
        .put("key", "node.kubernetes.io/not-ready")
        .put("operator", "Exists")
        .put("effect", "NoExecute");
    return spec;
  }

  private void status(ObjectNode object, boolean pod) {
    ObjectNode status = object.putObject("status");
    status.put("observedGeneration", 3);
    ArrayNode conditions = status.putArray("conditions");
    for (String type :
        pod
            ? List.of("Initialized", "Ready", "ContainersReady", "PodScheduled")
            : List.of("Available", "Progressing")) {
      conditions
          .addObject()
          .put("type", type)
          .put("status", "True")
          .put("lastProbeTime", timestamp(resourceVersion))
          .put("lastTransitionTime", timestamp(resourceVersion));
    }
    if (pod) {
      status.put("phase", "Running");
      status.put("hostIP", "10.0." + random.nextInt(256) + "." + random.nextInt(256));
      status.put("podIP", "10.1." + random.nextInt(256) + "." + random.nextInt(256));
      status.put("startTime", timestamp(resourceVersion));
      ArrayNode containers = status.putArray("containerStatuses");
      for (String container : List.of("web", "sidecar")) {
        ObjectNode c = containers.addObject();
        c.put("name", container).put("ready", true).put("restartCount", 0).put("started", true);
        c.put("image", "registry.example.com/" + container);
        c.put(
            "containerID",
            "containerd://"
                + Long.toHexString(random.nextLong())
                + Long.toHexString(random.nextLong()));
        c.putObject("state").putObject("running").put("startedAt", timestamp(resourceVersion));
      }
    } else {
      status
          .put("replicas", PODS_PER_REPLICA_SET)
          .put("readyReplicas", PODS_PER_REPLICA_SET)
          .put("availableReplicas", PODS_PER_REPLICA_SET);
    }
  }

  private static String timestamp(long seconds) {
    return java.time.Instant.ofEpochSecond(1_790_000_000L + seconds).toString();
  }
}
