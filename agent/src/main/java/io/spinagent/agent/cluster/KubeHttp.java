package io.spinagent.agent.cluster;

import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.Pair;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import okhttp3.Call;
import okhttp3.ConnectionPool;
import okhttp3.OkHttpClient;
import okhttp3.Protocol;
import okhttp3.Response;

/**
 * One account's requests to its API server through its {@link ApiClient}: its base path, TLS setup
 * and authentication, but our own {@code Accept} headers, our own handling of the response body
 * (streamed, never read whole into a String), and our own connections:
 *
 * <ul>
 *   <li>HTTP/1.1 only. OkHttp reads every HTTP/2 connection on a thread of its own for as long as
 *       the connection lives; over HTTP/1.1 a watch is just its socket, read by the loop that owns
 *       it, so a watch costs no more than the connection it holds.
 *   <li>Connections kept in one of the agent's shared pools ({@link ClusterThreads#connections()});
 *       they are only ever reused for the same address and TLS settings, so never by another
 *       account.
 *   <li>Every request is a {@link Call} its caller can cancel, which is how watches stop at once: a
 *       cancelled call's socket is closed instead of its remaining body being read.
 * </ul>
 *
 * <p>Relayed requests from Clouddriver (the tunnel) keep using the ApiClient's own client.
 */
final class KubeHttp {

  static final String JSON = "application/json";
  static final String METADATA_LIST =
      "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1";
  static final String METADATA_OBJECT =
      "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1";

  private final ApiClient client;
  private final OkHttpClient requests;
  private final OkHttpClient watches;
  private final OkHttpClient isolatedRequests;
  private final OkHttpClient isolatedWatches;

  /**
   * @param timeoutSeconds read timeout of ordinary requests ({@code timeoutSeconds})
   * @param pool where connections are kept for reuse
   * @param singleUse a pool that keeps nothing, for Secrets
   */
  KubeHttp(ApiClient client, int timeoutSeconds, ConnectionPool pool, ConnectionPool singleUse) {
    this.client = client;
    OkHttpClient base =
        client
            .getHttpClient()
            .newBuilder()
            .protocols(List.of(Protocol.HTTP_1_1))
            .connectionPool(pool)
            .build();
    this.requests =
        base.newBuilder()
            .readTimeout(timeoutSeconds, TimeUnit.SECONDS)
            .callTimeout(0, TimeUnit.SECONDS)
            .build();
    // A quiet watch sends nothing until the server ends it; the server's own timeoutSeconds ends
    // it.
    this.watches = base.newBuilder().readTimeout(0, TimeUnit.SECONDS).build();
    // For Secrets: connections are not kept for reuse, so that their buffers (which held response
    // bytes) become garbage as soon as the response is done.
    this.isolatedRequests = requests.newBuilder().connectionPool(singleUse).build();
    this.isolatedWatches = watches.newBuilder().connectionPool(singleUse).build();
  }

  private static final byte[] ZEROS = new byte[256 * 1024];

  /**
   * Overwrites okio's pooled segments (free I/O buffers that still hold the bytes last read through
   * them) with zeros: called after Secret responses, so that skipped fields do not linger in memory
   * that stays reachable. okio pools per thread bucket, and this runs on the thread that read.
   */
  static void wipePooledBuffers() {
    okio.Buffer buffer = new okio.Buffer();
    buffer.write(ZEROS);
    buffer.clear();
  }

  ApiClient client() {
    return client;
  }

  /** Sends a GET and waits for its answer; the caller closes the response. */
  Response get(String path, Map<String, String> query, String accept) throws ApiException {
    return execute(newGet(path, query, accept, false, false), "GET " + path);
  }

  /**
   * A GET, not yet sent: the caller registers it where it can be cancelled, then {@link #execute}s
   * it.
   *
   * @param watch on the client without a read timeout
   * @param isolated on a connection of its own, closed after the response (for Secrets)
   */
  Call newGet(
      String path, Map<String, String> query, String accept, boolean watch, boolean isolated)
      throws ApiException {
    List<Pair> params = new ArrayList<>();
    query.forEach(
        (k, v) -> {
          if (v != null) {
            params.add(new Pair(k, v));
          }
        });
    OkHttpClient http =
        isolated ? (watch ? isolatedWatches : isolatedRequests) : (watch ? watches : requests);
    return http.newCall(build(path, "GET", params, null, accept).request());
  }

  /** A POST of {@code body} (serialized by client-java), not yet sent. */
  Call newPost(String path, Object body) throws ApiException {
    return requests.newCall(build(path, "POST", List.of(), body, JSON).request());
  }

  private Call build(String path, String method, List<Pair> params, Object body, String accept)
      throws ApiException {
    Map<String, String> headers = new HashMap<>();
    headers.put("Accept", accept);
    if (body != null) {
      headers.put("Content-Type", JSON);
    }
    return client.buildCall(
        client.getBasePath(),
        path,
        method,
        params,
        List.of(),
        body,
        headers,
        new HashMap<>(),
        new HashMap<>(),
        new String[] {"BearerToken"},
        null);
  }

  /**
   * Sends {@code call}; the caller closes the response. Non-2xx answers are thrown as ApiException
   * with their status; failures to connect or read (and cancellation) with status 0.
   */
  static Response execute(Call call, String what) throws ApiException {
    Response response;
    try {
      response = call.execute();
    } catch (IOException e) {
      throw new ApiException(e);
    }
    if (!response.isSuccessful()) {
      String body = "";
      try {
        body = response.body() == null ? "" : truncate(response.body().string());
      } catch (IOException ignored) {
        // The status code says enough.
      } finally {
        response.close();
      }
      throw new ApiException(
          response.code() + " " + response.message() + " from " + what + ": " + body,
          response.code(),
          response.headers().toMultimap(),
          body);
    }
    return response;
  }

  private static String truncate(String text) {
    return text.length() > 500 ? text.substring(0, 500) + "..." : text;
  }
}
