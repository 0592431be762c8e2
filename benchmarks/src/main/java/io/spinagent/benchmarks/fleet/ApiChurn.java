package io.spinagent.benchmarks.fleet;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The fault soak's callers of the account API (issue 34): while a round's faults are injected,
 * {@value #CALLERS} threads at once create, switch on and off ({@code PUT} state {@code
 * ACTIVE}/{@code INACTIVE}), change and delete dynamic accounts, each request sent to either
 * replica, through SpinAgent's {@code /spinagent/accounts}, Armory's {@code /armory/accounts} or,
 * for the accounts of {@link #CREDENTIALS_AGENT}, Clouddriver's {@code /credentials} (created,
 * changed and deleted; it cannot switch an account off or on). Every answer is recorded by the
 * operation's kind and API; none is judged here, since under concurrent callers and faults a {@code
 * 404}, {@code 409} or {@code 503} can be right. What must hold once the round is quiet is checked
 * by {@link AccountViewsCheck}.
 *
 * <p>The accounts are a fixed set of names, each given to one agent and reaching one cluster that
 * only they use (so that the soak's cache comparison of the agents' own accounts is not changed by
 * them). Which operations a round makes, on which account, through which replica and API, follows
 * the seed; how they interleave does not.
 */
final class ApiChurn {

  /** The kinds of an operation on an account that exists, each as likely as its repetitions. */
  private static final Kind[] EXISTING = {
    Kind.ACTIVATE, Kind.ACTIVATE, Kind.DEACTIVATE, Kind.DEACTIVATE,
    Kind.UPDATE, Kind.UPDATE, Kind.DELETE, Kind.CREATE
  };

  /**
   * The agent that Clouddriver's {@code /credentials} interceptor gives the accounts created
   * through it: the replicas are started with it as {@code
   * spinagent.accounts.credentials-interceptor.agent-id}.
   */
  static final String CREDENTIALS_AGENT = "soak-agent-1";

  /** Callers sending requests at once. */
  static final int CALLERS = 3;

  /** Refusals whose messages the report shows. */
  private static final int MAX_REFUSALS = 10;

  /** Longest pause of a caller between two requests. */
  private static final int MAX_PAUSE_MILLIS = 600;

  /**
   * Longer than any answer may take: the command timeout (15 s) and a forward to the other replica
   * (5 s), with room for a database restart.
   */
  private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(45);

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  /** What an operation does to its account. */
  enum Kind {
    CREATE("create"),
    ACTIVATE("PUT state ACTIVE"),
    DEACTIVATE("PUT state INACTIVE"),
    UPDATE("update"),
    DELETE("delete");

    final String description;

    Kind(String description) {
      this.description = description;
    }
  }

  /** Which of the plugin's APIs a request goes through. */
  enum Api {
    SPINAGENT("/spinagent/accounts"),
    ARMORY("/armory/accounts"),
    CREDENTIALS("/credentials");

    final String path;

    Api(String path) {
      this.path = path;
    }
  }

  /** One planned request. */
  private record Operation(
      Kind kind,
      Api api,
      String account,
      PluginReplica replica,
      List<String> namespaces,
      int pauseMillis) {}

  private final Map<String, String> agentOf;
  private final List<PluginReplica> replicas;
  private final String kubeconfig;
  private final Random random;

  /** The accounts the operations planned so far would have left in place. */
  private final Set<String> planned = new HashSet<>();

  /** kind and API → answer → how many times. */
  private final Map<String, Map<String, Integer>> answers = new TreeMap<>();

  private int total;

  /** The messages of answers 400 and 422, distinct, at most {@value #MAX_REFUSALS}. */
  private final Set<String> refusals = new TreeSet<>();

