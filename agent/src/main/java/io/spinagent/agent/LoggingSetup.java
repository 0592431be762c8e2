package io.spinagent.agent;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.JsonEncoder;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.ConsoleAppender;
import ch.qos.logback.core.encoder.Encoder;
import io.spinagent.agent.config.LoggingConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Applies {@code logging.format} and {@code logging.level} to logback. Logs go to stdout, where
 * container runtimes collect them.
 *
 * <p>An operator who passes {@code -Dlogback.configurationFile} keeps full control: their file is
 * left alone.
 */
final class LoggingSetup {

  /** Same layout as src/main/resources/logback.xml, which covers the time before configuration. */
  static final String TEXT_PATTERN =
      "%d{yyyy-MM-dd'T'HH:mm:ss.SSSXXX} %-5level [%thread] %logger{36} - %msg%n";

  private LoggingSetup() {}

  static void apply(LoggingConfig logging) {
    if (System.getProperty("logback.configurationFile") != null
        || !(LoggerFactory.getILoggerFactory() instanceof LoggerContext context)) {
      return;
    }
    ConsoleAppender<ILoggingEvent> appender = new ConsoleAppender<>();
    appender.setContext(context);
    appender.setName("STDOUT");
    appender.setEncoder(encoder(logging.format(), context));
    appender.start();

    ch.qos.logback.classic.Logger root = context.getLogger(Logger.ROOT_LOGGER_NAME);
    root.detachAndStopAllAppenders();
    root.addAppender(appender);
    root.setLevel(Level.toLevel(logging.level().name()));
  }

  private static Encoder<ILoggingEvent> encoder(
      LoggingConfig.Format format, LoggerContext context) {
    if (format == LoggingConfig.Format.JSON) {
      JsonEncoder json = new JsonEncoder();
      json.setContext(context);
      // One object per line with what log pipelines index on; the raw message template, its
      // arguments and logback's own context would only add bytes.
      json.setWithSequenceNumber(false);
      json.setWithNanoseconds(false);
      json.setWithContext(false);
      json.setWithMessage(false);
      json.setWithArguments(false);
      json.setWithFormattedMessage(true);
      json.start();
      return json;
    }
    PatternLayoutEncoder text = new PatternLayoutEncoder();
    text.setContext(context);
    text.setPattern(TEXT_PATTERN);
    text.start();
    return text;
  }
}
