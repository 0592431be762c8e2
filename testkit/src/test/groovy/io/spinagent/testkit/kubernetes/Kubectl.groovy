package io.spinagent.testkit.kubernetes

import java.nio.file.Path
import java.util.concurrent.TimeUnit

/**
 * The real kubectl against a test server, with a HOME and cache directory of its own so that no
 * setting of the machine leaks in. Never skipped: without kubectl on PATH every spec that runs it
 * fails and says how to install it (the build puts kubectl 1.32 first on the tests' PATH when it
 * can: see .mvn/scripts/ProvisionKubectl.groovy).
 */
final class Kubectl {

  private final Path home

  Kubectl(Path home) {
    this.home = home
  }

  static String binary() {
    def found = System.getenv('PATH').split(File.pathSeparator).collect { new File(it, 'kubectl') }
        .find { it.isFile() && it.canExecute() }
    assert found != null: 'kubectl is not on PATH. Install it (Debian: apt-get install -y kubernetes-client, ' +
        'or the kubectl binary from the Kubernetes release); the specs that run it never skip.'
    found.path
  }

  /** Runs {@code kubectl --kubeconfig <kubeconfig> <args>}: [exit, out, err]. */
  Map run(Path kubeconfig, String... args) {
    def command = [binary(), '--kubeconfig', kubeconfig.toString(), '--cache-dir', home.resolve('cache').toString()]
    command.addAll(args)
    def process = new ProcessBuilder(command).directory(home.toFile())
    process.environment().put('HOME', home.toString())
    def started = process.start()
    started.outputStream.close()
    def out = new StringBuilder()
    def err = new StringBuilder()
    // Join the readers, not waitForProcessOutput(): that closes the streams under readers still
    // draining them, and output goes missing.
    def readers = [started.consumeProcessOutputStream(out), started.consumeProcessErrorStream(err)]
    assert started.waitFor(60, TimeUnit.SECONDS): "kubectl ${args.join(' ')} did not finish"
    readers*.join()
    [exit: started.exitValue(), out: out.toString(), err: err.toString()]
  }

  /** Runs kubectl and expects it to succeed; its output. */
  String ok(Path kubeconfig, String... args) {
    def result = run(kubeconfig, args)
    assert result.exit == 0: "kubectl ${args.join(' ')} failed: ${result.err}"
    result.out
  }
}
