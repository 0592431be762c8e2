package io.spinagent.deploy

import java.nio.file.Files
import spock.lang.Shared
import spock.lang.Specification

/**
 * The container image recipe (deploy/image/Dockerfile) agrees with the agent build and with the
 * manifests that run the image. The image itself cannot be built here (no container engine): this
 * checks the recipe's text, instruction by instruction.
 */
class ImageRecipeSpec extends Specification {

  @Shared Kubectl kubectl = Kubectl.inTempHome()
  @Shared Map<String, List<String>> instructions = parse(Files.readAllLines(Renderings.deployDir().resolve('image/Dockerfile')))
  @Shared Manifests agentMode = Renderings.kustomize(kubectl, 'agent-mode')

  def cleanupSpec() {
    kubectl.deleteHome()
  }

  def "it runs the agent's runnable jar on a Java 25 runtime (virtual threads for the watches)"() {
    given:
    def agentPom = Files.readString(Renderings.deployDir().resolve('../agent/pom.xml'))

    expect:
    instructions.FROM == ['eclipse-temurin:25-jre']
    (agentPom =~ /<agent\.jar>([^<]+)<\/agent\.jar>/)[0][1] == '${project.build.directory}/spinagent-agent.jar'
    instructions.COPY == ['agent/target/spinagent-agent.jar /opt/spinagent/spinagent-agent.jar']
    instructions.ENTRYPOINT == ['["java", "-jar", "/opt/spinagent/spinagent-agent.jar"]']
  }

  def "its user, port and command are the ones the manifests expect"() {
    given:
    def pod = agentMode.one('Deployment').spec.template.spec
    def container = agentMode.agentContainer()

    expect:
    instructions.USER == ["${pod.securityContext.runAsUser}:${pod.securityContext.runAsGroup}".toString()]
    instructions.EXPOSE == [container.ports.find { it.name == 'admin' }.containerPort.toString()]
    instructions.CMD == ['["' + container.args.join('", "') + '"]']
    instructions.ENV == ["JAVA_TOOL_OPTIONS=\"${container.env.find { it.name == 'JAVA_TOOL_OPTIONS' }.value}\"".toString()]
  }

  def "the build context holds only the jar"() {
    when:
    def ignore = Files.readAllLines(Renderings.deployDir().resolve('image/Dockerfile.dockerignore'))
        .findAll { it.trim() && !it.startsWith('#') }

    then:
    ignore == ['*', '!agent/target/spinagent-agent.jar']
  }

  /** Instruction keyword to its arguments, continuation lines joined, comments dropped. */
  private static Map<String, List<String>> parse(List<String> lines) {
    Map<String, List<String>> parsed = [:].withDefault { [] }
    String pending = ''
    lines.findAll { !it.trim().startsWith('#') }.each { line ->
      pending += line.trim()
      if (pending.endsWith('\\')) {
        pending = pending[0..-2] + ' '
        return
      }
      if (pending) {
        def (keyword, arguments) = pending.split(/\s+/, 2) as List
        parsed[keyword] << arguments
      }
      pending = ''
    }
    parsed
  }
}
