package io.spinagent.agent.config.yaml;

import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Parses sizes in bytes written as Kubernetes quantities, the syntax every reader of this file
 * already uses for memory limits: a whole number with an optional suffix, {@code Ki Mi Gi Ti}
 * (powers of 1024) or {@code k M G T} (powers of 1000). Examples: {@code 64Mi}, {@code 100M},
 * {@code 1048576}. Spellings like {@code 64MB} are refused rather than guessed at.
 */
public final class ByteSizes {

  private static final Pattern QUANTITY = Pattern.compile("(\\d+)(Ki|Mi|Gi|Ti|k|M|G|T)?");
  private static final Map<String, Long> MULTIPLIERS =
      Map.of(
          "Ki",
          1L << 10,
          "Mi",
          1L << 20,
          "Gi",
          1L << 30,
          "Ti",
          1L << 40,
          "k",
          1_000L,
          "M",
          1_000_000L,
          "G",
          1_000_000_000L,
          "T",
          1_000_000_000_000L);

  public static final String SYNTAX =
      "a size such as 64Mi or 100M (whole number, optional suffix Ki, Mi, Gi, Ti or k, M, G, T)";

  private ByteSizes() {}

  /**
   * The number of bytes {@code text} stands for.
   *
   * @throws IllegalArgumentException with a message for the operator
   */
  public static long parse(String text) {
    String s = text.trim();
    Matcher m = QUANTITY.matcher(s);
    if (!m.matches()) {
      throw new IllegalArgumentException("expected " + SYNTAX + ", got '" + s + "'");
    }
    try {
      long number = Long.parseLong(m.group(1));
      return m.group(2) == null ? number : Math.multiplyExact(number, MULTIPLIERS.get(m.group(2)));
    } catch (NumberFormatException | ArithmeticException e) {
      throw new IllegalArgumentException("'" + s + "' is too large");
    }
  }

  /** The inverse, for messages and summaries: {@code 67108864} becomes {@code 64Mi}. */
  public static String format(long bytes) {
    String[] suffixes = {"Ti", "Gi", "Mi", "Ki"};
    long[] sizes = {1L << 40, 1L << 30, 1L << 20, 1L << 10};
    for (int i = 0; i < sizes.length; i++) {
      if (bytes >= sizes[i] && bytes % sizes[i] == 0) {
        return bytes / sizes[i] + suffixes[i];
      }
    }
    return Long.toString(bytes);
  }
}
