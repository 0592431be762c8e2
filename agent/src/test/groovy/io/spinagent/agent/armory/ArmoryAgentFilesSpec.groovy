package io.spinagent.agent.armory

import static io.spinagent.agent.armory.ArmoryFixtures.path

import io.spinagent.agent.armory.ArmoryKey.Treatment
import io.spinagent.agent.config.AccountPermissions
import io.spinagent.agent.config.CustomResourceConfig
import io.spinagent.agent.config.LoggingConfig
import io.spinagent.agent.config.TasksConfig
import io.spinagent.agent.config.binding.ConfigFiles
import io.spinagent.agent.config.binding.ConfigLoadResult
import java.nio.file.Files
import java.nio.file.Path
import java.time.Duration
import spock.lang.Shared
import spock.lang.Specification
import spock.lang.TempDir

/**
 * Issue 18: the agent reads Armory Scale Agent's armory-agent.yml as it is. Every key of Armory's
 * reference is honoured with Armory's meaning, read in Armory's spelling or value form (and
 * rewritten by the converter), or accepted with a warning that names it, exactly as {@link
 * ArmoryAgentKeys} (and the docs generated from it) say.
 */
class ArmoryAgentFilesSpec extends Specification {

  /**
   * Keys the table lists as SAME that another change (the fleet work on the cluster side) adds to
   * the binder. Until it is merged the binder reports them as unknown; once it is, they are checked
   * like every other SAME key. No other key may be missing.
   */
  @Shared List<ArmoryReading> readings = ArmoryFixtures.NAMES.collect {
    def unreadable = []
    def reading = ArmoryFixtures.loader().readForConversion(path(it), unreadable)
    assert reading != null: unreadable
    reading
  }

  @TempDir Path dir

  def "together the fixtures hold every key of Armory's agent reference"() {
    given:
    Set<String> written = readings.collectMany { ArmoryFixtures.leafPatterns(it.tree()) } as Set

    expect:
    def missing = ArmoryAgentKeys.rows()*.key().findAll { key ->
      !written.any { it == key || it.startsWith(key + '.') || it.startsWith(key + '[]') }
    }
    missing.isEmpty()
  }

  def "#row.key() is #row.treatment().label(), as the table says"() {
    given:
    String key = row.key()
    def problems = readings.collectMany { it.problems() }.findAll { concerns(it.keyPath(), key) }
    def warnings = readings.collectMany { it.warnings() }.findAll { concerns(it.keyPath(), key) }
    def rewrites = readings.collectMany { it.rewrites() }
    def own = rewrites.findAll { concerns(it.keyPath(), key) && !landsHere(it, key) }

    expect:
    switch (row.treatment()) {
      case Treatment.SAME:
        assert problems.isEmpty() && warnings.isEmpty() && own.isEmpty()
        break
      case Treatment.CONVERTED:
        assert problems.isEmpty()
        // Rewritten where it is, or removed with its list and written where the table says.
        def converted = own + rewrites.findAll {
          def at = ArmoryAgentKeys.pattern(it.keyPath())
          key.startsWith(at + '[]') || (row.spinAgentKey() != key && at == row.spinAgentKey())
        }
        assert !converted.isEmpty(): "no rewrite of $key"
        break
      case Treatment.WARNED:
        assert problems.isEmpty()
        assert !warnings.isEmpty() && warnings*.message().every { it == row.warning() }
        assert !own.isEmpty() && own*.kind().every { it == ArmoryRewrite.Kind.REMOVE }
        break
      case Treatment.UNSUPPORTED:
        assert !problems.isEmpty()
        break
    }

    where:
    row << ArmoryAgentKeys.rows()
  }

  /** Whether something reported at {@code keyPath} is about the key {@code key} (or under it). */
  static boolean concerns(String keyPath, String key) {
    if (keyPath == null) {
      return false
    }
    String at = ArmoryAgentKeys.pattern(keyPath)
    at == key || at.startsWith(key + '.') || at.startsWith(key + '[]')
  }

