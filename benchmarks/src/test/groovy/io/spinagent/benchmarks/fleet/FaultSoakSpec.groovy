package io.spinagent.benchmarks.fleet

import java.nio.file.Files
import java.nio.file.Path
import spock.lang.Specification

/**
 * A short fault soak (the benchmark's FaultSoak, a few rounds): real agent JVMs with two accounts
 * each on test API servers, two Clouddriver replicas (the stand-in of the benchmark's Spinnaker
 * line) with the built plugin bundle on one embedded PostgreSQL, churn, and in every round random
 * faults, while callers create, switch on and off, change and delete dynamic accounts through both
 * replicas' REST APIs. Each round must end quiet: every agent's account READY and ACTIVE, the four
 * views of every account (both replicas' API, {@code spinagent_accounts}, Clouddriver's definition,
 * the agent) agreeing, no session ended over an account, nothing unacknowledged, the cache equal to
 * the clusters object by object. The seed is fixed so that a failure reproduces with the same
 * faults and API operations; the soak's output (in the surefire report) names it.
 */
class FaultSoakSpec extends Specification {

  static final long SEED = 20

  def "rounds of random faults and API churn each end with every account's views agreeing, nothing unacknowledged and the cache equal to the clusters"() {
    given:
    // in the build directory, and kept when a round fails: the logs say what went wrong
    def work = Files.createTempDirectory(Files.createDirectories(Path.of('target')), 'fault-soak-spec')
    def options = SoakOptions.parse([
        '--rounds=4', "--seed=$SEED", '--agents=2', '--accounts=2', '--objects=10', '--rate=10',
        '--api-churn=8', '--api-accounts=4', '--quiet-limit=120', '--start-limit=240',
        '--plugin-heap=768m', '--agent-heap=256m',
        "--agent-jar=${built('../agent/target', 'spinagent-agent.jar')}",
        "--bundle=${built('../clouddriver-agent-plugin/target', 'spinagent-plugin-*.zip')}",
        "--host-classpath=${built("../clouddriver-stand-in/spinnaker-${System.getProperty('spinagent.benchmark.line')}/target", 'runtime.classpath')}",
        "--work=$work"] as String[])

    when:
    def result = new FaultSoak(options, System.out).run()

    then:
    result.failures == []
    result.roundsRun == 4
    result.roundsClean == 4
    result.faults.values().sum() >= 4
    result.apiOperations == 4 * 8
    // the churn made accounts, not only answers about accounts that never were
    result.apiAnswers.findAll { it.key.startsWith('create') }.values().any { it['201'] }

    cleanup:
    if (result?.allClean()) {
      work.toFile().deleteDir()
    } else {
      println "the fault soak's processes logged to ${work.resolve('logs')}"
    }
  }

  /** A file the reactor built before this module's tests (the agent's jar, the plugin's bundle). */
  private static Path built(String dir, String glob) {
    def found = Files.newDirectoryStream(Path.of(dir), glob).withCloseable { it.toList() }
    assert found.size() == 1: "expected one $glob in $dir (built by the reactor), found $found"
    found[0].toAbsolutePath()
  }
}
