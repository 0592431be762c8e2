package io.spinagent.agent.cluster;

import io.kubernetes.client.openapi.ApiException;
import io.spinagent.agent.config.KubernetesAccountConfig;
import io.spinagent.protocol.v1.KindProblem;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The kinds an account watches: of the discovered resources, those its configuration selects
 * ({@link KindSelection}), and of those, the ones its credentials may list and watch ({@link
 * AccessReview}); the others, with the reason, are reported as unwatchable.
 *
 * @param allowed the kinds to watch
 * @param denied the kinds selected but not permitted, with the reason
 */
record WatchableKinds(List<ApiResource> allowed, List<KindProblem> denied) {

  private static final Logger log = LoggerFactory.getLogger(WatchableKinds.class);

  WatchableKinds {
    allowed = List.copyOf(allowed);
    denied = List.copyOf(denied);
  }

  static WatchableKinds find(
      List<ApiResource> discovered, KubernetesAccountConfig config, KubeHttp http)
      throws ApiException {
    AccessReview review = new AccessReview(http);
    List<ApiResource> selected = KindSelection.select(discovered, config);
    if (allowsEverything(review, config)) {
      return new WatchableKinds(selected, List.of());
    }
    List<ApiResource> allowed = new ArrayList<>();
    List<KindProblem> denied = new ArrayList<>();
    for (ApiResource resource : selected) {
      Optional<String> reason;
      try {
        reason = review.denied(resource, config.namespaces());
      } catch (ApiException e) {
        if (e.getCode() == 401 || e.getCode() == 0) {
          throw e;
        }
        // The review itself is not allowed or not served: try to watch, and report failures then.
        log.debug(
            "Account '{}': access review for {} failed: {}",
            config.name(),
            resource,
            e.getMessage());
        reason = Optional.empty();
      }
      if (reason.isPresent()) {
        denied.add(
            KindProblem.newBuilder().setKind(resource.toKind()).setReason(reason.get()).build());
      } else {
        allowed.add(resource);
      }
    }
    if (!denied.isEmpty()) {
      log.warn(
          "Account '{}': not permitted to watch {}",
          config.name(),
          denied.stream().map(WatchableKinds::kindName).toList());
    }
    return new WatchableKinds(allowed, denied);
  }

  private static boolean allowsEverything(AccessReview review, KubernetesAccountConfig config)
      throws ApiException {
    try {
      return review.allowsEverything();
    } catch (ApiException e) {
      if (e.getCode() == 401 || e.getCode() == 0) {
        throw e;
      }
      log.debug(
          "Account '{}': access review of every resource failed, reviewing each kind: {}",
          config.name(),
          e.getMessage());
      return false;
    }
  }

  /** {@code Deployment.apps}, or {@code Pod} for the core group. */
  static String kindName(KindProblem problem) {
    return problem.getKind().getGroup().isEmpty()
        ? problem.getKind().getKind()
        : problem.getKind().getKind() + "." + problem.getKind().getGroup();
  }
}
