package io.spinagent.agent

import io.spinagent.agent.config.binding.ConfigLoader
import io.spinagent.testkit.tls.TestPki
import java.nio.file.Files
import java.nio.file.Path
import spock.lang.Shared
import spock.lang.Specification
import spock.lang.TempDir

/**
 * {@code --check} opens every file the running agent would open, as the agent reads it, and refuses
 * the configuration (exit 3) naming the key and the file of each one it could not use: the token,
 * CA, client certificate and key files for Clouddriver, each account's kubeconfig and its context,
 * and the CA, certificate, key and token files the kubeconfig names. Nothing connects anywhere.
 */
class CheckFilesSpec extends Specification {

  @Shared TestPki pki = TestPki.create('check-files-spec')
  @Shared TestPki.Issued agentCertificate = pki.issueClient('CN=agent')
  @Shared TestPki.Issued kubeCertificate = pki.issueClient('CN=prod')

  @TempDir Path dir
  StringWriter out = new StringWriter()
  StringWriter err = new StringWriter()
  Path config

  static final String KUBECONFIG = '''\
    apiVersion: v1
    kind: Config
    clusters:
      - name: prod
        cluster: {server: 'https://prod.example.com:6443', certificate-authority: cluster-ca.pem}
    users:
      - name: prod
        user: {client-certificate: kube-client.crt, client-key: kube-client.key}
      - name: robot
        user: {tokenFile: robot-token}
    contexts:
      - name: prod
        context: {cluster: prod, user: prod}
      - name: robot
        context: {cluster: prod, user: robot}
    current-context: prod
    '''.stripIndent()

  /** A configuration whose every file is there and usable. */
  def setup() {
    pki.writeCaCertificate(dir.resolve('clouddriver-ca.pem'))
    pki.writeCaCertificate(dir.resolve('cluster-ca.pem'))
    agentCertificate.written(dir, 'client')
    kubeCertificate.written(dir, 'kube-client')
    Files.writeString(dir.resolve('token'), 'agent-token\n')
    Files.writeString(dir.resolve('robot-token'), 'robot-token\n')
    Files.writeString(dir.resolve('kubeconfig.yaml'), KUBECONFIG)
    config = dir.resolve('spinagent.yaml')
    Files.writeString(config, '''\
      clouddriver:
        grpc: clouddriver.example.com:9091
        tls: {cacertFile: clouddriver-ca.pem, clientCertFile: client.crt, clientKeyFile: client.key}
        auth: {tokenFile: token}
      kubernetes:
        accounts:
          - {name: prod, kubeconfigFile: kubeconfig.yaml}
          - {name: robot, kubeconfigFile: kubeconfig.yaml, context: robot}
      '''.stripIndent())
  }

  int check() {
    def commandLine = AgentCommand.commandLine(new AgentCommand(new ConfigLoader({ 'test-host' })))
    commandLine.out = new PrintWriter(out, true)
    commandLine.err = new PrintWriter(err, true)
    commandLine.execute('--config', config.toString(), '--check')
  }

  def "a configuration whose files are all usable passes"() {
    expect:
    check() == 0
    err.toString().isEmpty()
    out.toString().contains("configuration is valid: [${config}]")
  }

  def "--check refuses #file, naming the key and the file"() {
    given:
    change(dir)

    when:
    def code = check()

    then:
    code == 3
    err.toString().contains("error: invalid configuration ${config}, 1 problem:")
    err.toString().contains("  ${config}: ${key}: ${message.replace('DIR', dir.toString())}")
    out.toString().isEmpty()

    where:
    file                                                | change                                                                             || key                                              | message
    'a missing token file'                              | { Path d -> Files.delete(d.resolve('token')) }                                     || 'clouddriver.auth.tokenFile'                     | 'cannot read the bearer token from DIR/token: it does not exist'
    'a token file that is a directory'                  | { Path d -> Files.delete(d.resolve('token')); Files.createDirectory(d.resolve('token')) } || 'clouddriver.auth.tokenFile'             | 'cannot read the bearer token from DIR/token: it is a directory'
    'an empty token file'                               | { Path d -> Files.writeString(d.resolve('token'), '\n') }                          || 'clouddriver.auth.tokenFile'                     | 'DIR/token is empty; it must hold the bearer token'
    'a token file that never ends'                      | { Path d -> link(d.resolve('token'), '/dev/zero') }                                || 'clouddriver.auth.tokenFile'                     | 'cannot read the bearer token from DIR/token: it is larger than 64Ki, the limit for a bearer token file'
    'a missing CA file'                                 | { Path d -> Files.delete(d.resolve('clouddriver-ca.pem')) }                        || 'clouddriver.tls.cacertFile'                     | 'cannot read DIR/clouddriver-ca.pem: it does not exist'
    'a CA file that is not PEM'                         | { Path d -> Files.writeString(d.resolve('clouddriver-ca.pem'), 'not a CA') }       || 'clouddriver.tls.cacertFile'                     | 'cannot read DIR/clouddriver-ca.pem: expected CA certificates (PEM)'
    'a client key that is not a key'                    | { Path d -> Files.writeString(d.resolve('client.key'), 'not a key') }              || 'clouddriver.tls.clientCertFile / clientKeyFile' | 'cannot read DIR/client.key: it holds no private key'
    "a kubeconfig without the account's context"        | { Path d -> rewrite(d, 'name: robot\n    context', 'name: other\n    context') }  || 'kubernetes.accounts[1].kubeconfigFile'          | "kubeconfig DIR/kubeconfig.yaml: no context named 'robot' (it has [prod, other])"
    "a kubeconfig whose user's key is not a key"        | { Path d -> Files.writeString(d.resolve('kube-client.key'), 'not a key') }         || 'kubernetes.accounts[0].kubeconfigFile'          | "kubeconfig DIR/kubeconfig.yaml: client-key of user 'prod': kube-client.key is not a PEM private key"
    "a kubeconfig whose user's token file never ends"   | { Path d -> link(d.resolve('robot-token'), '/dev/zero') }                          || 'kubernetes.accounts[1].kubeconfigFile'          | "kubeconfig DIR/kubeconfig.yaml: tokenFile of user 'robot': cannot read DIR/robot-token: it is larger than 64Ki, the limit for a token file"
  }