  /**
   * @param accounts how many dynamic accounts the operations choose from, named {@code dyn-1}, …,
   *     spread over {@code agents} in turn
   * @param kubeconfig the kubeconfig file of the cluster every dynamic account reaches; sent as the
   *     accounts' {@code kubeconfigContents}
   */
  ApiChurn(
      int accounts,
      List<SoakAgent> agents,
      List<PluginReplica> replicas,
      Path kubeconfig,
      long seed) {
    Map<String, String> agentOf = new LinkedHashMap<>();
    for (int i = 1; i <= accounts; i++) {
      agentOf.put("dyn-" + i, agents.get((i - 1) % agents.size()).id());
    }
    this.agentOf = Map.copyOf(agentOf);
    this.replicas = List.copyOf(replicas);
    try {
      this.kubeconfig = Files.readString(kubeconfig);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    this.random = new Random(seed);
  }

  /** The dynamic accounts' names, each with the id of the agent it is given to. */
  Map<String, String> accounts() {
    return agentOf;
  }

  /**
   * Makes {@code count} operations, {@value #CALLERS} at a time, and returns once every one has
   * been answered (or has failed to be).
   */
  void run(int count) {
    List<String> names = new ArrayList<>(new TreeMap<>(agentOf).keySet());
    List<Operation> operations = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      operations.add(plan(names));
    }
    AtomicInteger callers = new AtomicInteger();
    ThreadFactory named =
        r -> {
          Thread thread = new Thread(r, "fault-soak-api-caller-" + callers.incrementAndGet());
          thread.setDaemon(true);
          return thread;
        };
    ExecutorService pool = Executors.newFixedThreadPool(CALLERS, named);
    try {
      for (Operation operation : operations) {
        pool.execute(() -> record(operation, send(operation)));
      }
      pool.shutdown();
      if (!pool.awaitTermination(count * REQUEST_TIMEOUT.toSeconds() + 60, TimeUnit.SECONDS)) {
        throw new IllegalStateException("the API callers did not finish");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    } finally {
      pool.shutdownNow();
    }
  }

  /** Operations made, in all rounds. */
  synchronized int total() {
    return total;
  }

  /** The answers, by the operations' kind and API ({@code "create /armory/accounts"}). */
  synchronized Map<String, Map<String, Integer>> answers() {
    Map<String, Map<String, Integer>> copy = new TreeMap<>();
    answers.forEach((operation, counts) -> copy.put(operation, new TreeMap<>(counts)));
    return copy;
  }

  /** Prints the operations made, by kind and API, with their answers. */
  void report(PrintStream out) {
    out.printf(
        "  API operations (%d callers at once), by kind and API: answer ×count; %d in all%n",
        CALLERS, total());
    answers()
        .forEach(
            (operation, counts) -> {
              StringBuilder line = new StringBuilder();
              counts.forEach(
                  (answer, n) -> line.append(line.isEmpty() ? "" : ", ").append(answer + " ×" + n));
              out.printf("    %-40s %s%n", operation, line);
            });
    synchronized (this) {
      refusals.forEach(refusal -> out.println("    refused: " + refusal));
    }
  }

  /**
   * The next operation, on an account chosen at random. Its kind follows what the operations
   * planned so far would have made of the account ({@link #planned}), so that most operations reach
   * an account that exists: one believed absent is mostly created; one believed present is mostly
   * switched on or off (concurrent flips of one account are what left it without a definition),
   * changed or deleted, and sometimes created again. Concurrent callers and faults make the belief
   * only likely, which is the point.
   */
  private Operation plan(List<String> names) {
    String account = names.get(random.nextInt(names.size()));
    Kind kind;
    if (!planned.contains(account)) {
      kind = random.nextInt(5) < 4 ? Kind.CREATE : Kind.values()[1 + random.nextInt(4)];
    } else {
      kind = EXISTING[random.nextInt(EXISTING.length)];
    }
    if (kind == Kind.CREATE) {
      planned.add(account);
    } else if (kind == Kind.DELETE) {
      planned.remove(account);
    }
    List<String> namespaces =
        switch (random.nextInt(3)) {
          case 0 -> List.of();
          case 1 -> List.of("shop");
          default -> List.of("shop", "default");
        };
    return new Operation(
        kind,
        api(kind, account),
        account,
        replicas.get(random.nextInt(replicas.size())),
        namespaces,
        random.nextInt(MAX_PAUSE_MILLIS));
  }

  /**
   * Through which API: SpinAgent's or Armory's, or, for an account of {@link #CREDENTIALS_AGENT}
   * created, changed or deleted, as often Clouddriver's {@code /credentials}.
   */
  private Api api(Kind kind, String account) {
    boolean credentials =
        CREDENTIALS_AGENT.equals(agentOf.get(account))
            && kind != Kind.ACTIVATE
            && kind != Kind.DEACTIVATE;
    return Api.values()[random.nextInt(credentials ? 3 : 2)];
  }

  /** Sends the operation's request; its answer as recorded: the status, or why there was none. */
  private String send(Operation operation) {
    try {
      Thread.sleep(operation.pauseMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "not sent";
    }
    try {
      HttpResponse<String> response =
          HTTP.send(request(operation), HttpResponse.BodyHandlers.ofString());
      String answer =
          operation.api() == Api.ARMORY
              ? armoryStatus(response)
              : String.valueOf(response.statusCode());
      if (answer.equals("400") || answer.equals("422")) {
        refused(operation, response.body());
      }
      return answer;
    } catch (HttpTimeoutException e) {
      return "no answer in " + REQUEST_TIMEOUT.toSeconds() + " s";
    } catch (IOException e) {
      // the replica was killed or is restarting
      return "connection failed";
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "interrupted";
    }
  }

  private HttpRequest request(Operation operation) {
    if (operation.api() == Api.CREDENTIALS) {
      return credentialsRequest(operation);
    }
    String name = operation.account();
    boolean armory = operation.api() == Api.ARMORY;
    HttpRequest.Builder request = HttpRequest.newBuilder().timeout(REQUEST_TIMEOUT);
    request.header("Content-Type", "application/json");
    String path;
    String method;
    JsonNode body;
    switch (operation.kind()) {
      case CREATE, UPDATE -> {
        ObjectNode definition = JSON.createObjectNode();
        definition.put("agentId", agentOf.get(name));
        definition.put("kubeconfigContents", kubeconfig);
        ArrayNode namespaces = definition.putArray("namespaces");
        operation.namespaces().forEach(namespaces::add);
        boolean create = operation.kind() == Kind.CREATE;
        if (create || armory) {
          definition.put("name", name);
        }
        method = create ? "POST" : "PUT";
        path =
            armory
                ? "/armory/accounts/dynamic"
                : "/spinagent/accounts" + (create ? "" : "/" + name);
        body = armory ? JSON.createArrayNode().add(definition) : definition;
      }
      case ACTIVATE, DEACTIVATE -> {
        String state = operation.kind() == Kind.ACTIVATE ? "ACTIVE" : "INACTIVE";
        ObjectNode change = JSON.createObjectNode().put("state", state);
        if (armory) {
          change.put("name", name);
        }
        method = armory ? "PATCH" : "PUT";
        path = armory ? "/armory/accounts" : "/spinagent/accounts/" + name;
        body = armory ? JSON.createArrayNode().add(change) : change;
      }
      case DELETE -> {
        method = "DELETE";
        path = armory ? "/armory/accounts" : "/spinagent/accounts/" + name;
        body =
            armory ? JSON.createArrayNode().add(JSON.createObjectNode().put("name", name)) : null;
      }
      default -> throw new IllegalStateException("unknown operation " + operation.kind());
    }
    return request
        .uri(operation.replica().uri(path))
        .method(
            method,
            body == null
                ? HttpRequest.BodyPublishers.noBody()
                : HttpRequest.BodyPublishers.ofString(body.toString()))
        .build();
  }

  /**
   * The operation through Clouddriver's {@code /credentials}: a {@code kubernetes} definition
   * created ({@code POST}) or changed ({@code PUT}), or the account deleted.
   */
  private HttpRequest credentialsRequest(Operation operation) {
    HttpRequest.Builder request = HttpRequest.newBuilder().timeout(REQUEST_TIMEOUT);
    if (operation.kind() == Kind.DELETE) {
      return request
          .uri(operation.replica().uri("/credentials/" + operation.account()))
          .DELETE()
          .build();
    }
    ObjectNode definition =
        JSON.createObjectNode()
            .put("type", "kubernetes")
            .put("name", operation.account())
            .put("kubeconfigContents", kubeconfig);
    ArrayNode namespaces = definition.putArray("namespaces");
    operation.namespaces().forEach(namespaces::add);
    return request
        .uri(operation.replica().uri("/credentials"))
        .header("Content-Type", "application/json")
        .method(
            operation.kind() == Kind.CREATE ? "POST" : "PUT",
            HttpRequest.BodyPublishers.ofString(definition.toString()))
        .build();
  }

  /**
   * Armory's answer for the one account of the request: its own status in {@code accounts[0]} (what
   * {@code /spinagent/accounts} would have answered), or the request's status when the request as a
   * whole was refused.
   */
  private static String armoryStatus(HttpResponse<String> response) {
    try {
      JsonNode status = JSON.readTree(response.body()).path("accounts").path(0).path("status");
      if (status.isInt()) {
        return String.valueOf(status.asInt());
      }
    } catch (IOException notJson) {
      // answered by something else than the Armory controller: its status says enough
    }
    return String.valueOf(response.statusCode());
  }

  /**
   * Keeps the reason of a refusal: with the soak's requests well formed, a 400 means that an agent
   * refused the account, or a check of the plugin that the report should show.
   */
  private synchronized void refused(Operation operation, String body) {
    if (refusals.size() < MAX_REFUSALS) {
      String message = body.length() > 300 ? body.substring(0, 300) + "…" : body;
      refusals.add(operation.kind().description + " " + operation.api().path + ": " + message);
    }
  }

  private synchronized void record(Operation operation, String answer) {
    total++;
    answers
        .computeIfAbsent(
            operation.kind().description + " " + operation.api().path, k -> new TreeMap<>())
        .merge(answer, 1, Integer::sum);
  }
}
