package io.spinagent.agent.config.yaml;

import io.spinagent.agent.config.yaml.ConfigNode.Entry;
import io.spinagent.agent.config.yaml.ConfigNode.ListNode;
import io.spinagent.agent.config.yaml.ConfigNode.MapNode;
import io.spinagent.agent.config.yaml.ConfigNode.ScalarKind;
import io.spinagent.agent.config.yaml.ConfigNode.ScalarNode;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.error.Mark;
import org.yaml.snakeyaml.error.MarkedYAMLException;
import org.yaml.snakeyaml.error.YAMLException;
import org.yaml.snakeyaml.events.AliasEvent;
import org.yaml.snakeyaml.events.CollectionStartEvent;
import org.yaml.snakeyaml.events.Event;
import org.yaml.snakeyaml.events.MappingStartEvent;
import org.yaml.snakeyaml.events.NodeEvent;
import org.yaml.snakeyaml.events.ScalarEvent;
import org.yaml.snakeyaml.nodes.NodeId;
import org.yaml.snakeyaml.nodes.Tag;
import org.yaml.snakeyaml.parser.Parser;
import org.yaml.snakeyaml.parser.ParserImpl;
import org.yaml.snakeyaml.reader.StreamReader;
import org.yaml.snakeyaml.resolver.Resolver;

/**
 * Reads one configuration file into a {@link ConfigNode} tree, straight from SnakeYAML's parser
 * events.
 *
 * <p>No Java object is ever constructed from the document, so tags such as {@code
 * !!java.lang.ProcessBuilder} cannot instantiate anything; they are reported as problems like any
 * other unsupported tag. Nor is SnakeYAML's node graph composed: its nodes keep positions that hold
 * on to the text around them, several times the file's size for a large file. An alias stands for
 * the very node its anchor made (the tree is immutable), and counts as all the nodes it stands for:
 * a file is refused past {@link BoundedYaml#MAX_NODES}, so a few aliases cannot make a small file
 * expand beyond what the agent has memory for.
 */
public final class YamlFileReader {

  /**
   * Room for thousands of accounts (a few hundred bytes each), small enough that pointing {@code
   * --config} at the wrong file cannot fill the heap.
   */
  public static final long MAX_BYTES = 16L << 20;

  /** How deep maps and lists may nest; the configuration itself needs 6. SnakeYAML's default. */
  static final int MAX_DEPTH = 50;

  /**
   * The longest line, in characters. SnakeYAML's reader copies all it has looked ahead each time it
   * reads on, so one value of n characters on one line takes time in n squared: ten megabytes take
   * minutes. Lines of inline kubeconfigs and certificates are a few kilobytes.
   */
  static final int MAX_LINE_CHARS = 64 * 1024;

  private static final Resolver RESOLVER = new Resolver();

  /**
   * Reads {@code file}. Returns null when the file cannot be read or is not YAML at all; the reason
   * is then in {@code problems}. Structural problems inside a readable document (unsupported tags,
   * duplicate keys) are reported too, and the offending entries left out of the returned tree.
   */
  public MapNode read(Path file, Problems problems) {
    String text;
    try {
      text = BoundedFiles.readUtf8(file, MAX_BYTES, "a configuration file");
    } catch (BoundedFiles.UnreadableFileException e) {
      problems.add(Origin.of(file), null, "cannot read configuration file: it " + e.reason());
      return null;
    }
    return parse(file, text, problems);
  }

