package io.spinagent.agent;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;
import picocli.CommandLine.IVersionProvider;

/**
 * Answers {@code --version} from {@code version.properties}, which Maven fills in at build time. A
 * resource rather than the jar manifest, so the answer is the same from the jar and from the
 * classes directory in tests.
 */
final class VersionProvider implements IVersionProvider {

  static final String RESOURCE = "version.properties";

  @Override
  public String[] getVersion() {
    return new String[] {"spinagent-agent " + version()};
  }

  static String version() {
    Properties properties = new Properties();
    try (InputStream in = VersionProvider.class.getResourceAsStream(RESOURCE)) {
      if (in != null) {
        properties.load(in);
      }
    } catch (IOException e) {
      // Fall through to "unknown": a version string is not worth failing for.
    }
    return properties.getProperty("version", "unknown");
  }
}
