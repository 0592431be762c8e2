package io.spinagent.deploy

import io.spinagent.agent.config.AgentConfig
import io.spinagent.agent.config.binding.ConfigLoadResult
import io.spinagent.agent.config.binding.ConfigLoader

import java.nio.file.Files

/** Runs a shipped agent configuration through the agent's own loader, as {@code --check} does. */
final class AgentConfigCheck {

  private AgentConfigCheck() {}

  /** The loaded configuration; fails with the agent's own report of every problem. */
  static AgentConfig load(String where, String configYaml) {
    def dir = Files.createTempDirectory('deploy-agent-config')
    try {
      def file = dir.resolve('spinagent.yaml')
      Files.writeString(file, configYaml)
      ConfigLoadResult result = new ConfigLoader({ 'spinagent-7d9f8-x2k4q' }).load(file)
      assert result instanceof ConfigLoadResult.Loaded: "$where: ${(result as ConfigLoadResult.Invalid).report()}"
      (result as ConfigLoadResult.Loaded).config()
    } finally {
      dir.toFile().deleteDir()
    }
  }
}
