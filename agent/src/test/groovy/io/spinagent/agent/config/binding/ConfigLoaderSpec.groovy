package io.spinagent.agent.config.binding

import static io.spinagent.agent.config.binding.ConfigFiles.load
import static io.spinagent.agent.config.binding.ConfigFiles.write

import io.spinagent.agent.config.AccountPermissions
import io.spinagent.agent.config.AgentIdentityConfig
import io.spinagent.agent.config.AuthConfig
import io.spinagent.agent.config.BackoffConfig
import io.spinagent.agent.config.GrpcTarget
import io.spinagent.agent.config.KubernetesAccountConfig
import io.spinagent.agent.config.LoggingConfig
import io.spinagent.agent.config.PrometheusConfig
import io.spinagent.agent.config.ServerConfig
import io.spinagent.agent.config.TasksConfig
import io.spinagent.agent.config.TlsConfig
import io.spinagent.agent.config.yaml.Origin
import io.spinagent.agent.config.yaml.YamlFileReader
import java.nio.file.Files
import java.nio.file.Path
import java.time.Duration
import spock.lang.Specification
import spock.lang.TempDir

class ConfigLoaderSpec extends Specification {

  @TempDir
  Path dir

  def "a full configuration is loaded with every value as written"() {
    when:
    def result = load(dir, '''\
      agent:
        id: agent-eu-1
        zoneId: eu-west-1
      clouddriver:
        grpc: clouddriver.spinnaker.svc:9191
        tls:
          serverName: clouddriver.example.com
          clientCertFile: /certs/tls.crt
          clientKeyFile: /certs/tls.key
          cacertFile: ca.pem
        auth:
          tokenFile: /secrets/token
        keepAliveHeartbeatSeconds: 30
        keepAliveTimeoutSeconds: 15
        backoff:
          baseDelay: 500ms
          multiplier: 2
          jitter: 0.1
          maxDelay: 2m
        outbox:
          maxBytes: 128Mi
      kubernetes:
        accounts:
          - name: prod-eu
            kubeconfigFile: /kube/prod.yaml
            context: prod
            namespaces: [web, payments]
            kinds: [Deployment, Service, Certificate.cert-manager.io]
            onlyNamespacedResources: true
            onlySpinnakerManaged: true
            permissions:
              READ: [dev, ops]
              WRITE: [ops]
            maxResumableResourceAgeMs: 60000
          - name: in_cluster
            serviceAccount: true
            omitNamespaces: [kube-system]
            omitKinds: [Event]
      server:
        port: 9082
      prometheus:
        enabled: true
        port: 9008
      logging:
        format: json
        level: DEBUG
      tasks:
        totalBudget: 500
        budgetPerAccount: 25
      timeoutSeconds: 45
      ''')

    then:
    result instanceof ConfigLoadResult.Loaded
    def config = (result as ConfigLoadResult.Loaded).config()

    config.agent() == new AgentIdentityConfig('agent-eu-1', Optional.of('eu-west-1'))

    def cd = config.clouddriver()
    cd.grpc() == new GrpcTarget('clouddriver.spinnaker.svc', 9191)
    !cd.insecure()
    cd.tls().serverName() == Optional.of('clouddriver.example.com')
    !cd.tls().insecureSkipVerify()
    cd.tls().clientCertFile() == Optional.of(Path.of('/certs/tls.crt'))
    cd.tls().clientKeyFile() == Optional.of(Path.of('/certs/tls.key'))
    cd.tls().cacertFile() == Optional.of(dir.resolve('ca.pem').toAbsolutePath().normalize())
    cd.auth() == new AuthConfig(Optional.empty(), Optional.of(Path.of('/secrets/token')))
    cd.keepAliveHeartbeatSeconds() == 30
    cd.keepAliveTimeoutSeconds() == 15
    cd.backoff() == new BackoffConfig(Duration.ofMillis(500), 2.0d, 0.1d, Duration.ofMinutes(2))
    cd.outbox().maxBytes() == 128L * 1024 * 1024

    def accounts = config.kubernetes().accounts()
    accounts*.name() == ['prod-eu', 'in_cluster']
    with(accounts[0]) {
      kubeconfigFile() == Optional.of(Path.of('/kube/prod.yaml'))
      !serviceAccount()
      context() == Optional.of('prod')
      namespaces() == ['web', 'payments']
      omitNamespaces() == []
      kinds() == ['Deployment', 'Service', 'Certificate.cert-manager.io']
      onlyNamespacedResources()
      onlySpinnakerManaged()
      permissions() == new AccountPermissions(['dev', 'ops'], ['ops'])
      maxResumableResourceAge() == Duration.ofMinutes(1)
    }
    with(accounts[1]) {
      serviceAccount()
      kubeconfigFile() == Optional.empty()
      omitNamespaces() == ['kube-system']
      omitKinds() == ['Event']
      !permissions().isRestricted()
    }

    config.server() == new ServerConfig(9082)
    config.prometheus() == new PrometheusConfig(true, 9008)
    config.logging() == new LoggingConfig(LoggingConfig.Format.JSON, LoggingConfig.Level.DEBUG)
    config.tasks() == new TasksConfig(500, 25)
    config.timeoutSeconds() == 45
  }

