package io.spinagent.agent

import ch.qos.logback.classic.Logger
import ch.qos.logback.classic.spi.ILoggingEvent
import ch.qos.logback.core.read.ListAppender
import io.spinagent.agent.cluster.AccountState
import io.spinagent.agent.stream.ChannelServer
import io.spinagent.protocol.v1.AccountDecision
import io.spinagent.protocol.v1.Kind
import io.spinagent.protocol.v1.ResyncPhase
import io.spinagent.protocol.v1.Role
import org.slf4j.LoggerFactory

/**
 * The agent against a version 2 plugin and a version 1 plugin: how markers and progress travel,
 * what Clouddriver's decisions, resync requests and refusals do, and when a silent plugin ends the
 * session.
 */
class ProtocolVersionsSpec extends AgentSpecification {

  static final Kind DEPLOYMENT = Kind.newBuilder().setGroup('apps').setVersion('v1').setKind('Deployment')
      .setPlural('deployments').setNamespaced(true).build()

  def "version 2: markers and watch progress travel inside change batches, and progress follows the watch"() {
    given:
    channel.protocolVersion = 2
    def api = cluster()
    api.createObject(deployment('d1'))
    api.createObject(configMap('c1'))

    when:
    def runtime = start(yaml(prod: [kubeconfigFile: kubeconfig(api), kinds: ['Deployment', 'ConfigMap']]))

    then: "both kinds are listed between markers and have a resume point at the list's resourceVersion or later"
    eventually { channel.objects('prod') == ['Deployment default/d1', 'ConfigMap default/c1'] as Set }
    eventually { channel.resumePoints['prod']?.keySet() == ['apps/Deployment', '/ConfigMap'] as Set }
    runtime.stream().protocolVersion() == 2
    channel.committedMarkers['prod'].count { it.phase == ResyncPhase.RESYNC_PHASE_END } == 2
    channel.resyncFrames.isEmpty()
    channel.batches.sum { it.markersCount } == 4
    channel.committedChanges['prod'].every { it.observedAtMillis > 0 }
    long listed = channel.committedChanges['prod'].find { it.name == 'd1' }.resourceVersion as long
    (channel.resumePoints['prod']['apps/Deployment'].resourceVersion as long) >= listed

    when: "the cluster changes while the kinds are watched"
    api.createObject(deployment('d2'))
    long created = api.resourceVersion()

    then: "the progress moves past the change, after it"
    eventually { (channel.resumePoints['prod']['apps/Deployment'].resourceVersion as long) >= created }
    channel.objects('prod').contains('Deployment default/d2')
    def d2 = channel.committedChanges['prod'].find { it.name == 'd2' }
    def progressBatch = channel.batches.find { batch -> batch.progressList.any { it.kind.kind == 'Deployment' && (it.resourceVersion as long) >= created } }
    progressBatch.progressList.find { it.kind.kind == 'Deployment' }.sequence > d2.sequence
  }

  def "version 1: markers are frames of their own and no progress is sent"() {
    given:
    channel.protocolVersion = 1
    def api = cluster()
    api.createObject(deployment('d1'))

    when:
    def runtime = start(yaml(prod: [kubeconfigFile: kubeconfig(api), kinds: ['Deployment']]))

    then:
    eventually { channel.objects('prod') == ['Deployment default/d1'] as Set }
    eventually { channel.resyncFrames*.phase == [ResyncPhase.RESYNC_PHASE_BEGIN, ResyncPhase.RESYNC_PHASE_END] }
    runtime.stream().protocolVersion() == 1
    channel.hellos[0].protocolVersionsList == [1, 2]
    channel.batches.every { it.markersCount == 0 && it.progressCount == 0 }
    channel.resumePoints.isEmpty()
    channel.committedChanges['prod'].every { it.observedAtMillis > 0 }

    when: "an object changes"
    api.mergePatchObject('apps/v1', 'Deployment', 'default', 'd1', '{"spec":{"replicas":4}}')

    then: "it arrives, still without progress"
    eventually { channel.committedChanges['prod'].count { it.name == 'd1' } == 2 }
    channel.batches.every { it.progressCount == 0 }
  }

  def "a change Clouddriver refuses to store is logged with its object and reason, and counted"() {
    given:
    def appender = new ListAppender<ILoggingEvent>()
    appender.start()
    def logger = LoggerFactory.getLogger('io.spinagent.agent.stream.ChannelSession') as Logger
    logger.addAppender(appender)
    channel.protocolVersion = 2
    channel.refuse['bad-one'] = 'name too long for Clouddriver'
    def api = cluster()
    api.createObject(deployment('good'))
    def runtime = start(yaml(prod: [kubeconfigFile: kubeconfig(api), kinds: ['Deployment']]))
    assert eventually { channel.objects('prod') == ['Deployment default/good'] as Set }

    when:
    api.createObject(deployment('bad-one'))

    then:
    eventually { metrics(runtime).contains('spinagent_agent_changes_refused_total 1.0') }
    def line = appender.list.find { it.formattedMessage.contains('bad-one') }
    line.formattedMessage.contains("account 'prod'")
    line.formattedMessage.contains('Deployment.apps default/bad-one')
    line.formattedMessage.contains('name too long for Clouddriver')
    !channel.objects('prod').contains('Deployment default/bad-one')

    cleanup:
    logger.detachAppender(appender)
  }

