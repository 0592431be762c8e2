package io.spinagent.sandbox.cluster;

import io.kubernetes.client.common.KubernetesListObject;
import io.kubernetes.client.common.KubernetesObject;
import io.kubernetes.client.common.KubernetesType;
import io.kubernetes.client.informer.ResourceEventHandler;
import io.kubernetes.client.informer.SharedInformerFactory;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.AppsV1Api;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.models.V1Deployment;
import io.kubernetes.client.openapi.models.V1DeploymentCondition;
import io.kubernetes.client.openapi.models.V1DeploymentList;
import io.kubernetes.client.openapi.models.V1DeploymentStatus;
import io.kubernetes.client.openapi.models.V1LabelSelector;
import io.kubernetes.client.openapi.models.V1Node;
import io.kubernetes.client.openapi.models.V1NodeList;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1OwnerReference;
import io.kubernetes.client.openapi.models.V1Pod;
import io.kubernetes.client.openapi.models.V1PodList;
import io.kubernetes.client.openapi.models.V1PodSpec;
import io.kubernetes.client.openapi.models.V1PodTemplateSpec;
import io.kubernetes.client.openapi.models.V1ReplicaSet;
import io.kubernetes.client.openapi.models.V1ReplicaSetList;
import io.kubernetes.client.openapi.models.V1ReplicaSetSpec;
import io.kubernetes.client.openapi.models.V1ReplicaSetStatus;
import io.kubernetes.client.util.generic.GenericKubernetesApi;
import io.kubernetes.client.util.generic.KubernetesApiResponse;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The part of kube-controller-manager the demo needs, against the simulated cluster (which has no
 * controllers): for every Deployment, a ReplicaSet per pod template (named with a template hash,
 * owned by the Deployment, with the {@code deployment.kubernetes.io/revision} annotation), as many
 * Pods as the Deployment asks for, and the statuses kubectl reads. Old ReplicaSets are scaled to
 * zero at once, and objects whose owner is gone are deleted, like the garbage collector would, as
 * are Pods bound to a node that is gone (Pod GC). Every Pod of the namespace is placed on a node
 * and reported running as the scheduler and the kubelets would ({@link SimulatedNodes}). It talks
 * to the API server through the official Kubernetes Java client, like any controller, so what it
 * does reaches the agent through the agent's own watches.
 *
 * <p>Past 500 lines because the Deployment, ReplicaSet, Pod and garbage-collection loops read and
 * write the same objects and share one reconciliation pass; split, they would pass it around.
 */
public final class DemoController implements AutoCloseable {

  static final String REVISION = "deployment.kubernetes.io/revision";
  static final String TEMPLATE_HASH = "pod-template-hash";

  /** Kubernetes' alphabet for generated name suffixes: no vowels, no look-alike digits. */
  private static final String ALPHABET = "bcdfghjklmnpqrstvwxz2456789";

  private static final Logger log = LoggerFactory.getLogger(DemoController.class);

  private final ApiClient client;
  private final String namespace;
  private final GenericKubernetesApi<V1Deployment, V1DeploymentList> deployments;
  private final GenericKubernetesApi<V1ReplicaSet, V1ReplicaSetList> replicaSets;
  private final GenericKubernetesApi<V1Pod, V1PodList> pods;
  private final GenericKubernetesApi<V1Node, V1NodeList> nodes;

  /**
   * Status writes: PUT on the status subresource (the generic API's updateStatus sends a PATCH
   * kubectl's servers refuse).
   */
  private final CoreV1Api core;

  private final AppsV1Api apps;
  private final ScheduledExecutorService worker;
  private final ExecutorService informerThreads;
  private final SharedInformerFactory informers;
  private final AtomicBoolean queued = new AtomicBoolean();
  private final SecureRandom random = new SecureRandom();

  private DemoController(ApiClient client, String namespace) {
    this.client = client;
    this.namespace = namespace;
    this.deployments =
        new GenericKubernetesApi<>(
            V1Deployment.class, V1DeploymentList.class, "apps", "v1", "deployments", client);
    this.replicaSets =
        new GenericKubernetesApi<>(
            V1ReplicaSet.class, V1ReplicaSetList.class, "apps", "v1", "replicasets", client);
    this.pods = new GenericKubernetesApi<>(V1Pod.class, V1PodList.class, "", "v1", "pods", client);
    this.nodes =
        new GenericKubernetesApi<>(V1Node.class, V1NodeList.class, "", "v1", "nodes", client);
    this.core = new CoreV1Api(client);
    this.apps = new AppsV1Api(client);
    this.worker = Executors.newSingleThreadScheduledExecutor(daemon("sandbox-demo-controller"));
    this.informerThreads = Executors.newCachedThreadPool(daemon("sandbox-demo-controller-watch"));
    this.informers = new SharedInformerFactory(client, informerThreads);
  }

