package io.spinagent.agent.admin;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The query parameters of one admin request, checked against what the endpoint accepts: an unknown
 * parameter, a repeated one that may appear once, or a value of the wrong form is a {@link
 * BadParameter}, which the server answers with 400 naming the parameter.
 */
final class QueryParameters {

  /** A query parameter the endpoint cannot use; the message says why. */
  static final class BadParameter extends Exception {

    private final String parameter;

    BadParameter(String parameter, String message) {
      super(message);
      this.parameter = parameter;
    }

    String parameter() {
      return parameter;
    }
  }

  private final Map<String, List<String>> values;

  private QueryParameters(Map<String, List<String>> values) {
    this.values = values;
  }

  /**
   * @param rawQuery the request URI's raw query, or null
   * @param known the parameters the endpoint accepts, in the order they are listed in messages
   */
  static QueryParameters parse(String rawQuery, Set<String> known) throws BadParameter {
    Map<String, List<String>> values = new LinkedHashMap<>();
    if (rawQuery != null && !rawQuery.isEmpty()) {
      for (String pair : rawQuery.split("&", 0)) {
        if (pair.isEmpty()) {
          continue;
        }
        int equals = pair.indexOf('=');
        String name = decode(equals < 0 ? pair : pair.substring(0, equals), pair);
        String value = equals < 0 ? "" : decode(pair.substring(equals + 1), name);
        if (!known.contains(name)) {
          throw new BadParameter(
              name,
              "unknown query parameter '"
                  + name
                  + "'"
                  + (known.isEmpty()
                      ? "; this endpoint takes none"
                      : "; known: " + String.join(", ", known)));
        }
        values.computeIfAbsent(name, n -> new ArrayList<>()).add(value);
      }
    }
    return new QueryParameters(values);
  }

  private static String decode(String text, String parameter) throws BadParameter {
    try {
      return URLDecoder.decode(text, StandardCharsets.UTF_8);
    } catch (IllegalArgumentException e) {
      throw new BadParameter(parameter, "query parameter '" + parameter + "' is not URL-encoded");
    }
  }

  /** Every value given for {@code name}, in order; empty when it is not given. */
  List<String> all(String name) {
    return values.getOrDefault(name, List.of());
  }

  /** The one value of {@code name}, if given. */
  Optional<String> single(String name) throws BadParameter {
    List<String> given = all(name);
    if (given.size() > 1) {
      throw new BadParameter(name, "query parameter '" + name + "' is given more than once");
    }
    return given.stream().findFirst();
  }

  /** A whole number from {@code min} to {@code max}, if given. */
  Optional<Integer> integer(String name, int min, int max) throws BadParameter {
    Optional<String> text = single(name);
    if (text.isEmpty()) {
      return Optional.empty();
    }
    try {
      int value = Integer.parseInt(text.get().trim());
      if (value >= min && value <= max) {
        return Optional.of(value);
      }
    } catch (NumberFormatException e) {
      // Reported below.
    }
    throw new BadParameter(
        name,
        "query parameter '"
            + name
            + "' must be a whole number from "
            + min
            + " to "
            + max
            + ", got '"
            + text.get()
            + "'");
  }

  /** {@code true} or {@code false} (any case), if given. */
  Optional<Boolean> bool(String name) throws BadParameter {
    Optional<String> text = single(name);
    if (text.isEmpty()) {
      return Optional.empty();
    }
    String value = text.get().trim();
    if (value.equalsIgnoreCase("true") || value.equalsIgnoreCase("false")) {
      return Optional.of(Boolean.parseBoolean(value));
    }
    throw new BadParameter(
        name, "query parameter '" + name + "' must be true or false, got '" + text.get() + "'");
  }
}
