package io.spinagent.agent.config.yaml;

/**
 * How a message quotes a value it refuses: whole when it is short, otherwise its beginning and its
 * length, so that a megabyte pasted by mistake is not printed back whole in every error and log
 * line about it.
 */
public final class Excerpt {

  /** The characters of a value a message shows. */
  static final int MAX_CHARS = 64;

  private Excerpt() {}

  /**
   * {@code 'value'}, or {@code 'beginning...' (N characters)} for a value past {@link #MAX_CHARS}.
   */
  public static String quoted(String value) {
    if (value.length() <= MAX_CHARS) {
      return "'" + value + "'";
    }
    int end = Character.isHighSurrogate(value.charAt(MAX_CHARS - 1)) ? MAX_CHARS - 1 : MAX_CHARS;
    return "'" + value.substring(0, end) + "...' (" + value.length() + " characters)";
  }
}
