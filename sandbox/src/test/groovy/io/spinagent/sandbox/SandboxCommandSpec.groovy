package io.spinagent.sandbox

import io.spinagent.sandbox.host.PluginsRoot
import spock.lang.Specification
import spock.util.concurrent.PollingConditions

import java.nio.file.Files
import java.nio.file.Path
import java.util.concurrent.TimeUnit

/**
 * The README's command, the way a new user meets it: the sandbox's main class in its own JVM,
 * kubectl on the printed kubeconfig, the change in the printed cache view, then a stop by signal
 * (SIGTERM, as Ctrl-C's SIGINT) that leaves no process, port or file behind.
 */
class SandboxCommandSpec extends Specification {

  /** Startup includes an embedded PostgreSQL and a whole Clouddriver: minutes on a busy CI machine. */
  PollingConditions startup = new PollingConditions(timeout: 600, delay: 1)
  PollingConditions eventually = new PollingConditions(timeout: 60, delay: 0.2)

  Process process

  def cleanup() {
    process?.destroyForcibly()
  }

  def "start, see the demo application in the cache view, scale it with kubectl, see the change, stop cleanly"() {
    given:
    def text = new StringBuffer()
    def output = new SandboxOutput(text)
    process = new ProcessBuilder(
        Path.of(System.getProperty('java.home'), 'bin', 'java').toString(),
        "-D${PluginsRoot.BUNDLE_PROPERTY}=${PluginsRoot.builtBundle()}".toString(),
        '-cp', sandboxClasspath(),
        SandboxMain.name, '--random-ports', '--no-color')
        .redirectErrorStream(true)
        .start()
    process.outputStream.close()
    def reader = process.consumeProcessOutputStream(text)

    expect: 'the view shows the demo application with its two running pods'
    startup.eventually {
      assert process.alive: "the sandbox ended early:\n${output.all()}"
      assert output.instances().size() == 2
    }
    output.latestView().contains('application shop')
    output.latestView().contains('cluster deployment frontend')
    output.latestView().contains('load balancer service frontend')
    output.latestView().contains('load balancer ingress frontend  -> service frontend')
    output.instances().every { it.endsWith('Running') }

    when: 'the user scales the deployment with kubectl'
    def clusterKubeconfig = Path.of(output.printed('Cluster kubeconfig'))
    def scaled = Kubectl.run(clusterKubeconfig, 'scale', 'deployment', 'frontend', '--replicas=4')

    then: 'the view follows'
    scaled.exit == 0
    eventually.eventually {
      assert output.instances().size() == 4
    }

    when: 'the user stops it (SIGTERM)'
    def workDir = clusterKubeconfig.parent
    def ports = ['Clouddriver', 'Agent gRPC port', 'Kubernetes tunnel', 'Simulated cluster', 'Agent']
        .collectEntries { [(it): output.port(it)] }
    process.destroy()
    def exited = process.waitFor(120, TimeUnit.SECONDS)
    reader.join()

    then: 'it stops everything, exits 0, and frees its ports and files'
    exited
    process.exitValue() == 0
    output.all().contains('Sandbox stopped; nothing left behind.')
    ports.every { name, port -> port != null }
    ports.findAll { name, port -> !portIsFree(port) } == [:]
    !Files.exists(workDir)
  }

  /** The class path the README's command runs with (Maven hands it to the specs). */
  private static String sandboxClasspath() {
    def classpath = System.getProperty('spinagent.sandbox.classpath')
    assert classpath && !classpath.startsWith('${'): 'run through Maven: spinagent.sandbox.classpath is not set'
    classpath
  }

  private static boolean portIsFree(int port) {
    try {
      new ServerSocket(port, 0, InetAddress.loopbackAddress).close()
      true
    } catch (IOException ignored) {
      false
    }
  }
}
