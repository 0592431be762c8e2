package io.spinagent.testkit.db;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/** Removal of the directories an embedded database was given, binaries and data alike. */
final class TemporaryDirectory {

  private TemporaryDirectory() {}

  /** Deletes {@code dir} and everything below it; nothing if it is gone already. */
  static void delete(Path dir, String what) {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(dir)) {
      paths.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot delete " + what + " " + dir, e);
    }
  }
}
