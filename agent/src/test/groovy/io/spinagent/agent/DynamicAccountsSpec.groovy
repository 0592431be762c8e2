package io.spinagent.agent

import static io.spinagent.agent.Eventually.eventually

import groovy.json.JsonSlurper
import io.spinagent.agent.cluster.ClusterOptions
import io.spinagent.agent.config.binding.ConfigLoadResult
import io.spinagent.agent.config.binding.ConfigLoader
import io.spinagent.agent.stream.ChannelServer
import io.spinagent.protocol.v1.AccountDefinition
import io.spinagent.protocol.v1.AccountHealth
import io.spinagent.protocol.v1.Command
import io.spinagent.protocol.v1.CommandResult
import io.spinagent.protocol.v1.Permissions
import io.spinagent.testkit.kubernetes.KubernetesApiServer
import java.net.http.HttpClient
import java.net.http.HttpRequest
import java.net.http.HttpResponse
import java.nio.file.Files
import java.nio.file.Path
import java.nio.file.StandardCopyOption
import java.time.Duration
import spock.lang.Specification
import spock.lang.TempDir

/**
 * Dynamic accounts: Clouddriver adds, updates and removes accounts with commands over the real
 * channel (a gRPC server speaking the plugin's side of the protocol), and the whole agent runtime
 * serves them from testkit's Kubernetes API servers like configured accounts.
 */
class DynamicAccountsSpec extends Specification {

  static final ClusterOptions FAST = ClusterOptions.DEFAULTS.withRetry(Duration.ofMillis(200), Duration.ofSeconds(1))

  @TempDir Path dir
  List<AutoCloseable> closeables = []
  HttpClient http = HttpClient.newHttpClient()
  ChannelServer channel = new ChannelServer()

  def cleanup() {
    closeables.reverse().each { it.close() }
    channel.close()
  }

  KubernetesApiServer cluster(String... namespaces) {
    def server = KubernetesApiServer.builder().start()
    closeables << server
    namespaces.each { server.createObject("""{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"$it"}}""") }
    server
  }

  static String deployment(String name, String namespace = 'default') {
    """{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"$name","namespace":"$namespace"},
      "spec":{"selector":{"matchLabels":{"a":"b"}},"template":{"metadata":{"labels":{"a":"b"}},
      "spec":{"containers":[{"name":"c","image":"i"}]}}}}"""
  }

  Path kubeconfigFile(KubernetesApiServer server) {
    server.kubeconfig().writeTo(dir.resolve("kubeconfig-${UUID.randomUUID()}.yaml"))
  }

  /** A configuration talking to the test channel server, with the given file accounts (name to kubeconfig). */
  String yaml(Map<String, Path> accounts) {
    def lines = ["clouddriver: {grpc: '${channel.target()}', insecure: true, backoff: {baseDelay: 100ms, maxDelay: 500ms}}",
                 'kubernetes:', '  accounts:']
    accounts.each { name, kubeconfig ->
      lines << "    - name: $name"
      lines << "      kubeconfigFile: $kubeconfig"
      lines << '      kinds: [Deployment]'
    }
    lines.join('\n') + '\n'
  }

  AgentRuntime start(Path file) {
    def loader = new ConfigLoader({ 'test-agent' })
    def loaded = loader.load(file)
    assert loaded instanceof ConfigLoadResult.Loaded: loaded
    def runtime = AgentRuntime.start(file, loaded.config(), loader, FAST, 0)
    closeables << runtime
    runtime
  }

  /** An agent with one configured account, "configured", streaming {@code cluster}. */
  AgentRuntime agentWithConfiguredAccount(KubernetesApiServer cluster, Path file = dir.resolve('spinagent.yaml')) {
    cluster.createObject(deployment('f1'))
    Files.writeString(file, yaml(configured: kubeconfigFile(cluster)))
    def runtime = start(file)
    assert eventually { channel.objects('configured') == ['Deployment default/f1'] as Set }
    runtime
  }

  static AccountDefinition.Builder definition(String name, KubernetesApiServer cluster, List<String> namespaces = []) {
    AccountDefinition.newBuilder().setName(name).setKubeconfigContents(cluster.kubeconfig().toYaml())
        .addKinds('Deployment').addAllNamespaces(namespaces)
        .setPermissions(Permissions.newBuilder().addRead('dev').addWrite('ops'))
  }

