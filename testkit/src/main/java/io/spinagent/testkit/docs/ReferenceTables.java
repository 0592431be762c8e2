package io.spinagent.testkit.docs;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The keys a Markdown configuration reference documents: the back-quoted names in the first cell of
 * every row of a table whose first header cell is "Key" (any case). Other tables (metrics, states,
 * command-line options) are not key tables and are skipped.
 */
public final class ReferenceTables {

  /** One documented key, with the heading it is under and its 1-based line, for messages. */
  public record KeyRow(String heading, String key, int line) {}

  private static final Pattern QUOTED = Pattern.compile("`([^`]+)`");

  private ReferenceTables() {}

  public static List<KeyRow> keyRows(Path markdown) {
    List<String> lines;
    try {
      lines = Files.readAllLines(markdown);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the configuration reference " + markdown, e);
    }
    List<KeyRow> rows = new ArrayList<>();
    String heading = "";
    boolean inKeyTable = false;
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i).strip();
      if (line.startsWith("#")) {
        heading = line.replaceFirst("^#+\\s*", "");
      }
      if (!line.startsWith("|")) {
        inKeyTable = false;
        continue;
      }
      boolean header = i + 1 < lines.size() && lines.get(i + 1).strip().matches("\\|\\s*:?-{3,}.*");
      if (header) {
        inKeyTable = firstCell(line).toLowerCase(Locale.ROOT).equals("key");
        i++; // the separator row
        continue;
      }
      if (inKeyTable) {
        Matcher quoted = QUOTED.matcher(firstCell(line));
        while (quoted.find()) {
          rows.add(new KeyRow(heading, quoted.group(1), i + 1));
        }
      }
    }
    return rows;
  }

  private static String firstCell(String row) {
    String[] cells = row.split("\\|", -1);
    return cells.length > 1 ? cells[1].strip() : "";
  }
}
