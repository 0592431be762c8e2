package io.spinagent.plugin.tunnel.history;

import java.time.Instant;

/**
 * A page of the history, newest first.
 *
 * @param account only this account; null for all
 * @param status only this status (e.g. 403), or class (4 for 4xx); null for all
 * @param since only operations started at or after this; null for all
 * @param offset operations skipped (newest first)
 * @param limit at most this many returned
 */
public record OperationQuery(
    String account, StatusFilter status, Instant since, int offset, int limit) {

  /** An exact status, or a class of statuses. */
  public record StatusFilter(int low, int high) {

    /** {@code 403} or {@code 4xx}; throws naming the problem otherwise. */
    public static StatusFilter parse(String text) {
      String value = text.trim().toLowerCase(java.util.Locale.ROOT);
      if (value.matches("[1-5]xx")) {
        int low = (value.charAt(0) - '0') * 100;
        return new StatusFilter(low, low + 99);
      }
      if (value.matches("-?\\d{1,3}")) {
        int code = Integer.parseInt(value);
        return new StatusFilter(code, code);
      }
      throw new IllegalArgumentException(
          "status '" + text + "' is neither an HTTP status (403) nor a class of them (4xx)");
    }

    boolean matches(int code) {
      return code >= low && code <= high;
    }
  }

  boolean matches(OperationRecord record) {
    return (account == null || account.equals(record.account()))
        && (status == null || status.matches(record.status()))
        && (since == null || !record.startedAt().isBefore(since));
  }
}
