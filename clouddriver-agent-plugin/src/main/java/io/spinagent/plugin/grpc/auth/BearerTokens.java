package io.spinagent.plugin.grpc.auth;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The bearer tokens agents may present: listed in configuration and/or in a file with one token per
 * line ({@code #} starts a comment). The file is re-read whenever it changes, so tokens rotate
 * without a restart; if a changed file cannot be read, the last tokens read stay in force.
 */
public final class BearerTokens {

  private static final Logger log = LoggerFactory.getLogger(BearerTokens.class);

  private final List<String> configured;
  private final Path file;
  private FileTime fileVersion;
  private List<String> fromFile = List.of();

  public BearerTokens(List<String> configured, Path file) {
    this.configured = List.copyOf(configured);
    this.file = file;
    if (file != null) {
      reload(true);
    }
  }

  /** Whether agents must present a token at all. */
  public boolean required() {
    return !configured.isEmpty() || file != null;
  }

  public boolean accepts(String token) {
    byte[] presented = token.getBytes(StandardCharsets.UTF_8);
    for (String candidate : current()) {
      // Constant time, so a timing probe cannot recover a token byte by byte.
      if (MessageDigest.isEqual(presented, candidate.getBytes(StandardCharsets.UTF_8))) {
        return true;
      }
    }
    return false;
  }

  private List<String> current() {
    if (file == null) {
      return configured;
    }
    reload(false);
    List<String> all = new ArrayList<>(configured);
    synchronized (this) {
      all.addAll(fromFile);
    }
    return all;
  }

  private synchronized void reload(boolean initial) {
    try {
      FileTime version = Files.getLastModifiedTime(file);
      if (version.equals(fileVersion)) {
        return;
      }
      List<String> tokens =
          Files.readAllLines(file, StandardCharsets.UTF_8).stream()
              .map(String::strip)
              .filter(line -> !line.isEmpty() && !line.startsWith("#"))
              .toList();
      fromFile = tokens;
      fileVersion = version;
      log.info("Read {} agent token(s) from {}", tokens.size(), file);
    } catch (IOException e) {
      if (initial) {
        throw new UncheckedIOException(
            "spinagent.grpc.auth.tokens.file: cannot read agent tokens from " + file, e);
      }
      log.warn(
          "Cannot re-read agent tokens from {}; keeping the {} token(s) read before: {}",
          file,
          fromFile.size(),
          e.toString());
    }
  }
}
