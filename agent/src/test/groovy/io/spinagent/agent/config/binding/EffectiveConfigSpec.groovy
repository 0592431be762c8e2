package io.spinagent.agent.config.binding

import java.nio.file.Path
import spock.lang.Specification
import spock.lang.TempDir

/** What --check prints: the configuration the agent runs with, which loads back to the same one. */
class EffectiveConfigSpec extends Specification {

  @TempDir Path dir

  def "the effective configuration loads back to the same configuration, every default written out"() {
    given:
    def original = ConfigFiles.load(dir, '''\
      agent: {zoneId: eu-1}
      clouddriver:
        grpc: clouddriver.example.com:443
        noProxy: true
        tls: {serverName: cd.example.com, cacertFile: /ca.crt}
        auth:
          tokenCommand: {command: /bin/token, args: [-a], format: raw, refreshIntervalSeconds: 60}
        keepAliveHeartbeatSeconds: 0
        backoff: {baseDelay: 1000000000, maxDelay: 90s}
      kubernetes:
        noProxy: true
        accounts:
          - name: a
            kubeConfigFile: /k/a.yaml
            context: c
            insecure: true
            namespaces: [x]
            kinds: [deployment]
            permissions: [{READ: [r]}, {WRITE: [w]}]
            metrics: false
            customResources:
              - {kubernetesKind: Rollout.argoproj.io, spinnakerKind: ServerGroups, deployPriority: 100, versioned: true}
            customResourceDefinitions: [{kind: HTTPProxy.projectcontour.io, scope: Namespaced}]
          - name: b
            serviceAccount: true
            omitKinds: [Pod]
      logging: {level: warning}
      tasks: {totalBudget: 0}
      timeoutSeconds: 0
      operations:
        allow: [{verbs: [get], paths: [/api/**]}]
      ''') as ConfigLoadResult.Loaded

    when:
    String yaml = EffectiveConfig.yaml(original.config())
    def reloaded = new ConfigLoader({ 'other-host' }).load(ConfigFiles.write(dir, 'effective.yaml', yaml))

    then:
    reloaded instanceof ConfigLoadResult.Loaded
    (reloaded as ConfigLoadResult.Loaded).config() == original.config()
    reloaded.warnings().isEmpty()
    yaml.contains('multiplier: 1.6')
    yaml.contains('timeoutSeconds: 0')
    yaml.contains('totalBudget: 0')
    yaml.contains('metrics: false')
    yaml.contains('spinnakerKind: serverGroups')
  }

  def "secrets are shown redacted"() {
    given:
    def config = ConfigFiles.load(dir, '''\
      clouddriver:
        auth: {token: tok-123}
        tls: {clientCertFile: /c, clientKeyFile: /k, clientKeyFilePassword: pass-456}
      kubernetes:
        accounts: [{name: a, kubeconfigContents: "apiVersion: v1 # contents-789"}]
      ''') as ConfigLoadResult.Loaded

    when:
    String yaml = EffectiveConfig.yaml(config.config())

    then:
    !yaml.contains('tok-123') && !yaml.contains('pass-456') && !yaml.contains('contents-789')
    yaml.count('<redacted>') == 3
  }
}
