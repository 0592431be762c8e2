package io.spinagent.plugin.accounts

import io.spinagent.protocol.v1.AccountDecision
import io.spinagent.protocol.v1.AccountInfo
import io.spinagent.protocol.v1.ClusterIdentity as ClusterOfClaim
import io.spinagent.protocol.v1.Kind
import io.spinagent.protocol.v1.Role

/**
 * An agent connection as the registry sees it, held by the spec: it records each decision the
 * registry sends it after the handshake, and counts those that came while the thread held {@link
 * #lock} (the registry's: it notifies only after releasing it). Members authenticate as one
 * principal unless a spec names another.
 */
class RecordingMember implements AccountMember {

  static final Kind DEPLOYMENT = Kind.newBuilder()
    .setGroup('apps').setVersion('v1').setKind('Deployment').setPlural('deployments').setNamespaced(true).build()

  private static int sessions

  final String agentId
  final String principal
  final String sessionId = "session-${++sessions}"
  final List<AccountDecision> decisions = [].asSynchronized()

  /** A monitor no decision may arrive under. */
  Object lock
  int heardUnderLock

  RecordingMember(String agentId, String principal = 'x509:CN=spinagent') {
    this.agentId = agentId
    this.principal = principal
  }

  @Override
  String agentId() {
    agentId
  }

  @Override
  String sessionId() {
    sessionId
  }

  @Override
  String principal() {
    principal
  }

  @Override
  void decisionChanged(AccountDecision decision) {
    if (lock != null && Thread.holdsLock(lock)) {
      heardUnderLock++
    }
    decisions << decision
  }

  /** The decisions heard so far, in short: {@code prod: caching}, {@code prod: standby}, {@code prod: refused}. */
  List<String> heard() {
    decisions.collect { d ->
      "${d.account}: ${!d.accepted ? 'refused' : d.role == Role.ROLE_CACHING ? 'caching' : 'standby'}".toString()
    }
  }

  /** An account as an agent claims it: of the cluster at {@code host}, with the kinds it caches. */
  static AccountInfo claimOf(String name, String host = 'https://10.0.0.1:6443', List<Kind> kinds = [DEPLOYMENT]) {
    AccountInfo.newBuilder()
      .setName(name)
      .setCluster(ClusterOfClaim.newBuilder()
        .setApiServerHost(host).setCaFingerprintSha256('ab' * 32).setKubernetesVersion('v1.29.4'))
      .addAllKinds(kinds)
      .build()
  }
}
