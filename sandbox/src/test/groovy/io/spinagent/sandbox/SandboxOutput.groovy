package io.spinagent.sandbox

import io.spinagent.sandbox.view.LiveView

/** What the sandbox printed, with the parts a user reads: the kubeconfig paths and the latest cache view. */
class SandboxOutput {

  private final StringBuffer text

  SandboxOutput(StringBuffer text) {
    this.text = text
  }

  String all() {
    text.toString()
  }

  /** The path printed after e.g. "Cluster kubeconfig:". */
  String printed(String label) {
    def matcher = all() =~ /(?m)^${label}: (\S+)$/
    matcher.find() ? matcher.group(1) : null
  }

  /** The port of a "host:port" or URL printed on the line starting with {@code label}. */
  Integer port(String label) {
    def matcher = all() =~ /(?m)^\s+${label}\s{2,}.*?(?:127\.0\.0\.1|localhost):(\d+)/
    matcher.find() ? matcher.group(1) as Integer : null
  }

  /** The most recent view printed, or null before the first. */
  String latestView() {
    def all = all()
    int at = all.lastIndexOf(LiveView.HEADER)
    at < 0 ? null : all.substring(at).readLines().drop(1).takeWhile { it.startsWith('  ') }.join('\n')
  }

  /** Instance lines of the latest view. */
  List<String> instances() {
    (latestView() ?: '').readLines().findAll { it.trim().startsWith('instance pod ') }
  }
}
