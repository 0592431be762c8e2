package io.spinagent.agent.config.yaml;

import java.nio.file.Path;
import java.util.Objects;

/**
 * Where a configuration value was written. Kept on every parsed value so that a problem found after
 * the overlay has been merged still names the file (and line) the offending value came from.
 *
 * @param file the configuration file, as the user named it (or as derived for the overlay)
 * @param line 1-based line number, or 0 when the problem concerns the file as a whole
 */
public record Origin(Path file, int line) {

  public Origin {
    Objects.requireNonNull(file, "file");
  }

  /** The whole file, for problems that have no better position (unreadable file, missing key). */
  public static Origin of(Path file) {
    return new Origin(file, 0);
  }

  /** {@code file:line}, the form editors and terminals turn into links. */
  public String describe() {
    return line > 0 ? file + ":" + line : file.toString();
  }
}
