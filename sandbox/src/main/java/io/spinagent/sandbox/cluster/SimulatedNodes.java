package io.spinagent.sandbox.cluster;

import io.kubernetes.client.openapi.models.V1Container;
import io.kubernetes.client.openapi.models.V1ContainerState;
import io.kubernetes.client.openapi.models.V1ContainerStateRunning;
import io.kubernetes.client.openapi.models.V1ContainerStateTerminated;
import io.kubernetes.client.openapi.models.V1ContainerStatus;
import io.kubernetes.client.openapi.models.V1HostIP;
import io.kubernetes.client.openapi.models.V1Node;
import io.kubernetes.client.openapi.models.V1NodeAddress;
import io.kubernetes.client.openapi.models.V1NodeCondition;
import io.kubernetes.client.openapi.models.V1Pod;
import io.kubernetes.client.openapi.models.V1PodCondition;
import io.kubernetes.client.openapi.models.V1PodIP;
import io.kubernetes.client.openapi.models.V1PodSpec;
import io.kubernetes.client.openapi.models.V1PodStatus;
import io.kubernetes.client.openapi.models.V1ResourceRequirements;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * What a real cluster's scheduler and kubelets do for the demo's Pods, over one snapshot of the
 * nodes and Pods: the scheduler places a Pod on the Ready, schedulable node with the fewest Pods;
 * the node's kubelet then reports it running, as {@code kubectl get pods} reads it (ready
 * containers with their statuses, the pod conditions, an address from the node's pod CIDR). Made
 * afresh for every pass of the {@link DemoController}, so that what it placed in a pass counts for
 * the next placement of the same pass.
 */
final class SimulatedNodes {

  private static final SecureRandom RANDOM = new SecureRandom();

  private final Map<String, V1Node> nodes = new HashMap<>();
  private final Map<String, Integer> podsPerNode = new HashMap<>();
  private final Map<String, Set<String>> podIpsPerNode = new HashMap<>();

  SimulatedNodes(List<V1Node> nodes, List<V1Pod> pods) {
    for (V1Node node : nodes) {
      String name = node.getMetadata().getName();
      this.nodes.put(name, node);
      podsPerNode.put(name, 0);
      podIpsPerNode.put(name, new HashSet<>());
    }
    for (V1Pod pod : pods) {
      String node = nodeOf(pod);
      if (node != null && this.nodes.containsKey(node)) {
        podsPerNode.merge(node, 1, Integer::sum);
        if (pod.getStatus() != null && pod.getStatus().getPodIP() != null) {
          podIpsPerNode.get(node).add(pod.getStatus().getPodIP());
        }
      }
    }
  }

  /** The node a Pod goes to (counted from now on), or empty when no node can take one. */
  Optional<String> schedule() {
    Optional<String> chosen =
        nodes.values().stream()
            .filter(SimulatedNodes::schedulable)
            .map(n -> n.getMetadata().getName())
            .min(Comparator.comparing((String n) -> podsPerNode.get(n)).thenComparing(n -> n));
    chosen.ifPresent(n -> podsPerNode.merge(n, 1, Integer::sum));
    return chosen;
  }

  /** Whether the node exists; the Pods of one that does not are deleted, as Pod GC does. */
  boolean exists(String node) {
    return nodes.containsKey(node);
  }

  static String nodeOf(V1Pod pod) {
    return pod.getSpec() == null ? null : pod.getSpec().getNodeName();
  }