  def "an empty file is a valid configuration made of documented defaults"() {
    when:
    def result = load(dir, '')

    then:
    result instanceof ConfigLoadResult.Loaded
    def config = (result as ConfigLoadResult.Loaded).config()
    config.agent() == new AgentIdentityConfig('agent-host-1', Optional.empty())
    with(config.clouddriver()) {
      grpc().toString() == 'spin-clouddriver-grpc:9091'
      !insecure()
      tls() == new TlsConfig(Optional.empty(), false, Optional.empty(), Optional.empty(), Optional.empty())
      !auth().isConfigured()
      keepAliveHeartbeatSeconds() == 20
      keepAliveTimeoutSeconds() == 10
      backoff() == new BackoffConfig(Duration.ofSeconds(1), 1.6d, 0.2d, Duration.ofSeconds(120))
      outbox().maxBytes() == 64L * 1024 * 1024
    }
    config.kubernetes().accounts() == []
    config.server().port() == 8082
    config.prometheus() == new PrometheusConfig(false, 8008)
    config.logging() == new LoggingConfig(LoggingConfig.Format.TEXT, LoggingConfig.Level.INFO)
    config.tasks() == new TasksConfig(1000, 50)
    config.timeoutSeconds() == 30
  }

  def "an account gets documented defaults for every key but its name and credentials"() {
    when:
    def result = load(dir, '''\
      kubernetes:
        accounts:
          - name: minimal
            serviceAccount: true
      ''')

    then:
    def account = (result as ConfigLoadResult.Loaded).config().kubernetes().accounts()[0]
    account == new KubernetesAccountConfig('minimal', Optional.empty(), true, Optional.empty(), [], [], [], [],
        false, false, AccountPermissions.UNRESTRICTED, Duration.ofMinutes(5))
  }

  def "the default agent id is the host name made into a valid id"() {
    when:
    def result = new ConfigLoader({ hostname }).load(write(dir, 'spinagent.yaml', ''))

    then:
    (result as ConfigLoadResult.Loaded).config().agent().id() == expectedId

    where:
    hostname              || expectedId
    'spinagent-7d9f-x2kq' || 'spinagent-7d9f-x2kq'
    'host name!'          || 'host-name'
    ''                    || 'spinagent'
  }

  def "relative file paths are resolved against the directory of the file that names them"() {
    given:
    def config = write(dir, 'conf/spinagent.yaml', '''\
      kubernetes:
        accounts:
          - name: a
            kubeconfigFile: kube/a.yaml
      ''')

    when:
    def result = new ConfigLoader({ 'h' }).load(config)

    then:
    (result as ConfigLoadResult.Loaded).config().kubernetes().accounts()[0].kubeconfigFile() ==
        Optional.of(dir.resolve('conf/kube/a.yaml').toAbsolutePath())
  }