  def "--check refuses #file for every account using it"() {
    given:
    change(dir)

    when:
    def code = check()

    then:
    code == 3
    err.toString().contains("error: invalid configuration ${config}, 2 problems:")
    [0, 1].every { err.toString().contains("  ${config}: kubernetes.accounts[$it].kubeconfigFile: ${message.replace('DIR', dir.toString())}") }

    where:
    file                                        | change                                                                                || message
    'a missing kubeconfig'                      | { Path d -> Files.delete(d.resolve('kubeconfig.yaml')) }                              || 'file DIR/kubeconfig.yaml does not exist'
    'a kubeconfig larger than its limit'        | { Path d -> Files.writeString(d.resolve('kubeconfig.yaml'), KUBECONFIG + '#' * (1 << 20)) } || 'cannot read DIR/kubeconfig.yaml: it is larger than 1Mi, the limit for a kubeconfig'
    'a kubeconfig that is a YAML alias bomb'    | { Path d -> Files.writeString(d.resolve('kubeconfig.yaml'), KUBECONFIG + bomb()) }    || 'kubeconfig DIR/kubeconfig.yaml: is not a kubeconfig: aliases expand to more than 1000000 nodes'
    "a kubeconfig whose cluster's CA is missing" | { Path d -> Files.delete(d.resolve('cluster-ca.pem')) }                              || "kubeconfig DIR/kubeconfig.yaml: certificate-authority of cluster 'prod': cannot read DIR/cluster-ca.pem: it does not exist"
    "a kubeconfig that is not YAML"                     | { Path d -> Files.writeString(d.resolve('kubeconfig.yaml'), 'clusters: [') }       || 'kubeconfig DIR/kubeconfig.yaml: is not a kubeconfig: '
    "a kubeconfig whose cluster's CA is not PEM"        | { Path d -> Files.writeString(d.resolve('cluster-ca.pem'), 'not a CA') }           || "kubeconfig DIR/kubeconfig.yaml: certificate-authority of cluster 'prod': cluster-ca.pem is not a PEM certificate"
    "a kubeconfig whose cluster's CA data is not PEM"   | { Path d -> rewrite(d, 'certificate-authority: cluster-ca.pem', 'certificate-authority-data: bm90IGEgQ0E=') } || "kubeconfig DIR/kubeconfig.yaml: certificate-authority-data of cluster 'prod' is not a PEM certificate"
  }

  def "every file that cannot be used is reported at once"() {
    given:
    Files.delete(dir.resolve('token'))
    Files.delete(dir.resolve('kube-client.key'))

    when:
    def code = check()

    then:
    code == 3
    err.toString().readLines().take(3) == [
        "error: invalid configuration ${config}, 2 problems:".toString(),
        "  ${config}: clouddriver.auth.tokenFile: cannot read the bearer token from ${dir.resolve('token')}: it does not exist".toString(),
        "  ${config}: kubernetes.accounts[0].kubeconfigFile: kubeconfig ${dir.resolve('kubeconfig.yaml')}: client-key of user 'prod': cannot read ${dir.resolve('kube-client.key')}: it does not exist".toString()]
  }

  def "of 1,500 accounts whose kubeconfigs are missing, the first 1,000 are listed and the rest counted"() {
    given:
    Files.writeString(config, 'clouddriver: {insecure: true}\nkubernetes:\n  accounts:\n' +
        (0..<1500).collect { "    - {name: account-$it, kubeconfigFile: missing-${it}.yaml}\n" }.join(''))

    when:
    def code = check()
    def lines = err.toString().readLines()

    then:
    code == 3
    lines[0] == "error: invalid configuration ${config}, 1500 problems:".toString()
    lines.count { it.startsWith("  ${config}: kubernetes.accounts[") } == 1000
    lines[1000] == "  ${config}: kubernetes.accounts[999].kubeconfigFile: file ${dir.resolve('missing-999.yaml')} does not exist".toString()
    lines[1001] == '  and 500 more, not listed (only the first 1000 found are)'
    lines.size() == 1002
  }

  /** 48 aliases (SnakeYAML allows 50) standing for 2^24 values, under a key kubeconfigs do not use. */
  static String bomb() {
    'laughs:\n  - &a0 [lol, lol]\n' + (1..24).collect { "  - &a$it [*a${it - 1}, *a${it - 1}]\n" }.join('')
  }

  static void link(Path file, String target) {
    Files.delete(file)
    Files.createSymbolicLink(file, Path.of(target))
  }

  static void rewrite(Path dir, String from, String to) {
    def kubeconfig = dir.resolve('kubeconfig.yaml')
    def text = Files.readString(kubeconfig)
    assert text.contains(from)
    Files.writeString(kubeconfig, text.replace(from, to))
  }
}
