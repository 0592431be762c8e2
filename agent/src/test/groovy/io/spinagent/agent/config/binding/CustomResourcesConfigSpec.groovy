package io.spinagent.agent.config.binding

import io.spinagent.agent.armory.ArmoryFixtures
import io.spinagent.agent.armory.ArmoryRewrite
import io.spinagent.agent.config.CustomResourceConfig
import io.spinagent.agent.config.KubernetesAccountConfig
import java.nio.file.Path
import spock.lang.Specification
import spock.lang.TempDir

/**
 * An account's settings for its Clouddriver definition (issue 36): {@code metrics}, and custom
 * resources in Clouddriver's form ({@code customResources}) or Armory Scale Agent's ({@code
 * customResourceDefinitions}), checked by Clouddriver's rules and watched.
 */
class CustomResourcesConfigSpec extends Specification {

  @TempDir Path dir

  def "customResources are read with Clouddriver's fields, only those written, the Spinnaker kind in Clouddriver's spelling"() {
    when:
    def account = account('''\
      kinds: [Deployment]
      customResources:
        - {kubernetesKind: Rollout.argoproj.io, spinnakerKind: ServerGroups, deployPriority: 100, versioned: true, namespaced: true}
        - {kubernetesKind: HTTPProxy.projectcontour.io, spinnakerKind: loadBalancers, deployPriority: NETWORK_RESOURCE_PRIORITY}
        - {kubernetesKind: ClusterIssuer.cert-manager.io, namespaced: false}
      ''')

    then:
    account.customResources() == [
        new CustomResourceConfig('Rollout.argoproj.io', Optional.of('serverGroups'), Optional.of('100'), Optional.of(true), Optional.of(true)),
        new CustomResourceConfig('HTTPProxy.projectcontour.io', Optional.of('loadBalancers'), Optional.of('NETWORK_RESOURCE_PRIORITY'),
            Optional.empty(), Optional.empty()),
        new CustomResourceConfig('ClusterIssuer.cert-manager.io', Optional.empty(), Optional.empty(), Optional.empty(), Optional.of(false))]

    and: 'their kinds are watched with the kinds listed'
    account.kinds() == ['Deployment', 'Rollout.argoproj.io', 'HTTPProxy.projectcontour.io', 'ClusterIssuer.cert-manager.io']
  }

  def "without kinds, every kind is watched: custom resources add none, and Clouddriver's form is no reason for a warning"() {
    when:
    def result = ConfigFiles.load(dir, '''\
      kubernetes:
        accounts:
          - name: a
            serviceAccount: true
            customResources: [{kubernetesKind: Rollout.argoproj.io, spinnakerKind: serverGroups}]
      ''') as ConfigLoadResult.Loaded

    then:
    result.config().kubernetes().accounts()[0].kinds().isEmpty()
    result.config().kubernetes().accounts()[0].customResources()*.kubernetesKind() == ['Rollout.argoproj.io']
    result.warnings().isEmpty()
  }

  def "a kind listed in kinds already is not listed twice"() {
    expect:
    account('''\
      kinds: [rollout.argoproj.io]
      customResources: [{kubernetesKind: Rollout.argoproj.io}]
      ''').kinds() == ['rollout.argoproj.io']
  }

  def "Armory's customResourceDefinitions are read as customResources (scope as namespaced), with the Clouddriver fields Armory's form lacks"() {
    given:
    def yaml = '''\
      clouddriver: {insecure: true}
      kubernetes:
        accounts:
          - name: a
            serviceAccount: true
            kinds: [Deployment]
            customResources: [{kubernetesKind: Rollout.argoproj.io, spinnakerKind: serverGroups}]
            customResourceDefinitions:
              - {kind: HTTPProxy.projectcontour.io, scope: Namespaced, spinnakerKind: loadBalancers}
              - {kind: ClusterIssuer.cert-manager.io, scope: Cluster}
      '''

    when:
    def result = ConfigFiles.load(dir, yaml) as ConfigLoadResult.Loaded
    def account = result.config().kubernetes().accounts()[0]

    then:
    account.customResources() == [
        new CustomResourceConfig('Rollout.argoproj.io', Optional.of('serverGroups'), Optional.empty(), Optional.empty(), Optional.empty()),
        new CustomResourceConfig('HTTPProxy.projectcontour.io', Optional.of('loadBalancers'), Optional.empty(), Optional.empty(), Optional.of(true)),
        new CustomResourceConfig('ClusterIssuer.cert-manager.io', Optional.empty(), Optional.empty(), Optional.empty(), Optional.of(false))]
    account.kinds() == ['Deployment', 'Rollout.argoproj.io', 'HTTPProxy.projectcontour.io', 'ClusterIssuer.cert-manager.io']
    result.warnings().isEmpty()

    when: 'read for the converter'
    def reading = ArmoryFixtures.loader().readForConversion(ConfigFiles.write(dir, 'armory-agent.yml', yaml), [])

    then: 'the converter writes them all in Clouddriver\'s form, under customResources'
    reading.problems().isEmpty()
    reading.rewrites().collect { [it.keyPath(), it.kind()] } as Set == [
        ['kubernetes.accounts[0].customResources', ArmoryRewrite.Kind.REPLACE],
        ['kubernetes.accounts[0].customResourceDefinitions', ArmoryRewrite.Kind.REMOVE]] as Set
    reading.rewrites().find { it.kind() == ArmoryRewrite.Kind.REPLACE }.value() == [
        [kubernetesKind: 'Rollout.argoproj.io', spinnakerKind: 'serverGroups'],
        [kubernetesKind: 'HTTPProxy.projectcontour.io', spinnakerKind: 'loadBalancers', namespaced: true],
        [kubernetesKind: 'ClusterIssuer.cert-manager.io', namespaced: false]]
  }

