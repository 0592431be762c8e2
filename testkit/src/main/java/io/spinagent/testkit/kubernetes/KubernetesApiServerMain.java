package io.spinagent.testkit.kubernetes;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;

/**
 * Runs the test API server on its own, for the sandbox and for poking at it by hand:
 *
 * <pre>
 * java -cp ... io.spinagent.testkit.kubernetes.KubernetesApiServerMain --port 6443 \
 *     [--http] [--host 127.0.0.1] [--git-version v1.29.4] [--token TOKEN] \
 *     [--kubeconfig PATH] [--objects manifests.yaml]...
 * </pre>
 *
 * Prints the URL and the kubeconfig path, then serves until killed.
 */
public final class KubernetesApiServerMain {

  private KubernetesApiServerMain() {}

  public static void main(String[] args) throws Exception {
    KubernetesApiServer.Builder builder = KubernetesApiServer.builder();
    Path kubeconfig = null;
    String token = null;
    List<Path> manifests = new ArrayList<>();
    for (int i = 0; i < args.length; i++) {
      String arg = args[i];
      switch (arg) {
        case "--port" -> builder.port(Integer.parseInt(value(args, ++i, arg)));
        case "--host" -> builder.host(value(args, ++i, arg));
        case "--http" -> builder.http();
        case "--git-version" -> builder.gitVersion(value(args, ++i, arg));
        case "--token" -> token = value(args, ++i, arg);
        case "--kubeconfig" -> kubeconfig = Path.of(value(args, ++i, arg));
        case "--objects" -> manifests.add(Path.of(value(args, ++i, arg)));
        case "--help", "-h" -> {
          System.out.println(
              "usage: KubernetesApiServerMain [--port N] [--host ADDR] [--http] [--git-version V] "
                  + "[--token T] [--kubeconfig PATH] [--objects FILE]...");
          return;
        }
        default -> throw new IllegalArgumentException("unknown argument: " + arg);
      }
    }
    KubernetesApiServer server = builder.build();
    if (token != null) {
      server.accessControl().acceptToken(token);
    }
    for (Path manifest : manifests) {
      for (String object : documents(manifest)) {
        server.createObject(object);
      }
    }
    server.start();
    KubeconfigWriter writer = server.kubeconfig().token(token);
    Path written = kubeconfig != null ? writer.writeTo(kubeconfig) : writer.writeTempFile();
    System.out.println("Kubernetes API test server listening on " + server.url());
    System.out.println("kubeconfig: " + written.toAbsolutePath());
    System.out.flush();
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  server.stop();
                  stopped.countDown();
                },
                "kube-api-test-server-shutdown"));
    stopped.await();
  }

  private static String value(String[] args, int index, String option) {
    if (index >= args.length) {
      throw new IllegalArgumentException(option + " needs a value");
    }
    return args[index];
  }

  /** The documents of a YAML (possibly multi-document) or JSON file, each as JSON. */
  private static List<String> documents(Path file) throws IOException {
    List<String> documents = new ArrayList<>();
    try (MappingIterator<JsonNode> it =
        Json.YAML.readerFor(JsonNode.class).readValues(Files.readString(file))) {
      while (it.hasNext()) {
        JsonNode node = it.next();
        if (node != null && node.isObject() && !node.isEmpty()) {
          documents.add(Json.write(node));
        }
      }
    }
    return documents;
  }
}
