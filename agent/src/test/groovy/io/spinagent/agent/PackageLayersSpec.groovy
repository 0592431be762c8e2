package io.spinagent.agent

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses

import com.tngtech.archunit.core.domain.JavaClasses
import com.tngtech.archunit.core.importer.ClassFileImporter
import com.tngtech.archunit.core.importer.ImportOption
import com.tngtech.archunit.lang.ArchRule
import io.spinagent.agent.config.LayerViolationFixture
import spock.lang.Shared
import spock.lang.Specification

/**
 * The agent's packages use only the packages docs/architecture.md says they use: config (the
 * typed settings) and config.yaml (bounded files and YAML) at the bottom; armory on config.yaml;
 * config.binding on those three; stream on config and config.yaml; cluster on stream and the
 * binding of account definitions; admin on those and tunnel; tunnel on config only; convert on
 * armory and the binding; the root package ties them together. Each entry is one package, its
 * subpackages having entries of their own. Change this map and that document together.
 */
class PackageLayersSpec extends Specification {

  static final String ROOT = 'io.spinagent.agent'

  /** Each package, and the agent's packages it may use besides itself. */
  static final Map<String, List<String>> USES = [
    'config'        : [],
    'config.yaml'   : [],
    'armory'        : ['config.yaml'],
    'config.binding': ['config', 'config.yaml', 'armory'],
    'stream'        : ['config', 'config.yaml'],
    'cluster'       : ['config', 'config.yaml', 'config.binding', 'stream'],
    'tunnel'        : ['config'],
    'admin'         : ['config', 'stream', 'cluster', 'tunnel'],
    'convert'       : ['config.yaml', 'armory', 'config.binding'],
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
      def forbidden = ([ROOT] + (USES.keySet() - uses - pkg).collect { "$ROOT.$it".toString() }) as String[]
      noClasses().that().resideInAPackage("$ROOT.$pkg")
        .should().dependOnClassesThat().resideInAnyPackage(forbidden)
        .because("docs/architecture.md says $pkg uses ${uses ?: 'none of the agent\'s other packages'}")
        .allowEmptyShould(true)
    }
  }
}
