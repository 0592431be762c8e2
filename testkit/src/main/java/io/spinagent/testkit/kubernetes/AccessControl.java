package io.spinagent.testkit.kubernetes;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Authentication and authorization, both configurable per test.
 *
 * <p>Authentication: while no token is registered, every request is accepted as an anonymous user
 * (the convenient default). Once tokens are registered, a request without a registered bearer token
 * gets 401, as a real API server with anonymous access disabled does.
 *
 * <p>Authorization: each caller has an {@link AccessRule}. The same rule authorizes the caller's
 * requests (403 Forbidden when it says no) and answers the caller's SelfSubjectAccessReviews, so
 * what the agent learns from a review is what actually happens when it tries, as with real RBAC.
 */
public final class AccessControl {

  /** What is being attempted, in RBAC terms. {@code group} is "" for the core group. */
  public record AccessRequest(
      String user,
      String verb,
      String group,
      String resource,
      String subresource,
      String namespace,
      String name) {}

  /** Decides whether a request is allowed. */
  @FunctionalInterface
  public interface AccessRule {
    boolean allows(AccessRequest request);

    static AccessRule allowAll() {
      return request -> true;
    }

    static AccessRule denyAll() {
      return request -> false;
    }
  }

  /** An authenticated caller. */
  public record Principal(String user, AccessRule rule) {}

  static final String ANONYMOUS = "system:anonymous";

  private final Map<String, Principal> tokens = new ConcurrentHashMap<>();
  private volatile AccessRule defaultRule = AccessRule.allowAll();

  /** Accepts {@code token} for a user who may do anything. */
  public AccessControl acceptToken(String token) {
    return acceptToken(token, "token-user", AccessRule.allowAll());
  }

  /**
   * Accepts {@code token} for {@code user}, whose requests and reviews are decided by {@code rule}.
   */
  public AccessControl acceptToken(String token, String user, AccessRule rule) {
    tokens.put(token, new Principal(user, rule));
    return this;
  }

  public AccessControl revokeToken(String token) {
    tokens.remove(token);
    return this;
  }

  /** The rule for callers when no token is registered (anonymous callers). Default: allow all. */
  public AccessControl defaultRule(AccessRule rule) {
    this.defaultRule = rule == null ? AccessRule.allowAll() : rule;
    return this;
  }

  public boolean tokensRequired() {
    return !tokens.isEmpty();
  }

  /**
   * Resolves the caller from the Authorization header; 401 when tokens are required and this one is
   * not known.
   */
  Principal authenticate(String authorizationHeader) {
    String token = null;
    if (authorizationHeader != null
        && authorizationHeader.regionMatches(true, 0, "Bearer ", 0, 7)) {
      token = authorizationHeader.substring(7).trim();
    }
    if (token != null) {
      Principal principal = tokens.get(token);
      if (principal != null) {
        return principal;
      }
    }
    if (tokensRequired()) {
      throw new ApiError(401, "Unauthorized", "Unauthorized");
    }
    return new Principal(ANONYMOUS, defaultRule);
  }

  /** 403 unless the caller's rule allows the request. */
  void authorize(Principal principal, AccessRequest request) {
    if (principal.rule().allows(request)) {
      return;
    }
    String resource =
        request.resource() + (request.subresource() == null ? "" : "/" + request.subresource());
    String scope =
        request.namespace() == null || request.namespace().isEmpty()
            ? "at the cluster scope"
            : "in the namespace \"" + request.namespace() + "\"";
    String target =
        request.name() == null || request.name().isEmpty() ? "" : " \"" + request.name() + "\"";
    String message =
        resource
            + (request.group().isEmpty() ? "" : "." + request.group())
            + target
            + " is forbidden: User \""
            + principal.user()
            + "\" cannot "
            + request.verb()
            + " resource \""
            + resource
            + "\" in API group \""
            + request.group()
            + "\" "
            + scope;
    throw new ApiError(
        403, "Forbidden", message, request.name(), request.group(), request.resource());
  }

  /**
   * Answers a SelfSubjectAccessReview for the caller, filling in its status as the API server does.
   *
   * @param served the resource types the server serves, for reviews of {@code *}
   */
  ObjectNode review(Principal principal, ObjectNode review, List<ResourceType> served) {
    JsonNode attributes = review.path("spec").path("resourceAttributes");
    JsonNode nonResource = review.path("spec").path("nonResourceAttributes");
    boolean allowed;
    if (attributes.isObject()) {
      allowed =
          allows(
              principal,
              new AccessRequest(
                  principal.user(),
                  attributes.path("verb").asText(""),
                  attributes.path("group").asText(""),
                  attributes.path("resource").asText(""),
                  emptyToNull(attributes.path("subresource").asText("")),
                  attributes.path("namespace").asText(""),
                  attributes.path("name").asText("")),
              served);
    } else if (nonResource.isObject()) {
      allowed =
          principal
              .rule()
              .allows(
                  new AccessRequest(
                      principal.user(),
                      nonResource.path("verb").asText(""),
                      "",
                      nonResource.path("path").asText(""),
                      null,
                      "",
                      ""));
    } else {
      throw ApiError.badRequest(
          "spec.resourceAttributes or spec.nonResourceAttributes is required");
    }
    ObjectNode answer = review.deepCopy();
    answer.put("apiVersion", "authorization.k8s.io/v1");
    answer.put("kind", "SelfSubjectAccessReview");
    if (!answer.has("metadata")) {
      answer.putObject("metadata");
    }
    ObjectNode status = answer.putObject("status");
    // Like RBAC, a denial carries no reason (kubectl auth can-i then prints a plain "no").
    status.put("allowed", allowed);
    return answer;
  }

  /**
   * A review of {@code *} (any group, resource or verb) is allowed when the caller's rule allows
   * every served resource and verb it stands for. (RBAC allows {@code *} only through a wildcard
   * rule; a test's rule is code, and "allows each one" is the nearest it can mean.)
   */
  private static boolean allows(
      Principal principal, AccessRequest request, List<ResourceType> served) {
    boolean anyGroup = "*".equals(request.group());
    boolean anyResource = "*".equals(request.resource());
    boolean anyVerb = "*".equals(request.verb());
    if (!anyGroup && !anyResource && !anyVerb) {
      return principal.rule().allows(request);
    }
    for (ResourceType type : served) {
      if (type.serving() == ResourceType.Serving.ACCESS_REVIEW
          || (!anyGroup && !type.group().equals(request.group()))
          || (!anyResource && !type.plural().equals(request.resource()))) {
        continue;
      }
      for (String verb : anyVerb ? type.verbs() : List.of(request.verb())) {
        AccessRequest each =
            new AccessRequest(
                request.user(),
                verb,
                type.group(),
                type.plural(),
                request.subresource(),
                request.namespace(),
                request.name());
        if (!principal.rule().allows(each)) {
          return false;
        }
      }
    }
    return true;
  }

  private static String emptyToNull(String value) {
    return value == null || value.isEmpty() ? null : value;
  }
}