  /**
   * The status the kubelet of the Pod's node reports once its containers run: phase Running, every
   * container started and ready (init containers completed, sidecars running), the conditions
   * {@code kubectl wait --for=condition=Ready} and the READY column read.
   */
  V1PodStatus running(V1Pod pod, OffsetDateTime now) {
    V1Node node = nodes.get(nodeOf(pod));
    String hostIp = internalIp(node);
    String podIp = nextPodIp(node);
    V1PodSpec spec = pod.getSpec();
    List<V1ContainerStatus> initStatuses = new ArrayList<>();
    for (V1Container init : Optional.ofNullable(spec.getInitContainers()).orElse(List.of())) {
      boolean sidecar = "Always".equals(init.getRestartPolicy());
      initStatuses.add(sidecar ? runningStatus(init, now) : completedStatus(init, now));
    }
    List<V1ContainerStatus> statuses = new ArrayList<>();
    for (V1Container container : spec.getContainers()) {
      statuses.add(runningStatus(container, now));
    }
    V1PodStatus status =
        new V1PodStatus()
            .phase("Running")
            .hostIP(hostIp)
            .hostIPs(List.of(new V1HostIP().ip(hostIp)))
            .podIP(podIp)
            .podIPs(List.of(new V1PodIP().ip(podIp)))
            .startTime(now)
            .qosClass(qosClass(spec))
            .conditions(
                List.of(
                    condition("PodReadyToStartContainers", now),
                    condition("Initialized", now),
                    condition("Ready", now),
                    condition("ContainersReady", now),
                    condition("PodScheduled", now)))
            .containerStatuses(statuses);
    return initStatuses.isEmpty() ? status : status.initContainerStatuses(initStatuses);
  }

  /** What the scheduler reports for a Pod no node can take: Pending, not scheduled, and why. */
  V1PodStatus unschedulable(OffsetDateTime now) {
    String message =
        nodes.isEmpty()
            ? "no nodes available to schedule pods"
            : "0/" + nodes.size() + " nodes are available: none is Ready and schedulable.";
    return new V1PodStatus()
        .phase("Pending")
        .conditions(
            List.of(
                new V1PodCondition()
                    .type("PodScheduled")
                    .status("False")
                    .reason("Unschedulable")
                    .message(message)
                    .lastTransitionTime(now)));
  }

  static boolean isUnschedulable(V1Pod pod) {
    return pod.getStatus() != null
        && Optional.ofNullable(pod.getStatus().getConditions()).orElse(List.of()).stream()
            .anyMatch(c -> "PodScheduled".equals(c.getType()) && "False".equals(c.getStatus()));
  }

  private static boolean schedulable(V1Node node) {
    boolean cordoned =
        node.getSpec() != null && Boolean.TRUE.equals(node.getSpec().getUnschedulable());
    boolean ready =
        node.getStatus() != null
            && Optional.ofNullable(node.getStatus().getConditions()).orElse(List.of()).stream()
                .anyMatch(SimulatedNodes::readyTrue);
    return ready && !cordoned;
  }

  private static boolean readyTrue(V1NodeCondition condition) {
    return "Ready".equals(condition.getType()) && "True".equals(condition.getStatus());
  }

  private static String internalIp(V1Node node) {
    return Optional.ofNullable(node.getStatus())
        .map(s -> s.getAddresses())
        .orElse(List.of())
        .stream()
        .filter(a -> "InternalIP".equals(a.getType()))
        .map(V1NodeAddress::getAddress)
        .findFirst()
        .orElse(null);
  }

  /**
   * The lowest address of the node's pod CIDR (a /24, as the demo's nodes have) no Pod of the
   * namespace holds, from .2 on as the container network plugin hands them out.
   */
  private String nextPodIp(V1Node node) {
    String cidr = node.getSpec() == null ? null : node.getSpec().getPodCIDR();
    if (cidr == null || !cidr.endsWith(".0/24")) {
      return null;
    }
    String prefix = cidr.substring(0, cidr.length() - "0/24".length());
    Set<String> used = podIpsPerNode.get(node.getMetadata().getName());
    for (int host = 2; host < 255; host++) {
      String ip = prefix + host;
      if (used.add(ip)) {
        return ip;
      }
    }
    return null;
  }

  private static V1ContainerStatus runningStatus(V1Container container, OffsetDateTime now) {
    return containerStatus(container)
        .ready(true)
        .started(true)
        .state(new V1ContainerState().running(new V1ContainerStateRunning().startedAt(now)));
  }

