package io.spinagent.agent

import ch.qos.logback.classic.Logger
import ch.qos.logback.classic.spi.ILoggingEvent
import ch.qos.logback.core.read.ListAppender
import java.nio.file.Files
import java.nio.file.attribute.PosixFilePermissions
import org.slf4j.LoggerFactory

/**
 * When the agent cannot present its own credentials (its token command fails), the log says so,
 * naming the command, and does not blame Clouddriver, which was never asked.
 */
class CredentialFailuresSpec extends AgentSpecification {

  ListAppender<ILoggingEvent> appender = new ListAppender<>()
  Logger streamLog = LoggerFactory.getLogger('io.spinagent.agent.stream.AgentStreamClient') as Logger

  def setup() {
    appender.start()
    streamLog.addAppender(appender)
  }

  def cleanup() {
    streamLog.detachAppender(appender)
  }

  def "a token command that fails is logged as the agent's failure, naming the command, and the agent tries again"() {
    given:
    def program = dir.resolve('get-token')
    Files.writeString(program, '#!/bin/sh\necho "no identity for spinnaker" >&2\nexit 3\n')
    Files.setPosixFilePermissions(program, PosixFilePermissions.fromString('rwx------'))

    when:
    start("""\
      clouddriver:
        grpc: '${channel.target()}'
        insecure: true
        backoff: {baseDelay: 100ms, maxDelay: 200ms}
        auth: {tokenCommand: {command: '${program}', format: raw}}
      agent: {id: test-agent}
      """.stripIndent())

    then: 'at least two attempts, each logged as the agent failing to get a token'
    eventually {
      appender.list.count { it.formattedMessage.contains("no credentials to connect to Clouddriver") } >= 2
    }
    def line = appender.list.find { it.formattedMessage.contains('no credentials') }.formattedMessage
    line == "Agent 'test-agent': no credentials to connect to Clouddriver at ${channel.target()}:" +
        " clouddriver.auth.tokenCommand: '${program}' exited with 3: no identity for spinnaker; trying again" +
        ' with clouddriver.backoff'
    appender.list.every { !it.formattedMessage.contains('refused this agent') }
    channel.hellos.isEmpty()
  }
}
