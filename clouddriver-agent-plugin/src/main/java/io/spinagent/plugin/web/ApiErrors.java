package io.spinagent.plugin.web;

import io.spinagent.plugin.accounts.AccountRequestException;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.HttpMediaTypeNotSupportedException;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.method.annotation.MethodArgumentTypeMismatchException;

/**
 * Errors of SpinAgent's REST API as {@code {"status", "error", "message"}}, with the status they
 * mean. A base class rather than a controller advice: the plugin's controllers are served by
 * Clouddriver's dispatcher, which looks for advice only in Clouddriver's own context, while a
 * controller's own exception handlers always apply.
 */
public abstract class ApiErrors {

  @ExceptionHandler(AccountRequestException.class)
  protected ResponseEntity<ApiError> accountRequest(AccountRequestException e) {
    return error(statusOf(e.problem()), e.getMessage());
  }

  static HttpStatus statusOf(AccountRequestException.Problem problem) {
    return switch (problem) {
      case INVALID -> HttpStatus.BAD_REQUEST;
      case NOT_FOUND -> HttpStatus.NOT_FOUND;
      case CONFLICT, SERVED_ELSEWHERE -> HttpStatus.CONFLICT;
      case UNAVAILABLE -> HttpStatus.SERVICE_UNAVAILABLE;
      case TOO_LARGE -> HttpStatus.PAYLOAD_TOO_LARGE;
      case TOO_MANY -> HttpStatus.TOO_MANY_REQUESTS;
    };
  }

  @ExceptionHandler(MethodArgumentTypeMismatchException.class)
  protected ResponseEntity<ApiError> badParameter(MethodArgumentTypeMismatchException e) {
    return error(
        HttpStatus.BAD_REQUEST, e.getName() + ": '" + e.getValue() + "' is not a valid value");
  }

  @ExceptionHandler(HttpMediaTypeNotSupportedException.class)
  protected ResponseEntity<ApiError> mediaType(HttpMediaTypeNotSupportedException e) {
    return error(HttpStatus.UNSUPPORTED_MEDIA_TYPE, "send the body as application/json");
  }

  static ResponseEntity<ApiError> error(HttpStatus status, String message) {
    return ResponseEntity.status(status.value())
        .contentType(MediaType.APPLICATION_JSON)
        .body(new ApiError(status.value(), status.getReasonPhrase(), message));
  }

  public record ApiError(int status, String error, String message) {}
}