  /**
   * Brings the namespace to its desired state once (so the cluster is complete before anything else
   * looks at it), then keeps it there on every change seen by its watches. {@code client} must have
   * no read timeout, for the watches.
   */
  public static DemoController start(ApiClient client, String namespace) {
    DemoController controller = new DemoController(client, namespace);
    try {
      controller.reconcileUntilStable();
      ResourceEventHandler<?> anyChange = controller.changeHandler();
      controller
          .informers
          .sharedIndexInformerFor(controller.deployments, V1Deployment.class, 0, namespace)
          .addEventHandler(cast(anyChange));
      controller
          .informers
          .sharedIndexInformerFor(controller.replicaSets, V1ReplicaSet.class, 0, namespace)
          .addEventHandler(cast(anyChange));
      controller
          .informers
          .sharedIndexInformerFor(controller.pods, V1Pod.class, 0, namespace)
          .addEventHandler(cast(anyChange));
      // Nodes that come, go or change readiness decide where Pods can run.
      controller
          .informers
          .sharedIndexInformerFor(controller.nodes, V1Node.class, 0)
          .addEventHandler(cast(anyChange));
      controller.informers.startAllRegisteredInformers();
      return controller;
    } catch (RuntimeException e) {
      controller.close();
      throw e;
    }
  }

  @SuppressWarnings("unchecked")
  private static <T extends KubernetesObject> ResourceEventHandler<T> cast(
      ResourceEventHandler<?> handler) {
    return (ResourceEventHandler<T>) handler;
  }

  private ResourceEventHandler<KubernetesObject> changeHandler() {
    return new ResourceEventHandler<>() {
      @Override
      public void onAdd(KubernetesObject object) {
        schedule(0);
      }

      @Override
      public void onUpdate(KubernetesObject before, KubernetesObject after) {
        schedule(0);
      }

      @Override
      public void onDelete(KubernetesObject object, boolean stateUnknown) {
        schedule(0);
      }
    };
  }

  /** One pass at a time; changes that arrive during a pass are picked up by the next one. */
  private void schedule(long delayMillis) {
    if (queued.compareAndSet(false, true)) {
      try {
        // runOnce logs its own failures and schedules a retry.
        ScheduledFuture<?> unused =
            worker.schedule(this::runOnce, delayMillis, TimeUnit.MILLISECONDS);
      } catch (RejectedExecutionException closing) {
        queued.set(false);
      }
    }
  }

  private void runOnce() {
    queued.set(false);
    try {
      reconcile();
    } catch (ApiException | RuntimeException e) {
      // Usually a conflict with a concurrent kubectl change: read again shortly.
      log.debug("Demo controller pass failed, retrying: {}", e.getMessage());
      schedule(200);
    }
  }

  private void reconcileUntilStable() {
    for (int attempt = 1; ; attempt++) {
      try {
        // Each pass may create what the next one fills in (ReplicaSet, then Pods, then statuses).
        for (int pass = 0; pass < 10 && reconcile(); pass++) {
          log.debug("Demo controller: pass {} changed the cluster", pass + 1);
        }
        return;
      } catch (ApiException e) {
        if (attempt >= 5) {
          throw new IllegalStateException(
              "The demo controller cannot set up the simulated cluster: HTTP "
                  + e.getCode()
                  + " "
                  + e.getResponseBody(),
              e);
        }
      }
    }
  }

