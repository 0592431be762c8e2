package io.spinagent.plugin.web;

import io.spinagent.plugin.accounts.AccountRequestException;
import io.spinagent.plugin.tunnel.history.OperationHistory;
import io.spinagent.plugin.tunnel.history.OperationPage;
import io.spinagent.plugin.tunnel.history.OperationQuery;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code GET /spinagent/operations}: the Kubernetes API requests Clouddriver sent through the
 * tunnel, newest first, filtered by account, status and start time, a page at a time.
 */
@RestController
@RequestMapping("/spinagent")
public class OperationsController extends ApiErrors {

  static final int DEFAULT_LIMIT = 100;
  static final int MAX_LIMIT = 1000;

  private final OperationHistory history;
  private final Clock clock;

  // Two constructors: Spring must be told which one is its own.
  @Autowired
  public OperationsController(OperationHistory history) {
    this(history, Clock.systemUTC());
  }

  OperationsController(OperationHistory history, Clock clock) {
    this.history = history;
    this.clock = clock;
  }

  /**
   * A page of the operations relayed to agents, filtered by the parameters given.
   *
   * @param status an HTTP status ({@code 403}) or a class ({@code 4xx})
   * @param since an instant ({@code 2026-11-22T07:00:00Z}) or an age ({@code 15m}, {@code 2h},
   *     {@code 7d}, or ISO-8601 {@code PT15M})
   */
  @GetMapping({"/operations", "/operations/"})
  public OperationPage operations(
      @RequestParam(required = false) String account,
      @RequestParam(required = false) String status,
      @RequestParam(required = false) String since,
      @RequestParam(required = false, defaultValue = "0") int offset,
      @RequestParam(required = false, defaultValue = "" + DEFAULT_LIMIT) int limit) {
    if (offset < 0) {
      throw badRequest("offset must not be negative, not " + offset);
    }
    if (limit < 1 || limit > MAX_LIMIT) {
      throw badRequest("limit must be between 1 and " + MAX_LIMIT + ", not " + limit);
    }
    OperationQuery.StatusFilter statusFilter = null;
    if (status != null && !status.isBlank()) {
      try {
        statusFilter = OperationQuery.StatusFilter.parse(status);
      } catch (IllegalArgumentException e) {
        throw badRequest(e.getMessage());
      }
    }
    return history.find(
        new OperationQuery(
            account == null || account.isBlank() ? null : account,
            statusFilter,
            since(since),
            offset,
            limit));
  }

  private Instant since(String text) {
    if (text == null || text.isBlank()) {
      return null;
    }
    String value = text.trim();
    try {
      return Instant.parse(value);
    } catch (DateTimeParseException notAnInstant) {
      // an age, below
    }
    try {
      return clock.instant().minus(age(value));
    } catch (DateTimeParseException | ArithmeticException e) {
      throw badRequest(
          "since '"
              + text
              + "' is neither an instant (2026-11-22T07:00:00Z) nor an age (15m, 2h, 7d)");
    }
  }

  private static Duration age(String value) {
    String lower = value.toLowerCase(Locale.ROOT);
    if (lower.matches("\\d+[smhd]")) {
      long amount = Long.parseLong(lower.substring(0, lower.length() - 1));
      return switch (lower.charAt(lower.length() - 1)) {
        case 's' -> Duration.ofSeconds(amount);
        case 'm' -> Duration.ofMinutes(amount);
        case 'h' -> Duration.ofHours(amount);
        default -> Duration.ofDays(amount);
      };
    }
    return Duration.parse(value);
  }

  private static AccountRequestException badRequest(String message) {
    return StrictJson.invalid(message);
  }
}
