package io.spinagent.plugin.web

import io.spinagent.plugin.accounts.AccountRequestException
import io.spinagent.plugin.accounts.CustomResource
import io.spinagent.plugin.accounts.DynamicAccountSpec
import spock.lang.Specification

/** What a definition sent to PUT /credentials changes of an account SpinAgent serves. */
class KubernetesDefinitionChangeSpec extends Specification {

  static final DynamicAccountSpec CURRENT = new DynamicAccountSpec('prod', null, 'zone-a', 'the agent\'s kubeconfig',
      null, null, null, [], [], ['Deployment'], [], null, null, null, [])

  /** What Clouddriver stores for the account: the tunnel definition, with its defaults filled in. */
  static final Map<String, Object> STORED = [type: 'kubernetes', name: 'prod', kubeconfigContents: 'the tunnel kubeconfig',
      cacheThreads: 0, metrics: true, customResources: []]

  def "metrics and customResources carry over to the account, as Clouddriver's definition writes them"() {
    given: "a definition read from GET /credentials/type/kubernetes and changed"
    def definition = StrictJson.MAPPER.valueToTree(STORED + [metrics: false, customResources: [
        [kubernetesKind: 'Rollout.argoproj.io', spinnakerKind: 'serverGroups', deployPriority: '100', versioned: false, namespaced: true]]])

    when:
    def change = KubernetesDefinitionChange.of(definition, CURRENT, STORED)
    def spec = StrictJson.read(change, DynamicAccountSpec, '')

    then:
    spec.metrics() == false
    spec.customResources() == [new CustomResource('Rollout.argoproj.io', 'serverGroups', '100', false, true)]
    spec.zoneId() == 'zone-a'
    spec.kubeconfigContents() == 'the agent\'s kubeconfig'
  }

  def "left out, they are Clouddriver's defaults again, as its PUT replaces the whole definition"() {
    when:
    def spec = StrictJson.read(KubernetesDefinitionChange.of(
        StrictJson.MAPPER.valueToTree([type: 'kubernetes', name: 'prod']), CURRENT, STORED), DynamicAccountSpec, '')

    then:
    spec.metrics() == null
    spec.customResources().isEmpty()
  }

  def "a setting of Clouddriver's that SpinAgent cannot keep is still refused, naming it"() {
    when:
    KubernetesDefinitionChange.of(StrictJson.MAPPER.valueToTree(STORED + [cachingPolicies: [[kubernetesKind: 'pod', maxEntriesPerAgent: 10]]]),
        CURRENT, STORED)

    then:
    AccountRequestException e = thrown()
    e.message.startsWith('cachingPolicies: not kept for an account SpinAgent serves')
    e.message.endsWith('SpinAgent accounts take context, namespaces, omitNamespaces, kinds, omitKinds, onlySpinnakerManaged,'
        + ' metrics, customResources, permissions and a kubeconfig')
  }
}
