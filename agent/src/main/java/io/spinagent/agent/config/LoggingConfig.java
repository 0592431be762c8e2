package io.spinagent.agent.config;

import java.util.Locale;
import java.util.Objects;

/**
 * Log output ({@code logging.*}).
 *
 * @param format {@code text} for people, {@code json} (one object per line) for log pipelines
 * @param level the least severe level written
 */
public record LoggingConfig(Format format, Level level) {

  public static final LoggingConfig DEFAULT = new LoggingConfig(Format.TEXT, Level.INFO);

  public LoggingConfig {
    Objects.requireNonNull(format, "format");
    Objects.requireNonNull(level, "level");
  }

  public enum Format {
    TEXT,
    JSON;

    /** The spelling used in the configuration file. */
    public String configName() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  /** The levels SLF4J knows; Go-logger levels such as {@code fatal} have no equivalent here. */
  public enum Level {
    TRACE,
    DEBUG,
    INFO,
    WARN,
    ERROR;

    public String configName() {
      return name().toLowerCase(Locale.ROOT);
    }
  }
}
