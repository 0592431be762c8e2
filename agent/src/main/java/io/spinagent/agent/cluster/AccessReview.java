package io.spinagent.agent.cluster;

import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.AuthorizationV1Api;
import io.kubernetes.client.openapi.models.V1ResourceAttributes;
import io.kubernetes.client.openapi.models.V1SelfSubjectAccessReview;
import io.kubernetes.client.openapi.models.V1SelfSubjectAccessReviewSpec;
import io.kubernetes.client.openapi.models.V1SubjectAccessReviewStatus;
import java.util.List;
import java.util.Optional;

/**
 * Asks the API server, with SelfSubjectAccessReview, whether the account's credentials may list and
 * watch a resource where the agent would watch it.
 */
final class AccessReview {

  private final AuthorizationV1Api api;

  AccessReview(ApiClient client) {
    this.api = new AuthorizationV1Api(client);
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
            : java.util.Collections.singletonList(null);
    for (String namespace : scopes) {
      for (String verb : List.of("list", "watch")) {
        V1SelfSubjectAccessReview review =
            new V1SelfSubjectAccessReview()
                .spec(
                    new V1SelfSubjectAccessReviewSpec()
                        .resourceAttributes(
                            new V1ResourceAttributes()
                                .group(resource.group())
                                .resource(resource.plural())
                                .verb(verb)
                                .namespace(namespace)));
        V1SubjectAccessReviewStatus status =
            api.createSelfSubjectAccessReview(review).execute().getStatus();
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
}
