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
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1OwnerReference;
import io.kubernetes.client.openapi.models.V1Pod;
import io.kubernetes.client.openapi.models.V1PodCondition;
import io.kubernetes.client.openapi.models.V1PodList;
import io.kubernetes.client.openapi.models.V1PodStatus;
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
 * running Pods as the Deployment asks for, and the statuses kubectl reads. Old ReplicaSets are
 * scaled to zero at once, and objects whose owner is gone are deleted, like the garbage collector
 * would. It talks to the API server through the official Kubernetes Java client, like any
 * controller, so what it does reaches the agent through the agent's own watches.
 *
 * <p>Past 500 lines because the Deployment, ReplicaSet and garbage-collection loops read and write
 * the same objects and share one reconciliation pass; split, they would pass it around.
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
  private final AtomicInteger podIps = new AtomicInteger();
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
    Map<String, List<V1Pod>> podsByReplicaSet = new HashMap<>();
    for (V1Pod pod : allPods) {
      Optional<V1OwnerReference> owner = controllerOf(pod.getMetadata(), "ReplicaSet");
      if (owner.isEmpty()) {
        continue;
      }
      if (!replicaSetUids.contains(owner.get().getUid())) {
        check(pods.delete(namespace, pod.getMetadata().getName()));
        wrote = true;
      } else {
        podsByReplicaSet.computeIfAbsent(owner.get().getUid(), uid -> new ArrayList<>()).add(pod);
      }
    }

    for (V1Deployment deployment : allDeployments) {
      wrote |= reconcile(deployment, liveReplicaSets, podsByReplicaSet);
    }
    return wrote;
  }

  private boolean reconcile(
      V1Deployment deployment,
      List<V1ReplicaSet> allReplicaSets,
      Map<String, List<V1Pod>> podsByReplicaSet)
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
      List<V1Pod> running =
          new ArrayList<>(podsByReplicaSet.getOrDefault(rs.getMetadata().getUid(), List.of()));
      running.sort(
          Comparator.comparing(
                  (V1Pod p) -> p.getMetadata().getCreationTimestamp(),
                  Comparator.nullsFirst(Comparator.naturalOrder()))
              .thenComparing(p -> p.getMetadata().getName()));
      while (running.size() > wanted) {
        V1Pod newest = running.remove(running.size() - 1);
        check(pods.delete(namespace, newest.getMetadata().getName()));
        wrote = true;
      }
      while (running.size() < wanted) {
        running.add(check(pods.create(newPod(rs))));
        wrote = true;
      }
      for (V1Pod pod : running) {
        if (!isRunning(pod)) {
          pod.setStatus(runningStatus());
          core.replaceNamespacedPodStatus(pod.getMetadata().getName(), namespace, pod).execute();
          wrote = true;
        }
      }
      V1ReplicaSetStatus status =
          new V1ReplicaSetStatus()
              .replicas(running.size())
              .fullyLabeledReplicas(running.size())
              .readyReplicas(running.size())
              .availableReplicas(running.size())
              .observedGeneration(rs.getMetadata().getGeneration());
      if (!sameCounts(rs.getStatus(), status)) {
        rs.setStatus(status);
        apps.replaceNamespacedReplicaSetStatus(rs.getMetadata().getName(), namespace, rs).execute();
        wrote = true;
      }
      totalPods += running.size();
      if (rs.getMetadata().getUid().equals(current.getMetadata().getUid())) {
        currentPods = running.size();
      }
    }

    String revision = Integer.toString(revision(current));
    if (!revision.equals(annotations(deployment.getMetadata()).get(REVISION))) {
      deployment.getMetadata().putAnnotationsItem(REVISION, revision);
      deployment = check(deployments.update(deployment));
      wrote = true;
    }
    V1DeploymentStatus status = deploymentStatus(deployment, totalPods, currentPods, current);
    V1DeploymentStatus seen = deployment.getStatus();
    if (seen == null
        || !Objects.equals(seen.getReplicas(), status.getReplicas())
        || !Objects.equals(seen.getUpdatedReplicas(), status.getUpdatedReplicas())
        || !Objects.equals(seen.getReadyReplicas(), status.getReadyReplicas())
        || !Objects.equals(seen.getAvailableReplicas(), status.getAvailableReplicas())
        || !Objects.equals(seen.getObservedGeneration(), status.getObservedGeneration())) {
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

  private V1Pod newPod(V1ReplicaSet rs) {
    V1PodTemplateSpec template = rs.getSpec().getTemplate();
    V1ObjectMeta templateMeta =
        Optional.ofNullable(template.getMetadata()).orElseGet(V1ObjectMeta::new);
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
        .spec(template.getSpec());
  }

  private V1PodStatus runningStatus() {
    OffsetDateTime now = OffsetDateTime.now(ZoneOffset.UTC);
    int ip = podIps.incrementAndGet();
    return new V1PodStatus()
        .phase("Running")
        .podIP("10.244." + (ip / 250) + "." + (ip % 250 + 2))
        .hostIP("192.168.49.2")
        .startTime(now)
        .conditions(
            List.of(
                new V1PodCondition().type("Ready").status("True").lastTransitionTime(now),
                new V1PodCondition()
                    .type("ContainersReady")
                    .status("True")
                    .lastTransitionTime(now)));
  }

  private static V1DeploymentStatus deploymentStatus(
      V1Deployment deployment, int total, int updated, V1ReplicaSet current) {
    OffsetDateTime now = OffsetDateTime.now(ZoneOffset.UTC);
    return new V1DeploymentStatus()
        .replicas(total)
        .updatedReplicas(updated)
        .readyReplicas(total)
        .availableReplicas(total)
        .observedGeneration(deployment.getMetadata().getGeneration())
        .conditions(
            List.of(
                new V1DeploymentCondition()
                    .type("Available")
                    .status("True")
                    .reason("MinimumReplicasAvailable")
                    .lastUpdateTime(now)
                    .lastTransitionTime(now),
                new V1DeploymentCondition()
                    .type("Progressing")
                    .status("True")
                    .reason("NewReplicaSetAvailable")
                    .message(
                        "ReplicaSet \""
                            + current.getMetadata().getName()
                            + "\" has successfully progressed.")
                    .lastUpdateTime(now)
                    .lastTransitionTime(now)));
  }

  private static boolean sameCounts(V1ReplicaSetStatus seen, V1ReplicaSetStatus wanted) {
    return seen != null
        && Objects.equals(seen.getReplicas(), wanted.getReplicas())
        && Objects.equals(seen.getReadyReplicas(), wanted.getReadyReplicas())
        && Objects.equals(seen.getAvailableReplicas(), wanted.getAvailableReplicas())
        && Objects.equals(seen.getObservedGeneration(), wanted.getObservedGeneration());
  }

  private static boolean isRunning(V1Pod pod) {
    return pod.getStatus() != null && "Running".equals(pod.getStatus().getPhase());
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
