package io.spinagent.agent

import io.spinagent.agent.armory.ArmoryFixtures
import io.spinagent.agent.config.binding.ConfigLoader
import java.nio.file.Files
import java.nio.file.Path
import spock.lang.Specification
import spock.lang.TempDir

/** spinagent-agent convert-armory, run in-process as Main runs it. */
class ConvertArmoryCommandSpec extends Specification {

  @TempDir Path dir
  StringWriter out = new StringWriter()
  StringWriter err = new StringWriter()

  int run(String... args) {
    def commandLine = AgentCommand.commandLine(new AgentCommand(new ConfigLoader({ 'test-host' })))
    commandLine.out = new PrintWriter(out, true)
    commandLine.err = new PrintWriter(err, true)
    commandLine.execute(args)
  }

  def "the agent's file: the result is written to --output, the changes listed, and the result passes --check without a warning"() {
    given:
    def input = dir.resolve('armory-agent.yml')
    Files.writeString(input, '''\
      clouddriver:
        grpc: spin-clouddriver-grpc:9091
        keepAliveTimeOutSeconds: 30
        responseRetries: {enabled: true}
      kubernetes:
        accounts:
          - name: prod
            kubeConfigFile: kubeconfigs/prod.yaml
            permissions:
              - READ: [dev]
      '''.stripIndent())
    def output = dir.resolve('spinagent.yaml')
    // --check opens the kubeconfig the account names, as the agent would.
    Files.createDirectories(dir.resolve('kubeconfigs'))
    Files.writeString(dir.resolve('kubeconfigs/prod.yaml'), '''\
      clusters: [{name: prod, cluster: {server: 'https://prod.example.com:6443'}}]
      users: [{name: prod, user: {token: t}}]
      contexts: [{name: prod, context: {cluster: prod, user: prod}}]
      current-context: prod
      '''.stripIndent())

    when:
    def code = run('convert-armory', input.toString(), '--output', output.toString())

    then:
    code == 0
    out.toString().isEmpty()
    Files.readString(output).startsWith('# Converted from armory-agent.yml by spinagent-agent convert-armory ')
    err.toString().readLines() == [
        "converted ${input}: 4 changed, 1 dropped, 0 to fix by hand".toString(),
        'changed:',
        "  ${input}:1: clouddriver.insecure: added as true: Armory Scale Agent's default (plaintext), which SpinAgent's (TLS) differs from".toString(),
        "  ${input}:3: clouddriver.keepAliveTimeOutSeconds: renamed to keepAliveTimeoutSeconds (Armory Scale Agent's spelling)".toString(),
        "  ${input}:8: kubernetes.accounts[0].kubeConfigFile: renamed to kubeconfigFile (Armory Scale Agent's spelling)".toString(),
        "  ${input}:10: kubernetes.accounts[0].permissions: Armory Scale Agent's list form written as a map".toString(),
        'dropped:',
        "  ${input}:4: clouddriver.responseRetries.enabled: dropped: Armory Scale Agent setting (retries of sending an operation's result to Clouddriver) that SpinAgent does not apply: results stream back on the session; if it breaks, Clouddriver answers the request with 502 and its operation decides whether to retry (changes are never lost: they are resent from the outbox after a reconnect)".toString(),
        "check it with: spinagent-agent --config ${output} --check".toString()]

    when:
    out.buffer.setLength(0)
    err.buffer.setLength(0)
    def check = run('--config', output.toString(), '--check')

    then:
    check == 0
    err.toString().isEmpty()
    out.toString().contains("kubeconfigFile: ${dir.resolve('kubeconfigs/prod.yaml')}")
  }

  def "without --output the result goes to standard output"() {
    when:
    def code = run('convert-armory', ArmoryFixtures.path('token-command.yml').toString())

    then:
    code == 0
    out.toString().contains('clientKeyFilePassword: changeit')
    out.toString().contains('level: error')
    !err.toString().contains('check it with')
  }

  def "what needs a person is listed, the result still written, and the exit code says so"() {
    given:
    def input = dir.resolve('armory-agent.yml')
    Files.writeString(input, 'clouddriver:\n  insecure: true\n  auth:\n    token: "encrypted:vault!e:secret!p:agent!k:token"\n')

    when:
    def code = run('convert-armory', input.toString(), '-o', dir.resolve('out.yaml').toString())

    then:
    code == 3
    Files.exists(dir.resolve('out.yaml'))
    err.toString().contains('to fix by hand:')
    err.toString().contains("${input}:4: clouddriver.auth.token: uses the secret engine 'vault'")
  }

  def "the plugin's block: --plugin"() {
    when:
    def code = run('convert-armory', '--plugin', ArmoryFixtures.path('spinnakerservice.yml').toString())

    then:
    code == 0
    out.toString().contains('SpinAgent.Kubernetes')
    err.toString().readLines()[0] == "converted ${ArmoryFixtures.path('spinnakerservice.yml')}: 4 converted, 3 dropped, 0 to fix by hand".toString()
    err.toString().contains('  kubesvc.grpc.server.port: written as spinagent.grpc.port: the same')
  }

  def "the input is never overwritten, and an unreadable input is an error"() {
    given:
    def input = dir.resolve('armory-agent.yml')
    Files.writeString(input, 'clouddriver: {insecure: true}\n')

    expect:
    run('convert-armory', input.toString(), '-o', input.toString()) == 2
    err.toString().contains('--output is the file being converted')
    Files.readString(input) == 'clouddriver: {insecure: true}\n'
    run('convert-armory', dir.resolve('absent.yml').toString()) == 3
    err.toString().contains('cannot read configuration file: it does not exist')
  }

  def "an --output that cannot be written (#where) is one line of error and exit 3, for the agent's file and --plugin"() {
    given:
    def input = dir.resolve('armory-agent.yml')
    Files.writeString(input, 'clouddriver: {insecure: true}\n')
    Files.createDirectories(dir.resolve('a-directory'))
    Files.writeString(dir.resolve('a-file'), '')
    def output = dir.resolve(path)

    when:
    def agentFile = run('convert-armory', input.toString(), '-o', output.toString())
    def agentFileErrors = err.toString().readLines()
    err.buffer.setLength(0)
    def pluginBlock = run('convert-armory', '--plugin', ArmoryFixtures.path('spinnakerservice.yml').toString(), '-o', output.toString())

    then:
    agentFile == 3
    agentFileErrors == ["error: cannot write the converted configuration to ${output}: ${reason}".toString()]
    pluginBlock == 3
    err.toString().readLines() == ["error: cannot write the converted configuration to ${output}: ${reason}".toString()]
    out.toString().isEmpty()

    where:
    where                        | path                  || reason
    'its directory is missing'   | 'missing/out.yaml'    || 'no such file or directory'
    'it is a directory'          | 'a-directory'         || 'Is a directory'
    'its directory is a file'    | 'a-file/out.yaml'     || 'Not a directory'
  }
}
