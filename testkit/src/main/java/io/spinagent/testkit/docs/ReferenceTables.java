package io.spinagent.testkit.docs;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The tables of a Markdown reference page, for specs that check code or shipped files against what
 * the docs say: every table with the heading it is under, its header cells and its rows' cells.
 * {@link #keyRows} reads configuration references: the back-quoted names in the first cell of every
 * row of a table whose first header cell is "Key" (any case).
 */
public final class ReferenceTables {

  /** One documented key, with the heading it is under and its 1-based line, for messages. */
  public record KeyRow(String heading, String key, int line) {}

  /**
   * A table: the last heading before it, its header cells, and its rows. Cells are trimmed, with
   * {@code \|} (a pipe inside a cell) unescaped.
   */
  public record Table(String heading, List<String> header, List<Row> rows) {

    /** The first header cell, lower case: what kind of table this is ("key", "metric", ...). */
    public String kind() {
      return header.isEmpty() ? "" : header.get(0).toLowerCase(Locale.ROOT);
    }
  }

  /** A table row: its cells and its 1-based line in the file. */
  public record Row(List<String> cells, int line) {

    /** The cell in the given column, or "" when the row has fewer cells. */
    public String cell(int column) {
      return column < cells.size() ? cells.get(column) : "";
    }

    /** The back-quoted words of the cell in the given column, in order. */
    public List<String> quoted(int column) {
      return ReferenceTables.quoted(cell(column));
    }
  }

  private static final Pattern QUOTED = Pattern.compile("`([^`]+)`");
  private static final Pattern SEPARATOR = Pattern.compile("\\|\\s*:?-{3,}.*");
  private static final Pattern CELL_BORDER = Pattern.compile("(?<!\\\\)\\|");

  private ReferenceTables() {}

  public static List<KeyRow> keyRows(Path markdown) {
    List<KeyRow> rows = new ArrayList<>();
    for (Table table : tables(markdown)) {
      if (table.kind().equals("key")) {
        for (Row row : table.rows()) {
          row.quoted(0).forEach(key -> rows.add(new KeyRow(table.heading(), key, row.line())));
        }
      }
    }
    return rows;
  }

  /** Every table of the page, in order. */
  public static List<Table> tables(Path markdown) {
    List<String> lines;
    try {
      lines = Files.readAllLines(markdown);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the reference page " + markdown, e);
    }
    List<Table> tables = new ArrayList<>();
    String heading = "";
    List<Row> rows = null;
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i).strip();
      if (line.startsWith("#")) {
        heading = line.replaceFirst("^#+\\s*", "");
      }
      if (!line.startsWith("|")) {
        rows = null;
        continue;
      }
      boolean header =
          i + 1 < lines.size() && SEPARATOR.matcher(lines.get(i + 1).strip()).matches();
      if (header) {
        rows = new ArrayList<>();
        tables.add(new Table(heading, cells(line), rows));
        i++; // the separator row
      } else if (rows != null) {
        rows.add(new Row(cells(line), i + 1));
      }
    }
    return tables;
  }

  /** The back-quoted words of a piece of Markdown, in order. */
  public static List<String> quoted(String markdown) {
    List<String> words = new ArrayList<>();
    Matcher quoted = QUOTED.matcher(markdown);
    while (quoted.find()) {
      words.add(quoted.group(1));
    }
    return words;
  }

  /** The cells between the row's outer pipes. */
  private static List<String> cells(String row) {
    String inner =
        row.substring(1, row.endsWith("|") && row.length() > 1 ? row.length() - 1 : row.length());
    return Arrays.stream(CELL_BORDER.split(inner, -1))
        .map(cell -> cell.strip().replace("\\|", "|"))
        .toList();
  }
}
