package io.spinagent.plugin.cache.sql

import io.spinagent.plugin.config.SpinAgentProperties
import spock.lang.Specification
import spock.lang.Tag

@Tag('one-class')
class CachedKindsSpec extends Specification {

  def "defaults to Clouddriver's default kinds"() {
    given:
    def cache = new SpinAgentProperties().cache
    def kinds = new CachedKinds(cache.kinds, cache.omitKinds, cache.cacheAll)

    expect:
    ['deployment', 'replicaSet', 'statefulSet', 'daemonSet', 'job', 'cronJob', 'pod', 'service', 'ingress', 'networkPolicy'].every { kinds.caches(it) }
    !kinds.caches('configMap')
    !kinds.caches('namespace')
    !kinds.caches('Certificate.cert-manager.io')
  }

  def "kinds and omitKinds take cache types, kind names and aliases; cacheAll takes everything else"() {
    expect:
    new CachedKinds(['Deployment', 'rs', 'configMap', 'Certificate.cert-manager.io'], ['ReplicaSet'], false).with {
      caches('deployment') && caches('configMap') && caches('Certificate.cert-manager.io') && !caches('replicaSet') && !caches('pod')
    }
    new CachedKinds([], ['svc', 'Secret'], true).with {
      caches('namespace') && caches('Rollout.argoproj.io') && !caches('service') && !caches('secret')
    }
  }
}
