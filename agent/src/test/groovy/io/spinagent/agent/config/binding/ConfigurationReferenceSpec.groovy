package io.spinagent.agent.config.binding

import groovy.json.JsonOutput
import io.spinagent.testkit.docs.ReferenceTables
import java.nio.file.Files
import java.nio.file.Path
import spock.lang.Specification
import spock.lang.TempDir

/**
 * docs/agent-configuration.md stays honest (issue #8): every key the agent's configuration binder
 * accepts appears in its key tables, and every documented key is accepted.
 *
 * <p>The binder has no list of keys: its schema is whatever the binding code asks for, and it
 * reports any other key as unknown, naming the known ones ("known keys here: ..."). This spec
 * reads the schema the same way an operator meets it: it writes a key no one would mean at each
 * level and follows the known keys it is told, into every map and every list of maps.
 */
class ConfigurationReferenceSpec extends Specification {

  static final Path REFERENCE = Path.of(System.getProperty('user.dir')).resolve('../docs/agent-configuration.md').normalize()

  /** Far from every real key, so the binder lists the known keys instead of guessing one. */
  static final String PROBE = 'zzzzzzzzzzzzzzzzzzzzzzzz'

  /** List items, as the reference writes them: {@code kubernetes.accounts[].name}. */
  static final String ITEM = '[]'

  @TempDir Path dir
  ConfigLoader loader = new ConfigLoader({ 'reference-check' })

  def "every key the agent accepts is documented in docs/agent-configuration.md, and every documented key is accepted"() {
    given:
    assert Files.isRegularFile(REFERENCE): "the agent configuration reference is not at $REFERENCE"
    Set<String> accepted = leafKeys([])
    Map<String, Integer> documented = documentedKeys()

    when:
    def undocumented = accepted - documented.keySet()
    // A row for a list of maps itself (`operations.allow`) documents the list its items' rows describe.
    def unknown = (documented.keySet() - accepted).findAll { key -> !accepted.any { it.startsWith(key + ITEM + '.') } }

    then: 'the binder was read at all'
    accepted.containsAll(['clouddriver.grpc', 'kubernetes.accounts[].name'])

    and: 'the message says exactly which key is missing where'
    assert undocumented.isEmpty() && unknown.isEmpty(): drift(undocumented, unknown, documented)
  }

  static String drift(Set<String> undocumented, Set<String> unknown, Map<String, Integer> documented) {
    def lines = ["docs/${REFERENCE.fileName} and the agent's configuration binder disagree:"]
    if (undocumented) {
      lines << "  keys the agent accepts but docs/${REFERENCE.fileName} does not document (add a row to its key tables):"
      undocumented.sort().each { lines << "    $it" }
    }
    if (unknown) {
      lines << "  keys in docs/${REFERENCE.fileName} that the agent rejects as unknown (remove, rename, or implement):"
      unknown.sort().each { lines << "    $it  (line ${documented[it]})" }
    }
    lines.join('\n')
  }

  /**
   * Documented keys to their line. The table under the {@code kubernetes} heading holds the keys of
   * one account, written relative to it (and {@code kubernetes.*} keys, written whole); {@code
   * key[]} for a list counts as {@code key}.
   */
  static Map<String, Integer> documentedKeys() {
    ReferenceTables.keyRows(REFERENCE).collectEntries { row ->
      String key = row.key() - ~/\[]$/
      boolean accountKey = row.heading() == '`kubernetes`' && !key.startsWith('kubernetes.')
      [(accountKey ? "kubernetes.accounts[].$key" : key): row.line()]
    }
  }

  /** The value keys (not maps, not lists of maps) under {@code path}, as dotted paths. */
  Set<String> leafKeys(List<String> path) {
    Set<String> leaves = []
    def keys = knownKeysAt(path)
    def childPath = path
    if (keys == null && path) {
      keys = knownKeysAt(path + ITEM)
      childPath = path + ITEM
    }
    if (keys == null || keys.isEmpty()) {
      leaves << dotted(path)
      return leaves
    }
    keys.each { leaves.addAll(leafKeys(childPath + it)) }
    leaves
  }

  /** The keys the binder knows in the map at {@code path}, or null when no map belongs there. */
  List<String> knownKeysAt(List<String> path) {
    def file = dir.resolve("probe-${UUID.randomUUID()}.yaml")
    // JSON is YAML.
    Files.writeString(file, JsonOutput.toJson(nest(path, [(PROBE): 1])))
    def result = loader.load(file)
    if (!(result instanceof ConfigLoadResult.Invalid)) {
      return null
    }
    String probePath = (dotted(path) ? dotted(path) + '.' : '') + PROBE
    String expectedPath = probePath.replace(ITEM, '[0]')
    def problem = result.problems().find { it.keyPath() == expectedPath }
    if (problem == null) {
      return null
    }
    if (problem.message() == 'unknown key; this map takes no keys') {
      return []
    }
    def listed = problem.message() =~ /^unknown key; known keys here: (.*)$/
    assert listed.matches(): "unexpected answer to an unknown key at $expectedPath: ${problem.message()}"
    listed.group(1).split(', ') as List
  }

  static Object nest(List<String> path, Object value) {
    path.reverse().inject(value) { inner, segment -> segment == ITEM ? [inner] : [(segment): inner] }
  }

  static String dotted(List<String> path) {
    path.join('.').replace('.' + ITEM, ITEM)
  }
}
