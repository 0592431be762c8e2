package io.spinagent.agent

import io.spinagent.agent.stream.ChannelServer
import io.spinagent.testkit.kubernetes.KubernetesApiServer
import java.net.http.HttpClient
import java.net.http.HttpRequest
import java.net.http.HttpResponse
import java.nio.file.Files
import java.nio.file.Path
import java.time.Duration
import java.util.concurrent.TimeUnit
import spock.lang.Requires
import spock.lang.Specification
import spock.lang.TempDir

/**
 * The agent as operators run it: its main class, in a JVM of its own, stopped by SIGTERM.
 *
 * <ul>
 *   <li>On the JVM running the build (Java 17 or later): fifty accounts stop on SIGTERM, and what
 *       Clouddriver had not committed arrives after the agent starts again.
 *   <li>On Java 21 or later, where watches run on virtual threads: its operating-system threads, as
 *       the kernel counts them, do not grow with accounts × kinds. Runs where such a JDK is found
 *       (the one running the build, {@code SPINAGENT_TEST_JDK}, or one under /usr/lib/jvm) on Linux,
 *       whose /proc gives the thread count; on Java 17 itself {@code ThreadBudgetSpec} covers what
 *       holds there.
 * </ul>
 */
class AgentProcessSpec extends Specification {

  static final Path JDK_21 = findJdk21()
  static final Path BUILD_JDK = AgentJvm.BUILD_JDK

  @TempDir Path dir
  ChannelServer channel = new ChannelServer()
  HttpClient http = HttpClient.newHttpClient()
  List<Process> processes = []

  def setup() {
    channel.protocolVersion = 2
  }

  def cleanup() {
    processes.each { it.destroyForcibly().waitFor(30, TimeUnit.SECONDS) }
    channel.close()
  }

  /** A JDK of version 21 or later: its home directory, or null. */
  static Path findJdk21() {
    List<Path> candidates = []
    if (System.getenv('SPINAGENT_TEST_JDK')) {
      candidates << Path.of(System.getenv('SPINAGENT_TEST_JDK'))
    }
    candidates << Path.of(System.getProperty('java.home'))
    def jvms = Path.of('/usr/lib/jvm')
    if (Files.isDirectory(jvms)) {
      Files.list(jvms).withCloseable { candidates.addAll(it.sorted().toList()) }
    }
    candidates.find { home ->
      def release = home.resolve('release')
      if (!Files.isExecutable(home.resolve('bin/java')) || !Files.isReadable(release)) {
        return false
      }
      def version = Files.readAllLines(release).find { it.startsWith('JAVA_VERSION=') }
      version != null && (version.replaceAll(/[^0-9.]/, '').tokenize('.')[0] as int) >= 21
    }
  }

  static int freePort() {
    new ServerSocket(0).withCloseable { it.localPort }
  }

  static long status(long pid, String field) {
    def line = Files.readAllLines(Path.of("/proc/$pid/status")).find { it.startsWith(field + ':') }
    line.replaceAll(/[^0-9]/, '') as long
  }

  /** An agent process and where its log goes. */
  static class Agent {
    Process process
    Path log
    int adminPort

    String log() {
      Files.readString(log)
    }
  }

  /**
   * Starts the agent's main class on {@code jdk} with {@code accounts} accounts of {@code api}
   * ({@code kinds}: the default kinds when empty).
   */
  Agent launch(Path jdk, KubernetesApiServer api, int accounts, List<String> kinds = [], String name = "agent-$accounts") {
    def kubeconfig = api.kubeconfig().writeTo(dir.resolve("kubeconfig-${name}.yaml"))
    int adminPort = freePort()
    def config = dir.resolve("spinagent-${name}.yaml")
    def kindsKey = kinds ? ", kinds: [${kinds.join(', ')}]" : ''
    Files.writeString(config, (["agent: {id: process-agent-$accounts}",
                                "clouddriver: {grpc: '${channel.target()}', insecure: true}",
                                "server: {port: $adminPort}",
                                'kubernetes:', '  accounts:'] +
        (1..accounts).collect { "    - {name: acct-$it, kubeconfigFile: $kubeconfig$kindsKey}" }).join('\n') + '\n')
    def log = dir.resolve("${name}.log")
    def process = AgentJvm.command(jdk, ['--config', config.toString()])
        .redirectErrorStream(true).redirectOutput(log.toFile()).start()
    processes << process
    new Agent(process: process, log: log, adminPort: adminPort)
  }

  /** Sends SIGTERM and waits for the process to end; whether it ended. */
  static boolean terminate(Agent agent) {
    agent.process.destroy() // SIGTERM: the agent's shutdown hook stops it
    agent.process.waitFor(60, TimeUnit.SECONDS)
  }

