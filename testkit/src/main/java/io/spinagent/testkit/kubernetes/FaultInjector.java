package io.spinagent.testkit.kubernetes;

import java.time.Duration;
import java.util.Iterator;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Makes the server slow or failing on purpose, so tests can exercise retries and backoff. Health
 * endpoints (/healthz, /livez, /readyz) are never affected.
 */
public final class FaultInjector {

  private record Failure(String pathPrefix, String method, int code, AtomicInteger remaining) {}

  private final ConcurrentLinkedQueue<Failure> failures = new ConcurrentLinkedQueue<>();
  private volatile Duration latency = Duration.ZERO;

  /** Delays every request by {@code latency} before it is handled. */
  public FaultInjector latency(Duration latency) {
    this.latency = latency == null ? Duration.ZERO : latency;
    return this;
  }

  /** Answers the next {@code count} requests with {@code httpStatus} (a Kubernetes Status body). */
  public FaultInjector failNext(int count, int httpStatus) {
    return failNext(count, httpStatus, "/", null);
  }

  /**
   * Answers the next {@code count} requests whose path starts with {@code pathPrefix} (and whose
   * method is {@code method}, when not null) with {@code httpStatus}.
   */
  public FaultInjector failNext(int count, int httpStatus, String pathPrefix, String method) {
    failures.add(new Failure(pathPrefix, method, httpStatus, new AtomicInteger(count)));
    return this;
  }

  public void reset() {
    failures.clear();
    latency = Duration.ZERO;
  }

  void beforeRequest(String method, String path) {
    if (path.startsWith("/healthz") || path.startsWith("/livez") || path.startsWith("/readyz")) {
      return;
    }
    Duration delay = latency;
    if (!delay.isZero()) {
      try {
        Thread.sleep(delay.toMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    for (Iterator<Failure> it = failures.iterator(); it.hasNext(); ) {
      Failure failure = it.next();
      if (!path.startsWith(failure.pathPrefix())
          || (failure.method() != null && !failure.method().equalsIgnoreCase(method))) {
        continue;
      }
      if (failure.remaining().getAndDecrement() > 0) {
        throw new ApiError(
            failure.code(), reasonFor(failure.code()), "injected failure (" + failure.code() + ")");
      }
      it.remove();
    }
  }

  private static String reasonFor(int code) {
    return switch (code) {
      case 401 -> "Unauthorized";
      case 403 -> "Forbidden";
      case 404 -> "NotFound";
      case 409 -> "Conflict";
      case 410 -> "Expired";
      case 429 -> "TooManyRequests";
      case 503 -> "ServiceUnavailable";
      case 504 -> "Timeout";
      default -> "InternalError";
    };
  }
}
