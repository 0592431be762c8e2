package io.spinagent.agent.config.binding

import static io.spinagent.agent.config.binding.ConfigFiles.load

import java.nio.file.Path
import spock.lang.Specification
import spock.lang.TempDir

/** A key the agent does not know is an error at its own line, never silently ignored. */
class UnknownKeySpec extends Specification {

  @TempDir
  Path dir

  def "'#keyPath' is reported with: #hint"() {
    when:
    def result = load(dir, yaml) as ConfigLoadResult.Invalid

    then:
    result.problems()*.describe() == ["${dir.resolve('spinagent.yaml')}:${line}: ${keyPath}: unknown key; ${hint}".toString()]

    where:
    yaml                                                              || line | keyPath                           | hint
    'kubernets:\n  accounts: []\n'                                    || 1    | 'kubernets'                       | "did you mean 'kubernetes'?"
    'clouddriver:\n  grcp: a:1\n'                                     || 2    | 'clouddriver.grcp'                | "did you mean 'grpc'?"
    'clouddriver:\n  tls:\n    servername: x\n'                       || 3    | 'clouddriver.tls.servername'      | "did you mean 'serverName'?"
    'clouddriver:\n  auth:\n    tokenfile: /t\n'                      || 3    | 'clouddriver.auth.tokenfile'      | "did you mean 'tokenFile'?"
    'kubernetes:\n  accounts:\n  - name: a\n    serviceAccount: true\n    namespace: [x]\n' || 5 | 'kubernetes.accounts[0].namespace' | "did you mean 'namespaces'?"
    'logging:\n  levle: debug\n'                                      || 2    | 'logging.levle'                   | "did you mean 'level'?"
    'kubernetes:\n  cluster: x\n'                                     || 2    | 'kubernetes.cluster'              | 'known keys here: accounts, noProxy, cacheGroupSize, cacheGroupDelayMs'
    'features: {}\n'                                                  || 1    | 'features'                        | 'known keys here: agent, clouddriver, kubernetes, server, prometheus, logging, tasks, timeoutSeconds, operations'
  }

  def "every unknown key is reported, in every section"() {
    when:
    def result = load(dir, '''\
      clouddriver:
        grcp: a:1
        backof: {}
      kubernets: {}
      ''') as ConfigLoadResult.Invalid

    then:
    result.problems()*.keyPath() == ['clouddriver.grcp', 'clouddriver.backof', 'kubernets']
  }
}
