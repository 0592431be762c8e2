package io.spinagent.agent.config.binding

import java.nio.file.Files
import java.nio.file.Path
import spock.lang.Specification
import spock.lang.TempDir

/**
 * Secret references in Spinnaker's syntax, as Armory Scale Agent's users write them: the agent
 * resolves those it can from the pod's environment and files, and refuses the others naming the
 * key and what to do instead. A secret never appears in a message.
 */
class SecretReferencesSpec extends Specification {

  @TempDir Path dir

  Map<String, String> environment = [AGENT_TOKEN: 's3cr3t-from-env', EMPTY: '']

  ConfigLoadResult load(String yaml) {
    new ConfigLoader({ 'h' }, { environment[it] }).load(ConfigFiles.write(dir, 'spinagent.yaml', yaml))
  }

  def "encrypted:env and encrypted:file stand for a value, encryptedFile:file for a file"() {
    given:
    Files.writeString(dir.resolve('password'), 'key-pass\n')
    Files.createDirectories(dir.resolve('kubeconfigs'))

    when:
    def result = load('''\
      clouddriver:
        auth: {token: "encrypted:env!n:AGENT_TOKEN"}
        tls:
          clientCertFile: /c.crt
          clientKeyFile: "encryptedFile:file!f:/secrets/client.key"
          clientKeyFilePassword: "encrypted:file!f:password"
      kubernetes:
        accounts:
          - name: a
            kubeconfigFile: "encryptedFile:file!f:kubeconfigs/a.yaml"
      ''') as ConfigLoadResult.Loaded

    then:
    with(result.config()) {
      clouddriver().auth().token() == Optional.of('s3cr3t-from-env')
      clouddriver().tls().clientKeyFile() == Optional.of(Path.of('/secrets/client.key'))
      clouddriver().tls().clientKeyFilePassword() == Optional.of('key-pass')
      kubernetes().accounts()[0].kubeconfigFile() == Optional.of(dir.resolve('kubeconfigs/a.yaml'))
    }
  }

  def "#reference at #key: #message"() {
    when:
    def result = load("$yaml") as ConfigLoadResult.Invalid

    then:
    result.problems()*.keyPath() == [key]
    result.problems()[0].message().startsWith(message.replace('DIR', dir.toString()))
    !result.report().contains('s3cr3t')

    where:
    reference                                     | yaml                                                                                            || key                                          | message
    'an unset variable'                           | 'clouddriver: {auth: {token: "encrypted:env!n:NOPE"}}'                                          || 'clouddriver.auth.token'                     | 'refers to the environment variable NOPE, which is not set'
    'an empty variable'                           | 'clouddriver: {auth: {token: "encrypted:env!n:EMPTY"}}'                                         || 'clouddriver.auth.token'                     | 'refers to the environment variable EMPTY, which is empty'
    'a missing file'                              | 'clouddriver: {auth: {token: "encrypted:file!f:absent"}}'                                       || 'clouddriver.auth.token'                     | 'refers to DIR/absent, which does not exist'
    'no name'                                     | 'clouddriver: {auth: {token: "encrypted:env"}}'                                                 || 'clouddriver.auth.token'                     | "needs the parameter 'n' (the variable's name), as in encrypted:env!n:<VARIABLE>"
    'a parameter without a value'                 | 'clouddriver: {auth: {token: "encrypted:env!AGENT_TOKEN"}}'                                     || 'clouddriver.auth.token'                     | "is not a valid secret reference: 'AGENT_TOKEN' should be <parameter>:<value>"
    'no engine'                                   | 'clouddriver: {auth: {token: "encrypted:"}}'                                                    || 'clouddriver.auth.token'                     | 'is a secret reference without an engine'
    'a file where a value belongs'                | 'clouddriver: {auth: {token: "encryptedFile:file!f:/t"}}'                                       || 'clouddriver.auth.token'                     | 'takes a value, not a file: write encrypted:file!f:/t to use the content of the secret'
    'a value where a file belongs'                | 'kubernetes: {accounts: [{name: a, kubeconfigFile: "encrypted:env!n:AGENT_TOKEN"}]}'            || 'kubernetes.accounts[0].kubeconfigFile'      | 'takes a file, not a value: write encryptedFile:file!f:<path>'
    'an environment variable as a file'           | 'kubernetes: {accounts: [{name: a, kubeconfigFile: "encryptedFile:env!n:AGENT_TOKEN"}]}'        || 'kubernetes.accounts[0].kubeconfigFile'      | "'encryptedFile:env!...' is not supported: an environment variable is a value, not a file"
    "Armory's Vault form"                         | 'kubernetes: {accounts: [{name: a, kubeconfigFile: "encryptedFile:vault!e:secret!p:spinnaker/kubernetes!k:config"}]}' || 'kubernetes.accounts[0].kubeconfigFile' | "uses the secret engine 'vault', which the SpinAgent agent does not have (it has no Vault client). Have Vault write the secret to a file"
    'a Kubernetes Secret'                         | 'clouddriver: {auth: {token: "encrypted:k8s!n:agent-token!k:token"}}'                           || 'clouddriver.auth.token'                     | "uses the secret engine 'k8s', which the SpinAgent agent does not have: mount the Secret agent-token into the agent's pod"
    'S3'                                          | 'clouddriver: {auth: {token: "encrypted:s3!r:us-west-2!b:bucket!f:token"}}'                     || 'clouddriver.auth.token'                     | "uses the secret engine 's3', which the SpinAgent agent does not have: it reads only env and file."
    'an unknown engine'                           | 'clouddriver: {auth: {token: "encrypted:magic!x:y"}}'                                           || 'clouddriver.auth.token'                     | "uses the secret engine 'magic', which is not one the agent knows: it reads only env and file."
  }

  def "every refusal says how to hand the agent the same secret"() {
    when:
    def result = load('clouddriver: {auth: {token: "encrypted:gcs!b:bucket!f:token"}}') as ConfigLoadResult.Invalid

    then:
    result.problems()[0].message().endsWith('To hand the agent the same secret, mount it as a file and write' +
        ' encrypted:file!f:<path> (a value) or encryptedFile:file!f:<path> (a file setting such as kubeconfigFile),' +
        ' or put it in an environment variable and write encrypted:env!n:<VARIABLE>.')
  }

  def "a file larger than a secret value is refused without being read into the message"() {
    given:
    Files.write(dir.resolve('big'), new byte[(1 << 20) + 1])

    when:
    def result = load('clouddriver: {auth: {token: "encrypted:file!f:big"}}') as ConfigLoadResult.Invalid

    then:
    result.problems()[0].message() == "refers to ${dir.resolve('big')}, which is larger than 1Mi, the limit for a secret value"
  }

  def "the converter checks references but keeps them as written, whatever its own environment holds"() {
    when:
    def reading = new ConfigLoader({ 'h' }, { null }).readForConversion(
        ConfigFiles.write(dir, 'armory-agent.yml', 'clouddriver: {insecure: true, auth: {token: "encrypted:env!n:AGENT_TOKEN"}}'), [])

    then:
    reading.problems().isEmpty()
    reading.tree().clouddriver.auth.token == 'encrypted:env!n:AGENT_TOKEN'
  }
}
