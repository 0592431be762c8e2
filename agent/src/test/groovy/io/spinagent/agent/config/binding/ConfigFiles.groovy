package io.spinagent.agent.config.binding

import java.nio.file.Files
import java.nio.file.Path

/** Writes configuration files for specs; YAML text is written with its common indent removed. */
class ConfigFiles {

  static Path write(Path dir, String name, String yaml) {
    Path file = dir.resolve(name)
    Files.createDirectories(file.parent)
    Files.writeString(file, yaml.stripIndent())
    file
  }

  /** Loads {@code yaml} as {@code spinagent.yaml}, with a fixed host name for the default agent id. */
  static ConfigLoadResult load(Path dir, String yaml) {
    new ConfigLoader({ 'agent-host-1' }).load(write(dir, 'spinagent.yaml', yaml))
  }
}
