package io.spinagent.plugin.channel

import java.nio.file.Path
import java.util.concurrent.TimeUnit

/** The real kubectl, run the way Clouddriver runs it: one process per command, a kubeconfig file. */
class Kubectl {

  /** Runs the kubectl first on PATH: the build's default release (see {@link KubectlRelease}). */
  static Map run(Path kubeconfig, String stdin, String... args) {
    run('kubectl', kubeconfig, stdin, args)
  }

  /** Runs {@code <binary> --kubeconfig=<kubeconfig> <args>} with {@code stdin} (or none); [exit, out, err]. */
  static Map run(String binary, Path kubeconfig, String stdin, String... args) {
    def command = [binary, "--kubeconfig=$kubeconfig".toString(), '--request-timeout=20s'] + args.toList()
    def process = new ProcessBuilder(command).start()
    if (stdin != null) {
      process.outputStream.withWriter { it << stdin }
    } else {
      process.outputStream.close()
    }
    def out = new StringBuffer()
    def err = new StringBuffer()
    // Join the readers, not waitForProcessOutput(): that closes the streams under readers still
    // draining them, and output goes missing.
    def readers = [process.consumeProcessOutputStream(out), process.consumeProcessErrorStream(err)]
    assert process.waitFor(60, TimeUnit.SECONDS): "${binary} ${args.join(' ')} did not finish"
    readers*.join()
    [exit: process.exitValue(), out: out.toString(), err: err.toString()]
  }
}
