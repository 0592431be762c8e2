package io.spinagent.agent.config.yaml;

import org.yaml.snakeyaml.DumperOptions;
import org.yaml.snakeyaml.Yaml;

/** Writes plain YAML data the way the docs lay configuration out. */
public final class YamlOutput {

  private YamlOutput() {}

  /**
   * Block style, two-space indents with list dashes indented under their key, long values kept on
   * one line; strings YAML would read as something else (such as {@code "8082"} or {@code "on"})
   * are quoted.
   */
  public static String dump(Object data) {
    return new Yaml(options()).dump(data);
  }

  /** The layout of {@link #dump}, for {@link YamlWriter} too. */
  static DumperOptions options() {
    DumperOptions options = new DumperOptions();
    options.setDefaultFlowStyle(DumperOptions.FlowStyle.BLOCK);
    options.setIndent(2);
    options.setIndicatorIndent(2);
    options.setIndentWithIndicator(true);
    options.setSplitLines(false);
    return options;
  }
}
