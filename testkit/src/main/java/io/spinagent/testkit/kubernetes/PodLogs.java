package io.spinagent.testkit.kubernetes;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;

/**
 * The {@code pods/log} subresource: the lines a test gives each container, served as kubectl reads
 * them. {@code GET .../pods/<name>/log} answers the lines so far as text; with {@code follow=true}
 * the answer is chunked and carries each line appended later as it comes, until the pod is deleted,
 * the client goes away or the server stops. {@code tailLines} keeps the last lines only.
 */
public final class PodLogs {

  private record ContainerKey(String namespace, String pod, String container) {}

  private final Map<ContainerKey, List<String>> lines = new HashMap<>();

  /** Appends lines to a container's log; followers receive them at once. */
  public synchronized PodLogs append(
      String namespace, String pod, String container, String... newLines) {
    lines
        .computeIfAbsent(new ContainerKey(namespace, pod, container), k -> new ArrayList<>())
        .addAll(List.of(newLines));
    notifyAll();
    return this;
  }

  /** Forgets the logs of every container of a pod (a new pod of that name starts empty). */
  public synchronized PodLogs clear(String namespace, String pod) {
    lines.keySet().removeIf(key -> key.namespace().equals(namespace) && key.pod().equals(pod));
    return this;
  }

  /** Serves one log request for {@code pod} (its current state) on {@code exchange}. */
  void serve(ApiExchange exchange, ObjectNode pod, BooleanSupplier podExists) throws IOException {
    String namespace = Json.text(pod, "metadata.namespace");
    String name = Json.text(pod, "metadata.name");
    String container = container(exchange.query("container"), pod, name);
    ContainerKey key = new ContainerKey(namespace, name, container);
    long tail = exchange.longQuery("tailLines");
    int next;
    StringBuilder first = new StringBuilder();
    synchronized (this) {
      List<String> current = lines.getOrDefault(key, List.of());
      int from = tail > 0 ? (int) Math.max(0, current.size() - tail) : 0;
      current.subList(from, current.size()).forEach(line -> first.append(line).append('\n'));
      next = current.size();
    }
    if (!exchange.flag("follow")) {
      exchange.sendText(200, first.toString());
      return;
    }
    OutputStream out = exchange.startStream("text/plain");
    try {
      write(out, first);
      while (podExists.getAsBoolean()) {
        StringBuilder more = new StringBuilder();
        synchronized (this) {
          List<String> current = lines.getOrDefault(key, List.of());
          if (current.size() == next) {
            // Woken by appends; the timeout also notices a deleted pod without a notification.
            wait(200);
            continue;
          }
          current.subList(next, current.size()).forEach(line -> more.append(line).append('\n'));
          next = current.size();
        }
        write(out, more);
      }
    } catch (InterruptedException stopping) {
      Thread.currentThread().interrupt();
    } catch (IOException clientWentAway) {
      // kubectl logs -f ends by closing the connection.
    }
  }

  private static void write(OutputStream out, CharSequence text) throws IOException {
    if (text.length() > 0) {
      out.write(text.toString().getBytes(StandardCharsets.UTF_8));
      out.flush();
    }
  }

  /**
   * The container asked for, or the pod's only one; 400 with the API server's wording otherwise.
   */
  private static String container(String asked, ObjectNode pod, String name) {
    List<String> names = new ArrayList<>();
    for (JsonNode c : pod.path("spec").path("containers")) {
      names.add(c.path("name").asText());
    }
    if (asked == null || asked.isEmpty()) {
      if (names.size() == 1) {
        return names.get(0);
      }
      throw ApiError.badRequest(
          "a container name must be specified for pod " + name + ", choose one of: " + names);
    }
    if (!names.contains(asked)) {
      throw ApiError.badRequest("container " + asked + " is not valid for pod " + name);
    }
    return asked;
  }
}
