package io.spinagent.plugin

import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices

import com.tngtech.archunit.core.domain.JavaClasses
import com.tngtech.archunit.core.importer.ClassFileImporter
import com.tngtech.archunit.core.importer.ImportOption
import spock.lang.Shared
import spock.lang.Specification

/**
 * The plugin's packages depend one way (docs/architecture.md lists the order): a package cycle
 * fails the build. Each package is a slice of its own, a sub-package apart from its parent
 * (grpc.session is not grpc), the root package included. Only the plugin's own classes count, as
 * compiled: a dependency through a Javadoc link or a spec does not.
 */
class PackageCyclesSpec extends Specification {

  @Shared
  JavaClasses plugin = new ClassFileImporter()
    .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
    .importPackages('io.spinagent.plugin')

  def "the check reads every package of the plugin"() {
    expect:
    plugin.collect { it.packageName }.toSet().containsAll(['', '.accounts', '.cache', '.cache.format', '.cache.sql',
      '.config', '.grpc', '.grpc.auth', '.grpc.session', '.ha', '.http', '.identity', '.store', '.tunnel',
      '.tunnel.history', '.web', '.wiring'].collect { 'io.spinagent.plugin' + it })
  }

  def "no package of the plugin depends, through others, on itself"() {
    when:
    slices().matching('io.spinagent.(**)').namingSlices('$1').should().beFreeOfCycles().check(plugin)

    then:
    noExceptionThrown()
  }
}
