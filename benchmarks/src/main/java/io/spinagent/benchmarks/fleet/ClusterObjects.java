package io.spinagent.benchmarks.fleet;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * The objects of one simulated cluster, as an application team's cluster holds them: Deployments
 * with their ReplicaSets and Pods (owner references, labels, Spinnaker moniker annotations,
 * kubectl's last-applied configuration, container specs with ports, environment and resources),
 * Services, StatefulSets, DaemonSets, Jobs, CronJobs, Ingresses and NetworkPolicies in an
 * application namespace. Objects carry metadata and spec, no status (the test API server drops
 * status on create, as a real one does for kinds with a status subresource); 1–3 KB of JSON each.
 *
 * <p>{@link #cluster} gives the 110 objects of one account of the agent benchmark (every default
 * kind the agent watches but CustomResourceDefinitions); {@link #application} the smaller set
 * (Deployment, ReplicaSet, Pods, Service) of one simulated agent's account.
 */
final class ClusterObjects {

  private static final ObjectMapper JSON = new ObjectMapper();

  /** Namespaces every test cluster starts with; the application namespace comes on top. */
  static final int DEFAULT_NAMESPACES = 4;

  private final String namespace;
  private final List<ObjectNode> objects = new ArrayList<>();

  private ClusterObjects(String namespace) {
    this.namespace = namespace;
  }

  /**
   * 106 objects to create in a cluster, which has 4 namespaces of its own, so that 110 objects of
   * 11 kinds are there to watch: the application namespace, 10 Deployments each with a ReplicaSet
   * and 6 Pods, 10 Services, 3 StatefulSets, 3 DaemonSets, 3 Jobs, 2 CronJobs, 2 Ingresses and 2
   * NetworkPolicies.
   */
  static List<ObjectNode> cluster(String namespace) {
    ClusterObjects c = new ClusterObjects(namespace);
    c.namespaceObject();
    for (int d = 0; d < 10; d++) {
      c.deploymentWithPods("web" + d, "shop", 6);
      c.service("web" + d, "shop");
    }
    for (int i = 0; i < 3; i++) {
      c.statefulSet("db" + i, "shop");
      c.daemonSet("agent" + i, "infra");
      c.job("migrate" + i, "shop");
    }
    for (int i = 0; i < 2; i++) {
      c.cronJob("report" + i, "shop");
      c.ingress("web" + i, "shop");
      c.networkPolicy("allow-web" + i, "shop");
    }
    return c.objects;
  }

  /** Objects to watch in a cluster seeded with {@link #cluster}: its own and the namespaces. */
  static int clusterSize() {
    return cluster("x").size() + DEFAULT_NAMESPACES;
  }

  /**
   * An application of about {@code objects} objects: Deployments with one ReplicaSet and Pods each,
   * and a Service per Deployment (20 objects: 2 Deployments, 2 ReplicaSets, 14 Pods, 2 Services).
   */
  static List<ObjectNode> application(String namespace, int objects) {
    ClusterObjects c = new ClusterObjects(namespace);
    int deployments = Math.max(1, objects / 10);
    int pods = Math.max(1, (objects - 3 * deployments) / deployments);
    for (int d = 0; d < deployments; d++) {
      c.deploymentWithPods("web" + d, "shop", pods);
      c.service("web" + d, "shop");
    }
    return c.objects;
  }

  /**
   * A namespace of its own and an {@linkplain #application application} of about {@code objects}
   * objects in it: what the benchmark adds to every cluster to measure the heap each further object
   * costs.
   */
  static List<ObjectNode> growth(String namespace, int objects) {
    ClusterObjects c = new ClusterObjects(namespace);
    c.namespaceObject();
    c.objects.addAll(application(namespace, objects));
    return c.objects;
  }

  private void namespaceObject() {
    ObjectNode ns = object("v1", "Namespace", namespace, null, "shop");
    ns.putObject("spec").putArray("finalizers").add("kubernetes");
    objects.add(ns);
  }

  private void deploymentWithPods(String name, String app, int pods) {
    ObjectNode deployment = object("apps/v1", "Deployment", name, namespace, app);
    ObjectNode spec = deployment.putObject("spec");
    spec.put("replicas", pods);
    spec.put("revisionHistoryLimit", 10);
    spec.putObject("selector").putObject("matchLabels").put("app", app).put("component", name);
    spec.putObject("strategy")
        .put("type", "RollingUpdate")
        .putObject("rollingUpdate")
        .put("maxSurge", "25%")
        .put("maxUnavailable", "25%");
    spec.set("template", podTemplate(app, name));
    lastApplied(deployment);
    objects.add(deployment);

    String hash = Integer.toHexString((namespace + name).hashCode() & 0x7fffffff);
    ObjectNode replicaSet = object("apps/v1", "ReplicaSet", name + "-" + hash, namespace, app);
    ObjectNode rsMetadata = (ObjectNode) replicaSet.get("metadata");
    ((ObjectNode) rsMetadata.get("labels")).put("pod-template-hash", hash);
    rsMetadata
        .putObject("annotations")
        .put("deployment.kubernetes.io/desired-replicas", String.valueOf(pods))
        .put("deployment.kubernetes.io/max-replicas", String.valueOf(pods + 2))
        .put("deployment.kubernetes.io/revision", "3")
        .put("moniker.spinnaker.io/application", app)
        .put("moniker.spinnaker.io/cluster", "deployment " + name);
    owner(rsMetadata, "apps/v1", "Deployment", name);
    ObjectNode rsSpec = replicaSet.putObject("spec");
    rsSpec.put("replicas", pods);
    rsSpec
        .putObject("selector")
        .putObject("matchLabels")
        .put("app", app)
        .put("component", name)
        .put("pod-template-hash", hash);
    rsSpec.set("template", podTemplate(app, name));
    objects.add(replicaSet);

    for (int p = 0; p < pods; p++) {
      ObjectNode pod = object("v1", "Pod", name + "-" + hash + "-p" + p, namespace, app);
      ObjectNode podMetadata = (ObjectNode) pod.get("metadata");
      ((ObjectNode) podMetadata.get("labels"))
          .put("component", name)
          .put("pod-template-hash", hash);
      owner(podMetadata, "apps/v1", "ReplicaSet", name + "-" + hash);
      ObjectNode podSpec = ((ObjectNode) podTemplate(app, name).get("spec")).deepCopy();
      podSpec.put("nodeName", "node-" + (p % 3));
      podSpec.put("serviceAccountName", "default");
      podSpec.put("restartPolicy", "Always");
      podSpec.put("terminationGracePeriodSeconds", 30);
      pod.set("spec", podSpec);
      objects.add(pod);
    }
  }

  private void service(String name, String app) {
    ObjectNode service = object("v1", "Service", name, namespace, app);
    ObjectNode spec = service.putObject("spec");
    spec.put("type", "ClusterIP");
    spec.put("clusterIP", "10.96." + Math.abs(name.hashCode() % 250) + ".10");
    spec.putObject("selector").put("app", app).put("component", name);
    ArrayNode ports = spec.putArray("ports");
    ports.addObject().put("name", "http").put("port", 80).put("targetPort", 8080);
    ports.addObject().put("name", "metrics").put("port", 9090).put("targetPort", 9090);
    lastApplied(service);
    objects.add(service);
  }

  private void statefulSet(String name, String app) {
    ObjectNode set = object("apps/v1", "StatefulSet", name, namespace, app);
    ObjectNode spec = set.putObject("spec");
    spec.put("replicas", 3);
    spec.put("serviceName", name);
    spec.putObject("selector").putObject("matchLabels").put("app", app).put("component", name);
    spec.set("template", podTemplate(app, name));
    ObjectNode claim = spec.putArray("volumeClaimTemplates").addObject();
    claim.putObject("metadata").put("name", "data");
    ObjectNode claimSpec = claim.putObject("spec");
    claimSpec.putArray("accessModes").add("ReadWriteOnce");
    claimSpec.putObject("resources").putObject("requests").put("storage", "10Gi");
    lastApplied(set);
    objects.add(set);
  }

  private void daemonSet(String name, String app) {
    ObjectNode set = object("apps/v1", "DaemonSet", name, namespace, app);
    ObjectNode spec = set.putObject("spec");
    spec.putObject("selector").putObject("matchLabels").put("app", app).put("component", name);
    spec.set("template", podTemplate(app, name));
    objects.add(set);
  }

  private void job(String name, String app) {
    ObjectNode job = object("batch/v1", "Job", name, namespace, app);
    ObjectNode spec = job.putObject("spec");
    spec.put("backoffLimit", 3);
    ObjectNode template = podTemplate(app, name);
    ((ObjectNode) template.get("spec")).put("restartPolicy", "Never");
    spec.set("template", template);
    objects.add(job);
  }

  private void cronJob(String name, String app) {
    ObjectNode cron = object("batch/v1", "CronJob", name, namespace, app);
    ObjectNode spec = cron.putObject("spec");
    spec.put("schedule", "0 * * * *");
    spec.put("concurrencyPolicy", "Forbid");
    ObjectNode template = podTemplate(app, name);
    ((ObjectNode) template.get("spec")).put("restartPolicy", "OnFailure");
    spec.putObject("jobTemplate").putObject("spec").set("template", template);
    objects.add(cron);
  }

  private void ingress(String name, String app) {
    ObjectNode ingress = object("networking.k8s.io/v1", "Ingress", name, namespace, app);
    ObjectNode spec = ingress.putObject("spec");
    spec.put("ingressClassName", "nginx");
    ObjectNode rule = spec.putArray("rules").addObject().put("host", name + ".shop.example.com");
    ObjectNode path = rule.putObject("http").putArray("paths").addObject();
    path.put("path", "/").put("pathType", "Prefix");
    path.putObject("backend")
        .putObject("service")
        .put("name", name)
        .putObject("port")
        .put("number", 80);
    lastApplied(ingress);
    objects.add(ingress);
  }

  private void networkPolicy(String name, String app) {
    ObjectNode policy = object("networking.k8s.io/v1", "NetworkPolicy", name, namespace, app);
    ObjectNode spec = policy.putObject("spec");
    spec.putObject("podSelector").putObject("matchLabels").put("app", app);
    spec.putArray("policyTypes").add("Ingress");
    ObjectNode from = spec.putArray("ingress").addObject().putArray("from").addObject();
    from.putObject("namespaceSelector")
        .putObject("matchLabels")
        .put("kubernetes.io/metadata.name", "ingress-nginx");
    objects.add(policy);
  }

  private static ObjectNode podTemplate(String app, String component) {
    ObjectNode template = JSON.createObjectNode();
    ObjectNode metadata = template.putObject("metadata");
    metadata
        .putObject("labels")
        .put("app", app)
        .put("component", component)
        .put("app.kubernetes.io/managed-by", "spinnaker");
    metadata
        .putObject("annotations")
        .put("prometheus.io/scrape", "true")
        .put("prometheus.io/port", "9090");
    ObjectNode spec = template.putObject("spec");
    ObjectNode container = spec.putArray("containers").addObject();
    container.put("name", component);
    container.put("image", "registry.example.com/shop/" + component + ":1.42.7");
    container.put("imagePullPolicy", "IfNotPresent");
    ArrayNode ports = container.putArray("ports");
    ports.addObject().put("name", "http").put("containerPort", 8080).put("protocol", "TCP");
    ports.addObject().put("name", "metrics").put("containerPort", 9090).put("protocol", "TCP");
    ArrayNode env = container.putArray("env");
    env.addObject().put("name", "SPRING_PROFILES_ACTIVE").put("value", "prod");
    env.addObject().put("name", "JAVA_TOOL_OPTIONS").put("value", "-XX:MaxRAMPercentage=70");
    env.addObject()
        .put("name", "DATABASE_URL")
        .put("value", "jdbc:postgresql://db0." + app + ".svc:5432/" + app);
    ObjectNode resources = container.putObject("resources");
    resources.putObject("requests").put("cpu", "250m").put("memory", "512Mi");
    resources.putObject("limits").put("cpu", "1").put("memory", "1Gi");
    ObjectNode probe = container.putObject("readinessProbe");
    probe.putObject("httpGet").put("path", "/health").put("port", 8080);
    probe.put("periodSeconds", 10);
    container
        .putArray("volumeMounts")
        .addObject()
        .put("name", "config")
        .put("mountPath", "/etc/app");
    spec.putArray("volumes")
        .addObject()
        .put("name", "config")
        .putObject("configMap")
        .put("name", component + "-config");
    return template;
  }

  private static ObjectNode object(
      String apiVersion, String kind, String name, String namespace, String app) {
    ObjectNode object = JSON.createObjectNode();
    object.put("apiVersion", apiVersion);
    object.put("kind", kind);
    ObjectNode metadata = object.putObject("metadata");
    metadata.put("name", name);
    if (namespace != null) {
      metadata.put("namespace", namespace);
    }
    metadata
        .putObject("labels")
        .put("app", app)
        .put("app.kubernetes.io/managed-by", "spinnaker")
        .put("app.kubernetes.io/name", app)
        .put("team", "checkout");
    return object;
  }

  /** What {@code kubectl apply} leaves: the applied manifest as an annotation. */
  private static void lastApplied(ObjectNode object) {
    ObjectNode metadata = (ObjectNode) object.get("metadata");
    ObjectNode annotations =
        metadata.has("annotations")
            ? (ObjectNode) metadata.get("annotations")
            : metadata.putObject("annotations");
    annotations
        .put("artifact.spinnaker.io/location", metadata.path("namespace").asText(""))
        .put("artifact.spinnaker.io/name", metadata.path("name").asText())
        .put("artifact.spinnaker.io/type", "kubernetes/" + object.path("kind").asText())
        .put("moniker.spinnaker.io/application", metadata.path("labels").path("app").asText());
    annotations.put("kubectl.kubernetes.io/last-applied-configuration", object.toString());
  }

  private static void owner(ObjectNode metadata, String apiVersion, String kind, String name) {
    metadata
        .putArray("ownerReferences")
        .addObject()
        .put("apiVersion", apiVersion)
        .put("kind", kind)
        .put("name", name)
        .put("uid", UUID.nameUUIDFromBytes(name.getBytes(StandardCharsets.UTF_8)).toString())
        .put("controller", true)
        .put("blockOwnerDeletion", true);
  }
}