  def "the -local overlay is deep-merged over the main file: maps merge, lists and scalars replace"() {
    given:
    def main = write(dir, 'spinagent.yaml', '''\
      clouddriver:
        grpc: base:9091
        keepAliveHeartbeatSeconds: 40
        backoff:
          baseDelay: 2s
          maxDelay: 1m
        auth:
          token: from-base
      kubernetes:
        accounts:
          - name: base-account
            serviceAccount: true
      logging:
        level: debug
      ''')
    write(dir, 'spinagent-local.yaml', '''\
      clouddriver:
        grpc: overlay:9092
        backoff:
          maxDelay: 3m
        auth: ~
      kubernetes:
        accounts:
          - name: overlay-account
            kubeconfigFile: /kube/config
      ''')

    when:
    def result = new ConfigLoader({ 'h' }).load(main)

    then:
    result instanceof ConfigLoadResult.Loaded
    result.files() == [main, dir.resolve('spinagent-local.yaml')]
    def config = (result as ConfigLoadResult.Loaded).config()
    config.clouddriver().grpc() == new GrpcTarget('overlay', 9092)
    config.clouddriver().keepAliveHeartbeatSeconds() == 40
    config.clouddriver().backoff().baseDelay() == Duration.ofSeconds(2)
    config.clouddriver().backoff().maxDelay() == Duration.ofMinutes(3)
    !config.clouddriver().auth().isConfigured()
    config.kubernetes().accounts()*.name() == ['overlay-account']
    config.logging().level() == LoggingConfig.Level.DEBUG
  }

  def "a problem in a merged configuration names the file the offending value came from"() {
    given:
    def main = write(dir, 'spinagent.yaml', '''\
      clouddriver:
        auth:
          token: secret-token
      ''')
    write(dir, 'spinagent-local.yaml', '''\
      clouddriver:
        auth:
          tokenFile: /secrets/token
        keepAliveTimeoutSeconds: -1
      ''')

    when:
    def result = new ConfigLoader({ 'h' }).load(main) as ConfigLoadResult.Invalid

    then:
    result.problems()*.describe() == [
        "${dir.resolve('spinagent-local.yaml')}:3: clouddriver.auth.tokenFile: set either clouddriver.auth.token or"
            + " clouddriver.auth.tokenFile, not both (token is set at ${main}:3)",
        "${dir.resolve('spinagent-local.yaml')}:4: clouddriver.keepAliveTimeoutSeconds: must be at least 0, got -1"]
    result.report().startsWith("invalid configuration ${main} (with overlay ${dir.resolve('spinagent-local.yaml')}), 2 problems:")
    !result.report().contains('secret-token')
  }

  def "the overlay of #name is #overlay"() {
    expect:
    ConfigLoader.overlayFor(Path.of('/etc/spinagent').resolve(name)) == Path.of('/etc/spinagent').resolve(overlay)

    where:
    name                || overlay
    'spinagent.yaml'    || 'spinagent-local.yaml'
    'armory-agent.yml'  || 'armory-agent-local.yml'
    'config'            || 'config-local'
  }

  def "a missing file is reported by name"() {
    given:
    def missing = dir.resolve('nope.yaml')

    when:
    def result = new ConfigLoader({ 'h' }).load(missing) as ConfigLoadResult.Invalid

    then:
    result.problems()*.describe() == ["${missing}: cannot read configuration file: it does not exist"]
  }

  def "a directory is not a configuration file"() {
    when:
    def result = new ConfigLoader({ 'h' }).load(dir) as ConfigLoadResult.Invalid

    then:
    result.problems()*.describe() == ["${dir}: cannot read configuration file: it is a directory"]
  }

  def "a file too large to be a configuration is refused before it is read"() {
    given:
    def big = dir.resolve('big.yaml')
    Files.write(big, new byte[(int) YamlFileReader.MAX_BYTES + 1])

    when:
    def result = new ConfigLoader({ 'h' }).load(big) as ConfigLoadResult.Invalid

    then:
    result.problems()*.describe() == ["${big}: cannot read configuration file: it is larger than 16Mi, the limit for a configuration file".toString()]
  }

