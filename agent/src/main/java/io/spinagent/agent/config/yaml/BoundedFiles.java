package io.spinagent.agent.config.yaml;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/**
 * Reads the files the configuration names (the configuration itself, token files, kubeconfigs,
 * certificates, keys, secret files), each up to a limit, so that a wrong path cannot fill the heap.
 * The limit holds while reading rather than by the size a file claims: a device or pipe that never
 * ends ({@code /dev/zero}) or a file that grows while it is read stops at the limit plus one byte.
 */
public final class BoundedFiles {

  private static final int CHUNK = 8192;

  private BoundedFiles() {}

  /**
   * A file that cannot be used. {@link #reason} says why, for a message that names the file and the
   * configuration key, e.g. {@code "is larger than 64Ki, the limit for a bearer token file"}.
   */
  public static final class UnreadableFileException extends IOException {

    private static final long serialVersionUID = 1L;

    private final transient Path file;
    private final String reason;

    UnreadableFileException(Path file, String reason, Throwable cause) {
      super(file + " " + reason, cause);
      this.file = file;
      this.reason = reason;
    }

    public Path file() {
      return file;
    }

    /** Why, as a predicate for the file: "does not exist", "is a directory", ... */
    public String reason() {
      return reason;
    }
  }

  /**
   * The content of {@code file}, at most {@code limit} bytes.
   *
   * @param what what the file is, for the message when it is too large (e.g. "a bearer token file")
   * @throws UnreadableFileException when the file does not exist, cannot be read or is larger than
   *     {@code limit}
   */
  public static byte[] read(Path file, long limit, String what) throws UnreadableFileException {
    if (Files.isDirectory(file)) {
      throw new UnreadableFileException(file, "is a directory", null);
    }
    // The size a regular file claims spares reading one that is plainly too large.
    long claimed = claimedSize(file);
    if (claimed > limit) {
      throw tooLarge(file, limit, what);
    }
    try (InputStream in = Files.newInputStream(file)) {
      ByteArrayOutputStream content = new ByteArrayOutputStream((int) claimed + 1);
      byte[] chunk = new byte[CHUNK];
      long remaining = limit + 1;
      int read;
      while (remaining > 0
          && (read = in.read(chunk, 0, (int) Math.min(chunk.length, remaining))) >= 0) {
        content.write(chunk, 0, read);
        remaining -= read;
      }
      if (remaining == 0) {
        throw tooLarge(file, limit, what);
      }
      return content.toByteArray();
    } catch (UnreadableFileException e) {
      throw e;
    } catch (NoSuchFileException e) {
      throw new UnreadableFileException(file, "does not exist", e);
    } catch (AccessDeniedException e) {
      throw new UnreadableFileException(file, "cannot be read: permission denied", e);
    } catch (IOException e) {
      throw new UnreadableFileException(
          file,
          "cannot be read: "
              + (e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage()),
          e);
    }
  }

  /** The size of a regular file, or 0 when it is not one or its size cannot be had. */
  private static long claimedSize(Path file) {
    try {
      return Files.isRegularFile(file) ? Files.size(file) : 0;
    } catch (IOException e) {
      return 0; // Reading it says what is wrong.
    }
  }

  /**
   * The content of {@code file} as UTF-8 text, at most {@code limit} bytes.
   *
   * @throws UnreadableFileException as {@link #read}, and when the file is not UTF-8 text
   */
  public static String readUtf8(Path file, long limit, String what) throws UnreadableFileException {
    return utf8(file, read(file, limit, what));
  }

  /** {@code bytes} read from {@code file}, decoded strictly: a binary file is not taken as text. */
  private static String utf8(Path file, byte[] bytes) throws UnreadableFileException {
    try {
      return StandardCharsets.UTF_8
          .newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(bytes))
          .toString();
    } catch (CharacterCodingException e) {
      throw new UnreadableFileException(file, "is not UTF-8 text", e);
    }
  }

  private static UnreadableFileException tooLarge(Path file, long limit, String what) {
    return new UnreadableFileException(
        file, "is larger than " + ByteSizes.format(limit) + ", the limit for " + what, null);
  }
}
