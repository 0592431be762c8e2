package io.spinagent.agent.stream

import io.grpc.CallCredentials
import io.grpc.Metadata
import io.grpc.Status
import io.spinagent.agent.config.AuthConfig
import io.spinagent.agent.config.TokenCommandConfig
import io.spinagent.agent.config.TokenCommandConfig.Format
import java.nio.file.Files
import java.nio.file.Path
import java.nio.file.attribute.PosixFilePermissions
import java.time.Duration
import java.util.concurrent.CompletableFuture
import java.util.concurrent.TimeUnit
import spock.lang.Specification
import spock.lang.TempDir
import spock.util.concurrent.PollingConditions

/**
 * clouddriver.auth.tokenCommand, as Armory Scale Agent runs it: a program (no shell) prints the
 * token, raw or as JSON; a token is reused for refreshIntervalSeconds. Failures name the command,
 * never the token or the program's standard output.
 */
class TokenCommandSpec extends Specification {

  @TempDir Path dir

  Path script(String name, String body) {
    Path file = dir.resolve(name)
    Files.writeString(file, '#!/bin/sh\n' + body + '\n')
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString('rwx------'))
    file
  }

  static TokenCommandConfig command(Path program, List<String> args = [], Format format = Format.JSON, int refresh = 0) {
    new TokenCommandConfig(program.toString(), args, format, refresh)
  }

  /** What the credentials put in the authorization header of one call, or the status they failed it with. */
  static Object authorize(CallCredentials credentials) {
    def result = new CompletableFuture<Object>()
    credentials.applyRequestMetadata(null, Runnable::run, new CallCredentials.MetadataApplier() {
      @Override
      void apply(Metadata headers) {
        result.complete(headers.get(BearerTokenCredentials.AUTHORIZATION))
      }

      @Override
      void fail(Status status) {
        result.complete(status)
      }
    })
    result.get(60, TimeUnit.SECONDS)
  }

  BearerTokenCredentials credentials(TokenCommandConfig command) {
    BearerTokenCredentials.from(new AuthConfig(Optional.empty(), Optional.empty(), Optional.of(command))).get()
  }

  def "format json (the default): the token field of the JSON object the command prints"() {
    given:
    def credentials = credentials(command(script('token', '''echo '{"token": "json-token", "expiry": "soon"}\'''')))

    expect:
    authorize(credentials) == 'Bearer json-token'

    cleanup:
    credentials?.close()
  }

  def "format raw: everything it prints, without surrounding white space"() {
    given:
    def credentials = credentials(command(script('token', 'printf "  raw-token\\n\\n"'), [], Format.RAW))

    expect:
    authorize(credentials) == 'Bearer raw-token'

    cleanup:
    credentials?.close()
  }

  def "arguments reach the command as written: no shell expands them"() {
    given:
    def credentials = credentials(command(script('token', 'printf "%s|%s" "$1" "$2"'), ['$HOME', 'a b'], Format.RAW))

    expect:
    authorize(credentials) == 'Bearer $HOME|a b'

    cleanup:
    credentials?.close()
  }

  def "refreshIntervalSeconds #refresh: #runs run(s) for two connections"() {
    given:
    def counter = dir.resolve('runs')
    def program = script('token', "echo run >> '${counter}'\nprintf 'token-%s' \"\$(wc -l < '${counter}' | tr -d ' ')\"")
    def credentials = credentials(command(program, [], Format.RAW, refresh))

    when:
    def first = authorize(credentials)
    def second = authorize(credentials)

    then:
    Files.readAllLines(counter).size() == runs
    first == 'Bearer token-1'
    second == "Bearer token-$runs".toString()

    cleanup:
    credentials?.close()

    where:
    refresh || runs
    0       || 2
    3600    || 1
  }

  def "#failure fails the connection as UNAUTHENTICATED naming the command, never its output"() {
    given:
    def program = script('get-token', body)
    def credentials = credentials(command(program, [], format))

    when:
    def status = authorize(credentials) as Status

    then:
    status.code == Status.Code.UNAUTHENTICATED
    status.description == "clouddriver.auth.tokenCommand: '${program}' $message".toString()
    !status.description.contains('leaked-secret')

    cleanup:
    credentials?.close()

    where:
    failure                  | format      | body                                                          || message
    'a non-zero exit'        | Format.JSON | 'echo "no credentials for spinnaker" >&2; echo leaked-secret; exit 3' || 'exited with 3: no credentials for spinnaker'
    'output that is no JSON' | Format.JSON | 'echo leaked-secret'                                          || "did not print a JSON object with a non-empty string field 'token' (format json, the default; set format: raw if the output is the token itself)"
    'JSON without a token'   | Format.JSON | 'echo \'{"access_token": "leaked-secret"}\''                  || "did not print a JSON object with a non-empty string field 'token' (format json, the default; set format: raw if the output is the token itself)"
    'no output'              | Format.RAW  | 'true'                                                        || 'printed nothing (format raw: the output is the token)'
    'too much output'        | Format.RAW  | 'head -c 70000 /dev/zero | tr "\\\\0" x'                      || 'printed more than 64Ki; a token command prints one token'
  }

  def "a command that runs too long is stopped"() {
    given:
    def program = script('slow', 'sleep 30; echo too-late')
    def token = new TokenCommand(command(program, [], Format.RAW), System::nanoTime, Duration.ofMillis(500))

    when:
    token.token()

    then:
    def e = thrown(ChannelSetupException)
    e.message == "clouddriver.auth.tokenCommand: '${program}' did not finish within 500 ms".toString()
  }

  def "a command that runs too long is stopped with every process it started"() {
    given: 'a script that starts a child in the background and a grandchild, then waits'
    def pids = dir.resolve('pids')
    def program = script('slow-tree', "sleep 300 &\necho \$! >> '${pids}'\nsh -c 'echo \$\$ >> \"${pids}\"; sleep 300'")
    def token = new TokenCommand(command(program, [], Format.RAW), System::nanoTime, Duration.ofSeconds(3))

    when:
    token.token()

    then:
    thrown(ChannelSetupException)
    def started = Files.readAllLines(pids)*.trim()*.toLong()
    started.size() == 2
    new PollingConditions(timeout: 10).eventually {
      assert started.every { pid -> !ProcessHandle.of(pid).map { it.alive }.orElse(false) }
    }
  }

  def "a command that cannot be found stops the agent at start, naming the key"() {
    when:
    credentials(command(dir.resolve('absent')))

    then:
    def e = thrown(ChannelSetupException)
    e.key() == 'clouddriver.auth.tokenCommand.command'
    e.message == "clouddriver.auth.tokenCommand.command: '${dir.resolve('absent')}' is not an executable file".toString()
  }

  def "a name without a slash is looked up on PATH"() {
    expect:
    TokenCommand.resolve('sh').isPresent()
    TokenCommand.resolve('surely-not-a-command-anywhere').isEmpty()
  }
}