  /** A rewrite at {@code key} made for another Armory key converted into it (kinds, from CRDs). */
  static boolean landsHere(ArmoryRewrite rewrite, String key) {
    rewrite.kind() == ArmoryRewrite.Kind.REPLACE && ArmoryAgentKeys.rows().any {
      it.treatment() == Treatment.CONVERTED && it.key() != key && it.spinAgentKey() == key
    }
  }

  def "nothing in the fixtures is a problem"() {
    expect:
    readings.collectMany { it.problems() }.isEmpty()
  }

  def "armory-agent.yml loads with Armory's meaning of each value form"() {
    when:
    def result = ArmoryFixtures.loader().load(path('armory-agent.yml'))

    then:
    result instanceof ConfigLoadResult.Loaded
    def config = (result as ConfigLoadResult.Loaded).config()
    with(config.clouddriver()) {
      keepAliveHeartbeatSeconds() == 0
      keepAliveTimeoutSeconds() == 30
      backoff().baseDelay() == Duration.ofSeconds(1)
      backoff().maxDelay() == Duration.ofSeconds(120)
      tls().clientKeyFilePassword() == Optional.of('changeit')
      auth().token() == Optional.of('abc123')
    }
    config.timeoutSeconds() == 0
    config.tasks().totalBudget() == TasksConfig.UNLIMITED
    config.tasks().budgetPerAccount() == TasksConfig.UNLIMITED
    config.logging().level() == LoggingConfig.Level.WARN
    config.logging().format() == LoggingConfig.Format.JSON
    def accounts = config.kubernetes().accounts().collectEntries { [(it.name()): it] }
    with(accounts['account-01']) {
      kubeconfigFile() == Optional.of(Path.of('/kubeconfigfiles/kubecfg-account01.yaml'))
      permissions() == new AccountPermissions(['role1', 'role2'], ['role3'])
      kinds().last() == 'ServiceMonitor.monitoring.coreos.com'
      customResources() == [new CustomResourceConfig('ServiceMonitor.monitoring.coreos.com', Optional.empty(),
          Optional.empty(), Optional.empty(), Optional.of(true))]
      metrics() == Optional.of(true)
      noProxy()
      onlySpinnakerManaged()
      !insecure()
    }
    accounts['account-02'].omitNamespaces() == ['kube-system']
    accounts['account-03'].serviceAccount()
    accounts['account-04'].kubeconfigContents() == Optional.of(ArmoryFixtures.KUBECONFIG_04)
  }

  def "a warning names the file, line and key, what the key meant to Armory and what SpinAgent does"() {
    when:
    def result = ArmoryFixtures.loader().load(path('armory-agent.yml'))

    then:
    result.warnings().find { it.keyPath() == 'kubernetes.retries.maxRetries' }.describe() ==
        "${path('armory-agent.yml')}:43: kubernetes.retries.maxRetries: Armory Scale Agent setting (how often a request is" +
        " retried) that SpinAgent does not apply: the agent's watches list and watch again with backoff on their own;" +
        " a relayed request gets the API server's answer once, and Clouddriver's operation decides whether to retry"
  }

  def "a value that asks for nothing SpinAgent would do differently is not warned about, and still dropped by the converter"() {
    when:
    def file = ConfigFiles.write(dir, 'spinagent.yaml', '''\
      dynamicAccountsEnabled: true
      pprof: {enabled: false}
      clouddriver: {insecure: true, keepAliveOperationSeconds: 0}
      kubernetes:
        serverSideApply: {enabled: allowed}
        accounts: [{name: a, serviceAccount: true, oAuthScopes: []}]
      logging: {localTime: true, compress: false}
      ''')
    def reading = ArmoryFixtures.loader().readForConversion(file, [])

    then:
    reading.problems().isEmpty()
    reading.warnings().isEmpty()
    reading.rewrites()*.keyPath() as Set == ['dynamicAccountsEnabled', 'pprof.enabled', 'clouddriver.keepAliveOperationSeconds',
        'kubernetes.serverSideApply.enabled', 'kubernetes.accounts[0].oAuthScopes',
        'logging.localTime', 'logging.compress'] as Set
    reading.rewrites().every { it.kind() == ArmoryRewrite.Kind.REMOVE && it.reason().contains('changes nothing') }
  }

