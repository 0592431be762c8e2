package io.spinagent.agent

import spock.util.concurrent.PollingConditions

/**
 * Waits for a condition that depends on connections, listings and watches. The timeout is generous
 * because on a loaded machine (load average ~18 with parallel builds) one account has taken 13 s
 * just to connect to a test API server; a wait ends as soon as its condition holds, so a healthy
 * run never spends it. Nothing here times the code under test.
 */
final class Eventually {

  static boolean eventually(Closure<?> condition) {
    new PollingConditions(timeout: 60, initialDelay: 0, delay: 0.05).eventually { assert condition() }
    true
  }
}
