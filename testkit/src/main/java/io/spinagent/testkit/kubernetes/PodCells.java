package io.spinagent.testkit.kubernetes;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.Set;

/**
 * The READY, STATUS and RESTARTS cells of a Pod, worked out as a Kubernetes 1.32 API server's
 * {@code printPod} does from its containers' statuses: ready containers of all (restartable init
 * containers, "sidecars", included), the phase or the reason of the container that explains it best
 * ({@code Init:1/2}, {@code CrashLoopBackOff}, {@code Completed}, {@code Terminating}, ...), and
 * restarts with how long ago the last one was.
 *
 * @param ready e.g. {@code 1/2}
 * @param status e.g. {@code Running}
 * @param restarts e.g. {@code 0} or {@code 3 (5m ago)}
 */
record PodCells(String ready, String status, String restarts) {

  static PodCells of(JsonNode pod, Instant now) {
    JsonNode status = pod.path("status");
    // A pod has a phase from its creation on (Pending); the test server stores what it is sent.
    String phase = TableCells.text(pod, "status.phase", "Pending");
    String reason = TableCells.text(pod, "status.reason", phase);
    for (JsonNode condition : status.path("conditions")) {
      if ("PodScheduled".equals(condition.path("type").asText())
          && "SchedulingGated".equals(condition.path("reason").asText())) {
        reason = "SchedulingGated";
      }
    }
    int total = pod.path("spec").path("containers").size();
    Set<String> sidecars = new HashSet<>();
    for (JsonNode init : pod.path("spec").path("initContainers")) {
      if ("Always".equals(init.path("restartPolicy").asText())) {
        sidecars.add(init.path("name").asText());
        total++;
      }
    }
    int ready = 0;
    long restarts = 0;
    long sidecarRestarts = 0;
    Instant lastRestart = null;
    Instant lastSidecarRestart = null;
    boolean initializing = false;
    JsonNode initStatuses = status.path("initContainerStatuses");
    int initContainers = pod.path("spec").path("initContainers").size();
    for (int i = 0; i < initStatuses.size(); i++) {
      JsonNode container = initStatuses.get(i);
      boolean sidecar = sidecars.contains(container.path("name").asText());
      restarts += container.path("restartCount").asLong();
      lastRestart = later(lastRestart, lastTermination(container));
      if (sidecar) {
        sidecarRestarts += container.path("restartCount").asLong();
        lastSidecarRestart = later(lastSidecarRestart, lastTermination(container));
      }
      JsonNode terminated = container.path("state").path("terminated");
      JsonNode waiting = container.path("state").path("waiting");
      if (terminated.isObject() && terminated.path("exitCode").asLong() == 0) {
        continue;
      }
      if (sidecar && container.path("started").asBoolean(false)) {
        if (container.path("ready").asBoolean(false)) {
          ready++;
        }
        continue;
      }
      if (terminated.isObject()) {
        reason = "Init:" + terminationReason(terminated);
      } else if (!TableCells.text(waiting, "reason", "").isEmpty()
          && !"PodInitializing".equals(waiting.path("reason").asText())) {
        reason = "Init:" + waiting.path("reason").asText();
      } else {
        reason = "Init:" + i + "/" + initContainers;
      }
      initializing = true;
      break;
    }
    if (!initializing || TableCells.conditionTrue(pod, "Initialized")) {
      restarts = sidecarRestarts;
      lastRestart = lastSidecarRestart;
      boolean hasRunning = false;
      JsonNode statuses = status.path("containerStatuses");
      for (int i = statuses.size() - 1; i >= 0; i--) {
        JsonNode container = statuses.get(i);
        restarts += container.path("restartCount").asLong();
        lastRestart = later(lastRestart, lastTermination(container));
        JsonNode waiting = container.path("state").path("waiting");
        JsonNode terminated = container.path("state").path("terminated");
        if (waiting.isObject() && !TableCells.text(waiting, "reason", "").isEmpty()) {
          reason = waiting.path("reason").asText();
        } else if (terminated.isObject()) {
          reason = terminationReason(terminated);
        } else if (container.path("ready").asBoolean(false)
            && container.path("state").path("running").isObject()) {
          hasRunning = true;
          ready++;
        }
      }
      // A container still running makes a pod whose other containers completed Running again.
      if (reason.equals("Completed") && hasRunning) {
        reason = TableCells.conditionTrue(pod, "Ready") ? "Running" : "NotReady";
      }
    }
    if (Json.text(pod, "metadata.deletionTimestamp") != null) {
      if ("NodeLost".equals(Json.text(pod, "status.reason"))) {
        reason = "Unknown";
      } else if (!phase.equals("Succeeded") && !phase.equals("Failed")) {
        reason = "Terminating";
      }
    }
    String restartCell = Long.toString(restarts);
    if (restarts != 0 && lastRestart != null) {
      restartCell =
          restarts + " (" + TableCells.humanDuration(Duration.between(lastRestart, now)) + " ago)";
    }
    return new PodCells(ready + "/" + total, reason, restartCell);
  }

  /** The first pod IP ({@code status.podIPs}, which the API server fills from podIP). */
  static String ip(JsonNode pod) {
    JsonNode podIps = pod.path("status").path("podIPs");
    if (podIps.isArray() && !podIps.isEmpty()) {
      return TableCells.text(podIps.get(0), "ip", TableCells.NONE);
    }
    return TableCells.text(pod, "status.podIP", TableCells.NONE);
  }

  /** "true conditions/readiness gates", or {@code <none>}. */
  static String readinessGates(JsonNode pod) {
    JsonNode gates = pod.path("spec").path("readinessGates");
    if (!gates.isArray() || gates.isEmpty()) {
      return TableCells.NONE;
    }
    int met = 0;
    for (JsonNode gate : gates) {
      String type = gate.path("conditionType").asText();
      for (JsonNode condition : pod.path("status").path("conditions")) {
        if (type.equals(condition.path("type").asText())) {
          if ("True".equals(condition.path("status").asText())) {
            met++;
          }
          break;
        }
      }
    }
    return met + "/" + gates.size();
  }

  /** The reason of a terminated state, else its signal or exit code. */
  private static String terminationReason(JsonNode terminated) {
    String reason = TableCells.text(terminated, "reason", "");
    if (!reason.isEmpty()) {
      return reason;
    }
    long signal = terminated.path("signal").asLong();
    return signal != 0 ? "Signal:" + signal : "ExitCode:" + terminated.path("exitCode").asLong();
  }

  private static Instant lastTermination(JsonNode container) {
    return TableCells.instant(Json.text(container, "lastState.terminated.finishedAt"));
  }

  private static Instant later(Instant a, Instant b) {
    if (a == null) {
      return b;
    }
    return b != null && b.isAfter(a) ? b : a;
  }
}
