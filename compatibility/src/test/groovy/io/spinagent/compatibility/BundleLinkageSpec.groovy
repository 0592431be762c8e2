package io.spinagent.compatibility

import java.nio.file.Files
import java.nio.file.Path
import java.util.zip.ZipInputStream
import spock.lang.Shared
import spock.lang.Specification
import spock.lang.TempDir

/**
 * The released bundle on each Spinnaker line's own libraries (the class path its platform pom
 * resolves): the plugin's own chooser picks the host layer made for that line, and every class,
 * method and field the bundle's code uses there exists, so nothing fails to link when it runs.
 */
class BundleLinkageSpec extends Specification {

  @Shared
  Path bundle = Path.of(System.getProperty('spinagent.bundle'))

  @TempDir
  Path dir

  def "on Spinnaker #line the plugin chooses its #layer layer, and all its code links"() {
    when:
    def linkage = BundleLinkage.check(bundle, classPathOf(line))

    then:
    linkage.layer() == layer
    linkage.problems().isEmpty()

    where:
    line     || layer
    '1.36'   || 'spring-boot-2'
    '2025.4' || 'spring-boot-3'
    '2026.1' || 'spring-boot-3'
    '2026.2' || 'spring-boot-3'
  }

  def "no class in the bundle's lib/ is one that Spinnaker #line's Clouddriver has"() {
    given: 'Clouddriver loads plugin classes first: a second copy would shadow its own'
    def shadowing = [:]
    new ClassPath(classPathOf(line)).withCloseable { clouddriver ->
      bundledJars().each { jar ->
        ClassPath.forEachClass(jar) { name, bytes ->
          if (!name.endsWith('module-info') && clouddriver.find(name).isPresent()) {
            shadowing.computeIfAbsent(jar.fileName.toString()) { [] } << name
          }
        }
      }
    }

    expect:
    shadowing.collectEntries { jar, classes -> [jar, classes.take(3)] } == [:]

    where:
    line << ['1.36', '2025.4', '2026.1', '2026.2']
  }

  static List<Path> classPathOf(String line) {
    def file = Path.of(System.getProperty('spinagent.platforms'), "spinnaker-$line", 'target', 'classpath.txt')
    assert Files.exists(file): "the platform of Spinnaker $line writes its class path when it is built: $file"
    LinkageMain.classPath(Files.readString(file))
  }

  /** The bundle's lib/ jars, extracted into {@code dir}. */
  List<Path> bundledJars() {
    def jars = []
    new ZipInputStream(Files.newInputStream(bundle)).withCloseable { outer ->
      for (def entry = outer.nextEntry; entry != null; entry = outer.nextEntry) {
        if (entry.name == 'clouddriver.zip') {
          def inner = new ZipInputStream(outer)
          for (def e = inner.nextEntry; e != null; e = inner.nextEntry) {
            if (e.name.startsWith('lib/') && e.name.endsWith('.jar')) {
              def jar = dir.resolve(e.name.substring('lib/'.length()))
              Files.write(jar, inner.readAllBytes())
              jars << jar
            }
          }
        }
      }
    }
    assert jars: 'the bundle carries its runtime libraries in lib/'
    jars
  }
}
