package io.spinagent.compatibility

import java.nio.file.Files
import java.nio.file.Path
import java.time.Instant
import java.time.LocalDateTime
import java.time.ZoneId
import java.time.ZoneOffset
import java.util.zip.ZipEntry
import java.util.zip.ZipInputStream
import spock.lang.Shared
import spock.lang.Specification

/**
 * The bundle is reproducible: the same sources give the same bytes, so its sha512sum in
 * plugin-manifest.json changes only when its contents do. Every entry carries the build's fixed
 * time (project.build.outputTimestamp), in the release zip, in its clouddriver.zip and in
 * SpinAgent's own jars in lib/; the zips list their entries in a canonical order (directories,
 * then files, each sorted), whatever order the file system lists them in.
 */
class BundleReproducibilitySpec extends Specification {

  @Shared
  Path bundle = Path.of(System.getProperty('spinagent.bundle'))

  @Shared
  Instant fixed = Instant.parse(System.getProperty('spinagent.outputTimestamp'))

  def "every entry of the release zip, its clouddriver.zip and SpinAgent's jars has the fixed time; the zips' order is canonical"() {
    given:
    def archives = [:]
    read(Files.readAllBytes(bundle), 'bundle', archives)

    expect:
    archives.keySet().containsAll(['bundle', 'clouddriver.zip'])
    archives.keySet().findAll { it.startsWith('lib/spinagent-') }.size() >= 5
    archives.every { name, entries -> entries.every { isFixed(it.timeLocal) } }
    ['bundle', 'clouddriver.zip'].every { archives[it]*.name == canonical(archives[it]*.name) }
  }

  /** Reads the entries of {@code zip}, and of the archives inside it that SpinAgent builds. */
  private void read(byte[] zip, String name, Map<String, List<ZipEntry>> into) {
    def entries = []
    new ZipInputStream(new ByteArrayInputStream(zip)).withCloseable { in ->
      for (def entry = in.nextEntry; entry != null; entry = in.nextEntry) {
        entries << entry
        if (entry.name == 'clouddriver.zip' || entry.name ==~ /lib\/spinagent-.*\.jar/) {
          read(in.readAllBytes(), entry.name, into)
        }
      }
    }
    into[name] = entries
  }

  /** The archiver's order: directories sorted, then files sorted. */
  private static List<String> canonical(List<String> names) {
    names.findAll { it.endsWith('/') }.sort() + names.findAll { !it.endsWith('/') }.sort()
  }

  /** The fixed time, as the archiver wrote it into the zip's local date and time fields. */
  private boolean isFixed(LocalDateTime time) {
    time == LocalDateTime.ofInstant(fixed, ZoneOffset.UTC) || time == LocalDateTime.ofInstant(fixed, ZoneId.systemDefault())
  }
}
