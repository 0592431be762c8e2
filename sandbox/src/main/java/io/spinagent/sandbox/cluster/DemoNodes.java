package io.spinagent.sandbox.cluster;

import io.spinagent.testkit.kubernetes.KubernetesApiServer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.UUID;

/**
 * The nodes of the simulated cluster: two Ready workers, registered as their kubelets would
 * register them (capacity, allocatable, addresses, node info, a pod CIDR each), so that {@code
 * kubectl get nodes} and {@code kubectl top node} answer as on a real cluster and the {@link
 * DemoController} has somewhere to schedule Pods. No kubelet runs: their status is written once and
 * stays Ready.
 */
public final class DemoNodes {

  /** The nodes' names, in the order of their pod CIDRs ({@code 10.244.1.0/24}, ...). */
  public static final List<String> NAMES = List.of("sandbox-node-1", "sandbox-node-2");

  /** What each node offers: 4 cores, 8 GiB of memory, 110 Pods, as a small cloud VM does. */
  public static final String CPU = "4";

  public static final String MEMORY = "8Gi";

  private DemoNodes() {}

  /** Creates the nodes in the server's store, their kubelets' status included. */
  public static void seed(KubernetesApiServer cluster) {
    String now = Instant.now().truncatedTo(ChronoUnit.SECONDS).toString();
    for (int i = 0; i < NAMES.size(); i++) {
      String name = NAMES.get(i);
      cluster.createObject(node(name, i + 1));
      // The store drops status on create, as an API server does: the kubelet writes it after.
      cluster.mergePatchStatus("v1", "Node", null, name, status(name, i + 1, cluster, now));
    }
  }

  static String node(String name, int index) {
    return """
           apiVersion: v1
           kind: Node
           metadata:
             name: %1$s
             labels:
               kubernetes.io/hostname: %1$s
               kubernetes.io/os: linux
               kubernetes.io/arch: amd64
               node.kubernetes.io/instance-type: sandbox-4x8
           spec:
             podCIDR: 10.244.%2$d.0/24
             podCIDRs: [10.244.%2$d.0/24]
           """
        .formatted(name, index);
  }

  /** The status a kubelet reports: resources, Ready and no pressure, addresses, node info. */
  static String status(String name, int index, KubernetesApiServer cluster, String now) {
    UUID machineId = UUID.nameUUIDFromBytes(name.getBytes(StandardCharsets.UTF_8));
    return """
{"status": {
  "capacity": {"cpu": "%3$s", "memory": "%4$s", "pods": "110", "ephemeral-storage": "100Gi"},
  "allocatable": {"cpu": "%3$s", "memory": "%4$s", "pods": "110", "ephemeral-storage": "100Gi"},
  "conditions": [
    %6$s,
    %7$s,
    %8$s,
    {"type": "Ready", "status": "True", "reason": "KubeletReady",
     "message": "kubelet is posting ready status",
     "lastHeartbeatTime": "%9$s", "lastTransitionTime": "%9$s"}
  ],
  "addresses": [
    {"type": "InternalIP", "address": "192.168.49.%2$d"},
    {"type": "Hostname", "address": "%1$s"}
  ],
  "daemonEndpoints": {"kubeletEndpoint": {"Port": 10250}},
  "nodeInfo": {
    "kubeletVersion": "%5$s", "kubeProxyVersion": "%5$s",
    "osImage": "Debian GNU/Linux 12 (bookworm)", "kernelVersion": "6.1.0-sandbox",
    "containerRuntimeVersion": "containerd://1.7.13",
    "operatingSystem": "linux", "architecture": "amd64",
    "machineID": "%10$s", "systemUUID": "%11$s", "bootID": "%11$s"
  }
}}
"""
        .formatted(
            name,
            index + 1,
            CPU,
            MEMORY,
            cluster.gitVersion(),
            noPressure(
                "MemoryPressure",
                "KubeletHasSufficientMemory",
                "kubelet has sufficient memory available",
                now),
            noPressure(
                "DiskPressure", "KubeletHasNoDiskPressure", "kubelet has no disk pressure", now),
            noPressure(
                "PIDPressure",
                "KubeletHasSufficientPID",
                "kubelet has sufficient PID available",
                now),
            now,
            machineId.toString().replace("-", ""),
            machineId);
  }

  private static String noPressure(String type, String reason, String message, String now) {
    return """
           {"type": "%s", "status": "False", "reason": "%s", "message": "%s",
            "lastHeartbeatTime": "%s", "lastTransitionTime": "%s"}"""
        .formatted(type, reason, message, now, now);
  }
}
