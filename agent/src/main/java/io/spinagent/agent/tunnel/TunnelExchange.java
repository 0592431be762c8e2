package io.spinagent.agent.tunnel;

import com.google.gson.Gson;
import com.google.protobuf.ByteString;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.spinagent.common.HopByHopHeaders;
import io.spinagent.common.KubernetesRequest;
import io.spinagent.protocol.v1.Header;
import io.spinagent.protocol.v1.TunnelEnd;
import io.spinagent.protocol.v1.TunnelFrame;
import io.spinagent.protocol.v1.TunnelRequestHead;
import io.spinagent.protocol.v1.TunnelResponseHead;
import io.spinagent.protocol.v1.TunnelWindow;
import java.io.IOException;
import java.io.InputStream;
import java.time.Instant;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import okhttp3.Call;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import okhttp3.ResponseBody;
import okio.Buffer;
import okio.BufferedSink;
import okio.Pipe;
import okio.Source;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One relayed request: the body Clouddriver sends flows through a pipe into the API server request
 * as it arrives (credit given back as the API server reads it), and the answer streams back within
 * the credit Clouddriver grants, so neither direction is held whole in memory.
 */
final class TunnelExchange {

  private static final Logger log = LoggerFactory.getLogger(TunnelExchange.class);
  private static final Gson GSON = new Gson();
  static final int REQUEST_WINDOW = 256 * 1024;
  private static final int CHUNK = 64 * 1024;
  // Nor the caller's credentials: the account's own reach the API server.
  private static final Set<String> NOT_RELAYED = HopByHopHeaders.and("authorization");

  /** Methods OkHttp only sends with a body. */
  private static final Set<String> METHODS_WITH_BODY = Set.of("POST", "PUT", "PATCH");

  private final long id;
  private final TunnelRequestHead head;
  private final ApiClient client;
  private final TunnelFrameSink toPlugin;
  private final Runnable finished;
  private final Pipe requestBody = new Pipe(REQUEST_WINDOW);
  private long responseCredit;
  private final Instant received = Instant.now();
  private volatile boolean started;
  private volatile boolean cancelled;
  private volatile Call call;

  TunnelExchange(
      long id,
      TunnelRequestHead head,
      ApiClient client,
      TunnelFrameSink toPlugin,
      Runnable finished) {
    this.id = id;
    this.head = head;
    this.client = client;
    this.toPlugin = toPlugin;
    this.finished = finished;
    this.responseCredit = head.getInitialWindow();
  }

  /** Answers a request that cannot run with a Kubernetes Status, without an exchange. */
  static void refuse(long id, TunnelFrameSink toPlugin, int code, String reason, String message) {
    ByteString body = ByteString.copyFromUtf8(status(code, reason, message));
    toPlugin.send(
        frame(id)
            .setResponseHead(
                TunnelResponseHead.newBuilder()
                    .setStatus(code)
                    .setBodyLength(body.size())
                    .addHeaders(
                        Header.newBuilder().setName("Content-Type").addValues("application/json")))
            .build(),
        frame(id).setBody(body).build(),
        frame(id).setEnd(TunnelEnd.getDefaultInstance()).build());
  }

  long id() {
    return id;
  }

  boolean isCancelled() {
    return cancelled;
  }

  /** What this request is, for the admin endpoint's {@code /operations}. */
  InFlightRequest describe() {
    return new InFlightRequest(
        id,
        head.getAccount(),
        head.getMethod(),
        KubernetesRequest.of(head.getMethod(), head.getPath(), head.getQuery()).verbLabel(),
        head.getPath(),
        received,
        started);
  }

  void start(ExecutorService workers) {
    started = true;
    if (head.getWithoutBody()) {
      requestEnded();
    } else {
      toPlugin.send(
          frame(id).setWindow(TunnelWindow.newBuilder().setBytes(REQUEST_WINDOW)).build());
    }
    workers.execute(this::run);
  }

  // --- frames from Clouddriver (stream thread): never block ---

  void requestBody(ByteString bytes) {
    try {
      Buffer buffer = new Buffer().write(bytes.toByteArray());
      // Within the credit granted the pipe has room, so this does not wait.
      requestBody.sink().write(buffer, buffer.size());
    } catch (IOException e) {
      cancel("the request body could not be buffered: " + e.getMessage());
    }
  }

  void requestEnded() {
    try {
      requestBody.sink().close();
    } catch (IOException ignored) {
      // The reading side is gone already.
    }
  }

  synchronized void responseCredit(int bytes) {
    responseCredit += bytes;
    notifyAll();
  }

  void cancel(String reason) {
    cancelled = true;
    Call running = call;
    if (running != null) {
      running.cancel();
    }
    requestBody.cancel();
    synchronized (this) {
      notifyAll();
    }
    log.debug(
        "Relayed request {} {} for account '{}' cancelled: {}",
        head.getMethod(),
        head.getPath(),
        head.getAccount(),
        reason);
  }

  // --- the worker ---