  /** One pass over the namespace; true if it wrote anything. */
  boolean reconcile() throws ApiException {
    List<V1Deployment> allDeployments = list(deployments);
    List<V1ReplicaSet> allReplicaSets = list(replicaSets);
    List<V1Pod> allPods = list(pods);
    List<V1Node> allNodes = listClusterScoped(nodes);
    boolean wrote = false;

    Set<String> deploymentUids =
        allDeployments.stream().map(d -> d.getMetadata().getUid()).collect(Collectors.toSet());
    List<V1ReplicaSet> liveReplicaSets = new ArrayList<>();
    for (V1ReplicaSet rs : allReplicaSets) {
      Optional<V1OwnerReference> owner = controllerOf(rs.getMetadata(), "Deployment");
      if (owner.isPresent() && !deploymentUids.contains(owner.get().getUid())) {
        check(replicaSets.delete(namespace, rs.getMetadata().getName()));
        wrote = true;
      } else {
        liveReplicaSets.add(rs);
      }
    }
    Set<String> replicaSetUids =
        liveReplicaSets.stream().map(r -> r.getMetadata().getUid()).collect(Collectors.toSet());
    Set<String> nodeNames =
        allNodes.stream().map(n -> n.getMetadata().getName()).collect(Collectors.toSet());
    List<V1Pod> livePods = new ArrayList<>();
    for (V1Pod pod : allPods) {
      Optional<V1OwnerReference> owner = controllerOf(pod.getMetadata(), "ReplicaSet");
      String node = SimulatedNodes.nodeOf(pod);
      if ((owner.isPresent() && !replicaSetUids.contains(owner.get().getUid()))
          || (node != null && !nodeNames.contains(node))) {
        check(pods.delete(namespace, pod.getMetadata().getName()));
        wrote = true;
      } else {
        livePods.add(pod);
      }
    }

    SimulatedNodes cluster = new SimulatedNodes(allNodes, livePods);
    Map<String, List<V1Pod>> podsByReplicaSet = new HashMap<>();
    for (V1Pod pod : livePods) {
      Optional<V1Pod> written = run(pod, cluster);
      V1Pod current = written.orElse(pod);
      wrote |= written.isPresent();
      controllerOf(pod.getMetadata(), "ReplicaSet")
          .ifPresent(
              owner ->
                  podsByReplicaSet
                      .computeIfAbsent(owner.getUid(), uid -> new ArrayList<>())
                      .add(current));
    }

    for (V1Deployment deployment : allDeployments) {
      wrote |= reconcile(deployment, liveReplicaSets, podsByReplicaSet, cluster);
    }
    return wrote;
  }

  /**
   * Places the Pod on a node if it has none and reports it running there, as the scheduler and the
   * node's kubelet would; a Pod no node can take is reported unschedulable. Returns the Pod as
   * written; empty when nothing was written.
   */
  private Optional<V1Pod> run(V1Pod pod, SimulatedNodes cluster) throws ApiException {
    String phase = pod.getStatus() == null ? null : pod.getStatus().getPhase();
    if (pod.getMetadata().getDeletionTimestamp() != null
        || "Running".equals(phase)
        || "Succeeded".equals(phase)
        || "Failed".equals(phase)) {
      return Optional.empty();
    }
    // Kubernetes writes its timestamps in whole seconds.
    OffsetDateTime now = OffsetDateTime.now(ZoneOffset.UTC).truncatedTo(ChronoUnit.SECONDS);
    if (SimulatedNodes.nodeOf(pod) == null) {
      Optional<String> node = cluster.schedule();
      if (node.isEmpty()) {
        if (SimulatedNodes.isUnschedulable(pod)) {
          return Optional.empty();
        }
        pod.setStatus(cluster.unschedulable(now));
        return Optional.of(writeStatus(pod));
      }
      // The scheduler binds a Pod with the binding subresource, which the simulated cluster does
      // not serve; setting the node once, on a Pod that has none, has the same effect.
      pod.getSpec().setNodeName(node.get());
      pod = check(pods.update(pod));
    }
    pod.setStatus(cluster.running(pod, now));
    return Optional.of(writeStatus(pod));
  }

  private V1Pod writeStatus(V1Pod pod) throws ApiException {
    return core.replaceNamespacedPodStatus(pod.getMetadata().getName(), namespace, pod).execute();
  }