  def "metrics: #written is #expected for the account's definition"() {
    expect:
    account(written).metrics() == expected

    where:
    written          || expected
    'metrics: true'  || Optional.of(true)
    'metrics: false' || Optional.of(false)
    ''               || Optional.empty()
    'metrics: null'  || Optional.empty()
  }

  def "'#yaml' is refused, naming #key: Clouddriver would misread it, or could not load the account"() {
    when:
    def result = ConfigFiles.load(dir, "kubernetes: {accounts: [{name: a, serviceAccount: true, $yaml}]}") as ConfigLoadResult.Invalid

    then:
    result.problems()*.keyPath() == ["kubernetes.accounts[0].$key".toString()]
    result.problems()[0].message() == message

    where:
    yaml                                                                             || key                                           | message
    'customResources: [{spinnakerKind: serverGroups}]'                               || 'customResources[0].kubernetesKind'           | 'is required: the custom resource\'s Kind.group, e.g. Rollout.argoproj.io'
    'customResources: [{kubernetesKind: "Rollout argoproj"}]'                        || 'customResources[0].kubernetesKind'           | "'Rollout argoproj' is not a valid kind: write Kind or Kind.group, e.g. Deployment or Certificate.cert-manager.io"
    'customResources: [{kubernetesKind: Rollout.argoproj.io, spinnakerKind: rollouts}]' || 'customResources[0].spinnakerKind'          | "'rollouts' is not one of Clouddriver's Spinnaker kinds [instances, configs, serverGroups, loadBalancers, securityGroups, serverGroupManagers, unclassified] (Clouddriver would take it for unclassified)"
    'customResources: [{kubernetesKind: Rollout.argoproj.io, deployPriority: high}]' || 'customResources[0].deployPriority'           | "'high' is not a deploy priority: write a whole number (Clouddriver's default is 100) or one of Clouddriver's names, e.g. WORKLOAD_CONTROLLER_PRIORITY; Clouddriver cannot load an account with any other"
    'customResources: [{kubernetesKind: Rollout.argoproj.io, versioned: maybe}]'     || 'customResources[0].versioned'                | "expected true or false, got 'maybe'"
    'customResources: [{kubernetesKind: Rollout.argoproj.io, kind: Rollout}]'        || 'customResources[0].kind'                     | 'unknown key; known keys here: kubernetesKind, spinnakerKind, deployPriority, versioned, namespaced'
    'customResources: [{kubernetesKind: A.b}], customResourceDefinitions: [{kind: a.b}]' || 'customResourceDefinitions' | 'declares a.b more than once; declare each kind once: Clouddriver cannot load an account that declares a kind twice'
    'customResources: [{kubernetesKind: A.b}, {kubernetesKind: a.b, versioned: true}]' || 'customResources' | 'declares a.b more than once; declare each kind once: Clouddriver cannot load an account that declares a kind twice'
    'metrics: sometimes'                                                             || 'metrics'                                     | "expected true or false, got 'sometimes'"
  }

  /** The account {@code a} (through the pod's service account) with these settings. */
  private KubernetesAccountConfig account(String settings) {
    String lines = settings.stripIndent().readLines().collect { '      ' + it }.join('\n')
    def result = ConfigFiles.load(dir, "kubernetes:\n  accounts:\n    - name: a\n      serviceAccount: true\n$lines\n")
    if (!(result instanceof ConfigLoadResult.Loaded)) {
      throw new AssertionError("not loaded: $result")
    }
    (result as ConfigLoadResult.Loaded).config().kubernetes().accounts()[0]
  }
}