  String get(AgentRuntime runtime, String path) {
    http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:${runtime.adminPort()}$path")).build(),
        HttpResponse.BodyHandlers.ofString()).body()
  }

  List<Map> accounts(AgentRuntime runtime) {
    new JsonSlurper().parseText(get(runtime, '/accounts')).accounts as List<Map>
  }

  def "an account added by command streams like a configured one; an update restarts only it; removed, it stops"() {
    given:
    def fileCluster = cluster()
    def dynamicCluster = cluster('team-a', 'team-b')
    dynamicCluster.createObject(deployment('d1', 'team-a'))
    dynamicCluster.createObject(deployment('d2', 'team-b'))
    def runtime = agentWithConfiguredAccount(fileCluster)

    when:
    def added = channel.add(definition('dyn', dynamicCluster, ['team-a']))

    then: "accepted, then announced the usual way once its cluster is identified"
    added.ok
    added.error == ''
    eventually { channel.objects('dyn') == ['Deployment team-a/d1'] as Set }
    with(channel.accounts['dyn']) {
      namespacesList == ['team-a']
      kindsList*.kind == ['Deployment']
      permissions.readList == ['dev']
      permissions.writeList == ['ops']
      cluster.apiServerHost == "${dynamicCluster.host()}:${dynamicCluster.port()}".toString()
    }
    accounts(runtime).find { it.name == 'dyn' }.dynamic == true

    and: "Clouddriver's requests for it are performed with its credentials"
    with(channel.tunnelGet('dyn', '/apis/apps/v1/namespaces/team-a/deployments/d1')) {
      status == 200
      text().contains('"name":"d1"')
    }

    accounts(runtime).find { it.name == 'configured' }.dynamic == false
    get(runtime, '/metrics') =~ /spinagent_accounts_dynamic 1\.0/

    when: "its cluster changes"
    dynamicCluster.createObject(deployment('d3', 'team-a'))

    then:
    eventually { channel.objects('dyn') == ['Deployment team-a/d1', 'Deployment team-a/d3'] as Set }

    when: "it is updated to watch another namespace as well"
    def updated = channel.update(definition('dyn', dynamicCluster, ['team-a', 'team-b']))

    then: "it restarts with the new definition; the configured account is untouched"
    updated.ok
    eventually {
      channel.objects('dyn') == ['Deployment team-a/d1', 'Deployment team-a/d3', 'Deployment team-b/d2'] as Set
    }
    channel.accounts['dyn'].namespacesList == ['team-a', 'team-b']
    !channel.withdrawn.contains('configured')

    when: "it is removed"
    def removed = channel.remove('dyn')

    then: "its watches stopped before the answer, and it is withdrawn from Clouddriver"
    removed.ok
    runtime.clusters().status('dyn').isEmpty()
    channel.tunnelGet('dyn', '/apis/apps/v1/namespaces/team-a/deployments/d1').status == 503
    eventually { channel.withdrawn.contains('dyn') && !channel.accounts.containsKey('dyn') }

    when: "both clusters change"
    int changesBefore = channel.changeCounts.getOrDefault('dyn', 0)
    dynamicCluster.createObject(deployment('d4', 'team-a'))
    fileCluster.createObject(deployment('f2'))

    then: "only the configured account's change arrives"
    eventually { channel.objects('configured').contains('Deployment default/f2') }
    channel.changeCounts.getOrDefault('dyn', 0) == changesBefore
    !channel.objects('dyn').contains('Deployment team-a/d4')

    and:
    def metrics = get(runtime, '/metrics')
    metrics =~ /spinagent_accounts_dynamic 0\.0/
    metrics =~ /spinagent_agent_commands_total\{result="ok",type="add_account",?} 1\.0/
    metrics =~ /spinagent_agent_commands_total\{result="ok",type="update_account",?} 1\.0/
    metrics =~ /spinagent_agent_commands_total\{result="ok",type="remove_account",?} 1\.0/
  }

  def "refused commands name the account, the field and the problem, and change nothing"() {
    given:
    def kubernetes = cluster()
    def runtime = agentWithConfiguredAccount(kubernetes)
    assert channel.add(definition('good', kubernetes)).ok
    assert eventually { channel.objects('good') == ['Deployment default/f1'] as Set }
    String contents = kubernetes.kubeconfig().toYaml()
    // A YAML "billion laughs": nine levels, each alias list nine times the one before.
    def letters = ('a'..'i').toList()
    String laughs = 'a: &a [' + (['"lol"'] * 9).join(',') + ']\n' + (1..8).collect { i ->
      "${letters[i]}: &${letters[i]} [" + (["*${letters[i - 1]}"] * 9).join(',') + ']'
    }.join('\n') + '\n'
    def bad = { AccountDefinition.newBuilder().setName('bad') }
    def refusals = [
        [channel.add(AccountDefinition.newBuilder().setKubeconfigContents(contents)),
         "account definition: name: is required"],
        [channel.add(AccountDefinition.newBuilder().setName('Prod EU').setKubeconfigContents(contents)),
         "account definition: name: 'Prod EU' is not a valid account name"],
        [channel.add(bad()),
         "account 'bad': kubeconfig_contents: an account needs exactly one credential source: kubeconfig_contents," +
             " kubeconfig_file or service_account; none is set"],
        [channel.add(bad().setKubeconfigContents(contents).setKubeconfigFile(kubeconfigFile(kubernetes).toString())),
         "account 'bad': kubeconfig_file: conflicts with kubeconfig_contents: an account has exactly one credential source"],
        [channel.add(bad().setServiceAccount(true).setContext('x')),
         "account 'bad': context: applies only to a kubeconfig; an account using service_account has no contexts"],
        [channel.add(bad().setServiceAccount(true)),
         "account 'bad': service_account: the agent does not run with a Kubernetes service account"],
        [channel.add(bad().setKubeconfigContents('clusters: [')),
         "account 'bad': kubeconfig_contents: is not a kubeconfig: "],
        [channel.add(bad().setKubeconfigContents('- just\n- a list\n')),
         "account 'bad': kubeconfig_contents: is not a kubeconfig: an entry has the wrong type"],
        [channel.add(bad().setKubeconfigContents('apiVersion: v1\nkind: Config\n')),
         "account 'bad': kubeconfig_contents: is not a kubeconfig: it has no contexts"],
        [channel.add(bad().setKubeconfigContents(laughs)),
         "account 'bad': kubeconfig_contents: is not a kubeconfig: Number of aliases for non-scalar nodes exceeds"],
        [channel.add(bad().setKubeconfigContents(contents).setContext('x')),
         "account 'bad': kubeconfig_contents: no context named 'x' (it has [spinagent-testkit])"],
        [channel.add(bad().setKubeconfigContents(contents.replace('current-context: "spinagent-testkit"', ''))),
         "account 'bad': kubeconfig_contents: has no current-context; name one of [spinagent-testkit] as the account's context"],
        [channel.add(bad().setKubeconfigFile('kubeconfig.yaml')),
         "account 'bad': kubeconfig_file: 'kubeconfig.yaml' is not an absolute path"],
        [channel.add(bad().setKubeconfigFile(dir.resolve('missing.yaml').toString())),
         "account 'bad': kubeconfig_file: file ${dir.resolve('missing.yaml')} does not exist"],
        [channel.add(bad().setKubeconfigFile(dir.toString())),
         "account 'bad': kubeconfig_file: $dir is not a regular file"],
        // A name Spinnaker's pattern would take hours over is measured first, and not echoed.
        [channel.add(AccountDefinition.newBuilder().setName('a' * 1_000_000 + '_').setKubeconfigContents(contents)),
         "account definition: name: '${'a' * 64}...' (1000001 characters) is longer than 100 characters, the limit for an account name"],
        [channel.add(bad().setKubeconfigContents('encryptedFile:k8s!n:kubeconfig!k:config')),
         "account 'bad': kubeconfig_contents: is a secret reference ('encryptedFile:k8s!n:kubeconfig!k:config'), which the" +
             " agent resolves in its own configuration file only, not in an account Clouddriver sends"],
        [channel.add(bad().setKubeconfigFile('encrypted:env!n:KUBECONFIG')),
         "account 'bad': kubeconfig_file: is a secret reference ('encrypted:env!n:KUBECONFIG')"],
        [channel.add(bad().setKubeconfigContents(contents).addNamespaces('Team_A')),
         "account 'bad': namespaces[0]: 'Team_A' is not a valid namespace name"],
        [channel.add(bad().setKubeconfigContents(contents).addKinds('Pod').addOmitKinds('Deployment')),
         "account 'bad': omit_kinds: conflicts with kinds"],
        [channel.add(definition('configured', kubernetes)),
         "account 'configured': name: an account of this name is configured in the agent's configuration file;" +
             " a dynamic account needs a name of its own"],
        [channel.update(definition('nope', kubernetes)),
         "account 'nope': name: this agent serves no account of this name"],
        [channel.update(definition('configured', kubernetes)),
         "account 'configured': name: the account is configured in the agent's configuration file and cannot be" +
             " changed by command; change the file instead"],
        [channel.update(definition('good', kubernetes).setContext('x')),
         "account 'good': kubeconfig_contents: no context named 'x'"],
        [channel.remove('nope'),
         "account 'nope': name: this agent serves no account of this name"],
        [channel.remove('configured'),
         "account 'configured': name: the account is configured in the agent's configuration file and cannot be" +
             " removed by command; change the file instead"],
        [channel.remove(''),
         "account definition: name: is required"],
    ]

    expect: "every command was refused with its reason"
    refusals.each { CommandResult result, expected ->
      assert !result.ok
      assert result.error.startsWith(expected.toString())
    }

    and: "a command of a type added to the protocol later is refused as unknown"
    with(channel.command(Command.newBuilder())) {
      !ok
      error.endsWith('does not know this command; upgrade the agent')
    }

    and: "no kubeconfig content leaks into a reason"
    refusals.every { CommandResult result, expected -> !result.error.contains('spinagent-testkit-anonymous') }

    when: "the clusters change afterwards"
    kubernetes.createObject(deployment('f2'))

    then: "both accounts keep streaming, and were never restarted"
    eventually {
      channel.objects('configured').contains('Deployment default/f2') && channel.objects('good').contains('Deployment default/f2')
    }
    channel.withdrawn.isEmpty()
    channel.accounts.keySet() == ['configured', 'good'] as Set
    runtime.clusters().statuses()*.name() as Set == ['configured', 'good'] as Set

    and:
    def metrics = get(runtime, '/metrics')
    metrics =~ /spinagent_agent_commands_total\{result="refused",type="add_account",?} 21\.0/
    metrics =~ /spinagent_agent_commands_total\{result="refused",type="update_account",?} 3\.0/
    metrics =~ /spinagent_agent_commands_total\{result="refused",type="remove_account",?} 3\.0/
  }

  def "an account whose cluster cannot be reached is accepted, reported failed, and does not hold up the others"() {
    given:
    def kubernetes = cluster()
    def runtime = agentWithConfiguredAccount(kubernetes)
    def gone = KubernetesApiServer.builder().start()
    def unreachable = gone.kubeconfig().toYaml()
    gone.close()

    when:
    def added = channel.add(AccountDefinition.newBuilder().setName('unreachable').setKubeconfigContents(unreachable))

    then:
    added.ok
    eventually { channel.health['unreachable'] == AccountHealth.ACCOUNT_HEALTH_FAILED }
    channel.healthErrors['unreachable'].contains('cannot reach the API server')
    !channel.accounts.containsKey('unreachable')

    when:
    kubernetes.createObject(deployment('f2'))

    then:
    eventually { channel.objects('configured').contains('Deployment default/f2') }

    when: "removed while it is retrying"
    def removed = channel.remove('unreachable')

    then:
    removed.ok
    runtime.clusters().status('unreachable').isEmpty()
  }

  def "a dynamic account from a kubeconfig file outlives a reconnect and a configuration reload; the file wins a name"() {
    given:
    def kubernetes = cluster()
    def file = dir.resolve('spinagent.yaml')
    def runtime = agentWithConfiguredAccount(kubernetes, file)
    def dyn = AccountDefinition.newBuilder().setName('dyn').setKubeconfigFile(kubeconfigFile(kubernetes).toString())
        .addKinds('Deployment')
    assert channel.add(dyn).ok
    assert eventually { channel.objects('dyn') == ['Deployment default/f1'] as Set }

    when: "the session ends"
    channel.dropSessions()

    then: "the agent reconnects and announces the dynamic account in its Hello"
    eventually { channel.hellos.size() == 2 && channel.openSessions() == 1 }
    channel.hellos[1].accountsList*.name as Set == ['configured', 'dyn'] as Set

    when: "Clouddriver sends its dynamic accounts again, as it does after every reconnect"
    def again = channel.add(dyn)

    then: "accepted without a restart, and the account streams on"
    again.ok
    !channel.withdrawn.contains('dyn')
    kubernetes.createObject(deployment('after-reconnect'))
    eventually { channel.objects('dyn').contains('Deployment default/after-reconnect') }

    when: "the configuration file gains an account"
    def other = kubeconfigFile(kubernetes)
    write(file, yaml(configured: kubeconfigFile(kubernetes), other: other))

    then: "the dynamic account keeps running"
    eventually { channel.accounts.keySet() == ['configured', 'dyn', 'other'] as Set }
    !channel.withdrawn.contains('dyn')
    runtime.clusters().status('dyn').get().dynamic()

    when: "the file takes the dynamic account's name"
    write(file, yaml(configured: kubeconfigFile(kubernetes), dyn: other))

    then: "the configured account replaces it"
    eventually { runtime.clusters().status('dyn').map { !it.dynamic() }.orElse(false) }
    eventually { channel.accounts.containsKey('dyn') }
    channel.remove('dyn').error.contains('cannot be removed by command')
  }

  static void write(Path file, String text) {
    def tmp = file.resolveSibling(file.fileName.toString() + '.tmp')
    Files.writeString(tmp, text)
    Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE)
  }
}
