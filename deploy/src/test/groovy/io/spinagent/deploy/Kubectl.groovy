package io.spinagent.deploy

import java.nio.file.Files
import java.nio.file.Path
import java.util.concurrent.TimeUnit

/**
 * The real kubectl, as an operator runs it. Never skipped: without kubectl on PATH the specs fail
 * and say how to install it (the build puts kubectl 1.32 first on the tests' PATH when it can: see
 * .mvn/scripts/ProvisionKubectl.groovy).
 */
final class Kubectl {

  static record Result(int exit, String out, String err) {}

  private final Path home

  /** @param home HOME and cache directory of the kubectl runs, so no operator setting leaks in */
  Kubectl(Path home) {
    this.home = home
  }

  static String binary() {
    def found = System.getenv('PATH').split(File.pathSeparator).collect { new File(it, 'kubectl') }
        .find { it.isFile() && it.canExecute() }
    assert found != null: 'kubectl is not on PATH and the build could not fetch it (see its log). Install ' +
        'kubectl 1.32 (the binary of a Kubernetes release); the deploy specs never skip.'
    found.path
  }

  Result run(String stdin, List<String> args) {
    def command = [binary(), '--cache-dir', home.resolve('cache').toString()] + args
    def builder = new ProcessBuilder(command).directory(home.toFile())
    builder.environment().put('HOME', home.toString())
    builder.environment().put('KUBECONFIG', home.resolve('no-kubeconfig').toString())
    def process = builder.start()
    def out = new StringBuilder()
    def err = new StringBuilder()
    // Join the readers rather than waitForProcessOutput(), which closes streams still being drained.
    def readers = [process.consumeProcessOutputStream(out), process.consumeProcessErrorStream(err)]
    process.outputStream.withWriter('UTF-8') { it.write(stdin ?: '') }
    assert process.waitFor(120, TimeUnit.SECONDS): "kubectl ${args.join(' ')} did not finish"
    readers*.join()
    new Result(process.exitValue(), out.toString(), err.toString())
  }

  /** The output of {@code kubectl kustomize <dir>}; fails naming kubectl's error. */
  String kustomize(Path dir) {
    def result = run(null, ['kustomize', dir.toString()])
    assert result.exit() == 0: "kubectl kustomize $dir failed: ${result.err()}"
    result.out()
  }

  /** {@code kubectl apply --dry-run=server} of a whole rendering against the API server of kubeconfig. */
  Result applyServerDryRun(Path kubeconfig, String manifests) {
    run(manifests, ['--kubeconfig', kubeconfig.toString(), 'apply', '--dry-run=server', '-o', 'name', '-f', '-'])
  }

  static Kubectl inTempHome() {
    new Kubectl(Files.createTempDirectory('deploy-kubectl'))
  }

  void deleteHome() {
    home.toFile().deleteDir()
  }
}
