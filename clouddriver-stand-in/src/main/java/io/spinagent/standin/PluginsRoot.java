package io.spinagent.standin;

import io.spinagent.testkit.files.TemporaryDirectory;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A throw-away plugins root holding one plugin release zip, as Halyard or the Operator would lay it
 * out for Clouddriver. The plugin framework extracts the zip in place; closing deletes it all.
 */
public final class PluginsRoot implements AutoCloseable {

  /** System property naming the built bundle; Maven sets it for the sandbox and the specs. */
  public static final String BUNDLE_PROPERTY = "spinagent.sandbox.bundle";

  private final Path directory;

  private PluginsRoot(Path directory) {
    this.directory = directory;
  }

  public static PluginsRoot withBundle(Path bundle) {
    if (!Files.isRegularFile(bundle)) {
      throw new IllegalStateException(
          "No plugin bundle at " + bundle + ": build it first (./mvnw -DskipTests package)");
    }
    try {
      Path directory = Files.createTempDirectory("spinagent-plugins-");
      Files.copy(bundle, directory.resolve(bundle.getFileName()));
      return new PluginsRoot(directory);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot prepare a plugins root for " + bundle, e);
    }
  }

  /** The bundle Maven built, from {@value #BUNDLE_PROPERTY}. */
  public static Path builtBundle() {
    String location = System.getProperty(BUNDLE_PROPERTY);
    if (location == null || location.isBlank() || location.startsWith("${")) {
      throw new IllegalStateException(
          "System property "
              + BUNDLE_PROPERTY
              + " does not name the plugin bundle; run through Maven");
    }
    return Path.of(location);
  }

  public Path directory() {
    return directory;
  }

  @Override
  public void close() {
    TemporaryDirectory.delete(directory, "plugins root");
  }
}
