package io.spinagent.sandbox

import io.spinagent.sandbox.host.ClouddriverProcess
import io.spinagent.sandbox.host.PluginBundle
import io.spinagent.testkit.files.TemporaryDirectory
import java.nio.file.Files
import java.nio.file.Path
import java.util.concurrent.TimeUnit
import spock.lang.Specification

/**
 * The README's command, the way a new user meets it: the sandbox's main class in its own JVM,
 * kubectl on the printed kubeconfig, the change in the printed cache view, then a stop by signal
 * (SIGTERM, as Ctrl-C's SIGINT) that leaves no process, port or file behind.
 */
class SandboxCommandSpec extends Specification {

  Process process
  /** A directory the sandbox should have deleted: removed here if a failing feature left it. */
  Path workDir

  def cleanup() {
    process?.destroyForcibly()
    process?.waitFor(30, TimeUnit.SECONDS)
    if (workDir != null) {
      TemporaryDirectory.delete(workDir, "the sandbox's directory")
    }
  }

  def "start, see the demo application in the cache view, scale it with kubectl, see the change, stop cleanly"() {
    given:
    def text = new StringBuffer()
    def output = new SandboxOutput(text)
    process = new ProcessBuilder(
        Path.of(System.getProperty('java.home'), 'bin', 'java').toString(),
        "-D${PluginBundle.BUNDLE_PROPERTY}=${PluginBundle.built()}".toString(),
        "-D${ClouddriverProcess.STAND_INS_PROPERTY}=${System.getProperty(ClouddriverProcess.STAND_INS_PROPERTY)}".toString(),
        '-cp', sandboxClasspath(),
        SandboxMain.name, '--random-ports', '--no-color', '--line', SandboxSpecSupport.line())
        .redirectErrorStream(true)
        .start()
    process.outputStream.close()
    def reader = process.consumeProcessOutputStream(text)

    expect: 'the view shows the demo application with its two running pods'
    // The kinds' listings commit separately: wait for the view that shows them all, not just the pods.
    awaitWhileRunning(output, 600) {
      output.instances().size() == 2 && output.latestView().contains('load balancer ingress frontend')
    }
    output.latestView().contains('application shop')
    output.latestView().contains('cluster deployment frontend')
    output.latestView().contains('load balancer service frontend')
    output.latestView().contains('load balancer ingress frontend  -> service frontend')
    output.instances().every { it.endsWith('Running') }
    output.latestView() =~ /change → cache row: p50 ≤ [\d.,]+ ms, p99 ≤ [\d.,]+ ms over [\d,]+ changes/

    when: 'the user scales the deployment with kubectl'
    def clusterKubeconfig = Path.of(output.printed('Cluster kubeconfig'))
    def scaled = Kubectl.run(clusterKubeconfig, 'scale', 'deployment', 'frontend', '--replicas=4')

    then: 'the view follows'
    scaled.exit == 0
    awaitWhileRunning(output, 60) { output.instances().size() == 4 }

    when: 'the user stops it (SIGTERM)'
    def workDir = clusterKubeconfig.parent
    def ports = ['Clouddriver', 'Agent gRPC port', 'Kubernetes tunnel', 'Simulated cluster', 'Agent']
        .collectEntries { [(it): output.port(it)] }
    // SIGTERM through the process handle: Process.destroy() would also close our end of its
    // output, and what it prints while stopping would be lost.
    process.toHandle().destroy()
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

  def "Ctrl-C under '| tee': the output pipe is gone and Maven's SIGTERM follows the SIGINT, yet no secret is left on disk"() {
    given: 'the sandbox running, its output read through a pipe as tee would'
    def text = new StringBuffer()
    def output = new SandboxOutput(text)
    process = new ProcessBuilder(
        Path.of(System.getProperty('java.home'), 'bin', 'java').toString(),
        "-D${PluginBundle.BUNDLE_PROPERTY}=${PluginBundle.built()}".toString(),
        "-D${ClouddriverProcess.STAND_INS_PROPERTY}=${System.getProperty(ClouddriverProcess.STAND_INS_PROPERTY)}".toString(),
        '-cp', sandboxClasspath(),
        SandboxMain.name, '--random-ports', '--no-color', '--line', SandboxSpecSupport.line())
        .redirectErrorStream(true)
        .start()
    process.outputStream.close()
    def reader = process.consumeProcessOutputStream(text)
    awaitWhileRunning(output, 600) { output.printed('Tunnel kubeconfig') != null }
    workDir = Path.of(output.printed('Cluster kubeconfig')).parent
    def secrets = Files.walk(workDir).withCloseable { it.filter { Files.isRegularFile(it) }.count() }

    when: 'Ctrl-C: tee dies (nobody reads the output any more), the sandbox gets SIGINT, then SIGTERM'
    process.inputStream.close()
    reader.interrupt()
    signal('INT')
    Thread.sleep(200)
    signal('TERM')
    def exited = process.waitFor(120, TimeUnit.SECONDS)

    then: 'it finishes stopping before it exits, and its directory with the CA key and tokens is gone'
    secrets > 0
    exited
    process.exitValue() == 0
    !Files.exists(workDir)
  }

  private void signal(String name) {
    def kill = new ProcessBuilder('kill', "-${name}".toString(), process.pid().toString()).start()
    assert kill.waitFor(10, TimeUnit.SECONDS) && kill.exitValue() == 0
  }

  /**
   * Waits for {@code condition}, failing at once with what the sandbox printed if it ends first (a
   * polling assertion would keep polling a dead process until its timeout).
   */
  private void awaitWhileRunning(SandboxOutput output, int seconds, Closure<Boolean> condition) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds)
    while (!condition()) {
      // Not Groovy asserts: Spock would build their messages, exit status included, before checking.
      if (!process.alive) {
        throw new AssertionError("the sandbox ended (status ${process.exitValue()}):\n${output.all()}".toString())
      }
      if (System.nanoTime() > deadline) {
        throw new AssertionError("not seen within ${seconds}s; the sandbox printed:\n${output.all()}".toString())
      }
      Thread.sleep(200)
    }
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