  private void run() {
    boolean answered = false;
    try (Response response = execute()) {
      TunnelResponseHead.Builder responseHead =
          TunnelResponseHead.newBuilder().setStatus(response.code());
      response
          .headers()
          .toMultimap()
          .forEach(
              (name, values) -> {
                if (!NOT_RELAYED.contains(name.toLowerCase(Locale.ROOT))) {
                  responseHead.addHeaders(Header.newBuilder().setName(name).addAllValues(values));
                }
              });
      ResponseBody body = response.body();
      long length =
          head.getMethod().equalsIgnoreCase("HEAD") || body == null ? 0 : body.contentLength();
      if (length >= 0) {
        responseHead.setBodyLength(length);
      }
      if (length >= 0 && length <= Math.min(CHUNK, credit())) {
        // Small and declared: read whole, so head, body and end leave in one hand-off.
        sendWhole(
            responseHead.build(), length == 0 ? new byte[0] : body.source().readByteArray(length));
        answered = true;
        return;
      }
      toPlugin.send(frame(id).setResponseHead(responseHead).build());
      answered = true;
      if (body != null) {
        streamBody(body.byteStream());
      }
      toPlugin.send(end());
    } catch (IOException | ApiException | InterruptedException e) {
      if (e instanceof InterruptedException) {
        Thread.currentThread().interrupt();
      }
      if (!cancelled) {
        String error =
            "agent could not complete "
                + head.getMethod()
                + " "
                + head.getPath()
                + " for account '"
                + head.getAccount()
                + "': "
                + e.getMessage();
        log.warn(error);
        if (answered) {
          toPlugin.send(frame(id).setEnd(TunnelEnd.newBuilder().setError(error)).build());
        } else {
          refuse(id, toPlugin, 502, "BadGateway", error);
        }
      }
    } finally {
      finished.run();
    }
  }

  private Response execute() throws IOException, ApiException {
    // Header names are case-insensitive, and relays change their case (Content-type, content-type).
    Map<String, String> headers = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
    for (Header header : head.getHeadersList()) {
      if (!NOT_RELAYED.contains(header.getName().toLowerCase(Locale.ROOT))) {
        headers.put(header.getName(), String.join(",", header.getValuesList()));
      }
    }
    // buildCall applies the account's own credentials; the path and query pass through as sent.
    Request template =
        client
            .buildCall(
                client.getBasePath(),
                head.getPath(),
                "GET",
                List.of(),
                List.of(),
                null,
                headers,
                new HashMap<>(),
                new HashMap<>(),
                new String[] {"BearerToken"},
                null)
            .request();
    Request.Builder request =
        template
            .newBuilder()
            .url(
                template
                    .url()
                    .newBuilder()
                    .encodedQuery(head.getQuery().isEmpty() ? null : head.getQuery())
                    .build());
    String method = head.getMethod().toUpperCase(Locale.ROOT);
    request.method(method, requestBody(method, headers));
    // Watches and followed logs answer for as long as they last; Clouddriver's side bounds the
    // wait.
    OkHttpClient http =
        client.getHttpClient().newBuilder().readTimeout(0, TimeUnit.SECONDS).build();
    Call newCall = http.newCall(request.build());
    call = newCall;
    if (cancelled) {
      newCall.cancel();
    }
    return newCall.execute();
  }

  private RequestBody requestBody(String method, Map<String, String> headers) {
    if (method.equals("GET") || method.equals("HEAD")) {
      return null;
    }
    if (head.getWithoutBody()) {
      // Methods such as POST must carry a body in OkHttp; an empty one is what the client sent.
      return METHODS_WITH_BODY.contains(method) ? RequestBody.create(new byte[0], null) : null;
    }
    return streamingBody(headers);
  }

  private RequestBody streamingBody(Map<String, String> headers) {
    String contentType = headers.getOrDefault("Content-Type", "application/json");
    return new RequestBody() {
      @Override
      public MediaType contentType() {
        return MediaType.parse(contentType);
      }

      @Override
      public void writeTo(BufferedSink sink) throws IOException {
        Source source = requestBody.source();
        Buffer chunk = new Buffer();
        long read;
        while ((read = source.read(chunk, CHUNK)) != -1) {
          sink.write(chunk, read);
          // What the API server took frees room in the pipe: let Clouddriver send that much more.
          toPlugin.send(
              frame(id).setWindow(TunnelWindow.newBuilder().setBytes((int) read)).build());
        }
      }
    };
  }

  private void streamBody(InputStream body) throws IOException, InterruptedException {
    byte[] buffer = new byte[CHUNK];
    while (!cancelled) {
      int allowed;
      synchronized (this) {
        while (responseCredit <= 0 && !cancelled) {
          wait();
        }
        allowed = (int) Math.min(buffer.length, responseCredit);
      }
      if (cancelled) {
        return;
      }
      int read = body.read(buffer, 0, allowed);
      if (read < 0) {
        return;
      }
      takeCredit(read);
      toPlugin.send(frame(id).setBody(ByteString.copyFrom(buffer, 0, read)).build());
    }
  }

  private void sendWhole(TunnelResponseHead responseHead, byte[] body) {
    takeCredit(body.length);
    TunnelFrame headFrame = frame(id).setResponseHead(responseHead).build();
    if (body.length == 0) {
      toPlugin.send(headFrame, end());
    } else {
      toPlugin.send(headFrame, frame(id).setBody(ByteString.copyFrom(body)).build(), end());
    }
  }

  private synchronized long credit() {
    return responseCredit;
  }

  private synchronized void takeCredit(int bytes) {
    responseCredit -= bytes;
  }

  private TunnelFrame end() {
    return frame(id).setEnd(TunnelEnd.getDefaultInstance()).build();
  }

  private static TunnelFrame.Builder frame(long id) {
    return TunnelFrame.newBuilder().setStreamId(id);
  }

  /** A Kubernetes Status object, so kubectl shows the message. */
  private static String status(int code, String reason, String message) {
    Map<String, Object> status = new LinkedHashMap<>();
    status.put("kind", "Status");
    status.put("apiVersion", "v1");
    status.put("metadata", Map.of());
    status.put("status", "Failure");
    status.put("message", message);
    status.put("reason", reason);
    status.put("code", code);
    return GSON.toJson(status);
  }
}
