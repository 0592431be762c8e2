package io.spinagent.agent.cluster;

import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.JSON;
import io.kubernetes.client.openapi.models.V1ResourceAttributes;
import io.kubernetes.client.openapi.models.V1SelfSubjectAccessReview;
import io.kubernetes.client.openapi.models.V1SelfSubjectAccessReviewSpec;
import io.kubernetes.client.openapi.models.V1SubjectAccessReviewStatus;
import java.io.IOException;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import okhttp3.Response;

/**
 * Asks the API server, with SelfSubjectAccessReview, whether the account's credentials may list and
 * watch a resource where the agent would watch it. Sent over the account's {@link KubeHttp}
 * connections, with client-java's models.
 *
 * <p>Credentials that may list and watch every resource of every group across the cluster (the
 * usual grant for a Spinnaker account) are recognised with two reviews of {@code *} (which RBAC
 * allows only through a wildcard rule), so that such an account does not cost two reviews per kind
 * at connect time — at fleet scale, thousands of requests queued before the first listing.
 */
final class AccessReview {

  static final String PATH = "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews";

  private final KubeHttp http;

  AccessReview(KubeHttp http) {
    this.http = http;
  }

  /** Whether the credentials may list and watch every resource of every group, cluster-wide. */
  boolean allowsEverything() throws ApiException {
    for (String verb : List.of("list", "watch")) {
      V1SubjectAccessReviewStatus status = review("*", "*", verb, null).getStatus();
      if (status == null || !Boolean.TRUE.equals(status.getAllowed())) {
        return false;
      }
    }
    return true;
  }

  /**
   * Empty when allowed; otherwise why not.
   *
   * @param namespaces where the resource would be watched; empty for the whole cluster
   */
  Optional<String> denied(ApiResource resource, List<String> namespaces) throws ApiException {
    List<String> scopes =
        resource.namespaced() && !namespaces.isEmpty()
            ? namespaces
            : Collections.singletonList(null);
    for (String namespace : scopes) {
      for (String verb : List.of("list", "watch")) {
        V1SubjectAccessReviewStatus status =
            review(resource.group(), resource.plural(), verb, namespace).getStatus();
        if (status == null || !Boolean.TRUE.equals(status.getAllowed())) {
          String reason =
              status != null && status.getReason() != null && !status.getReason().isEmpty()
                  ? ": " + status.getReason()
                  : "";
          return Optional.of(
              "may not "
                  + verb
                  + " "
                  + resource.plural()
                  + (resource.group().isEmpty() ? "" : "." + resource.group())
                  + (namespace == null ? " across the cluster" : " in namespace " + namespace)
                  + reason);
        }
      }
    }
    return Optional.empty();
  }

  private V1SelfSubjectAccessReview review(
      String group, String resource, String verb, String namespace) throws ApiException {
    V1SelfSubjectAccessReview review =
        new V1SelfSubjectAccessReview()
            .apiVersion("authorization.k8s.io/v1")
            .kind("SelfSubjectAccessReview")
            .spec(
                new V1SelfSubjectAccessReviewSpec()
                    .resourceAttributes(
                        new V1ResourceAttributes()
                            .group(group)
                            .resource(resource)
                            .verb(verb)
                            .namespace(namespace)));
    try (Response response = KubeHttp.execute(http.newPost(PATH, review), "POST " + PATH)) {
      return JSON.deserialize(response.body().string(), V1SelfSubjectAccessReview.class);
    } catch (IOException | RuntimeException e) {
      throw new ApiException("POST " + PATH + " failed: " + e.getMessage(), e, 0, null);
    }
  }
}