  private boolean reconcile(
      V1Deployment deployment,
      List<V1ReplicaSet> allReplicaSets,
      Map<String, List<V1Pod>> podsByReplicaSet,
      SimulatedNodes cluster)
      throws ApiException {
    boolean wrote = false;
    String uid = deployment.getMetadata().getUid();
    int desired = Optional.ofNullable(deployment.getSpec().getReplicas()).orElse(1);
    String hash = templateHash(deployment.getSpec().getTemplate());
    List<V1ReplicaSet> owned =
        allReplicaSets.stream()
            .filter(
                rs ->
                    controllerOf(rs.getMetadata(), "Deployment")
                        .map(o -> uid.equals(o.getUid()))
                        .orElse(false))
            .toList();
    V1ReplicaSet current =
        owned.stream()
            .filter(rs -> hash.equals(labels(rs.getMetadata()).get(TEMPLATE_HASH)))
            .findFirst()
            .orElse(null);
    if (current == null) {
      int revision = owned.stream().mapToInt(DemoController::revision).max().orElse(0) + 1;
      current = check(replicaSets.create(newReplicaSet(deployment, hash, revision, desired)));
      owned = new ArrayList<>(owned);
      owned.add(current);
      wrote = true;
    }

    int totalPods = 0;
    int readyPods = 0;
    int currentPods = 0;
    for (V1ReplicaSet rs : owned) {
      // current is one of the owned instances (found in or added to the list): identity is meant.
      @SuppressWarnings("ReferenceEquality")
      int wanted = rs == current ? desired : 0;
      if (!Objects.equals(rs.getSpec().getReplicas(), wanted)) {
        rs.getSpec().setReplicas(wanted);
        rs = check(replicaSets.update(rs));
        wrote = true;
      }
      List<V1Pod> rsPods =
          new ArrayList<>(podsByReplicaSet.getOrDefault(rs.getMetadata().getUid(), List.of()));
      rsPods.sort(
          Comparator.comparing(
                  (V1Pod p) -> p.getMetadata().getCreationTimestamp(),
                  Comparator.nullsFirst(Comparator.naturalOrder()))
              .thenComparing(p -> p.getMetadata().getName()));
      while (rsPods.size() > wanted) {
        V1Pod newest = rsPods.remove(rsPods.size() - 1);
        check(pods.delete(namespace, newest.getMetadata().getName()));
        wrote = true;
      }
      while (rsPods.size() < wanted) {
        V1Pod created = check(pods.create(newPod(rs, cluster.schedule())));
        rsPods.add(run(created, cluster).orElse(created));
        wrote = true;
      }
      int ready = (int) rsPods.stream().filter(DemoController::isReady).count();
      V1ReplicaSetStatus status =
          new V1ReplicaSetStatus()
              .replicas(rsPods.size())
              .fullyLabeledReplicas(rsPods.size())
              .readyReplicas(ready)
              .availableReplicas(ready)
              .observedGeneration(rs.getMetadata().getGeneration());
      if (!sameCounts(rs.getStatus(), status)) {
        rs.setStatus(status);
        apps.replaceNamespacedReplicaSetStatus(rs.getMetadata().getName(), namespace, rs).execute();
        wrote = true;
      }
      totalPods += rsPods.size();
      readyPods += ready;
      if (rs.getMetadata().getUid().equals(current.getMetadata().getUid())) {
        currentPods = rsPods.size();
      }
    }

    String revision = Integer.toString(revision(current));
    if (!revision.equals(annotations(deployment.getMetadata()).get(REVISION))) {
      deployment.getMetadata().putAnnotationsItem(REVISION, revision);
      deployment = check(deployments.update(deployment));
      wrote = true;
    }
    V1DeploymentStatus status =
        deploymentStatus(deployment, desired, totalPods, readyPods, currentPods, current);
    V1DeploymentStatus seen = deployment.getStatus();
    if (seen == null
        || !Objects.equals(seen.getReplicas(), status.getReplicas())
        || !Objects.equals(seen.getUpdatedReplicas(), status.getUpdatedReplicas())
        || !Objects.equals(seen.getReadyReplicas(), status.getReadyReplicas())
        || !Objects.equals(seen.getAvailableReplicas(), status.getAvailableReplicas())
        || !Objects.equals(seen.getObservedGeneration(), status.getObservedGeneration())
        || !available(seen).equals(available(status))) {
      deployment.setStatus(status);
      apps.replaceNamespacedDeploymentStatus(
              deployment.getMetadata().getName(), namespace, deployment)
          .execute();
      wrote = true;
    }
    return wrote;
  }

