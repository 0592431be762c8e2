package io.spinagent.agent.convert

import io.spinagent.agent.armory.ArmoryFixtures
import io.spinagent.agent.armory.ArmoryRewrite
import io.spinagent.agent.config.binding.ConfigLoadResult
import io.spinagent.agent.config.binding.ConfigLoader
import java.nio.file.Files
import java.nio.file.Path
import org.yaml.snakeyaml.Yaml
import spock.lang.Specification
import spock.lang.TempDir

/**
 * convert-armory for the agent's file: the result is SpinAgent's own form of exactly what the
 * agent makes of the original, with nothing left to warn about.
 */
class AgentFileConverterSpec extends Specification {

  @TempDir Path dir

  ConfigLoader loader = ArmoryFixtures.loader()

  def "#fixture converts to a file the agent reads as the same configuration, without a warning"() {
    given:
    def original = loader.load(ArmoryFixtures.path(fixture)) as ConfigLoadResult.Loaded

    when:
    def result = new AgentFileConverter(loader).convert(ArmoryFixtures.path(fixture), dir.resolve('spinagent.yaml'))
    Files.writeString(dir.resolve('spinagent.yaml'), result.yaml())
    def converted = loader.load(dir.resolve('spinagent.yaml'))

    then:
    result.isClean()
    converted instanceof ConfigLoadResult.Loaded
    converted.warnings().isEmpty()
    (converted as ConfigLoadResult.Loaded).config() == original.config()
    !original.warnings().isEmpty()

    where:
    fixture << ['armory-agent.yml', 'token-command.yml']
  }

  def "Armory's forms are rewritten, keys SpinAgent does not apply are dropped, and secret references stay"() {
    when:
    def result = new AgentFileConverter(loader).convert(ArmoryFixtures.path('armory-agent.yml'), null)
    def yaml = new Yaml().load(result.yaml())
    def account = yaml.kubernetes.accounts[0]

    then:
    yaml.clouddriver.backoff == [baseDelay: '1s', multiplier: 1.6, jitter: 0.2, maxDelay: '2m']
    yaml.clouddriver.keepAliveTimeoutSeconds == 30
    !yaml.clouddriver.containsKey('keepAliveTimeOutSeconds')
    !yaml.clouddriver.containsKey('responseRetries')
    !yaml.clouddriver.containsKey('keepAliveOperationSeconds')
    account.kubeconfigFile == '/kubeconfigfiles/kubecfg-account01.yaml'
    account.permissions == [READ: ['role1', 'role2'], WRITE: ['role3']]
    account.kinds == ['deployment', 'replicaSet', 'service', 'pod', 'ingress', 'daemonSet', 'statefulSet', 'job', 'cronJob']
    account.customResources == [[kubernetesKind: 'ServiceMonitor.monitoring.coreos.com', namespaced: true]]
    !account.containsKey('customResourceDefinitions')
    account.metrics == true
    yaml.kubernetes.accounts[2].keySet() == ['name', 'serviceAccount', 'customResources'] as Set
    yaml.kubernetes.accounts[2].customResources == [[kubernetesKind: 'ServiceMonitor.monitoring.coreos.com']]
    yaml.kubernetes.accounts[3].kubeconfigContents == 'encrypted:env!n:KUBECONFIG_04'
    yaml.logging == [format: 'json', level: 'warn']
    yaml.keySet() == ['clouddriver', 'kubernetes', 'logging', 'prometheus', 'server', 'tasks', 'timeoutSeconds'] as Set
    yaml.server == [port: 8082]

    and: 'every change and every dropped key is listed with its reason'
    result.changed()*.keyPath().contains('kubernetes.accounts[0].kubeConfigFile')
    result.changed().find { it.keyPath() == 'clouddriver.backoff.baseDelay' }.reason() ==
        'nanoseconds (Armory Scale Agent\'s form) written as a duration'
    result.dropped()*.keyPath().containsAll(['pprof.enabled', 'hub', 'secrets.vault', 'kubernetes.retries.maxRetries',
        'kubernetes.accounts[2].cacheThreads'])
    result.dropped().every { it.kind() == ArmoryRewrite.Kind.REMOVE }
  }

  def "a file relying on Armory's plaintext default gets clouddriver.insecure: true"() {
    given:
    def file = dir.resolve('armory-agent.yml')
    Files.writeString(file, 'clouddriver:\n  grpc: cd:9091\nkubernetes:\n  accounts:\n    - name: a\n      serviceAccount: true\n')

    when:
    def result = new AgentFileConverter(loader).convert(file, null)

    then:
    new Yaml().load(result.yaml()).clouddriver == [grpc: 'cd:9091', insecure: true]
    result.changed()*.describe() == ["${file}:1: clouddriver.insecure: added as true: Armory Scale Agent's default (plaintext), which SpinAgent's (TLS) differs from".toString()]
  }

  def "an overlay converted on its own keeps the main file's default to the main file"() {
    given:
    def overlay = dir.resolve('armory-agent-local.yml')
    Files.writeString(overlay, 'kubernetes:\n  accounts:\n    - name: a\n      kubeConfigFile: /k\n')

    when:
    def result = new AgentFileConverter(loader).convert(overlay, null)

    then:
    result.isClean()
    new Yaml().load(result.yaml()) == [kubernetes: [accounts: [[name: 'a', kubeconfigFile: '/k']]]]
  }

  def "what cannot be converted is listed to fix by hand, with the input's lines, and the rest is converted"() {
    given:
    def file = dir.resolve('armory-agent.yml')
    Files.writeString(file, '''\
      clouddriver:
        insecure: true
      kubernetes:
        accounts:
          - name: Prod
            kubeConfigFile: "encryptedFile:vault!e:secret!p:spinnaker/kubernetes!k:config"
      '''.stripIndent())

    when:
    def result = new AgentFileConverter(loader).convert(file, null)

    then:
    !result.isClean()
    result.problems()*.keyPath() == ['kubernetes.accounts[0].name', 'kubernetes.accounts[0].kubeConfigFile']
    result.problems()*.origin()*.line() == [5, 6]
    new Yaml().load(result.yaml()).kubernetes.accounts[0].kubeconfigFile.startsWith('encryptedFile:vault!')
  }

  def "a file that is not YAML is reported, and nothing is converted"() {
    given:
    def file = dir.resolve('armory-agent.yml')
    Files.writeString(file, 'clouddriver: [unclosed\n')

    when:
    def result = new AgentFileConverter(loader).convert(file, null)

    then:
    result.yaml() == null
    result.problems()[0].message().startsWith('invalid YAML')
  }
}
