package io.spinagent.testkit.kubernetes

import io.kubernetes.client.openapi.apis.CoreV1Api
import io.kubernetes.client.util.Config
import java.nio.file.Files
import java.nio.file.Path
import java.util.concurrent.TimeUnit
import spock.lang.Specification

/** The standalone server, as the sandbox runs it: a separate JVM, a URL and a kubeconfig on stdout. */
class KubernetesApiServerMainSpec extends Specification {

  def "the main class serves, preloads manifests, writes a kubeconfig and stops on SIGTERM"() {
    given:
    def dir = Files.createTempDirectory('apiserver-main')
    def kubeconfig = dir.resolve('kubeconfig.yaml')
    def manifests = dir.resolve('objects.yaml')
    Files.writeString(manifests, '''
      apiVersion: v1
      kind: Namespace
      metadata:
        name: preloaded
      ---
      apiVersion: v1
      kind: ConfigMap
      metadata:
        name: settings
        namespace: preloaded
      data:
        mode: sandbox
      '''.stripIndent())
    def java = Path.of(System.getProperty('java.home'), 'bin', 'java').toString()
    def process = new ProcessBuilder(java, '-cp', System.getProperty('java.class.path'),
        KubernetesApiServerMain.name, '--port', '0', '--token', 'main-token', '--git-version', 'v1.31.1',
        '--kubeconfig', kubeconfig.toString(), '--objects', manifests.toString())
        .redirectErrorStream(true).start()
    def lines = []
    def reader = new BufferedReader(new InputStreamReader(process.inputStream))

    when:
    long deadline = System.currentTimeMillis() + 60_000
    while (!lines.any { it.startsWith('kubeconfig: ') } && System.currentTimeMillis() < deadline) {
      def line = reader.readLine()
      if (line == null) {
        break
      }
      lines << line
    }
    def url = lines.find { it.startsWith('Kubernetes API test server listening on ') }?.substring(40)
    def client = Config.fromConfig(kubeconfig.toString())
    def settings = new CoreV1Api(client).readNamespacedConfigMap('settings', 'preloaded').execute()

    then:
    url ==~ /https:\/\/127\.0\.0\.1:\d+/
    lines.contains('kubeconfig: ' + kubeconfig.toAbsolutePath())
    client.basePath == url
    settings.data == [mode: 'sandbox']

    when:
    process.destroy()

    then:
    process.waitFor(20, TimeUnit.SECONDS)

    cleanup:
    process?.destroyForcibly()
    dir?.toFile()?.deleteDir()
  }
}
