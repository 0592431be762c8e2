package io.spinagent.agent.config.binding

import static io.spinagent.agent.config.binding.ConfigFiles.load

import io.spinagent.agent.config.yaml.ConfigProblem
import java.nio.file.Path
import spock.lang.Specification
import spock.lang.TempDir

/**
 * Identifiers (agent.id, agent.zoneId, account names, kinds) are measured before anything else is
 * done with them, and a value refused is quoted by its beginning and length only; a line too long
 * for the YAML reader to read in reasonable time refuses the file, naming the key and the limit.
 */
class IdentifierLimitsSpec extends Specification {

  @TempDir Path dir

  static String excerpt(String value) {
    "'${value.take(64)}...' (${value.length()} characters)"
  }

  ConfigProblem onlyProblem(String yaml) {
    def result = load(dir, yaml)
    assert result instanceof ConfigLoadResult.Invalid
    def problems = (result as ConfigLoadResult.Invalid).problems()
    assert problems.size() == 1
    problems[0]
  }

  def "#keyPath of #length characters is refused by its length, quoted in part"() {
    when:
    def problem = onlyProblem(yaml(value))

    then:
    problem.keyPath() == keyPath
    problem.message() == "${excerpt(value)} is longer than $limit characters, the limit for $what".toString()

    where:
    keyPath                           | value              | limit | what                             | yaml
    'agent.id'                        | 'a' * 254          | 253   | 'an id'                          | { "agent: {id: $it}" }
    'agent.zoneId'                    | 'eu-west-' * 40    | 253   | 'an id'                          | { "agent: {zoneId: $it}" }
    'kubernetes.accounts[0].name'     | 'a' * 101          | 100   | 'an account name'                | { "kubernetes: {accounts: [{name: $it, serviceAccount: true}]}" }
    // Spinnaker's account name pattern takes time in the square of the length of such a name.
    'kubernetes.accounts[0].name'     | 'a' * 60_000 + '_' | 100   | 'an account name'                | { "kubernetes: {accounts: [{name: $it, serviceAccount: true}]}" }
    'kubernetes.accounts[0].kinds[0]' | 'Kind.' + 'a' * 400 | 317  | 'a kind (Kind.group)'            | { "kubernetes: {accounts: [{name: a, serviceAccount: true, kinds: [$it]}]}" }

    length = value.length()
  }

  def "a value on a line longer than 64Ki characters refuses the file, naming its key and the limit: #what"() {
    when:
    def problem = onlyProblem(yaml)

    then:
    problem.keyPath() == keyPath
    problem.origin().line() == line
    problem.message() == "line $line is longer than 65536 characters, the limit for a line of a configuration file".toString()

    where:
    what                       | keyPath                                     | line | yaml
    'a ten-megabyte agent.id'  | 'agent.id'                                  | 3    | "clouddriver: {insecure: true}\nagent:\n  id: ${'a' * 10_000_000}\n"
    'a quoted value'           | 'clouddriver.grpc'                          | 1    | "clouddriver: {grpc: \"${'x' * 70_000}:9091\"}\n"
    'a line of a block scalar' | 'kubernetes.accounts[0].kubeconfigContents' | 5    | "kubernetes:\n  accounts:\n    - name: a\n      kubeconfigContents: |\n        ${'Q' * 70_000}\n"
  }

  def "a value refused for its content is quoted in part: #keyPath"() {
    when:
    def problem = onlyProblem(yaml)

    then:
    problem.keyPath() == keyPath
    problem.message().contains(excerpt(value))
    problem.message().length() < 300

    where:
    keyPath                                | value          | yaml
    'kubernetes.accounts[0].namespaces[0]' | 'Team_' * 20   | "kubernetes: {accounts: [{name: a, serviceAccount: true, namespaces: [${'Team_' * 20}]}]}"
    'clouddriver.insecure'                 | 'maybe' * 20   | "clouddriver: {insecure: ${'maybe' * 20}}"
  }

  def "an id of exactly 253 characters and an account name of exactly 100 are accepted"() {
    expect:
    load(dir, "agent: {id: ${'a' * 253}}\nkubernetes: {accounts: [{name: ${'b' * 100}, serviceAccount: true}]}") instanceof ConfigLoadResult.Loaded
  }
}