  /** Runs the agent on {@code jdk} with {@code accounts} accounts of every default kind until synced; measures it. */
  Map measure(Path jdk, KubernetesApiServer api, int accounts) {
    def agent = launch(jdk, api, accounts)
    Eventually.eventually { healthy(agent.adminPort) }
    // Account workers end once idle; what remains is what the agent keeps.
    Thread.sleep(6_000)
    def measured = [threads: status(agent.process.pid(), 'Threads'), rssKb: status(agent.process.pid(), 'VmRSS')]
    measured.exited = terminate(agent)
    measured.log = agent.log()
    println "agent on ${jdk.fileName} with $accounts accounts: ${measured.threads} threads, ${measured.rssKb} kB resident"
    measured
  }

  boolean healthy(int port) {
    try {
      http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:$port/health")).build(),
          HttpResponse.BodyHandlers.discarding()).statusCode() == 200
    } catch (IOException e) {
      false
    }
  }

  static String configMap(String name) {
    """{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"$name","namespace":"default"},"data":{"k":"v"}}"""
  }

  def "an agent process with fifty accounts stops on SIGTERM, and the changes Clouddriver had not committed arrive after it starts again"() {
    given: "an agent process on the build's JVM streaming fifty accounts of one cluster"
    def api = KubernetesApiServer.builder().bookmarkInterval(Duration.ofSeconds(1)).start()
    api.createObject(configMap('c1'))
    def first = launch(BUILD_JDK, api, 50, ['ConfigMap'], 'first')
    assert Eventually.eventually { (1..50).every { channel.objects("acct-$it") == ['ConfigMap default/c1'] as Set } }
    assert Eventually.eventually { (1..50).every { channel.resumePoints["acct-$it"]?.containsKey('/ConfigMap') } }

    when: "Clouddriver stops committing, a change reaches it from every account, and the agent gets SIGTERM"
    channel.dropBatches = true
    api.createObject(configMap('c2'))
    assert Eventually.eventually {
      (1..50).every { n -> channel.batches.any { b -> b.account == "acct-$n" && b.changesList.any { it.name == 'c2' } } }
    }
    boolean exited = terminate(first)
    println "agent on ${BUILD_JDK} with 50 accounts: ${first.log().readLines().find { it.contains('Agent stopped in') }}"

    then: "the agent stopped every account and exited, with the change committed for none of them"
    exited
    first.log().contains('Stopping the agent')
    first.log().contains('Agent stopped in')
    (1..50).every { !channel.objects("acct-$it").contains('ConfigMap default/c2') }
    Eventually.eventually { api.activeWatches() == 0 }

    when: "Clouddriver commits again, and the agent starts again"
    channel.dropBatches = false
    api.requestLog().clear()
    def second = launch(BUILD_JDK, api, 50, ['ConfigMap'], 'second')

    then: "the change arrives for every account, from watches resumed below it: nothing is listed"
    Eventually.eventually { (1..50).every { channel.objects("acct-$it") == ['ConfigMap default/c1', 'ConfigMap default/c2'] as Set } }
    api.requestLog().entries().findAll { it.uri().contains('/configmaps') && !it.uri().contains('watch=true') }.isEmpty()
    terminate(second)

    cleanup:
    api?.close()
  }

  @Requires({ AgentProcessSpec.JDK_21 != null && Files.isReadable(Path.of('/proc/self/status')) })
  def "on Java 21+ thirty accounts of twelve kinds run on as many threads as one account, and SIGTERM stops the agent"() {
    given:
    def api = KubernetesApiServer.builder().start()
    api.createObject('{"apiVersion":"v1","kind":"Service","metadata":{"name":"s1","namespace":"default"},"spec":{"ports":[{"port":80}]}}')

    when:
    def one = measure(JDK_21, api, 1)
    def thirty = measure(JDK_21, api, 30)

    then: "the watches run on virtual threads"
    thirty.log.contains('Kubernetes watches run on virtual threads')
    thirty.log =~ /Account 'acct-30': synced 12 kinds/

    and: "360 watches cost no thread of their own: thirty accounts take a few threads more than one at most"
    // those few: OkHttp may clean each of the eight connection pools on a thread of its own at
    // once, and the JDK adds carrier threads while virtual threads wait in native code
    thirty.threads <= one.threads + 16

    and: "SIGTERM stops the agent, every account at once"
    one.exited
    thirty.exited
    thirty.log.contains('Agent stopped in')

    cleanup:
    api?.close()
  }
}
