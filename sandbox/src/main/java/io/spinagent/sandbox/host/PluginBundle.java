package io.spinagent.sandbox.host;

import java.nio.file.Files;
import java.nio.file.Path;

/** The plugin bundle Maven built, which the Clouddriver stand-ins load. */
public final class PluginBundle {

  /** System property naming the built bundle; Maven sets it for the sandbox and the specs. */
  public static final String BUNDLE_PROPERTY = "spinagent.sandbox.bundle";

  private PluginBundle() {}

  /** The bundle Maven built, from {@value #BUNDLE_PROPERTY}. */
  public static Path built() {
    String location = System.getProperty(BUNDLE_PROPERTY);
    if (location == null || location.isBlank() || location.startsWith("${")) {
      throw new IllegalStateException(
          "System property "
              + BUNDLE_PROPERTY
              + " does not name the plugin bundle; run through Maven");
    }
    Path bundle = Path.of(location);
    if (!Files.isRegularFile(bundle)) {
      throw new IllegalStateException(
          "No plugin bundle at " + bundle + ": build it first (./mvnw -DskipTests package)");
    }
    return bundle;
  }
}
