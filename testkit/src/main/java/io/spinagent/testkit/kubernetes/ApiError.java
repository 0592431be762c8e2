package io.spinagent.testkit.kubernetes;

import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * A failed API call, carried as an exception until the router turns it into a Kubernetes {@code
 * Status} body. Clients branch on {@code code} and {@code reason} (for example client-java's
 * informer treats 410 as "relist", kubectl apply treats 404 as "create"), so both must be what a
 * real API server sends.
 */
public final class ApiError extends RuntimeException {

  private static final long serialVersionUID = 1L;

  private final int code;
  private final String reason;
  private final String detailsName;
  private final String detailsGroup;
  private final String detailsKind;

  public ApiError(int code, String reason, String message) {
    this(code, reason, message, null, null, null);
  }

  public ApiError(int code, String reason, String message, String name, String group, String kind) {
    super(message);
    this.code = code;
    this.reason = reason;
    this.detailsName = name;
    this.detailsGroup = group;
    this.detailsKind = kind;
  }

  public int code() {
    return code;
  }

  public String reason() {
    return reason;
  }

  static ApiError badRequest(String message) {
    return new ApiError(400, "BadRequest", message);
  }

  static ApiError notFound(ResourceType type, String name) {
    return new ApiError(
        404,
        "NotFound",
        type.groupResource() + " \"" + name + "\" not found",
        name,
        type.group(),
        type.plural());
  }

  static ApiError notFoundPath() {
    return new ApiError(404, "NotFound", "the server could not find the requested resource");
  }

  static ApiError alreadyExists(ResourceType type, String name) {
    return new ApiError(
        409,
        "AlreadyExists",
        type.groupResource() + " \"" + name + "\" already exists",
        name,
        type.group(),
        type.plural());
  }

  static ApiError conflict(ResourceType type, String name) {
    return new ApiError(
        409,
        "Conflict",
        "Operation cannot be fulfilled on "
            + type.groupResource()
            + " \""
            + name
            + "\": the object has been modified; please apply your changes to the latest version"
            + " and try again",
        name,
        type.group(),
        type.plural());
  }

  static ApiError invalid(ResourceType type, String name, String message) {
    return new ApiError(
        422,
        "Invalid",
        type.kind() + " \"" + name + "\" is invalid: " + message,
        name,
        type.group(),
        type.kind());
  }

  static ApiError methodNotAllowed() {
    return new ApiError(
        405, "MethodNotAllowed", "the server does not allow this method on the requested resource");
  }

  static ApiError expired(String message) {
    return new ApiError(410, "Expired", message);
  }

  static ApiError unsupportedMediaType(String contentType) {
    return new ApiError(
        415,
        "UnsupportedMediaType",
        "the body of the request was in an unknown format - accepted media types include:"
            + " application/json-patch+json, application/merge-patch+json,"
            + " application/apply-patch+yaml, application/strategic-merge-patch+json (got "
            + contentType
            + ")");
  }

  /** The {@code Status} object a real API server returns for this failure. */
  public ObjectNode toStatus() {
    ObjectNode status = Json.object();
    status.put("kind", "Status");
    status.put("apiVersion", "v1");
    status.set("metadata", Json.object());
    status.put("status", "Failure");
    status.put("message", getMessage());
    status.put("reason", reason);
    if (detailsName != null || detailsKind != null) {
      ObjectNode details = status.putObject("details");
      if (detailsName != null) {
        details.put("name", detailsName);
      }
      if (detailsGroup != null && !detailsGroup.isEmpty()) {
        details.put("group", detailsGroup);
      }
      if (detailsKind != null) {
        details.put("kind", detailsKind);
      }
    }
    status.put("code", code);
    return status;
  }
}
