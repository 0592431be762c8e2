package io.spinagent.plugin.cache.format;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * Spinnaker's moniker (kork {@code Moniker}): app, cluster, detail, stack, sequence. In a cache
 * body it is written in that field order with null fields left out (Clouddriver's object mapper
 * uses {@code NON_NULL} inclusion).
 */
public final class Moniker {

  private final String app;
  private final String cluster;
  private final String detail;
  private final String stack;
  private final Integer sequence;

  public Moniker(String app, String cluster, String detail, String stack, Integer sequence) {
    this.app = app;
    this.cluster = cluster;
    this.detail = detail;
    this.stack = stack;
    this.sequence = sequence;
  }

  public String app() {
    return app;
  }

  public String cluster() {
    return cluster;
  }

  public String detail() {
    return detail;
  }

  public String stack() {
    return stack;
  }

  public Integer sequence() {
    return sequence;
  }

  /** The attribute value as Clouddriver serializes it. */
  public Map<String, Object> toMap() {
    Map<String, Object> map = new LinkedHashMap<>();
    if (app != null) {
      map.put("app", app);
    }
    if (cluster != null) {
      map.put("cluster", cluster);
    }
    if (detail != null) {
      map.put("detail", detail);
    }
    if (stack != null) {
      map.put("stack", stack);
    }
    if (sequence != null) {
      map.put("sequence", sequence);
    }
    return map;
  }

  @Override
  public boolean equals(Object o) {
    if (this == o) {
      return true;
    }
    if (!(o instanceof Moniker)) {
      return false;
    }
    Moniker m = (Moniker) o;
    return Objects.equals(app, m.app)
        && Objects.equals(cluster, m.cluster)
        && Objects.equals(detail, m.detail)
        && Objects.equals(stack, m.stack)
        && Objects.equals(sequence, m.sequence);
  }

  @Override
  public int hashCode() {
    return Objects.hash(app, cluster, detail, stack, sequence);
  }

  @Override
  public String toString() {
    return "Moniker" + toMap();
  }
}