  def "'#key' is an error with a suggestion: strictness stays for misspellings"() {
    when:
    def result = ConfigFiles.load(dir, yaml) as ConfigLoadResult.Invalid

    then:
    result.problems()*.keyPath() == [key]
    result.problems()[0].message() == message

    where:
    yaml                                                                                || key                                         | message
    'kubernetes: {accounts: [{name: a, serviceAccount: true, kubeconfigFlie: /k}]}'     || 'kubernetes.accounts[0].kubeconfigFlie'     | "unknown key; did you mean 'kubeconfigFile'?"
    'clouddriver: {keepAliveTimeOutSecond: 3}'                                          || 'clouddriver.keepAliveTimeOutSecond'        | "unknown key; did you mean 'keepAliveTimeoutSeconds'?"
    'kubernetes: {retries: {maxRetry: 3}}'                                              || 'kubernetes.retries.maxRetry'               | "unknown key; did you mean 'maxRetries'?"
    'ppof: {enabled: true}'                                                             || 'ppof'                                      | "unknown key; did you mean 'pprof'?"
    'kubernetes: {serverSideApply: {kinds: [{knd: Pod}]}}'                              || 'kubernetes.serverSideApply.kinds[0].knd'   | "unknown key; did you mean 'kind'?"
    'kubernetes: {retries: true}'                                                       || 'kubernetes.retries'                        | "expected a map of keys, got 'true'"
    'kubernetes: {accounts: [{name: a, serviceAccount: true, customResourceDefinitions: [{kind: "a b"}]}]}' || 'kubernetes.accounts[0].customResourceDefinitions[0].kind' | "'a b' is not a valid kind: write Kind or Kind.group, e.g. Deployment or Certificate.cert-manager.io"
    'kubernetes: {accounts: [{name: a, serviceAccount: true, customResourceDefinitions: [{kind: X.y, scope: Global}]}]}' || 'kubernetes.accounts[0].customResourceDefinitions[0].scope' | "expected Cluster or Namespaced, got 'Global'"
  }

  def "clouddriver.insecure left out of a file written for Armory (#why) is warned about; the converter writes Armory's default"() {
    given:
    def file = ConfigFiles.write(dir, name, yaml)

    when:
    def result = ArmoryFixtures.loader().load(file)
    def reading = ArmoryFixtures.loader().readForConversion(file, [])

    then:
    result instanceof ConfigLoadResult.Loaded
    !(result as ConfigLoadResult.Loaded).config().clouddriver().insecure()
    result.warnings().findAll { it.keyPath() == 'clouddriver.insecure' }*.message() == [
        'not set, in a file written for Armory Scale Agent: Armory\'s agent (1.0.42 and later) then connects in plaintext,' +
            ' SpinAgent connects with TLS. If Clouddriver\'s agent port is plaintext (the plugin\'s' +
            ' spinagent.grpc.security.enabled is false), set clouddriver.insecure: true; otherwise configure clouddriver.tls']
    reading.rewrites().find { it.keyPath() == 'clouddriver.insecure' }.with { [it.kind(), it.value()] } == [ArmoryRewrite.Kind.ADD, true]

    where:
    why                          | name                | yaml
    'by its name'                | 'armory-agent.yml'  | 'kubernetes: {accounts: [{name: a, serviceAccount: true}]}'
    'by its old name'            | 'kubesvc.yaml'      | 'clouddriver: {grpc: "cd:9091"}'
    'by an Armory spelling'      | 'agent.yaml'        | 'kubernetes: {accounts: [{name: a, kubeConfigFile: /k}]}'
    'by an Armory value form'    | 'agent.yaml'        | 'clouddriver: {backoff: {baseDelay: 1000000000}}'
    'by a key only Armory has'   | 'agent.yaml'        | 'pprof: {enabled: true}'
  }

