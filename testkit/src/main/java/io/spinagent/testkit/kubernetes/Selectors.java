package io.spinagent.testkit.kubernetes;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.client.server.mock.KubernetesAttributesExtractor;
import io.fabric8.mockwebserver.crud.Attribute;
import io.fabric8.mockwebserver.crud.AttributeSet;
import io.fabric8.mockwebserver.crud.AttributeType;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Parses {@code labelSelector} and {@code fieldSelector} into fabric8 attribute requirements and
 * matches stored objects against them. Parsing is ours because fabric8's own parser knows neither
 * {@code in} nor {@code notin}; matching is fabric8's {@link AttributeSet}, whose
 * EXISTS/NOT_EXISTS/IN/NOT_IN/WITHOUT rules are Kubernetes' (an object without the label satisfies
 * {@code !=} and {@code notin}).
 *
 * <p>Each requirement is kept as its own attribute set because an {@link AttributeSet} holds one
 * attribute per key, while a selector may constrain one key twice ({@code env,env!=prod}).
 */
final class Selectors {

  /** fabric8's prefix for label attributes (see KubernetesAttributesExtractor). */
  static final String LABEL_PREFIX = "labels:";

  /** Our prefix for field attributes other than metadata.name/metadata.namespace. */
  static final String FIELD_PREFIX = "field:";

  static final Selector EVERYTHING = new Selector(List.of(), List.of());

  private static final Pattern EQUALITY =
      Pattern.compile("^([^\\s!=<>(),]+)\\s*(==|=|!=)\\s*([^\\s,()]*)$");
  private static final Pattern SET =
      Pattern.compile("^([^\\s!=<>(),]+)\\s+(in|notin)\\s*\\((.*)\\)$");
  private static final Pattern EXISTS = Pattern.compile("^(!?)\\s*([^\\s!=<>(),]+)$");

  private Selectors() {}

  static Selector parse(String labelSelector, String fieldSelector) {
    List<AttributeSet> requirements = new ArrayList<>();
    List<String> fieldPaths = new ArrayList<>();
    if (labelSelector != null && !labelSelector.isBlank()) {
      for (String requirement : splitTopLevel(labelSelector)) {
        requirements.add(new AttributeSet(parseLabelRequirement(requirement.trim())));
      }
    }
    if (fieldSelector != null && !fieldSelector.isBlank()) {
      for (String requirement : splitTopLevel(fieldSelector)) {
        Matcher m = EQUALITY.matcher(requirement.trim());
        if (!m.matches()) {
          throw ApiError.badRequest("invalid field selector: '" + requirement + "'");
        }
        String field = m.group(1);
        String attributeKey = attributeKeyForField(field);
        if (attributeKey.startsWith(FIELD_PREFIX)) {
          fieldPaths.add(field);
        }
        AttributeType type = "!=".equals(m.group(2)) ? AttributeType.WITHOUT : AttributeType.WITH;
        requirements.add(new AttributeSet(new Attribute(attributeKey, m.group(3), type)));
      }
    }
    return new Selector(requirements, fieldPaths);
  }

  /** The requirement a single-object watch ({@code .../pods/{name}?watch=true}) implies. */
  static Selector nameIs(String name) {
    return new Selector(
        List.of(new AttributeSet(new Attribute(KubernetesAttributesExtractor.METADATA_NAME, name))),
        List.of());
  }

  private static Attribute parseLabelRequirement(String requirement) {
    Matcher set = SET.matcher(requirement);
    if (set.matches()) {
      List<String> values =
          Arrays.stream(set.group(3).split(","))
              .map(String::trim)
              .filter(v -> !v.isEmpty())
              .toList();
      if (values.isEmpty()) {
        throw ApiError.badRequest(
            "unable to parse requirement: for 'in', 'notin' operators, values set can't be empty");
      }
      AttributeType type = "in".equals(set.group(2)) ? AttributeType.IN : AttributeType.NOT_IN;
      return new Attribute(LABEL_PREFIX + set.group(1), values, type);
    }
    Matcher equality = EQUALITY.matcher(requirement);
    if (equality.matches()) {
      AttributeType type =
          "!=".equals(equality.group(2)) ? AttributeType.WITHOUT : AttributeType.WITH;
      return new Attribute(LABEL_PREFIX + equality.group(1), equality.group(3), type);
    }
    Matcher exists = EXISTS.matcher(requirement);
    if (exists.matches()) {
      AttributeType type =
          exists.group(1).isEmpty() ? AttributeType.EXISTS : AttributeType.NOT_EXISTS;
      return new Attribute(LABEL_PREFIX + exists.group(2), "", type);
    }
    throw ApiError.badRequest(
        "unable to parse requirement: '"
            + requirement
            + "' (supported: =, ==, !=, in, notin, "
            + "exists, !exists)");
  }

  private static String attributeKeyForField(String field) {
    return switch (field) {
      case "metadata.name" -> KubernetesAttributesExtractor.METADATA_NAME;
      case "metadata.namespace" -> KubernetesAttributesExtractor.METADATA_NAMESPACE;
      default -> FIELD_PREFIX + field;
    };
  }

  /** Splits on commas that are not inside the parentheses of an in/notin value set. */
  private static List<String> splitTopLevel(String selector) {
    List<String> parts = new ArrayList<>();
    int depth = 0;
    StringBuilder current = new StringBuilder();
    for (int i = 0; i < selector.length(); i++) {
      char c = selector.charAt(i);
      if (c == '(') {
        depth++;
      } else if (c == ')') {
        depth--;
      }
      if (c == ',' && depth == 0) {
        parts.add(current.toString());
        current.setLength(0);
      } else {
        current.append(c);
      }
    }
    parts.add(current.toString());
    return parts.stream().filter(p -> !p.isBlank()).toList();
  }

  /** A parsed selector; all requirements must hold. */
  static final class Selector {
    private final List<AttributeSet> requirements;
    private final List<String> fieldPaths;

    private Selector(List<AttributeSet> requirements, List<String> fieldPaths) {
      this.requirements = List.copyOf(requirements);
      this.fieldPaths = List.copyOf(fieldPaths);
    }

    boolean isEmpty() {
      return requirements.isEmpty();
    }

    Selector and(Selector other) {
      List<AttributeSet> all = new ArrayList<>(requirements);
      all.addAll(other.requirements);
      List<String> paths = new ArrayList<>(fieldPaths);
      paths.addAll(other.fieldPaths);
      return new Selector(all, paths);
    }

    boolean matches(StoredObject object) {
      if (requirements.isEmpty()) {
        return true;
      }
      AttributeSet attributes = object.attributes();
      if (!fieldPaths.isEmpty()) {
        ObjectNode tree = object.tree();
        for (String path : fieldPaths) {
          String value = Json.text(tree, path);
          if (value != null) {
            attributes = attributes.add(new Attribute(FIELD_PREFIX + path, value));
          }
        }
      }
      for (AttributeSet requirement : requirements) {
        if (!attributes.matches(requirement)) {
          return false;
        }
      }
      return true;
    }
  }
}
