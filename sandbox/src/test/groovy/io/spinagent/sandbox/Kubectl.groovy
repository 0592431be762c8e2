package io.spinagent.sandbox

import java.nio.file.Path
import java.util.concurrent.TimeUnit

/** The real kubectl, as a user runs it. */
class Kubectl {

  static Map run(Path kubeconfig, String... args) {
    def command = ['kubectl', "--kubeconfig=$kubeconfig".toString(), '--request-timeout=30s'] + args.toList()
    def process = new ProcessBuilder(command).start()
    process.outputStream.close()
    def out = new StringBuffer()
    def err = new StringBuffer()
    // Join the readers, not waitForProcessOutput(): that closes the streams under readers still draining them.
    def readers = [process.consumeProcessOutputStream(out), process.consumeProcessErrorStream(err)]
    assert process.waitFor(90, TimeUnit.SECONDS): "kubectl ${args.join(' ')} did not finish"
    readers*.join()
    [exit: process.exitValue(), out: out.toString(), err: err.toString()]
  }
}
