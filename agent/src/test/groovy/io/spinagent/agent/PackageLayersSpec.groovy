package io.spinagent.agent

import com.tngtech.archunit.core.domain.JavaClasses
import com.tngtech.archunit.core.importer.ClassFileImporter
import com.tngtech.archunit.core.importer.ImportOption
import com.tngtech.archunit.lang.ArchRule
import io.spinagent.agent.config.LayerViolationFixture
import spock.lang.Shared
import spock.lang.Specification

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses

/**
 * The agent's packages use only the packages docs/architecture.md says they use: config at the
 * bottom; stream on config; cluster on stream; admin on those and tunnel; tunnel and convert on
 * config only; the root package ties them together. Change this map and that document together.
 */
class PackageLayersSpec extends Specification {

  static final String ROOT = 'io.spinagent.agent'

  /** Each package, and the agent's packages it may use besides itself. */
  static final Map<String, List<String>> USES = [
    config : [],
    stream : ['config'],
    cluster: ['config', 'stream'],
    tunnel : ['config'],
    admin  : ['config', 'stream', 'cluster', 'tunnel'],
    convert: ['config'],
  ]

  @Shared
  JavaClasses agent = new ClassFileImporter()
    .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
    .importPackages(ROOT)

  def "every package of the agent but the root has its place in the map"() {
    expect:
    agent.collect { it.packageName }.toSet() == ([ROOT] + USES.keySet().collect { "$ROOT.$it".toString() }) as Set
  }

  def "each package uses only what the map allows"() {
    when:
    rules().each { it.check(agent) }

    then:
    noExceptionThrown()
  }

  def "a package that reaches where it may not is named"() {
    given: 'config, at the bottom, using a class of stream'
    def withWrongImport = new ClassFileImporter().importClasses(LayerViolationFixture,
      io.spinagent.agent.stream.ObjectKey)

    when:
    rules().each { it.check(withWrongImport) }

    then:
    def failure = thrown(AssertionError)
    failure.message.contains('io.spinagent.agent.config.LayerViolationFixture')
    failure.message.contains('io.spinagent.agent.stream.ObjectKey')
  }

  private static List<ArchRule> rules() {
    USES.collect { pkg, uses ->
      def forbidden = ([ROOT] + (USES.keySet() - uses - pkg).collect { "$ROOT.$it..".toString() }) as String[]
      noClasses().that().resideInAPackage("$ROOT.$pkg..")
        .should().dependOnClassesThat().resideInAnyPackage(forbidden)
        .because("docs/architecture.md says $pkg uses ${uses ?: 'none of the agent\'s other packages'}")
        .allowEmptyShould(true)
    }
  }
}
