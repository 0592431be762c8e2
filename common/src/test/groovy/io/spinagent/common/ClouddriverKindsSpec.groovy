package io.spinagent.common

import spock.lang.Specification

class ClouddriverKindsSpec extends Specification {

  def "'#value' names the Spinnaker kind #expected"() {
    expect:
    ClouddriverKinds.spinnakerKind(value) == Optional.ofNullable(expected)

    where:
    value            || expected
    'serverGroups'   || 'serverGroups'
    'ServerGroups'   || 'serverGroups'
    'LOADBALANCERS'  || 'loadBalancers'
    ' unclassified ' || 'unclassified'
    'serverGroup'    || null
    'rollouts'       || null
    ''               || null
    null             || null
  }

  def "deployPriority '#value' is #what to Clouddriver"() {
    expect:
    ClouddriverKinds.isDeployPriority(value) == valid

    where:
    value                          || valid
    '100'                          || true
    '-5'                           || true
    'WORKLOAD_CONTROLLER_PRIORITY' || true
    'workload_controller_priority' || true
    'NAMESPACE_PRIORITY'           || true
    'HIGH'                         || false
    '1.5'                          || false
    '99999999999'                  || false
    ' 100'                         || false
    ''                             || false
    null                           || false
    what = valid ? 'a priority' : 'no priority'
  }

  def "'#kind' is #what"() {
    expect:
    ClouddriverKinds.isKubernetesKind(kind) == valid

    where:
    kind                                || valid
    'Rollout.argoproj.io'               || true
    'Deployment'                        || true
    'HTTPProxy.projectcontour.io'       || true
    'a b'                               || false
    'Rollout.Argoproj.io'               || false
    '.argoproj.io'                      || false
    'R' + 'x' * 400                     || false
    null                                || false
    what = valid ? 'a kind' : 'not a kind'
  }
}