  def "no such warning when the file #why"() {
    given:
    def file = ConfigFiles.write(dir, name, yaml)

    expect:
    ArmoryFixtures.loader().load(file).warnings().every { it.keyPath() != 'clouddriver.insecure' }
    ArmoryFixtures.loader().readForConversion(file, []).rewrites().every { it.keyPath() != 'clouddriver.insecure' }

    where:
    why                                       | name               | yaml
    'is SpinAgent\'s own'                      | 'spinagent.yaml'   | 'kubernetes: {accounts: [{name: a, serviceAccount: true}]}'
    'sets clouddriver.insecure'               | 'armory-agent.yml' | 'clouddriver: {insecure: false}'
    'sets up TLS (Armory then uses TLS too)'  | 'armory-agent.yml' | 'clouddriver: {tls: {cacertFile: /ca.crt}}'
  }

  def "the overlay may set clouddriver.insecure for the main file"() {
    given:
    def main = ConfigFiles.write(dir, 'armory-agent.yml', 'kubernetes: {accounts: [{name: a, serviceAccount: true}]}')
    ConfigFiles.write(dir, 'armory-agent-local.yml', 'clouddriver: {insecure: true}')

    when:
    def result = ArmoryFixtures.loader().load(main) as ConfigLoadResult.Loaded

    then:
    result.config().clouddriver().insecure()
    result.warnings().isEmpty()
  }

  def "logging.level #level is read as #expected#note"() {
    when:
    def result = ConfigFiles.load(dir, "clouddriver: {insecure: true}\nlogging: {level: $level}") as ConfigLoadResult.Loaded

    then:
    result.config().logging().level() == expected
    result.warnings()*.message() == warnings

    where:
    level     || expected                    | warnings
    'WARNING' || LoggingConfig.Level.WARN    | []
    'Fatal'   || LoggingConfig.Level.ERROR   | ["'fatal' is a level of Armory Scale Agent's logger above error; SpinAgent's most severe level is error, so errors are logged too"]
    'panic'   || LoggingConfig.Level.ERROR   | ["'panic' is a level of Armory Scale Agent's logger above error; SpinAgent's most severe level is error, so errors are logged too"]
    'debug'   || LoggingConfig.Level.DEBUG   | []
    note = warnings ? ', with a warning' : ''
  }

  def "customResourceDefinitions without kinds: every custom resource is watched already, which the warning says"() {
    when:
    def result = ConfigFiles.load(dir, '''\
      clouddriver: {insecure: true}
      kubernetes:
        accounts:
          - name: a
            serviceAccount: true
            customResourceDefinitions: [{kind: ServiceMonitor.monitoring.coreos.com, scope: Namespaced}]
      ''') as ConfigLoadResult.Loaded

    then:
    result.config().kubernetes().accounts()[0].kinds().isEmpty()
    result.config().kubernetes().accounts()[0].customResources()*.kubernetesKind() == ['ServiceMonitor.monitoring.coreos.com']
    result.warnings()*.keyPath() == ['kubernetes.accounts[0].customResourceDefinitions']
    result.warnings()[0].message().startsWith('without kinds, SpinAgent watches every custom resource')
  }

  def "kubernetes.noProxy reaches every account of the file"() {
    when:
    def result = ConfigFiles.load(dir, '''\
      kubernetes:
        noProxy: true
        accounts: [{name: a, serviceAccount: true}, {name: b, kubeconfigFile: /k, noProxy: false}]
      ''') as ConfigLoadResult.Loaded

    then:
    result.config().kubernetes().noProxy()
    result.config().kubernetes().accounts()*.noProxy() == [true, true]
  }
}