  def "a file that is not UTF-8 text is reported as such"() {
    given:
    def binary = dir.resolve('binary.yaml')
    Files.write(binary, [0xC3, 0x28, 0xFF] as byte[])

    when:
    def result = new ConfigLoader({ 'h' }).load(binary) as ConfigLoadResult.Invalid

    then:
    result.problems()*.describe() == ["${binary}: cannot read configuration file: it is not UTF-8 text".toString()]
  }

  def "a YAML syntax error is reported with file, line and column"() {
    when:
    def result = load(dir, '''\
      clouddriver:
        grpc: a:1
       insecure: true
      ''') as ConfigLoadResult.Invalid

    then:
    result.problems().size() == 1
    with(result.problems()[0]) {
      origin() == new Origin(dir.resolve('spinagent.yaml'), 3)
      keyPath() == null
      message().startsWith('invalid YAML: ')
      message().endsWith('(column 2)')
    }
  }

  def "a syntax error in the overlay names the overlay"() {
    given:
    def main = write(dir, 'spinagent.yaml', 'timeoutSeconds: 10\n')
    def overlay = write(dir, 'spinagent-local.yaml', 'kubernetes: [\n')

    when:
    def result = new ConfigLoader({ 'h' }).load(main) as ConfigLoadResult.Invalid

    then:
    result.files() == [main, overlay]
    result.problems().every { it.origin().file() == overlay && it.message().startsWith('invalid YAML') }
  }

  def "the configuration must be a map"() {
    when:
    def result = load(dir, '- a\n- b\n') as ConfigLoadResult.Invalid

    then:
    result.problems()*.message() == ["the configuration must be a YAML map of keys such as 'clouddriver' and 'kubernetes'"]
  }

  def "YAML tags naming Java classes are refused without constructing anything"() {
    when:
    def result = load(dir, '''\
      clouddriver:
        grpc: !!java.net.URL ["http://example.com"]
      ''') as ConfigLoadResult.Invalid

    then:
    result.problems().size() == 1
    with(result.problems()[0]) {
      origin() == new Origin(dir.resolve('spinagent.yaml'), 2)
      message().startsWith('invalid YAML: Global tag is not allowed: tag:yaml.org,2002:java.net.URL')
    }
  }

  def "any other explicit YAML tag is reported under its key path"() {
    when:
    def result = load(dir, '''\
      clouddriver:
        grpc: !custom a:1
        insecure: !!binary aGk=
      kubernetes: !!set {a, b}
      ''') as ConfigLoadResult.Invalid

    then:
    result.problems().collect { [it.origin().line(), it.keyPath(), it.message().takeWhile { it != ';' }] } == [
        [2, 'clouddriver.grpc', "unsupported YAML tag '!custom'"],
        [3, 'clouddriver.insecure', "unsupported YAML tag 'tag:yaml.org,2002:binary'"],
        [4, 'kubernetes', "unsupported YAML tag 'tag:yaml.org,2002:set'"]]
  }

  def "an alias that contains itself is reported instead of recursing forever"() {
    when:
    def result = load(dir, 'timeoutSeconds: &x [*x]\n') as ConfigLoadResult.Invalid

    then:
    result.problems()*.describe() == [
        "${dir.resolve('spinagent.yaml')}:1: timeoutSeconds[0]: invalid YAML: an alias refers to a value that contains it".toString(),
        "${dir.resolve('spinagent.yaml')}:1: timeoutSeconds: expected a whole number, got a list".toString()]
  }

  def "an alias stands for its anchor's value wherever it is used"() {
    when:
    def result = load(dir, '''\
      kubernetes:
        accounts:
          - {name: a, serviceAccount: true, namespaces: &shared [team-a, team-b]}
          - {name: b, serviceAccount: true, namespaces: *shared}
      ''') as ConfigLoadResult.Loaded

    then:
    result.config().kubernetes().accounts()*.namespaces() == [['team-a', 'team-b'], ['team-a', 'team-b']]
  }