  def "version 2: a resync request lists the kinds asked for, and only those"() {
    given:
    channel.protocolVersion = 2
    def api = cluster()
    api.createObject(deployment('d1'))
    api.createObject(configMap('c1'))
    start(yaml(prod: [kubeconfigFile: kubeconfig(api), kinds: ['Deployment', 'ConfigMap']]))
    assert eventually { channel.committedMarkers['prod']?.count { it.phase == ResyncPhase.RESYNC_PHASE_END } == 2 }
    api.requestLog().clear()

    when:
    channel.requestResync('prod', [DEPLOYMENT], 'an END without its BEGIN')

    then:
    eventually { channel.committedMarkers['prod'].count { it.phase == ResyncPhase.RESYNC_PHASE_END } == 3 }
    channel.committedMarkers['prod'].last().kind.kind == 'Deployment'
    def lists = api.requestLog().entries().findAll { !it.uri().contains('watch=true') && !it.uri().contains('selfsubjectaccessreviews') }
    lists*.uri().every { it.contains('/deployments') }
    channel.objects('prod') == ['Deployment default/d1', 'ConfigMap default/c1'] as Set
  }

  def "version 2: a standby account is not watched; promoted, it resumes from Clouddriver's resume points"() {
    given:
    channel.protocolVersion = 2
    def api = cluster()
    api.createObject(deployment('d1'))
    def runtime = start(yaml(prod: [kubeconfigFile: kubeconfig(api), kinds: ['Deployment']]))
    assert eventually { channel.resumePoints['prod']?.containsKey('apps/Deployment') }

    when: "Clouddriver gives the account to another agent"
    channel.decide(AccountDecision.newBuilder().setAccount('prod').setAccepted(true).setRole(Role.ROLE_STANDBY).build())

    then: "it is kept connected, but no longer watched"
    eventually { runtime.clusters().status('prod').get().state() == AccountState.STANDBY }
    eventually { runtime.clusters().watchLoops() == 0 }
    runtime.clusters().status('prod').get().watchedKinds().isEmpty()
    runtime.clusters().apiClient('prod').isPresent()

    when: "the cluster changes meanwhile, and then this agent is promoted"
    api.createObject(deployment('d2'))
    api.requestLog().clear()
    channel.decide(AccountDecision.newBuilder().setAccount('prod').setAccepted(true).setRole(Role.ROLE_CACHING)
        .addAllResumePoints(channel.resumePoints['prod'].values()).build())

    then: "it watches again from the resume point, without listing, and the change arrives"
    eventually { runtime.clusters().status('prod').get().state() == AccountState.READY }
    eventually { channel.objects('prod') == ['Deployment default/d1', 'Deployment default/d2'] as Set }
    api.requestLog().entries().findAll { it.uri().contains('/deployments') && !it.uri().contains('watch=true') }.isEmpty()
  }

  def "version 2: a plugin that is too busy to read keeps the session as long as its heartbeats come"() {
    given: "a plugin that announces a one-second heartbeat and stops committing anything"
    channel.protocolVersion = 2
    channel.heartbeatIntervalSeconds = 1
    def api = cluster()
    api.createObject(deployment('d1'))
    start(yaml(prod: [kubeconfigFile: kubeconfig(api), kinds: ['Deployment']]))
    assert eventually { channel.objects('prod') == ['Deployment default/d1'] as Set }
    channel.dropBatches = true
    api.createObject(deployment('d2'))
    int heartbeatsBefore = channel.heartbeatsReceived.get()

    expect: "the agent's own heartbeats span well over three intervals, on the one session"
    eventually { channel.heartbeatsReceived.get() >= heartbeatsBefore + 6 }
    channel.sessionCount() == 1
    channel.openSessions() == 1

    when: "the plugin goes silent altogether"
    channel.silent = true

    then: "the agent ends the session and connects again"
    eventually { channel.sessionCount() >= 2 }
  }

  def "version 1: any frame from the plugin counts, not only answered heartbeats"() {
    given: "a plugin that does not answer heartbeats but sends other frames"
    channel.heartbeatIntervalSeconds = 1
    channel.answerHeartbeats = false
    def api = cluster()
    start(yaml(prod: [kubeconfigFile: kubeconfig(api), kinds: ['Deployment']]))
    assert eventually { channel.openSessions() == 1 && channel.sessionVersion() == 1 }
    int heartbeatsBefore = channel.heartbeatsReceived.get()

    when:
    def sender = Thread.start {
      while (channel.heartbeatsReceived.get() < heartbeatsBefore + 6) {
        channel.sendIdleAck()
        Thread.sleep(300)
      }
    }
    sender.join()

    then:
    channel.sessionCount() == 1

    when: "nothing comes at all"
    channel.silent = true

    then:
    eventually { channel.sessionCount() >= 2 }
  }
}