  private static V1ContainerStatus completedStatus(V1Container container, OffsetDateTime now) {
    return containerStatus(container)
        .ready(false)
        .started(false)
        .state(
            new V1ContainerState()
                .terminated(
                    new V1ContainerStateTerminated()
                        .exitCode(0)
                        .reason("Completed")
                        .startedAt(now)
                        .finishedAt(now)));
  }

  private static V1ContainerStatus containerStatus(V1Container container) {
    String image = fullImageName(container.getImage());
    return new V1ContainerStatus()
        .name(container.getName())
        .image(image)
        .imageID(imageId(image))
        .containerID("containerd://" + randomHex(32))
        .restartCount(0)
        // Only in-place resizing, which the demo does not do, makes kubelets report these.
        .allocatedResources(null);
  }

  /**
   * An image as the container runtime reports it: registry, repository and tag ({@code nginx:1.27}
   * is {@code docker.io/library/nginx:1.27}).
   */
  static String fullImageName(String image) {
    if (image == null || image.isEmpty()) {
      return "";
    }
    String name = image;
    int slash = name.indexOf('/');
    String first = slash < 0 ? "" : name.substring(0, slash);
    boolean hasRegistry =
        slash >= 0 && (first.contains(".") || first.contains(":") || first.equals("localhost"));
    if (!hasRegistry) {
      name = (slash < 0 ? "docker.io/library/" : "docker.io/") + name;
    }
    boolean tagged = name.lastIndexOf(':') > name.lastIndexOf('/') || name.contains("@");
    return tagged ? name : name + ":latest";
  }

  /** The image's digest reference, the same for the same image (no registry is asked). */
  private static String imageId(String image) {
    String repository = image.contains("@") ? image.substring(0, image.indexOf('@')) : image;
    int tag = repository.lastIndexOf(':');
    if (tag > repository.lastIndexOf('/')) {
      repository = repository.substring(0, tag);
    }
    try {
      byte[] digest =
          MessageDigest.getInstance("SHA-256").digest(image.getBytes(StandardCharsets.UTF_8));
      return repository + "@sha256:" + HexFormat.of().formatHex(digest);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * The Pod's quality of service class: Guaranteed when every container limits CPU and memory and
   * requests what it limits, BestEffort when none requests or limits anything, else Burstable.
   */
  static String qosClass(V1PodSpec spec) {
    List<V1Container> all = new ArrayList<>(spec.getContainers());
    all.addAll(Optional.ofNullable(spec.getInitContainers()).orElse(List.of()));
    boolean anyDeclared = false;
    boolean guaranteed = true;
    for (V1Container container : all) {
      V1ResourceRequirements resources = container.getResources();
      Map<String, ?> requests = resources == null ? null : resources.getRequests();
      Map<String, ?> limits = resources == null ? null : resources.getLimits();
      boolean hasRequests = requests != null && !requests.isEmpty();
      boolean hasLimits = limits != null && !limits.isEmpty();
      anyDeclared |= hasRequests || hasLimits;
      for (String resource : List.of("cpu", "memory")) {
        Object limit = hasLimits ? limits.get(resource) : null;
        Object request = hasRequests ? requests.get(resource) : null;
        // A request left out defaults to the limit.
        if (limit == null || (request != null && !request.equals(limit))) {
          guaranteed = false;
        }
      }
    }
    if (!anyDeclared) {
      return "BestEffort";
    }
    return guaranteed ? "Guaranteed" : "Burstable";
  }

  private static V1PodCondition condition(String type, OffsetDateTime now) {
    return new V1PodCondition().type(type).status("True").lastTransitionTime(now);
  }

  private static String randomHex(int bytes) {
    byte[] random = new byte[bytes];
    RANDOM.nextBytes(random);
    return HexFormat.of().formatHex(random);
  }
}
