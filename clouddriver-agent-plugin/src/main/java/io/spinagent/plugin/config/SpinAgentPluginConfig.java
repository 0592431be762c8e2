package io.spinagent.plugin.config;

import com.fasterxml.jackson.annotation.JsonAnySetter;
import com.netflix.spinnaker.kork.plugins.api.PluginConfiguration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.PropertySource;

/**
 * Whatever Halyard or the Operator put under {@code
 * spinnaker.extensibility.plugins.SpinAgent.Kubernetes.config}. It holds the same keys as the
 * top-level {@code spinagent.*} block, so operators can use either; where both set a key, this
 * block wins.
 */
@PluginConfiguration
public class SpinAgentPluginConfig {

  static final String SOURCE_NAME = "spinnaker.extensibility.plugins.SpinAgent.Kubernetes.config";

  private final Map<String, Object> values = new LinkedHashMap<>();

  @JsonAnySetter
  public void set(String key, Object value) {
    values.put(key, value);
  }

  /** The block as {@code spinagent.}-prefixed properties, ready for Spring's binder. */
  public PropertySource<?> asPropertySource() {
    Map<String, Object> flat = new LinkedHashMap<>();
    flatten(SpinAgentProperties.PREFIX, values, flat);
    return new MapPropertySource(SOURCE_NAME, flat);
  }

  private static void flatten(String prefix, Object value, Map<String, Object> into) {
    if (value instanceof Map<?, ?> map) {
      map.forEach((k, v) -> flatten(prefix + "." + k, v, into));
    } else if (value instanceof List<?> list) {
      for (int i = 0; i < list.size(); i++) {
        flatten(prefix + "[" + i + "]", list.get(i), into);
      }
    } else {
      into.put(prefix, value);
    }
  }
}
