package io.spinagent.agent.cluster;

import io.kubernetes.client.openapi.ApiClient;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.spinagent.common.KubernetesRequest;
import java.io.IOException;
import java.util.concurrent.TimeUnit;
import okhttp3.HttpUrl;
import okhttp3.Interceptor;
import okhttp3.Request;
import okhttp3.Response;

/**
 * Counts and times every request an account's Kubernetes client makes — listings, watches,
 * discovery, access reviews and the requests Clouddriver relays — by Kubernetes verb and HTTP
 * status: {@code spinagent.kubernetes.requests}. It sits on the account's {@link ApiClient}, so the
 * clients derived from it ({@link KubeHttp}) carry it too.
 *
 * <p>The time is until the response's head: a watch's life, or a streamed listing's body, is not a
 * latency. Tags are bounded: the verb as {@link KubernetesRequest#verbLabel()} names it, the status
 * as its three digits, or {@code error} when no response came (connection or read failure, or the
 * agent cancelled the request).
 */
final class KubernetesRequestMeter implements Interceptor {

  static final String NAME = "spinagent.kubernetes.requests";

  private final MeterRegistry registry;

  KubernetesRequestMeter(MeterRegistry registry) {
    this.registry = registry;
  }

  /** Makes {@code client} (and every client later derived from it) report to this meter. */
  void instrument(ApiClient client) {
    client.setHttpClient(client.getHttpClient().newBuilder().addInterceptor(this).build());
  }

  @Override
  public Response intercept(Chain chain) throws IOException {
    Request request = chain.request();
    HttpUrl url = request.url();
    String verb =
        KubernetesRequest.of(request.method(), url.encodedPath(), url.encodedQuery()).verbLabel();
    long start = System.nanoTime();
    String status = "error";
    try {
      Response response = chain.proceed(request);
      status = response.code() >= 100 && response.code() <= 599 ? "" + response.code() : "error";
      return response;
    } finally {
      Timer.builder(NAME)
          .description(
              "Requests of the agent's Kubernetes clients, by verb and status: time until the"
                  + " response's head")
          .tag("verb", verb)
          .tag("status", status)
          .register(registry)
          .record(System.nanoTime() - start, TimeUnit.NANOSECONDS);
    }
  }
}