  def "aliases that stand for more than 1,000,000 nodes are refused at the line where they pass the limit"() {
    given: '48 aliases (SnakeYAML allows 50) standing for 2^24 values, in 1 KB'
    def bomb = 'timeoutSeconds: 30\nlaughs:\n  - &a0 [lol, lol]\n' +
        (1..24).collect { "  - &a$it [*a${it - 1}, *a${it - 1}]\n" }.join('')

    when:
    def result = load(dir, bomb) as ConfigLoadResult.Invalid

    then:
    result.problems()*.describe() == ["${dir.resolve('spinagent.yaml')}:20: cannot read configuration file: aliases expand" +
        ' to more than 1000000 nodes (maps, lists, keys and values), the limit for a YAML file the agent reads']
  }

  def "YAML that the configuration cannot be is refused as a whole, naming the line: #what"() {
    when:
    def result = load(dir, yaml) as ConfigLoadResult.Invalid

    then:
    result.problems()*.describe() == ["${dir.resolve('spinagent.yaml')}:$line: $message".toString()]

    where:
    what                     | yaml                                              || line | message
    'an undefined alias'     | 'timeoutSeconds: *nowhere\n'                      || 1    | 'invalid YAML: found undefined alias nowhere'
    'a second document'      | 'timeoutSeconds: 30\n---\ntimeoutSeconds: 40\n'   || 2    | 'invalid YAML: expected a single document in the stream, but found another document'
    'nesting past 50 levels' | 'x: ' + '[' * 51 + ']' * 51 + '\n'                || 1    | 'invalid YAML: maps and lists nest more than 50 levels deep'
  }

  def "of a file with thousands of problems, the first 1000 are listed and the others counted"() {
    when:
    def result = load(dir, (1..1500).collect { "unknown$it: 1" }.join('\n') + '\n') as ConfigLoadResult.Invalid

    then:
    result.problems().size() == 1000
    result.unlisted() == 500
    result.problems()[0].describe().startsWith("${dir.resolve('spinagent.yaml')}:1: unknown1: unknown key")
    result.report().readLines()[0] == "invalid configuration ${dir.resolve('spinagent.yaml')}, 1500 problems:".toString()
    result.report().readLines().last() == '  and 500 more, not listed (only the first 1000 found are)'
  }

  def "duplicate keys and merge keys are reported rather than resolved silently"() {
    when:
    def result = load(dir, '''\
      server:
        port: 1000
        port: 2000
      base: &base {port: 3000}
      prometheus:
        <<: *base
      ''') as ConfigLoadResult.Invalid

    then:
    result.problems()*.describe().containsAll([
        "${dir.resolve('spinagent.yaml')}:3: server.port: duplicate key 'port' (already set at line 2)".toString(),
        "${dir.resolve('spinagent.yaml')}:6: prometheus: YAML merge keys (<<) are not supported; write the keys out,".toString()
            + " or use the -local overlay file"])
  }

  def "every problem is reported, in file order, not just the first"() {
    when:
    def result = load(dir, '''\
      clouddriver:
        grpc: nohost
      kubernetes:
        accounts:
          - kubeconfigFile: /k
          - name: Bad
            serviceAccount: true
      server:
        port: http
      ''') as ConfigLoadResult.Invalid

    then:
    result.problems().collect { [it.origin().line(), it.keyPath()] } == [
        [2, 'clouddriver.grpc'],
        [5, 'kubernetes.accounts[0].name'],
        [6, 'kubernetes.accounts[1].name'],
        [9, 'server.port']]
  }

  def "the auth token never appears in the printed form of the configuration"() {
    when:
    def config = (load(dir, '''\
      clouddriver:
        auth:
          token: very-secret
      ''') as ConfigLoadResult.Loaded).config()

    then:
    config.clouddriver().auth().token() == Optional.of('very-secret')
    !config.toString().contains('very-secret')
    config.toString().contains('token=<redacted>')
  }
}
