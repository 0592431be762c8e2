package io.spinagent.agent.config.binding;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Parses and prints durations written the way Armory Scale Agent users (and Go programs) write
 * them: one or more decimal numbers each followed by a unit, e.g. {@code 500ms}, {@code 1s}, {@code
 * 2m}, {@code 1h30m}, {@code 1.5s}. Units: ns, us (or µs), ms, s, m, h. {@code 0} alone is allowed;
 * any other number needs a unit, because a bare {@code 30} is as likely to mean milliseconds as
 * seconds.
 */
final class Durations {

  private static final Pattern PART = Pattern.compile("(\\d+(?:\\.\\d+)?)(ns|us|µs|ms|s|m|h)");
  private static final Pattern WHOLE = Pattern.compile("(?:" + PART.pattern() + ")+");
  private static final Map<String, Long> NANOS_PER_UNIT =
      Map.of(
          "ns", 1L,
          "us", 1_000L,
          "µs", 1_000L,
          "ms", 1_000_000L,
          "s", 1_000_000_000L,
          "m", 60_000_000_000L,
          "h", 3_600_000_000_000L);

  static final String SYNTAX = "a duration such as 500ms, 1s, 2m or 1h30m";

  private Durations() {}

  /**
   * @throws IllegalArgumentException with a message for the operator
   */
  static Duration parse(String text) {
    String s = text.trim();
    if (s.equals("0")) {
      return Duration.ZERO;
    }
    if (s.matches("\\d+(\\.\\d+)?")) {
      throw new IllegalArgumentException(
          "'" + s + "' has no unit; write e.g. " + s + "s or " + s + "ms");
    }
    if (!WHOLE.matcher(s).matches()) {
      throw new IllegalArgumentException("expected " + SYNTAX + ", got '" + s + "'");
    }
    BigDecimal nanos = BigDecimal.ZERO;
    Matcher part = PART.matcher(s);
    while (part.find()) {
      BigDecimal unit = BigDecimal.valueOf(NANOS_PER_UNIT.get(part.group(2)));
      nanos = nanos.add(new BigDecimal(part.group(1)).multiply(unit));
    }
    try {
      return Duration.ofNanos(nanos.longValueExact());
    } catch (ArithmeticException e) {
      // Fractional nanoseconds or more than ~292 years: neither is a sensible setting.
      throw new IllegalArgumentException(
          "'" + s + "' is not a whole number of nanoseconds below 292 years");
    }
  }

  /** The inverse, for messages and summaries: the largest unit that expresses it exactly. */
  static String format(Duration d) {
    long nanos = d.toNanos();
    String[] units = {"h", "m", "s", "ms", "us"};
    for (String unit : units) {
      long per = NANOS_PER_UNIT.get(unit);
      if (nanos != 0 && nanos % per == 0) {
        return nanos / per + unit;
      }
    }
    return nanos == 0 ? "0" : nanos + "ns";
  }
}
