package io.spinagent.plugin

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses

import com.tngtech.archunit.core.domain.JavaClasses
import com.tngtech.archunit.core.importer.ClassFileImporter
import com.tngtech.archunit.core.importer.ImportOption
import com.tngtech.archunit.lang.ArchRule
import io.spinagent.plugin.fixture.ServletTouchingClass
import spock.lang.Shared
import spock.lang.Specification

/**
 * The product (everything under io.spinagent.plugin) runs unchanged on every Spinnaker line, so it
 * names none of the APIs that differ between them: the servlet API (javax, then jakarta), Spring
 * Boot's servlet registration, Spring's servlet wrappers and ResponseStatusException, the
 * javax/jakarta annotations. Those belong in a host layer (host-layers/). What the product does call
 * of jOOQ, Spring and Jackson is proven to link on every line by the linkage check
 * (compatibility/); docs/compatibility.md says how the two fit together.
 */
class LineNeutralitySpec extends Specification {

  static final ArchRule LINE_NEUTRAL = noClasses()
    .that().resideInAPackage('io.spinagent.plugin..')
    .should().dependOnClassesThat().resideInAnyPackage(
      'javax.servlet..', 'jakarta..', 'javax.annotation..', 'javax.validation..',
      'org.springframework.boot.web.servlet..', 'org.springframework.web.util..',
      'org.springframework.web.server..', 'org.springframework.web.filter..')
    .because('the product runs on every Spinnaker line; line-specific code lives in a host layer')

  @Shared
  JavaClasses product = new ClassFileImporter()
    .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
    .importPackages('io.spinagent.plugin')

  def "the product names no line-specific API"() {
    when:
    LINE_NEUTRAL.check(product)

    then:
    noExceptionThrown()
  }

  def "the rule catches a class that names the servlet API"() {
    when:
    LINE_NEUTRAL.check(new ClassFileImporter().importClasses(ServletTouchingClass))

    then:
    def e = thrown(AssertionError)
    e.message.contains('javax.servlet.http.HttpServletRequest')
  }
}
