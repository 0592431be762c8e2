package io.spinagent.plugin

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses

import com.tngtech.archunit.core.domain.JavaClasses
import com.tngtech.archunit.core.importer.ClassFileImporter
import com.tngtech.archunit.core.importer.ImportOption
import com.tngtech.archunit.lang.ArchRule
import io.spinagent.plugin.store.LayerViolationFixture
import spock.lang.Shared
import spock.lang.Specification

/**
 * The plugin's packages in the order docs/architecture.md draws them, bottom up: a package uses
 * only those listed before it. Change the order here and in that document together.
 */
class PackageLayersSpec extends Specification {

  /** Each layer's packages, as ArchUnit patterns; {@code ..} takes the sub-packages along. */
  static final List<String> LAYERS = [
    'io.spinagent.plugin.identity',
    'io.spinagent.plugin.config',
    'io.spinagent.plugin.http',
    'io.spinagent.plugin.store',
    'io.spinagent.plugin.accounts',
    'io.spinagent.plugin.cache..',
    'io.spinagent.plugin.ha',
    'io.spinagent.plugin.grpc.auth',
    'io.spinagent.plugin.grpc.session',
    'io.spinagent.plugin.grpc',
    'io.spinagent.plugin.tunnel',
    'io.spinagent.plugin.tunnel.history',
    'io.spinagent.plugin.web',
    'io.spinagent.plugin.wiring',
    'io.spinagent.plugin',
  ]

  @Shared
  JavaClasses plugin = new ClassFileImporter()
    .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
    .importPackages('io.spinagent.plugin')

  def "every package of the plugin has its place in the order, and every place a package"() {
    given:
    def packages = plugin.collect { it.packageName }.toSet()

    expect:
    packages.every { pkg -> LAYERS.any { matches(it, pkg) } }
    LAYERS.every { layer -> packages.any { matches(layer, it) } }
  }

  def "each package uses only the packages below it"() {
    when:
    rules().each { it.check(plugin) }

    then:
    noExceptionThrown()
  }

  def "a lower package that reaches up is named"() {
    given: 'store, which sits under web, using a web class'
    def withWrongImport = new ClassFileImporter().importClasses(LayerViolationFixture,
      io.spinagent.plugin.web.AccountView)

    when:
    rules().each { it.check(withWrongImport) }

    then:
    def failure = thrown(AssertionError)
    failure.message.contains('io.spinagent.plugin.store.LayerViolationFixture')
    failure.message.contains('io.spinagent.plugin.web.AccountView')
  }

  private static List<ArchRule> rules() {
    (0..<LAYERS.size() - 1).collect { i ->
      noClasses().that().resideInAPackage(LAYERS[i])
        .should().dependOnClassesThat().resideInAnyPackage(LAYERS.subList(i + 1, LAYERS.size()) as String[])
        .because("docs/architecture.md orders the plugin's packages bottom up, and ${LAYERS[i]} comes before them")
        .allowEmptyShould(true) // a layer without classes among those checked; the order spec above covers the plugin's
    }
  }

  private static boolean matches(String pattern, String pkg) {
    pattern.endsWith('..') ? (pkg == pattern[0..-3] || pkg.startsWith(pattern[0..-2])) : pkg == pattern
  }
}
