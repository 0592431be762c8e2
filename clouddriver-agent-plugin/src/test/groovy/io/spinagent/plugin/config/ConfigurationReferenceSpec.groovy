package io.spinagent.plugin.config

import io.spinagent.testkit.docs.ReferenceTables
import java.beans.Introspector
import java.nio.file.Files
import java.nio.file.Path
import java.util.Locale
import org.springframework.boot.context.properties.ConfigurationProperties
import org.springframework.context.annotation.ClassPathScanningCandidateComponentProvider
import org.springframework.core.annotation.AnnotationUtils
import org.springframework.core.type.filter.AnnotationTypeFilter
import spock.lang.Specification

/**
 * docs/configuration.md stays honest (issue #8): every key the plugin's typed
 * {@code @ConfigurationProperties} classes bind appears in its key tables, and every documented
 * {@code spinagent.*} key exists. Keys are spelled as Spring Boot's relaxed binding prints them:
 * nested classes dotted, camelCase in kebab-case.
 */
class ConfigurationReferenceSpec extends Specification {

  static final Path REFERENCE = Path.of(System.getProperty('user.dir')).resolve('../docs/configuration.md').normalize()

  def "every spinagent.* key of the code is documented in docs/configuration.md, and every documented key exists"() {
    given:
    assert Files.isRegularFile(REFERENCE): "the configuration reference is not at $REFERENCE"
    Map<String, String> code = codeKeys()
    Map<String, Integer> documented = documentedKeys()

    when:
    def undocumented = code.keySet() - documented.keySet()
    def unknown = documented.keySet() - code.keySet()

    then: 'the properties classes were found at all'
    code.keySet().any { it.startsWith('spinagent.grpc.') }

    and: 'the message says exactly which key is missing where'
    assert undocumented.isEmpty() && unknown.isEmpty(): drift(undocumented, unknown, code, documented)
  }

  static String drift(Set<String> undocumented, Set<String> unknown, Map<String, String> code, Map<String, Integer> documented) {
    def lines = ["docs/${REFERENCE.fileName} and the code disagree:"]
    if (undocumented) {
      lines << "  keys in the code but not in docs/${REFERENCE.fileName} (add a row to its key tables):"
      undocumented.sort().each { lines << "    $it  (${code[it]})" }
    }
    if (unknown) {
      lines << "  keys in docs/${REFERENCE.fileName} that no @ConfigurationProperties class binds (remove, rename, or implement):"
      unknown.sort().each { lines << "    $it  (line ${documented[it]})" }
    }
    lines.join('\n')
  }

  /** Documented {@code spinagent.*} keys to their line; {@code key[]} for a list counts as {@code key}. */
  static Map<String, Integer> documentedKeys() {
    ReferenceTables.keyRows(REFERENCE)
        .findAll { it.key().startsWith('spinagent.') }
        .collectEntries { [(it.key() - ~/\[]$/): it.line()] }
  }

  /** Every bound key to the class and property that binds it. */
  static Map<String, String> codeKeys() {
    def scanner = new ClassPathScanningCandidateComponentProvider(false)
    scanner.addIncludeFilter(new AnnotationTypeFilter(ConfigurationProperties))
    Map<String, String> keys = [:]
    scanner.findCandidateComponents('io.spinagent').each { candidate ->
      Class<?> type = Class.forName(candidate.beanClassName)
      def annotation = AnnotationUtils.findAnnotation(type, ConfigurationProperties)
      String prefix = annotation.prefix() ?: annotation.value()
      collect(prefix, type, keys)
    }
    keys
  }

  private static void collect(String prefix, Class<?> type, Map<String, String> keys) {
    Introspector.getBeanInfo(type, Object).propertyDescriptors.each { property ->
      Class<?> valueType = property.propertyType
      String key = "$prefix.${kebab(property.name)}"
      if (property.readMethod != null && nested(valueType)) {
        collect(key, valueType, keys)
      } else if (property.writeMethod != null
          || (property.readMethod != null && (Collection.isAssignableFrom(valueType) || Map.isAssignableFrom(valueType)))) {
        keys[key] = "${type.name}.${property.name}"
      }
    }
  }

  /** A group of keys rather than a value: one of our own classes. */
  private static boolean nested(Class<?> type) {
    type.name.startsWith('io.spinagent.') && !type.enum
  }

  /** Spring Boot's dashed form: {@code maxInboundMessageSize} is {@code max-inbound-message-size}. */
  static String kebab(String name) {
    name.replaceAll(/([a-z0-9])([A-Z])/, '$1-$2').toLowerCase(Locale.ROOT)
  }
}