  /**
   * Reads {@code text} as if it were the content of {@code file} (where relative paths in it are
   * resolved), e.g. a file the converter is about to write.
   */
  public MapNode parse(Path file, String text, Problems problems) {
    Origin wholeFile = Origin.of(file);
    LoaderOptions options = new LoaderOptions();
    options.setCodePointLimit((int) MAX_BYTES);
    options.setProcessComments(false);
    Problems found = new Problems();
    ConfigNode root;
    Builder builder =
        new Builder(file, new ParserImpl(new LineLimitedReader(text), options), found);
    try {
      root = builder.document();
    } catch (LineTooLong e) {
      problems.add(
          new Origin(file, e.line),
          builder.readingPath.isEmpty() ? null : builder.readingPath,
          "line "
              + e.line
              + " is longer than "
              + MAX_LINE_CHARS
              + " characters, the limit for a line of a configuration file");
      return null;
    } catch (MarkedYAMLException e) {
      Mark mark = e.getProblemMark() != null ? e.getProblemMark() : e.getContextMark();
      Origin at = mark == null ? wholeFile : new Origin(file, mark.getLine() + 1);
      String column = mark == null ? "" : " (column " + (mark.getColumn() + 1) + ")";
      String problem = e.getProblem() != null ? e.getProblem() : e.getMessage();
      problems.add(at, null, "invalid YAML: " + problem + column);
      return null;
    } catch (YAMLException e) {
      problems.add(wholeFile, null, "invalid YAML: " + e.getMessage());
      return null;
    } catch (Refused e) {
      problems.add(e.origin, null, e.getMessage());
      return null;
    }
    found.asList().forEach(p -> problems.add(p.origin(), p.keyPath(), p.message()));
    if (root == null || (root instanceof ScalarNode scalar && scalar.kind() == ScalarKind.NULL)) {
      // An empty file is a valid configuration: every key takes its default.
      return MapNode.empty(wholeFile);
    }
    if (!(root instanceof MapNode map)) {
      problems.add(
          root.origin(),
          null,
          "the configuration must be a YAML map of keys such as 'clouddriver' and 'kubernetes'");
      return null;
    }
    return map;
  }

  /** A problem that makes the whole file unusable; what was read of it is dropped. */
  private static final class Refused extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final transient Origin origin;

