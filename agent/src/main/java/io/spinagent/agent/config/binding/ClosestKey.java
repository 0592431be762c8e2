package io.spinagent.agent.config.binding;

import java.util.Collection;
import java.util.Locale;
import java.util.Optional;

/**
 * Finds the known key an unknown key was most likely meant to be, so that a typo such as {@code
 * kubernets} is reported with "did you mean 'kubernetes'?".
 */
final class ClosestKey {

  private ClosestKey() {}

  /**
   * The candidate nearest to {@code unknown} by edit distance (ignoring case, counting a swap of
   * two neighbouring letters as one edit), if it is near enough to be a plausible typo: at most a
   * third of the longer word's length, and at least one edit allowed.
   */
  static Optional<String> among(String unknown, Collection<String> candidates) {
    String typed = unknown.toLowerCase(Locale.ROOT);
    String best = null;
    int bestDistance = Integer.MAX_VALUE;
    for (String candidate : candidates) {
      int distance = distance(typed, candidate.toLowerCase(Locale.ROOT));
      if (distance < bestDistance) {
        best = candidate;
        bestDistance = distance;
      }
    }
    if (best == null) {
      return Optional.empty();
    }
    int allowed = Math.max(1, Math.max(typed.length(), best.length()) / 3);
    return bestDistance <= allowed ? Optional.of(best) : Optional.empty();
  }

  /** Optimal string alignment distance: insertions, deletions, substitutions, adjacent swaps. */
  static int distance(String a, String b) {
    int[][] d = new int[a.length() + 1][b.length() + 1];
    for (int i = 0; i <= a.length(); i++) {
      d[i][0] = i;
    }
    for (int j = 0; j <= b.length(); j++) {
      d[0][j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      for (int j = 1; j <= b.length(); j++) {
        int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
        int best = Math.min(Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1), d[i - 1][j - 1] + cost);
        if (i > 1
            && j > 1
            && a.charAt(i - 1) == b.charAt(j - 2)
            && a.charAt(i - 2) == b.charAt(j - 1)) {
          best = Math.min(best, d[i - 2][j - 2] + 1);
        }
        d[i][j] = best;
      }
    }
    return d[a.length()][b.length()];
  }
}
