package io.spinagent.plugin.accounts;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;

/**
 * Reads a kubeconfig file on Clouddriver's own machine (a definition's {@code kubeconfigFile}), as
 * Clouddriver would, but only a regular file of at most {@link #MAX_BYTES}: the path comes from an
 * account definition or a request, and a path such as {@code /dev/zero} or a named pipe must get a
 * clear refusal, not exhaust the replica's memory or hold a request thread forever.
 */
public final class KubeconfigFile {

  /**
   * Far above a real kubeconfig (a few KB to some hundreds with many clusters and embedded
   * certificates), and well under the frame limit of the agent it is sent to.
   */
  public static final int MAX_BYTES = 1 << 20;

  private KubeconfigFile() {}

  /**
   * The file's text.
   *
   * @throws IOException naming why the file cannot be used: not a valid path, no such file, not a
   *     regular file, larger than {@link #MAX_BYTES}, or the error reading it
   */
  public static String read(String file) throws IOException {
    Path path;
    try {
      path = Path.of(file);
    } catch (InvalidPathException e) {
      throw new IOException("not a valid path: " + e.getMessage(), e);
    }
    if (!Files.isRegularFile(path)) {
      throw new IOException(Files.exists(path) ? "not a regular file" : "no such file");
    }
    byte[] bytes;
    try (InputStream in = Files.newInputStream(path)) {
      bytes = in.readNBytes(MAX_BYTES + 1);
    }
    if (bytes.length > MAX_BYTES) {
      throw new IOException("larger than " + (MAX_BYTES >> 20) + " MiB, which no kubeconfig is");
    }
    return new String(bytes, StandardCharsets.UTF_8);
  }
}