    Refused(Origin origin, String message) {
      super(message, null, false, false);
      this.origin = origin;
    }
  }

  /** A line past {@link #MAX_LINE_CHARS}: the file is refused before the rest is read. */
  private static final class LineTooLong extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final int line;

    LineTooLong(int line) {
      super(null, null, false, false);
      this.line = line;
    }
  }

  /**
   * SnakeYAML's reader, refusing to look ahead or move past {@link #MAX_LINE_CHARS} on one line,
   * which bounds the look-ahead it copies on each read.
   */
  private static final class LineLimitedReader extends StreamReader {

    LineLimitedReader(String text) {
      super(text);
    }

    @Override
    public int peek(int index) {
      check(index);
      return super.peek(index);
    }

    @Override
    public String prefix(int length) {
      check(length);
      return super.prefix(length);
    }

    @Override
    public void forward(int length) {
      super.forward(length);
      check(0);
    }

    private void check(int ahead) {
      if ((long) getColumn() + ahead > MAX_LINE_CHARS) {
        throw new LineTooLong(getLine() + 1);
      }
    }
  }

  /** A node an anchor names, and how many nodes it expands to. */
  private record Anchored(ConfigNode node, long size) {}

  /** Builds the tree of one file from the parser's events, in one pass. */
  private static final class Builder {

    private final Path file;
    private final Parser parser;
    private final Problems problems;
    private final Map<String, Anchored> anchors = new HashMap<>();

    /** Anchors whose node is being read: an alias to one of them would contain itself. */
    private final Map<String, Origin> reading = new HashMap<>();

    /** One instance per distinct map key: the same few keys repeat in every account. */
    private final Map<String, String> keys = new HashMap<>();

    /** Nodes read, each alias counted as the nodes it stands for. */
    private long nodes;

    /** Of {@link #nodes}, those counted through aliases. */
    private long aliased;

    private int depth;

    /** Above 0 while reading a value that is left out anyway: its own problems are not reported. */
    private int quiet;

    /** The last position made; most keys share theirs with their value. */
    private Origin lastOrigin;

    /** The key path of what the parser is reading now ("" for the root), for its problems. */
    private String readingPath = "";

    Builder(Path file, Parser parser, Problems problems) {
      this.file = file;
      this.parser = parser;
      this.problems = problems;
    }

    /** The file's one document, or null when it has none. */
    ConfigNode document() {
      parser.getEvent(); // stream start
      if (parser.checkEvent(Event.ID.StreamEnd)) {
        return null;
      }
      parser.getEvent(); // document start
      ConfigNode root = node("");
      parser.getEvent(); // document end
      if (!parser.checkEvent(Event.ID.StreamEnd)) {
        Event next = parser.getEvent();
        throw new Refused(
            origin(next.getStartMark()),
            "invalid YAML: expected a single document in the stream, but found another document");
      }
      return root;
    }

    /**
     * Reads the next node, found at key path {@code path} ("" for the root). Returns null for a
     * node that was reported as a problem and must be left out.
     */
    private ConfigNode node(String path) {
      readingPath = path;
      Event event = parser.getEvent();
      Origin origin = origin(event.getStartMark());
      if (event instanceof AliasEvent alias) {
        return alias(alias.getAnchor(), origin, path);
      }
      String anchor = ((NodeEvent) event).getAnchor();
      long before = nodes;
      count(1, origin);
      if (anchor != null) {
        reading.put(anchor, origin);
      }
      ConfigNode node;
      try {
        if (event instanceof ScalarEvent scalar) {
          node = scalar(scalar, origin, path);
        } else {
          node = collection((CollectionStartEvent) event, origin, path);
        }
      } finally {
        if (anchor != null) {
          reading.remove(anchor);
        }
      }
      if (anchor != null) {
        anchors.put(anchor, new Anchored(node, nodes - before));
      }
      return node;
    }

    private ConfigNode alias(String anchor, Origin origin, String path) {
      Origin inside = reading.get(anchor);
      if (inside != null) {
        problem(inside, path, "invalid YAML: an alias refers to a value that contains it");
        return null;
      }
      Anchored target = anchors.get(anchor);
      if (target == null) {
        throw new Refused(origin, "invalid YAML: found undefined alias " + anchor);
      }
      aliased += target.size();
      count(target.size(), origin);
      return target.node();
    }

    private ConfigNode collection(CollectionStartEvent start, Origin origin, String path) {
      if (++depth > MAX_DEPTH) {
        throw new Refused(
            origin, "invalid YAML: maps and lists nest more than " + MAX_DEPTH + " levels deep");
      }
      boolean map = start instanceof MappingStartEvent;
      Tag tag = tag(start.getTag(), origin);
      boolean supported = tag == null || tag.equals(map ? Tag.MAP : Tag.SEQ);
      if (!supported) {
        unsupportedTag(tag, origin, path);
        quiet++;
      }
      ConfigNode node = map ? map(origin, path) : list(origin, path);
      parser.getEvent(); // the collection's end
      depth--;
      if (!supported) {
        quiet--;
        return null;
      }
      return node;
    }

    private MapNode map(Origin origin, String path) {
      Map<String, Entry> entries = new LinkedHashMap<>();
      while (true) {
        readingPath = path;
        if (parser.checkEvent(Event.ID.MappingEnd)) {
          break;
        }
        Event keyEvent = parser.peekEvent();
        Origin keyOrigin = origin(keyEvent.getStartMark());
        boolean merge =
            keyEvent instanceof ScalarEvent scalar
                && scalar.getTag() == null
                && Tag.MERGE.equals(resolve(scalar));
        ConfigNode key = ignored(path);
        if (merge) {
          problem(
              keyOrigin,
              path,
              "YAML merge keys (<<) are not supported; write the keys out, or use the -local"
                  + " overlay file");
          ignored(path);
          continue;
        }
        if (!(key instanceof ScalarNode keyScalar)) {
          problem(
              keyOrigin, path, "invalid YAML: a map key must be a plain name, not a map or a list");
          ignored(path);
          continue;
        }
        String name = keys.computeIfAbsent(keyScalar.text(), k -> k);
        String keyPath = path.isEmpty() ? name : path + "." + name;
        Entry previous = entries.get(name);
        if (previous != null) {
          problem(
              keyOrigin,
              keyPath,
              "duplicate key '"
                  + name
                  + "' (already set at line "
                  + previous.keyOrigin().line()
                  + ")");
          ignored(keyPath);
          continue;
        }
        ConfigNode value = node(keyPath);
        if (value != null) {
          entries.put(name, new Entry(keyOrigin, value));
        }
      }
      return new MapNode(origin, entries);
    }

    private ListNode list(Origin origin, String path) {
      List<ConfigNode> items = new ArrayList<>();
      while (true) {
        readingPath = path;
        if (parser.checkEvent(Event.ID.SequenceEnd)) {
          break;
        }
        Origin itemOrigin = origin(parser.peekEvent().getStartMark());
        ConfigNode value = node(path + "[" + items.size() + "]");
        // Keep list positions stable for key paths such as accounts[2]: stand in a null.
        items.add(value != null ? value : new ScalarNode(itemOrigin, "", ScalarKind.NULL));
      }
      return new ListNode(origin, items);
    }

    /** Reads a node that is left out (or only its text used), without reporting its problems. */
    private ConfigNode ignored(String path) {
      quiet++;
      try {
        return node(path);
      } finally {
        quiet--;
      }
    }

    private ConfigNode scalar(ScalarEvent scalar, Origin origin, String path) {
      Tag tag = tag(scalar.getTag(), origin);
      if (tag == null) {
        tag = resolve(scalar);
      }
      ScalarKind kind;
      if (Tag.STR.equals(tag) || Tag.TIMESTAMP.equals(tag)) {
        // A date-like value is only ever useful to us as text.
        kind = ScalarKind.STRING;
      } else if (Tag.INT.equals(tag)) {
        kind = ScalarKind.INTEGER;
      } else if (Tag.FLOAT.equals(tag)) {
        kind = ScalarKind.FLOAT;
      } else if (Tag.BOOL.equals(tag)) {
        kind = ScalarKind.BOOLEAN;
      } else if (Tag.NULL.equals(tag)) {
        kind = ScalarKind.NULL;
      } else {
        unsupportedTag(tag, origin, path);
        return null;
      }
      return new ScalarNode(origin, scalar.getValue(), kind);
    }

    private static Tag resolve(ScalarEvent scalar) {
      return RESOLVER.resolve(
          NodeId.scalar, scalar.getValue(), scalar.getImplicit().canOmitTagInPlainScalar());
    }

    /**
     * An explicit tag, or null for none. A global tag that could name a Java class is refused as
     * SnakeYAML's composer refuses it, before anything else is read.
     */
    private static Tag tag(String written, Origin origin) {
      if (written == null || written.equals("!")) {
        return null;
      }
      Tag tag = new Tag(written);
      if (tag.isCustomGlobal()) {
        throw new Refused(origin, "invalid YAML: Global tag is not allowed: " + written);
      }
      return tag;
    }

    private void unsupportedTag(Tag tag, Origin origin, String path) {
      problem(
          origin,
          path,
          "unsupported YAML tag '"
              + tag.getValue()
              + "'; the configuration only uses plain maps, lists, strings, numbers and booleans");
    }

    private void count(long more, Origin at) {
      nodes += more;
      if (nodes > BoundedYaml.MAX_NODES) {
        boolean aliases = nodes - aliased <= BoundedYaml.MAX_NODES;
        throw new Refused(
            aliases ? at : Origin.of(file),
            "cannot read configuration file: " + BoundedYaml.tooManyNodes(aliases));
      }
    }

    private void problem(Origin origin, String path, String message) {
      if (quiet == 0) {
        problems.add(origin, path.isEmpty() ? null : path, message);
      }
    }

    private Origin origin(Mark mark) {
      int line = mark.getLine() + 1;
      if (lastOrigin == null || lastOrigin.line() != line) {
        lastOrigin = new Origin(file, line);
      }
      return lastOrigin;
    }
  }
}
