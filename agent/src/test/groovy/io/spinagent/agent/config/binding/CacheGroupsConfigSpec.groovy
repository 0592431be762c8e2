package io.spinagent.agent.config.binding

import static io.spinagent.agent.config.binding.ConfigFiles.load

import io.spinagent.agent.config.KubernetesConfig
import java.nio.file.Path
import java.time.Duration
import spock.lang.Specification
import spock.lang.TempDir

/** kubernetes.cacheGroupSize and kubernetes.cacheGroupDelayMs, in Armory Scale Agent's form. */
class CacheGroupsConfigSpec extends Specification {

  @TempDir
  Path dir

  def "off unless both are set above zero; the summary says how accounts start"() {
    when:
    def config = (load(dir, yaml) as ConfigLoadResult.Loaded).config()

    then:
    config.kubernetes().cacheGroups() == expected
    config.kubernetes().cacheGroups().isStaggered() == staggered
    ConfigSummary.lines(config).contains(
        'accounts start in groups of 5, 5000 ms apart (kubernetes.cacheGroupSize, cacheGroupDelayMs)') == staggered

    where:
    yaml                                                          || expected                                                    | staggered
    ''                                                            || KubernetesConfig.CacheGroups.NONE                           | false
    'kubernetes: {cacheGroupSize: 5, cacheGroupDelayMs: 5000}'    || new KubernetesConfig.CacheGroups(5, Duration.ofSeconds(5))  | true
    'kubernetes: {cacheGroupSize: "5", cacheGroupDelayMs: 5_000}' || new KubernetesConfig.CacheGroups(5, Duration.ofSeconds(5))  | true
    'kubernetes: {cacheGroupSize: 5}'                             || new KubernetesConfig.CacheGroups(5, Duration.ZERO)          | false
    'kubernetes: {cacheGroupDelayMs: 5000}'                       || new KubernetesConfig.CacheGroups(0, Duration.ofSeconds(5))  | false
  }

  def "a negative value or one that is not a whole number is refused under its key"() {
    when:
    def result = load(dir, yaml)

    then:
    result instanceof ConfigLoadResult.Invalid
    (result as ConfigLoadResult.Invalid).problems()*.keyPath() == [keyPath]

    where:
    yaml                                    || keyPath
    'kubernetes: {cacheGroupSize: -1}'      || 'kubernetes.cacheGroupSize'
    'kubernetes: {cacheGroupSize: 2.5}'     || 'kubernetes.cacheGroupSize'
    'kubernetes: {cacheGroupDelayMs: -5}'   || 'kubernetes.cacheGroupDelayMs'
    'kubernetes: {cacheGroupDelayMs: 5s}'   || 'kubernetes.cacheGroupDelayMs'
  }
}
