package io.spinagent.agent.config.binding;

import io.spinagent.agent.config.yaml.ConfigNode.Entry;
import io.spinagent.agent.config.yaml.ConfigNode.MapNode;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Deep-merges the optional {@code -local} overlay file over the main configuration file.
 *
 * <p>Maps merge key by key, recursively; any other value in the overlay (a list, a scalar, or an
 * explicit null) replaces the base value whole. Replacing lists whole is deliberate: merging {@code
 * kubernetes.accounts} item by item would need an identity rule for items, and an operator reading
 * the overlay should be able to see the complete list of accounts in one place.
 */
final class ConfigOverlay {

  private ConfigOverlay() {}

  static MapNode merge(MapNode base, MapNode overlay) {
    Map<String, Entry> merged = new LinkedHashMap<>(base.entries());
    overlay
        .entries()
        .forEach(
            (key, over) -> {
              Entry under = merged.get(key);
              if (under != null
                  && under.value() instanceof MapNode underMap
                  && over.value() instanceof MapNode overMap) {
                // The key stays where the base file wrote it; the values inside keep their own
                // origins.
                merged.put(key, new Entry(under.keyOrigin(), merge(underMap, overMap)));
              } else {
                merged.put(key, over);
              }
            });
    return new MapNode(base.origin(), merged);
  }
}
