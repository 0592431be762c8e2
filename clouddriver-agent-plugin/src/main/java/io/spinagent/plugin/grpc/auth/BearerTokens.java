package io.spinagent.plugin.grpc.auth;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.IntFunction;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The bearer tokens agents may present, each with the identity it gives them: listed in
 * configuration and/or in a file with one per line ({@code #} starts a comment). An entry is a
 * token, or a name and a token separated by whitespace. A named token's identity is {@code
 * token:<name>}, so agents keep it when their token is rotated (list the old and the new token
 * under one name while they move over); an unnamed one's is {@code token:sha256:} and the first 16
 * hex digits of the token's SHA-256. The file is re-read whenever it changes, so tokens rotate
 * without a restart; if a changed file cannot be read, or has a bad line, the last tokens read stay
 * in force. Tokens never appear in messages.
 */
public final class BearerTokens {

  private static final Logger log = LoggerFactory.getLogger(BearerTokens.class);
  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._@-]*");
  private static final Pattern FIELDS = Pattern.compile("\\s+");

  private final List<Token> configured;
  private final Path file;
  private FileTime fileVersion;
  private List<Token> fromFile = List.of();

  /**
   * @throws IllegalStateException naming the entry, when a configured entry or a line of the file
   *     is malformed, or one token is listed under two names
   * @throws UncheckedIOException when the file cannot be read
   */
  public BearerTokens(List<String> configured, Path file) {
    try {
      this.configured =
          checked(parse(configured, i -> "spinagent.grpc.auth.tokens.values[" + i + "]"));
    } catch (IllegalArgumentException e) {
      throw new IllegalStateException(e.getMessage(), e);
    }
    this.file = file;
    if (file != null) {
      reload(true);
    }
  }

  /** Whether agents must present a token at all. */
  public boolean required() {
    return !configured.isEmpty() || file != null;
  }

  /** The identity {@code token} gives its agent; empty when it is not accepted. */
  public Optional<String> identify(String token) {
    byte[] presented = token.getBytes(StandardCharsets.UTF_8);
    for (Token candidate : current()) {
      // Constant time, so a timing probe cannot recover a token byte by byte.
      if (MessageDigest.isEqual(presented, candidate.value().getBytes(StandardCharsets.UTF_8))) {
        return Optional.of(candidate.identity());
      }
    }
    return Optional.empty();
  }

  private List<Token> current() {
    if (file == null) {
      return configured;
    }
    reload(false);
    List<Token> all = new ArrayList<>(configured);
    synchronized (this) {
      all.addAll(fromFile);
    }
    return all;
  }

  private synchronized void reload(boolean initial) {
    List<Token> tokens;
    FileTime version;
    try {
      version = Files.getLastModifiedTime(file);
      if (version.equals(fileVersion)) {
        return;
      }
      List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
      tokens = parse(lines, i -> file + " line " + (i + 1));
      List<Token> all = new ArrayList<>(configured);
      all.addAll(tokens);
      checked(all);
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
      return;
    } catch (IllegalArgumentException e) {
      if (initial) {
        throw new IllegalStateException("spinagent.grpc.auth.tokens.file: " + e.getMessage(), e);
      }
      log.warn(
          "Agent tokens in {} not taken; keeping the {} token(s) read before: {}",
          file,
          fromFile.size(),
          e.getMessage());
      return;
    }
    fromFile = tokens;
    fileVersion = version;
    log.info(
        "Read {} agent token(s) from {} ({} named)",
        tokens.size(),
        file,
        tokens.stream().filter(Token::named).count());
  }

  /**
   * The tokens of {@code entries}, skipping blank ones and comments.
   *
   * @param where describes the entry at an index, for messages
   * @throws IllegalArgumentException naming the entry, for one with more than two fields or a bad
   *     name
   */
  private static List<Token> parse(List<String> entries, IntFunction<String> where) {
    List<Token> tokens = new ArrayList<>();
    for (int i = 0; i < entries.size(); i++) {
      String entry = entries.get(i) == null ? "" : entries.get(i).strip();
      if (entry.isEmpty() || entry.startsWith("#")) {
        continue;
      }
      List<String> fields = FIELDS.splitAsStream(entry).toList();
      if (fields.size() == 1) {
        tokens.add(new Token("token:sha256:" + sha256Prefix(fields.get(0)), fields.get(0), false));
      } else if (fields.size() == 2 && NAME.matcher(fields.get(0)).matches()) {
        tokens.add(new Token("token:" + fields.get(0), fields.get(1), true));
      } else if (fields.size() == 2) {
        throw new IllegalArgumentException(
            where.apply(i)
                + ": a token's name (the first of the two fields) may hold only letters, digits,"
                + " '.', '_', '@' and '-', starting with a letter or digit");
      } else {
        throw new IllegalArgumentException(
            where.apply(i)
                + ": expected a token, or a name and a token separated by whitespace; found "
                + fields.size()
                + " fields");
      }
    }
    return List.copyOf(tokens);
  }

  /** {@code tokens}, when no token is listed under two identities (which would it give?). */
  private static List<Token> checked(List<Token> tokens) {
    Map<String, String> identities = new HashMap<>();
    for (Token token : tokens) {
      String before = identities.putIfAbsent(token.value(), token.identity());
      if (before != null && !before.equals(token.identity())) {
        throw new IllegalArgumentException(
            "one token is listed as '"
                + before
                + "' and as '"
                + token.identity()
                + "': give each token one name");
      }
    }
    return tokens;
  }

  private static String sha256Prefix(String token) {
    try {
      byte[] digest =
          MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(digest).substring(0, 16);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java runtime has SHA-256", e);
    }
  }

  private record Token(String identity, String value, boolean named) {
    @Override
    public String toString() {
      return identity; // never the token itself
    }
  }
}
