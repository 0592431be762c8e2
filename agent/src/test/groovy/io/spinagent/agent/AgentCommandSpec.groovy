package io.spinagent.agent

import io.spinagent.agent.config.binding.ConfigLoader
import java.nio.file.Files
import java.nio.file.Path
import spock.lang.Specification
import spock.lang.TempDir

/** The command line, run in-process with captured output, exactly as Main runs it. */
class AgentCommandSpec extends Specification {

  @TempDir
  Path dir

  StringWriter out = new StringWriter()
  StringWriter err = new StringWriter()

  int run(String... args) {
    def commandLine = AgentCommand.commandLine(new AgentCommand(new ConfigLoader({ 'test-host' })))
    commandLine.out = new PrintWriter(out, true)
    commandLine.err = new PrintWriter(err, true)
    commandLine.execute(args)
  }

  Path config(String yaml) {
    def file = dir.resolve('spinagent.yaml')
    Files.writeString(file, yaml.stripIndent())
    file
  }

  def "without --config it prints usage and exits 2"() {
    when:
    def code = run()

    then:
    code == 2
    err.toString().contains("Missing required option: '--config=<file>'")
    err.toString().contains('Usage: spinagent-agent')
    out.toString().isEmpty()
  }

  def "an unknown option is a usage error too"() {
    when:
    def code = run('--config', 'x.yaml', '--chek')

    then:
    code == 2
    err.toString().contains("Unknown option: '--chek'")
  }

  def "--help prints usage with the exit codes and exits 0"() {
    when:
    def code = run('--help')

    then:
    code == 0
    out.toString().contains('Usage: spinagent-agent')
    out.toString().contains('--check')
    out.toString().contains('3   invalid configuration')
  }

  def "--version prints the version from the build"() {
    when:
    def code = run('--version')

    then:
    code == 0
    out.toString().trim() ==~ /spinagent-agent \d+\.\d+\.\d+(-SNAPSHOT)?/
  }

  def "a missing configuration file exits 3 and names the file"() {
    given:
    def missing = dir.resolve('absent.yaml')

    when:
    def code = run('--config', missing.toString(), '--check')

    then:
    code == 3
    err.toString().trim() == "error: invalid configuration ${missing}, 1 problem:${System.lineSeparator()}" +
        "  ${missing}: cannot read configuration file: it does not exist"
    out.toString().isEmpty()
  }

  def "invalid YAML exits 3 naming the file and the line"() {
    given:
    def file = config('''\
      clouddriver:
        grpc: "unterminated
      ''')

    when:
    def code = run('--config', file.toString(), '--check')

    then:
    code == 3
    err.toString().contains("${file}:3: invalid YAML: ")
  }

  def "a rule broken exits 3 naming the file, line and key path"() {
    given:
    def file = config('''\
      kubernetes:
        accounts:
          - name: a
            serviceAccount: true
          - name: Bad Name
            serviceAccount: true
      ''')

    when:
    def code = run('-c', file.toString(), '--check')

    then:
    code == 3
    err.toString().contains("${file}:5: kubernetes.accounts[1].name: 'Bad Name' is not a valid account name")
  }

  def "--check with a valid configuration exits 0 and prints the effective configuration, secrets redacted"() {
    given:
    def file = config('''\
      clouddriver:
        auth: {token: hidden}
      kubernetes:
        accounts:
          - name: prod
            serviceAccount: true
      ''')

    when:
    def code = run('--config', file.toString(), '--check')

    then:
    code == 0
    def lines = out.toString().readLines()
    lines.first() == '# effective configuration (defaults filled in, secrets redacted)'
    lines.last() == "configuration is valid: [${file}]".toString()
    def effective = new org.yaml.snakeyaml.Yaml().load(lines[1..-2].join('\n'))
    effective.clouddriver.grpc == 'spin-clouddriver-grpc:9091'
    effective.clouddriver.insecure == false
    effective.clouddriver.auth == [token: '<redacted>']
    effective.clouddriver.backoff == [baseDelay: '1s', multiplier: 1.6, jitter: 0.2, maxDelay: '2m']
    effective.kubernetes.accounts*.name == ['prod']
    effective.timeoutSeconds == 30
    !out.toString().contains('hidden')
    err.toString().isEmpty()
  }

  def "--check prints each warning on standard error, naming the key, and still exits 0"() {
    given:
    def file = config('''\
      clouddriver:
        insecure: true
        keepAliveOperationSeconds: 60
      kubernetes:
        accounts:
          - name: prod
            serviceAccount: true
            skipServerSideApply: true
            metrics: true
      ''')

    when:
    def code = run('--config', file.toString(), '--check')

    then:
    code == 0
    err.toString().readLines() == [
        "warning: ${file}:3: clouddriver.keepAliveOperationSeconds: Armory Scale Agent setting (restart the connection when no operation arrived for this many seconds) that SpinAgent does not apply: a healthy connection is never restarted; a dead one is noticed by keepalive pings and heartbeats and reopened with clouddriver.backoff".toString(),
        "warning: ${file}:8: kubernetes.accounts[0].skipServerSideApply: Armory Scale Agent setting (never use server-side apply (replaced by kubernetes.serverSideApply)) that SpinAgent does not apply: deploys are made by Clouddriver's kubectl through the agent's tunnel, so whether server-side apply is used is Clouddriver's choice (its strategy.spinnaker.io/server-side-apply annotation); the agent relays what kubectl sends".toString()]
    out.toString().readLines().last() == "configuration is valid: [${file}]".toString()
  }

  def "convert-armory needs no --config; the main command still does"() {
    given:
    def armory = dir.resolve('armory-agent.yml')
    Files.writeString(armory, 'kubernetes:\n  accounts:\n    - name: prod\n      kubeConfigFile: /k\n')

    when:
    def code = run('convert-armory', armory.toString())

    then:
    code == 0
    out.toString().contains('kubeconfigFile: /k')
    err.toString().contains('kubernetes.accounts[0].kubeConfigFile: renamed to kubeconfigFile')
  }

  def "without --check a valid configuration runs the agent until it is stopped, then exits 0"() {
    given:
    def file = config('kubernetes: {accounts: [{name: prod, serviceAccount: true}]}')
    def started = new java.util.concurrent.CompletableFuture<AgentRuntime>()
    def command = new AgentCommand(new ConfigLoader({ 'test-host' }), { path, config, loader ->
      def runtime = AgentRuntime.start(path, config, loader,
          io.spinagent.agent.cluster.ClusterOptions.DEFAULTS, 0)
      started.complete(runtime)
      runtime
    } as AgentCommand.RuntimeStarter)
    def commandLine = AgentCommand.commandLine(command)
    commandLine.out = new PrintWriter(out, true)
    commandLine.err = new PrintWriter(err, true)
    def exit = new java.util.concurrent.CompletableFuture<Integer>()
    Thread.start { exit.complete(commandLine.execute('--config', file.toString())) }

    when: "it has started, the account (not in a cluster here) is reported, and the agent is stopped"
    def runtime = started.get(60, java.util.concurrent.TimeUnit.SECONDS)
    def accounts = runtime.clusters().statuses()*.name()
    runtime.close()

    then:
    accounts == ['prod']
    exit.get(60, java.util.concurrent.TimeUnit.SECONDS) == 0
    err.toString().isEmpty()
  }
}