  private V1ReplicaSet newReplicaSet(
      V1Deployment deployment, String hash, int revision, int replicas) {
    V1ObjectMeta owner = deployment.getMetadata();
    V1PodTemplateSpec template =
        client
            .getJSON()
            .deserialize(
                client.getJSON().serialize(deployment.getSpec().getTemplate()),
                V1PodTemplateSpec.class);
    V1ObjectMeta templateMeta =
        Optional.ofNullable(template.getMetadata()).orElseGet(V1ObjectMeta::new);
    templateMeta.putLabelsItem(TEMPLATE_HASH, hash);
    template.setMetadata(templateMeta);
    Map<String, String> selector =
        new LinkedHashMap<>(
            Optional.ofNullable(deployment.getSpec().getSelector().getMatchLabels())
                .orElse(Map.of()));
    selector.put(TEMPLATE_HASH, hash);
    // As the deployment controller does: the Deployment's own annotations, minus kubectl's record
    // of the last apply.
    Map<String, String> annotations = new LinkedHashMap<>(annotations(owner));
    annotations.remove("kubectl.kubernetes.io/last-applied-configuration");
    annotations.put(REVISION, Integer.toString(revision));
    annotations.put("deployment.kubernetes.io/desired-replicas", Integer.toString(replicas));
    return new V1ReplicaSet()
        .apiVersion("apps/v1")
        .kind("ReplicaSet")
        .metadata(
            new V1ObjectMeta()
                .name(owner.getName() + "-" + hash)
                .namespace(namespace)
                .labels(new LinkedHashMap<>(labels(templateMeta)))
                .annotations(annotations)
                .ownerReferences(List.of(ownerReference("apps/v1", "Deployment", owner))))
        .spec(
            new V1ReplicaSetSpec()
                .replicas(replicas)
                .selector(new V1LabelSelector().matchLabels(selector))
                .template(template));
  }

  /** A Pod of the ReplicaSet's template, on {@code node} if the scheduler found one. */
  private V1Pod newPod(V1ReplicaSet rs, Optional<String> node) {
    V1PodTemplateSpec template = rs.getSpec().getTemplate();
    V1ObjectMeta templateMeta =
        Optional.ofNullable(template.getMetadata()).orElseGet(V1ObjectMeta::new);
    V1PodSpec spec =
        client
            .getJSON()
            .deserialize(client.getJSON().serialize(template.getSpec()), V1PodSpec.class);
    node.ifPresent(spec::setNodeName);
    return new V1Pod()
        .apiVersion("v1")
        .kind("Pod")
        .metadata(
            new V1ObjectMeta()
                .name(rs.getMetadata().getName() + "-" + suffix(5))
                .namespace(namespace)
                .labels(new LinkedHashMap<>(labels(templateMeta)))
                .annotations(new LinkedHashMap<>(annotations(templateMeta)))
                .ownerReferences(
                    List.of(ownerReference("apps/v1", "ReplicaSet", rs.getMetadata()))))
        .spec(spec);
  }

  /**
   * The Deployment's status: counts of its Pods, Available while no more Pods are unavailable than
   * the default rolling update allows (25% of the replicas, rounded down), Progressing done once
   * every Pod is of the current template and ready.
   */
  private static V1DeploymentStatus deploymentStatus(
      V1Deployment deployment,
      int desired,
      int total,
      int ready,
      int updated,
      V1ReplicaSet current) {
    OffsetDateTime now = OffsetDateTime.now(ZoneOffset.UTC).truncatedTo(ChronoUnit.SECONDS);
    boolean available = ready >= desired - desired / 4;
    boolean complete = updated == desired && total == desired && ready == desired;
    String name = current.getMetadata().getName();
    return new V1DeploymentStatus()
        .replicas(total)
        .updatedReplicas(updated)
        .readyReplicas(ready)
        .availableReplicas(ready)
        .unavailableReplicas(desired > ready ? desired - ready : null)
        .observedGeneration(deployment.getMetadata().getGeneration())
        .conditions(
            List.of(
                new V1DeploymentCondition()
                    .type("Available")
                    .status(available ? "True" : "False")
                    .reason(available ? "MinimumReplicasAvailable" : "MinimumReplicasUnavailable")
                    .message(
                        available
                            ? "Deployment has minimum availability."
                            : "Deployment does not have minimum availability.")
                    .lastUpdateTime(now)
                    .lastTransitionTime(now),
                new V1DeploymentCondition()
                    .type("Progressing")
                    .status("True")
                    .reason(complete ? "NewReplicaSetAvailable" : "ReplicaSetUpdated")
                    .message(
                        complete
                            ? "ReplicaSet \"" + name + "\" has successfully progressed."
                            : "ReplicaSet \"" + name + "\" is progressing.")
                    .lastUpdateTime(now)
                    .lastTransitionTime(now)));
  }

