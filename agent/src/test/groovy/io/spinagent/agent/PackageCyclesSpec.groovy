package io.spinagent.agent

import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices

import com.tngtech.archunit.core.domain.JavaClasses
import com.tngtech.archunit.core.importer.ClassFileImporter
import com.tngtech.archunit.core.importer.ImportOption
import spock.lang.Shared
import spock.lang.Specification

/**
 * The agent's packages depend one way (docs/architecture.md lists the order): a package cycle
 * fails the build. Each package is a slice of its own, the root package included. Only the agent's
 * own classes count, as compiled.
 */
class PackageCyclesSpec extends Specification {

  @Shared
  JavaClasses agent = new ClassFileImporter()
    .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
    .importPackages('io.spinagent.agent')

  def "the check reads every package of the agent"() {
    expect:
    agent.collect { it.packageName }.toSet().containsAll(['', '.admin', '.armory', '.cluster', '.config',
      '.config.binding', '.config.yaml', '.convert', '.stream', '.tunnel']
      .collect { 'io.spinagent.agent' + it })
  }

  def "no package of the agent depends, through others, on itself"() {
    when:
    slices().matching('io.spinagent.(**)').namingSlices('$1').should().beFreeOfCycles().check(agent)

    then:
    noExceptionThrown()
  }
}
