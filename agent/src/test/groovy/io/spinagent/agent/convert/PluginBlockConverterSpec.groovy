package io.spinagent.agent.convert

import io.spinagent.agent.armory.ArmoryFixtures
import io.spinagent.agent.armory.ArmoryKey.Treatment
import io.spinagent.testkit.docs.ReferenceTables
import java.nio.file.Files
import java.nio.file.Path
import org.yaml.snakeyaml.Yaml
import spock.lang.Shared
import spock.lang.Specification
import spock.lang.TempDir

/**
 * convert-armory --plugin: the Clouddriver settings of Armory's plugin (Halyard profile or Operator
 * SpinnakerService) become SpinAgent's plugin settings, exactly as {@link ArmoryPluginKeys} says,
 * and nothing else in the file changes.
 */
class PluginBlockConverterSpec extends Specification {

  static final Path PLUGIN_REFERENCE =
      Path.of(System.getProperty('user.dir')).resolve('../docs/configuration.md').normalize()

  @Shared PluginBlockConverter.Result halyard = new PluginBlockConverter().convert(ArmoryFixtures.path('clouddriver-local.yml'))
  @Shared Map converted = new Yaml().load(halyard.yaml())

  @TempDir Path dir

  def "clouddriver-local.yml holds every key of Armory's plugin reference"() {
    given:
    def written = ArmoryFixtures.leafPatterns(new Yaml().load(Files.readString(ArmoryFixtures.path('clouddriver-local.yml'))))
        .collect { ArmoryPluginKeys.relaxed(it) }

    expect:
    ArmoryPluginKeys.rows().findAll { row ->
      !written.any { it == row.relaxedKey() || it.startsWith(row.relaxedKey() + '.') || it.startsWith(row.relaxedKey() + '[]') }
    }*.key()*.key() == []
  }

  def "#row.key().key() is #row.key().treatment().label()#target"() {
    given:
    def change = halyard.changes().find { ArmoryPluginKeys.relaxed(it.armoryKey()) == row.relaxedKey() }

    expect:
    change != null
    change.treatment() == row.key().treatment()
    change.spinAgentKey() == (row.key().treatment() == Treatment.CONVERTED ? row.key().spinAgentKey() : null)
    change.note() == row.key().spinAgent()
    row.key().treatment() != Treatment.CONVERTED || valueAt(converted, row.key().spinAgentKey()) != null

    where:
    row << ArmoryPluginKeys.rows()
    target = row.key().spinAgentKey() ? " as ${row.key().spinAgentKey()}" : ''
  }

  def "values are written in SpinAgent's forms"() {
    expect:
    converted.spinagent == [
        accounts  : ['grace-period': '600s'],
        cache     : [kinds: ['ReplicaSet', 'Deployment', 'Pod', 'ServiceMonitor.monitoring.coreos.com'], 'omit-kinds': ['Event'],
                     'cache-all': false],
        operations: [timeout: '30000ms', history: ['max-age': '14d']],
        grpc      : [auth: [x509: [enabled: true, filters: ['.*(?:CN=agent-.*).*']]],
                     address: '0.0.0.0', port: 9091, 'max-inbound-message-size': '8MB',
                     security: [enabled: true, 'certificate-chain': '/opt/certs/server.crt', 'private-key': '/opt/certs/server.key',
                                'client-auth': 'REQUIRE', 'trust-cert-collection': '/opt/certs/ca.crt'],
                     'keep-alive-time': '30s', 'keep-alive-timeout': '5s']]
  }

  def "everything else stays: other plugins, Clouddriver's own settings, the order of the profile"() {
    expect:
    converted.keySet() as List == ['spinnaker', 'kubernetes', 'account', 'sql', 'spinagent']
    converted.spinnaker.extensibility == [plugins: ['Other.Plugin': [enabled: true], 'SpinAgent.Kubernetes': [enabled: true]]]
    converted.kubernetes == [enabled: true]
    converted.account == [storage: [enabled: true]]
  }

  def "an Operator SpinnakerService: the profile is converted in place, dotted keys and relaxed spellings included"() {
    when:
    def result = new PluginBlockConverter().convert(ArmoryFixtures.path('spinnakerservice.yml'))
    def documents = new Yaml().loadAll(result.yaml()).toList()

    then:
    documents.size() == 2
    documents[0].spec.spinnakerConfig.profiles.clouddriver == [
        spinnaker: [extensibility: [plugins: ['SpinAgent.Kubernetes': [enabled: true]]]],
        spinagent: [grpc: [port: 9095], cache: [kinds: ['Deployment']], operations: [timeout: '45000ms']]]
    documents[1].kind == 'Service'
    result.dropped()*.describe() == [
        'spinnaker.extensibility.plugins.Armory.Kubesvc.version: dropped: set the SpinAgent release to install in spinnaker.extensibility.plugins.SpinAgent.Kubernetes.version (install.md)',
        "kubesvc.cluster: dropped: ${ArmoryPluginKeys.rowFor('kubesvc.cluster').get().key().spinAgent()}",
        'kubesvc.unknownSetting: dropped: not a setting of Armory\'s plugin reference, so there is nothing to convert it to']
    result.problems().isEmpty()
  }

  def "every SpinAgent key the converter writes is a key of the plugin's reference, docs/configuration.md"() {
    given:
    Set<String> documented = ReferenceTables.keyRows(PLUGIN_REFERENCE)*.key() as Set

    expect:
    ArmoryPluginKeys.rows()*.key()*.spinAgentKey().findAll { it != null && !(it in documented) } == []
  }

  def "a value that cannot be converted is left for a person, naming the key"() {
    given:
    def file = dir.resolve('clouddriver-local.yml')
    Files.writeString(file, 'kubesvc:\n  cache:\n    operationWaitMs: soon\n')

    when:
    def result = new PluginBlockConverter().convert(file)

    then:
    result.problems() == ["kubesvc.cache.operationWaitMs: expected a whole number, got 'soon'; set spinagent.operations.timeout by hand"]
  }

  def "a file without any of Armory's plugin settings is reported"() {
    given:
    def file = dir.resolve('clouddriver-local.yml')
    Files.writeString(file, 'sql:\n  enabled: true\n')

    when:
    def result = new PluginBlockConverter().convert(file)

    then:
    result.problems()[0].startsWith("${file}: no settings of Armory's plugin found")
  }

  def "a profile whose aliases stand for millions of values is refused, naming the limit"() {
    given: '48 aliases (SnakeYAML allows 50), standing for 2^24 values'
    def file = dir.resolve('clouddriver-local.yml')
    Files.writeString(file, 'kubesvc:\n  laughs:\n    - &a0 [lol, lol]\n' +
        (1..24).collect { "    - &a$it [*a${it - 1}, *a${it - 1}]\n" }.join(''))

    when:
    def result = new PluginBlockConverter().convert(file)

    then:
    result.yaml() == null
    result.problems() == ["${file}: not YAML: aliases expand to more than 1000000 nodes (maps, lists, keys and values), the" +
        ' limit for a YAML file the agent reads']
  }

  static Object valueAt(Map tree, String dotted) {
    String plugin = ArmoryPluginKeys.SPINAGENT_PLUGIN
    List<String> segments = dotted.startsWith(plugin + '.')
        ? ['spinnaker', 'extensibility', 'plugins', 'SpinAgent.Kubernetes'] + dotted.substring(plugin.length() + 1).tokenize('.')
        : dotted.tokenize('.')
    segments.inject(tree) { node, key -> node instanceof Map ? node[key] : null }
  }
}