  /** The status of the Available condition ("True", "False"), or "" without one. */
  private static String available(V1DeploymentStatus status) {
    return Optional.ofNullable(status.getConditions()).orElse(List.of()).stream()
        .filter(c -> "Available".equals(c.getType()))
        .map(V1DeploymentCondition::getStatus)
        .findFirst()
        .orElse("");
  }

  private static boolean sameCounts(V1ReplicaSetStatus seen, V1ReplicaSetStatus wanted) {
    return seen != null
        && Objects.equals(seen.getReplicas(), wanted.getReplicas())
        && Objects.equals(seen.getReadyReplicas(), wanted.getReadyReplicas())
        && Objects.equals(seen.getAvailableReplicas(), wanted.getAvailableReplicas())
        && Objects.equals(seen.getObservedGeneration(), wanted.getObservedGeneration());
  }

  private static boolean isReady(V1Pod pod) {
    return pod.getStatus() != null
        && Optional.ofNullable(pod.getStatus().getConditions()).orElse(List.of()).stream()
            .anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
  }

  private static V1OwnerReference ownerReference(
      String apiVersion, String kind, V1ObjectMeta owner) {
    return new V1OwnerReference()
        .apiVersion(apiVersion)
        .kind(kind)
        .name(owner.getName())
        .uid(owner.getUid())
        .controller(true)
        .blockOwnerDeletion(true);
  }

  private static Optional<V1OwnerReference> controllerOf(V1ObjectMeta meta, String kind) {
    return Optional.ofNullable(meta.getOwnerReferences()).orElse(List.of()).stream()
        .filter(o -> kind.equals(o.getKind()) && Boolean.TRUE.equals(o.getController()))
        .findFirst();
  }

  private static int revision(V1ReplicaSet rs) {
    try {
      return Integer.parseInt(annotations(rs.getMetadata()).getOrDefault(REVISION, "0"));
    } catch (NumberFormatException e) {
      return 0;
    }
  }

  private static Map<String, String> labels(V1ObjectMeta meta) {
    return Optional.ofNullable(meta.getLabels()).orElse(Map.of());
  }

  private static Map<String, String> annotations(V1ObjectMeta meta) {
    return Optional.ofNullable(meta.getAnnotations()).orElse(Map.of());
  }

  /** Stands in for Kubernetes' hash of the pod template: equal templates, equal hashes. */
  private String templateHash(V1PodTemplateSpec template) {
    try {
      byte[] digest =
          MessageDigest.getInstance("SHA-256")
              .digest(client.getJSON().serialize(template).getBytes(StandardCharsets.UTF_8));
      StringBuilder hash = new StringBuilder();
      for (int i = 0; i < 10; i++) {
        hash.append(ALPHABET.charAt(Math.floorMod(digest[i], ALPHABET.length())));
      }
      return hash.toString();
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  private String suffix(int length) {
    StringBuilder suffix = new StringBuilder();
    for (int i = 0; i < length; i++) {
      suffix.append(ALPHABET.charAt(random.nextInt(ALPHABET.length())));
    }
    return suffix.toString();
  }

  private <L extends KubernetesListObject, T extends KubernetesObject> List<T> list(
      GenericKubernetesApi<T, L> api) throws ApiException {
    @SuppressWarnings("unchecked")
    List<T> items = (List<T>) check(api.list(namespace)).getItems();
    return new ArrayList<>(items);
  }

  private <L extends KubernetesListObject, T extends KubernetesObject> List<T> listClusterScoped(
      GenericKubernetesApi<T, L> api) throws ApiException {
    @SuppressWarnings("unchecked")
    List<T> items = (List<T>) check(api.list()).getItems();
    return new ArrayList<>(items);
  }

  private static <T extends KubernetesType> T check(KubernetesApiResponse<T> response)
      throws ApiException {
    return response.throwsApiException().getObject();
  }

  private static ThreadFactory daemon(String name) {
    AtomicInteger count = new AtomicInteger();
    return runnable -> {
      Thread thread = new Thread(runnable, name + "-" + count.incrementAndGet());
      thread.setDaemon(true);
      return thread;
    };
  }

  @Override
  public void close() {
    informers.stopAllRegisteredInformers();
    worker.shutdownNow();
    informerThreads.shutdownNow();
  }
}
