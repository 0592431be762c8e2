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
import okhttp3.Response;

/**
 * Raw GET requests through an {@link ApiClient}: its base path, TLS setup and authentication, but
 * our own {@code Accept} headers and our own handling of the response body (streamed, never read
 * whole into a String).
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
   */
  KubeHttp(ApiClient client, int timeoutSeconds) {
    this.client = client;
    this.requests =
        client
            .getHttpClient()
            .newBuilder()
            .readTimeout(timeoutSeconds, TimeUnit.SECONDS)
            .callTimeout(0, TimeUnit.SECONDS)
            .build();
    // A quiet watch sends nothing until the server ends it; the server's own timeoutSeconds ends
    // it.
    this.watches = client.getHttpClient().newBuilder().readTimeout(0, TimeUnit.SECONDS).build();
    // For Secrets: connections are not kept for reuse, so that their buffers (which held response
    // bytes) become garbage as soon as the response is done.
    this.isolatedRequests =
        requests
            .newBuilder()
            .connectionPool(new ConnectionPool(0, 1, TimeUnit.MILLISECONDS))
            .build();
    this.isolatedWatches =
        watches
            .newBuilder()
            .connectionPool(new ConnectionPool(0, 1, TimeUnit.MILLISECONDS))
            .build();
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

  /** Sends a GET; the caller closes the response. Non-2xx answers are thrown as ApiException. */
  Response get(String path, Map<String, String> query, String accept, boolean watch)
      throws ApiException {
    return get(path, query, accept, watch, false);
  }

  /**
   * @param isolated on a connection of its own, closed after the response (for Secrets)
   */
  Response get(
      String path, Map<String, String> query, String accept, boolean watch, boolean isolated)
      throws ApiException {
    List<Pair> params = new ArrayList<>();
    query.forEach(
        (k, v) -> {
          if (v != null) {
            params.add(new Pair(k, v));
          }
        });
    Map<String, String> headers = new HashMap<>();
    headers.put("Accept", accept);
    Call template =
        client.buildCall(
            client.getBasePath(),
            path,
            "GET",
            params,
            List.of(),
            null,
            headers,
            new HashMap<>(),
            new HashMap<>(),
            new String[] {"BearerToken"},
            null);
    OkHttpClient http =
        isolated ? (watch ? isolatedWatches : isolatedRequests) : (watch ? watches : requests);
    Call call = http.newCall(template.request());
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
          response.code() + " " + response.message() + " from GET " + path + ": " + body,
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
