package io.spinagent.host;

import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A library's release number, compared by its first three numbers: {@code 3.5.16}, {@code 2026.2.3}
 * or {@code 3.19.35}; whatever follows them ({@code -RELEASE}, {@code .Final}) is kept for display.
 *
 * @param major the first number
 * @param minor the second number
 * @param patch the third number, 0 when absent
 * @param text the version as the library spells it
 */
public record Version(int major, int minor, int patch, String text) implements Comparable<Version> {

  private static final Pattern NUMBERS = Pattern.compile("^(\\d+)\\.(\\d+)(?:\\.(\\d+))?");

  /** {@code text} as a version, or empty when it does not start with two numbers. */
  public static Optional<Version> parse(String text) {
    if (text == null) {
      return Optional.empty();
    }
    Matcher matcher = NUMBERS.matcher(text.trim());
    if (!matcher.find()) {
      return Optional.empty();
    }
    try {
      return Optional.of(
          new Version(
              Integer.parseInt(matcher.group(1)),
              Integer.parseInt(matcher.group(2)),
              matcher.group(3) == null ? 0 : Integer.parseInt(matcher.group(3)),
              text.trim()));
    } catch (NumberFormatException e) {
      return Optional.empty();
    }
  }

  /** {@code text} as a version that must parse: the layers' own ranges. */
  public static Version of(String text) {
    return parse(text)
        .orElseThrow(() -> new IllegalArgumentException("not a version: '" + text + "'"));
  }

  /** Whether this version is at least {@code from} and below {@code until}. */
  public boolean within(Version from, Version until) {
    return compareTo(from) >= 0 && compareTo(until) < 0;
  }

  @Override
  public int compareTo(Version other) {
    int byMajor = Integer.compare(major, other.major);
    if (byMajor != 0) {
      return byMajor;
    }
    int byMinor = Integer.compare(minor, other.minor);
    return byMinor != 0 ? byMinor : Integer.compare(patch, other.patch);
  }

  @Override
  public String toString() {
    return text;
  }
}
