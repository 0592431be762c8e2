package io.spinagent.testkit.files;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/** Removal of a temporary directory a test, benchmark or sandbox made, with all it holds. */
public final class TemporaryDirectory {

  private TemporaryDirectory() {}

  /**
   * Deletes {@code dir} and everything below it; nothing if it is gone already.
   *
   * @param what what the directory is, for the error (e.g. "MariaDB directory")
   * @throws UncheckedIOException naming the path that could not be deleted
   */
  public static void delete(Path dir, String what) {
    if (!Files.exists(dir)) {
      return;
    }
    List<Path> paths;
    try (Stream<Path> walk = Files.walk(dir)) {
      paths = walk.sorted(Comparator.reverseOrder()).toList();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot delete " + what + " " + dir, e);
    }
    for (Path path : paths) {
      try {
        Files.deleteIfExists(path);
      } catch (IOException e) {
        throw new UncheckedIOException("cannot delete " + what + " " + dir + ": " + path, e);
      }
    }
  }
}
