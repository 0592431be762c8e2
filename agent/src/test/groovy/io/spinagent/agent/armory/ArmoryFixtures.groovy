package io.spinagent.agent.armory

import io.spinagent.agent.config.binding.ConfigLoader
import java.nio.file.Path

/**
 * The Armory Scale Agent files under src/test/resources/armory: together they hold every key of
 * Armory's agent reference (ArmoryAgentFilesSpec checks it), in the value forms it documents.
 */
class ArmoryFixtures {

  static final List<String> NAMES = ['armory-agent.yml', 'token-command.yml', 'cache-groups.yml']

  /** What account-04's {@code kubeconfigContents: encrypted:env!n:KUBECONFIG_04} stands for. */
  static final String KUBECONFIG_04 = '''\
    apiVersion: v1
    kind: Config
    clusters: [{name: c, cluster: {server: "https://10.0.0.4:6443"}}]
    users: [{name: u, user: {token: t}}]
    contexts: [{name: c, context: {cluster: c, user: u}}]
    current-context: c
    '''.stripIndent()

  static Path path(String name) {
    Path.of(ArmoryFixtures.getResource("/armory/$name").toURI())
  }

  static ConfigLoader loader() {
    new ConfigLoader({ 'agent-host-1' }, { String variable -> variable == 'KUBECONFIG_04' ? KUBECONFIG_04 : null })
  }

  /**
   * The key patterns (list items written []) of every value in a plain YAML tree; a list of scalars
   * is one value.
   */
  static Set<String> leafPatterns(Object tree, String prefix = '') {
    Set<String> patterns = []
    if (tree instanceof Map) {
      tree.each { key, value ->
        patterns.addAll(leafPatterns(value, prefix ? "$prefix.$key" : key as String))
      }
    } else if (tree instanceof List && tree.any { it instanceof Map }) {
      tree.each { patterns.addAll(leafPatterns(it, prefix + '[]')) }
    } else {
      patterns << prefix
    }
    patterns
  }
}
