package io.spinagent.agent

import java.nio.file.Files
import java.nio.file.Path
import spock.lang.Specification
import spock.lang.TempDir

/**
 * Configuration files cannot exhaust the agent: each case runs the agent's main class in a JVM of
 * its own with a 256 MB heap ({@link AgentJvm}), where a file that fills the heap ends in an
 * OutOfMemoryError (exit 1) instead of the configuration's exit code 3 and a message.
 */
class ConfigLimitsSpec extends Specification {

  @TempDir Path dir

  Path file(String name, String content) {
    def file = dir.resolve(name)
    Files.writeString(file, content)
    file
  }

  AgentJvm.Ended agent(String... args) {
    AgentJvm.run(args.toList(), dir.resolve('agent.log'))
  }

  /**
   * {@code accounts} accounts of 43 YAML nodes each (20 namespaces, 5 kinds, permissions), a file
   * of about 500 bytes per account, plus 5 nodes around them.
   */
  Path accounts(String name, int accounts) {
    def file = dir.resolve(name)
    Files.newBufferedWriter(file).withCloseable { out ->
      out << 'kubernetes:\n  accounts:\n'
      for (int i = 0; i < accounts; i++) {
        out << "    - name: account-${String.format('%06d', i)}\n"
        out << '      serviceAccount: true\n'
        out << '      namespaces: [' << (0..<20).collect { "namespace-${String.format('%03d', it)}" }.join(', ') << ']\n'
        out << '      kinds: [Deployment, ReplicaSet, Service, Pod, ConfigMap]\n'
        out << "      permissions: {READ: [team-$i, ops], WRITE: [ops]}\n"
      }
    }
    file
  }

  def "a YAML alias bomb (48 aliases, 2^24 values in 1 KB) is refused with exit 3, naming the file and the limit"() {
    given:
    def bomb = file('bomb.yaml', 'kubernetes: {accounts: []}\nlaughs:\n  - &a0 [lol, lol]\n' +
        (1..24).collect { "  - &a$it [*a${it - 1}, *a${it - 1}]\n" }.join(''))

    when:
    def run = agent('--config', bomb.toString(), '--check')

    then:
    run.exitCode == 3
    run.output.contains("error: invalid configuration ${bomb}, 1 problem:")
    run.output.contains("${bomb}:20: cannot read configuration file: aliases expand to more than 1000000 nodes" +
        ' (maps, lists, keys and values), the limit for a YAML file the agent reads')
  }

  def "tokenFile: /dev/zero is refused with exit 3 by --check and at start, naming the key and the limit"() {
    given:
    def config = file('spinagent.yaml', '''\
      clouddriver:
        grpc: 127.0.0.1:1
        insecure: true
        auth: {tokenFile: /dev/zero}
      server: {port: PORT}
      '''.stripIndent().replace('PORT', String.valueOf(new ServerSocket(0).withCloseable { it.localPort })))
    def problem = 'clouddriver.auth.tokenFile: cannot read the bearer token from /dev/zero: it is larger than 64Ki,' +
        ' the limit for a bearer token file'

    when:
    def check = agent('--config', config.toString(), '--check')

    then:
    check.exitCode == 3
    check.output.contains("error: invalid configuration ${config}, 1 problem:")
    check.output.contains("${config}: ${problem}")

    when:
    def start = agent('--config', config.toString())

    then:
    start.exitCode == 3
    start.output.contains("error: invalid configuration ${config}: ${problem}")
  }

  def "a configuration file that never ends (/dev/zero) is refused with exit 3 once past the size limit"() {
    when:
    def run = agent('--config', '/dev/zero', '--check')

    then:
    run.exitCode == 3
    run.output.contains('/dev/zero: cannot read configuration file: it is larger than 16Mi, the limit for a' +
        ' configuration file')
  }

  def "a 10 MB agent.id is refused with exit 3, naming the key and the limit, without being printed back"() {
    given:
    def config = file('spinagent.yaml', "clouddriver: {insecure: true}\nagent:\n  id: ${'a' * 10_000_000}\n")

    when: 'the run fails the spec if it takes more than the minute AgentJvm allows'
    def run = agent('--config', config.toString(), '--check')

    then:
    run.exitCode == 3
    run.output.contains("${config}:3: agent.id: line 3 is longer than 65536 characters, the limit for a line of" +
        ' a configuration file')
    run.output.length() < 1_000
  }

  def "a 15 MB file of 1.2 million nodes is refused with exit 3, naming the limit"() {
    given:
    def large = accounts('large.yaml', 29_000)
    assert Files.size(large) > 14_000_000

    when:
    def run = agent('--config', large.toString(), '--check')

    then:
    run.exitCode == 3
    run.output.contains("${large}: cannot read configuration file: it has more than 1000000 nodes" +
        ' (maps, lists, keys and values), the limit for a YAML file the agent reads')
  }

  def "a file just within the limit (23,000 accounts, 989,005 nodes, 12 MB) passes --check"() {
    given:
    def large = accounts('large.yaml', 23_000)

    when:
    def run = agent('--config', large.toString(), '--check')

    then:
    run.exitCode == 0
    run.output.contains('- name: account-022999')
    run.output.trim().endsWith("configuration is valid: [${large}]")
  }
}
