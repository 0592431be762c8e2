package io.spinagent.agent.config.binding

import static io.spinagent.agent.config.binding.ConfigFiles.load

import java.nio.file.Path
import spock.lang.Specification
import spock.lang.TempDir

class ConfigSummarySpec extends Specification {

  @TempDir
  Path dir

  def "the summary names the accounts and the Clouddriver target but never the token"() {
    given:
    def config = (load(dir, '''\
      agent: {id: agent-1, zoneId: eu}
      clouddriver:
        grpc: cd:9091
        tls: {serverName: cd.example.com}
        auth: {token: s3cr3t-token-value}
      kubernetes:
        accounts:
          - name: prod
            kubeconfigFile: /kube/prod
            context: admin
            namespaces: [web, api]
            permissions: {READ: [dev], WRITE: [ops]}
          - name: local
            serviceAccount: true
            omitKinds: [Event]
      prometheus: {enabled: true}
      operations:
        maxConcurrentPerAccount: 8
        allow:
          - {verbs: [get, list], paths: ['/api/v1/**']}
      ''') as ConfigLoadResult.Loaded).config()

    when:
    def lines = ConfigSummary.lines(config)

    then:
    lines == [
        'agent id agent-1, zone eu',
        'clouddriver cd:9091 over TLS (server name cd.example.com), auth: token from configuration',
        '2 accounts:',
        '  prod: kubeconfig /kube/prod context admin; namespaces web,api; READ [dev] WRITE [ops]',
        '  local: in-cluster service account; all namespaces; all kinds except Event; unrestricted',
        'server port 8082, prometheus port 8008, logging text at info',
        'operations: 8 at once and 64 queued per account, allowed only: verbs [get, list] on [/api/v1/**]']
    lines.every { !it.contains('s3cr3t') }
  }

  def "a configuration without accounts says that accounts may come from Clouddriver"() {
    given:
    def config = (load(dir, 'clouddriver: {insecure: true, auth: {tokenFile: /run/token}}') as ConfigLoadResult.Loaded).config()

    expect:
    ConfigSummary.lines(config) == [
        'agent id agent-host-1',
        'clouddriver spin-clouddriver-grpc:9091 over plaintext (insecure), auth: token from /run/token',
        'no static accounts (Clouddriver may add accounts at run time)',
        'server port 8082, prometheus disabled, logging text at info',
        'operations: 32 at once and 64 queued per account, every request allowed']
  }
}
