package io.spinagent.agent.config.yaml;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.yaml.snakeyaml.DumperOptions.FlowStyle;
import org.yaml.snakeyaml.DumperOptions.ScalarStyle;
import org.yaml.snakeyaml.emitter.Emitter;
import org.yaml.snakeyaml.events.DocumentEndEvent;
import org.yaml.snakeyaml.events.DocumentStartEvent;
import org.yaml.snakeyaml.events.Event;
import org.yaml.snakeyaml.events.ImplicitTuple;
import org.yaml.snakeyaml.events.MappingEndEvent;
import org.yaml.snakeyaml.events.MappingStartEvent;
import org.yaml.snakeyaml.events.ScalarEvent;
import org.yaml.snakeyaml.events.SequenceEndEvent;
import org.yaml.snakeyaml.events.SequenceStartEvent;
import org.yaml.snakeyaml.events.StreamEndEvent;
import org.yaml.snakeyaml.events.StreamStartEvent;
import org.yaml.snakeyaml.nodes.NodeId;
import org.yaml.snakeyaml.nodes.Tag;
import org.yaml.snakeyaml.resolver.Resolver;

/**
 * Writes one YAML document of plain data (maps, lists, strings, numbers, booleans, nulls) laid out
 * as {@link YamlOutput#dump} lays it out, piece by piece, straight to a {@link Writer}. {@code
 * dump} builds SnakeYAML's node graph of the whole document first, several hundred bytes per value;
 * this emits SnakeYAML's events as the data comes, so a document of any length takes the memory of
 * its largest piece.
 */
public final class YamlWriter {

  private static final Pattern MULTILINE = Pattern.compile("[\n\u0085\u2028\u2029]");

  private final Emitter emitter;
  private final Resolver resolver = new Resolver();

  /** Starts the document. */
  public YamlWriter(Writer out) {
    this.emitter = new Emitter(out, YamlOutput.options());
    emit(new StreamStartEvent(null, null));
    emit(new DocumentStartEvent(null, null, false, null, null));
  }

  public void startMap() {
    emit(new MappingStartEvent(null, null, true, null, null, FlowStyle.BLOCK));
  }

  public void endMap() {
    emit(new MappingEndEvent(null, null));
  }

  public void startList() {
    emit(new SequenceStartEvent(null, null, true, null, null, FlowStyle.BLOCK));
  }

  public void endList() {
    emit(new SequenceEndEvent(null, null));
  }

  /** A map key, then its value with {@link #value} or as a map or list of its own. */
  public void key(String key) {
    value(key);
  }

  /** A whole value: a scalar, or a map or list of them, nested as deep as it is. */
  public void value(Object value) {
    if (value instanceof Map<?, ?> map) {
      startMap();
      map.forEach(
          (key, item) -> {
            key(String.valueOf(key));
            value(item);
          });
      endMap();
    } else if (value instanceof List<?> list) {
      startList();
      list.forEach(this::value);
      endList();
    } else if (value == null) {
      scalar(Tag.NULL, "null", ScalarStyle.PLAIN);
    } else if (value instanceof String text) {
      scalar(
          Tag.STR, text, MULTILINE.matcher(text).find() ? ScalarStyle.LITERAL : ScalarStyle.PLAIN);
    } else if (value instanceof Boolean bool) {
      scalar(Tag.BOOL, bool.toString(), ScalarStyle.PLAIN);
    } else if (value instanceof Integer || value instanceof Long) {
      scalar(Tag.INT, value.toString(), ScalarStyle.PLAIN);
    } else if (value instanceof Double number && Double.isFinite(number)) {
      scalar(Tag.FLOAT, number.toString(), ScalarStyle.PLAIN);
    } else {
      throw new IllegalArgumentException("not plain YAML data: " + value.getClass().getName());
    }
  }

  /** Ends the document and flushes it. */
  public void end() {
    emit(new DocumentEndEvent(null, null, false));
    emit(new StreamEndEvent(null, null));
  }

  /**
   * A scalar written plain where YAML reads it back as {@code tag}, and quoted otherwise (a string
   * such as {@code "8082"} or {@code "on"}), as SnakeYAML's serializer decides.
   */
  private void scalar(Tag tag, String text, ScalarStyle style) {
    boolean plain = tag.equals(resolver.resolve(NodeId.scalar, text, true));
    boolean quoted = tag.equals(Tag.STR);
    emit(
        new ScalarEvent(
            null, tag.getValue(), new ImplicitTuple(plain, quoted), text, null, null, style));
  }

  private void emit(Event event) {
    try {
      emitter.emit(event);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
