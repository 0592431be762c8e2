package io.spinagent.agent.cluster

import io.spinagent.testkit.kubernetes.KubernetesApiServer
import java.nio.charset.StandardCharsets
import java.nio.file.Files
import java.nio.file.Path
import java.util.concurrent.TimeUnit
import spock.lang.Shared
import spock.lang.Specification
import spock.lang.TempDir

/**
 * Secret values never reach the agent's heap: a JVM running the cluster side syncs a Secret holding a
 * planted value, dumps its heap, and the dump is searched for the value in every encoding it could
 * take. The control run, with scrubbing switched off, finds it, which shows the search would.
 */
class SecretHeapSpec extends Specification {

  @Shared KubernetesApiServer api
  @Shared Path kubeconfig
  @Shared String dataValue = 'planted-data-' + UUID.randomUUID()
  @Shared String appliedValue = 'planted-applied-' + UUID.randomUUID()
  @TempDir Path dir

  def setupSpec() {
    api = KubernetesApiServer.builder().start()
    kubeconfig = api.kubeconfig().writeTempFile()
    def data = Base64.encoder.encodeToString(dataValue.bytes)
    def applied = Base64.encoder.encodeToString(appliedValue.bytes)
    api.createObject("""{"apiVersion":"v1","kind":"Secret","type":"Opaque","metadata":{"name":"planted","namespace":"default",
      "annotations":{"kubectl.kubernetes.io/last-applied-configuration":
        "{\\"apiVersion\\":\\"v1\\",\\"data\\":{\\"token\\":\\"$applied\\"},\\"kind\\":\\"Secret\\"}"}},
      "data":{"token":"$data"}}""")
    api.createObject("""{"apiVersion":"v1","kind":"Secret","type":"Opaque","metadata":{"name":"other","namespace":"default"},
      "stringData":{"token":"$dataValue-string"}}""")
  }

  def cleanupSpec() {
    api?.close()
    if (kubeconfig != null) {
      Files.deleteIfExists(kubeconfig)
    }
  }

  /** Runs the probe in a new JVM and returns the heap dump's bytes. */
  byte[] dumpOfProbe(String mode) {
    def dump = dir.resolve("heap-${mode}.hprof")
    def classpath = System.getProperty('surefire.test.class.path') ?: System.getProperty('java.class.path')
    def java = Path.of(System.getProperty('java.home'), 'bin', 'java').toString()
    def process = new ProcessBuilder(java, '-Xmx96m', '-XX:+UseSerialGC', '-cp', classpath,
        SecretHeapProbe.name, kubeconfig.toString(), dump.toString(), mode)
        .redirectErrorStream(true).start()
    def output = new StringBuilder()
    def reader = Thread.start { process.inputStream.eachLine { output << it << '\n' } }
    assert process.waitFor(150, TimeUnit.SECONDS): "probe did not finish: $output"
    reader.join(5000)
    assert process.exitValue() == 0: "probe failed: $output"
    assert output.contains('DUMPED')
    try {
      return Files.readAllBytes(dump)
    } finally {
      Files.deleteIfExists(dump)
    }
  }

  /** The forms a value can take in a heap: as text (Latin-1 or UTF-16 strings), and base64 as in JSON. */
  static List<byte[]> forms(String value) {
    def base64 = Base64.encoder.encodeToString(value.getBytes(StandardCharsets.UTF_8))
    [value, base64].collectMany { text ->
      [text.getBytes(StandardCharsets.ISO_8859_1), text.getBytes(StandardCharsets.UTF_16LE), text.getBytes(StandardCharsets.UTF_16BE)]
    }
  }

  static boolean contains(byte[] haystack, String value) {
    def text = new String(haystack, StandardCharsets.ISO_8859_1)
    forms(value).any { text.contains(new String(it, StandardCharsets.ISO_8859_1)) }
  }

  def "after syncing Secrets, no Secret value is anywhere in the agent's heap"() {
    when:
    def heap = dumpOfProbe('scrub')

    then:
    heap.length > 1_000_000
    !contains(heap, dataValue)
    !contains(heap, dataValue + '-string')
    !contains(heap, appliedValue)
  }

  def "control: with scrubbing switched off, the same search finds the value"() {
    when:
    def heap = dumpOfProbe('no-scrub')

    then:
    contains(heap, dataValue)
  }
}
