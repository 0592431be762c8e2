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

  /**
   * The tables kubectl printed (one per kind, separated by blank lines), each a list of rows of
   * cells: kubectl pads columns with at least three spaces, and no cell here holds two in a row.
   * The cells of an AGE column read {@code <age>}, once they are checked to be ages ({@code 5s},
   * {@code 3m2s}, ...).
   */
  static List<List<List<String>>> tables(String out) {
    out.trim().split(/\n\s*\n/).collect { block ->
      def rows = block.readLines()*.trim().collect { it.split(/\s{2,}/).toList() }
      int age = rows[0].indexOf('AGE')
      rows.withIndex().collect { row, i ->
        if (i == 0 || age < 0) {
          return row
        }
        assert row[age] ==~ /\d+[smhdy](\d+[smh])?/: "not an age: ${row[age]} in $row"
        row.withIndex().collect { cell, j -> j == age ? '<age>' : cell }
      }
    }
  }
}
