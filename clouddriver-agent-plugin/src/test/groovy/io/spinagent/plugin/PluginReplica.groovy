package io.spinagent.plugin

import io.micrometer.core.instrument.simple.SimpleMeterRegistry
import io.spinagent.plugin.accounts.AccountRegistry
import io.spinagent.plugin.grpc.AgentGrpcServer
import io.spinagent.plugin.ha.ReplicaGroup
import io.spinagent.plugin.identity.ReplicaIdentity
import io.spinagent.plugin.tunnel.TunnelServerLifecycle
import io.spinagent.plugin.tunnel.TunnelTokens
import org.jooq.DSLContext
import org.pf4j.DefaultPluginDescriptor
import org.springframework.context.annotation.AnnotationConfigApplicationContext
import org.springframework.context.support.GenericApplicationContext
import org.springframework.core.env.MapPropertySource

/**
 * One Clouddriver replica as far as the plugin can tell: the plugin's own Spring context (every
 * bean of its packages, as kork's SpringLoaderPlugin scans them) under a parent that offers what
 * Clouddriver offers it: kork-sql's DSLContext on the shared database (none when {@code jooq} is
 * null: Clouddriver without sql.enabled), a Micrometer registry, the plugin's descriptor, and
 * whatever else a spec hands in (say, Clouddriver's account storage).
 */
class PluginReplica implements Closeable {

  final GenericApplicationContext clouddriver
  final AnnotationConfigApplicationContext plugin
  final SimpleMeterRegistry meters = new SimpleMeterRegistry()

  PluginReplica(DSLContext jooq, Map<String, Object> properties, Map<String, Object> clouddriverBeans = [:]) {
    clouddriver = new GenericApplicationContext()
    if (jooq != null) {
      clouddriver.beanFactory.registerSingleton('jooq', jooq)
    }
    clouddriverBeans.each { name, bean -> clouddriver.beanFactory.registerSingleton(name, bean) }
    clouddriver.beanFactory.registerSingleton('registry', meters)
    clouddriver.beanFactory.registerSingleton('spinAgentPluginDescriptor',
      new DefaultPluginDescriptor(SpinAgentPlugin.PLUGIN_ID, 'test', SpinAgentPlugin.name, '0.1.0',
        'clouddriver>=5.90.0', 'test', 'Apache-2.0'))
    clouddriver.refresh()
    plugin = new AnnotationConfigApplicationContext()
    plugin.parent = clouddriver
    plugin.environment.propertySources.addFirst(new MapPropertySource('replica', [
      'spinagent.grpc.address'         : '127.0.0.1',
      'spinagent.grpc.port'            : 0,
      'spinagent.tunnel.port'          : 0,
      'spinagent.sessions.heartbeat-interval': '1s',
      'spinagent.ha.address'           : '127.0.0.1',
      'spinagent.ha.advertise-address' : '127.0.0.1',
      'spinagent.ha.port'              : 0,
      'spinagent.ha.heartbeat-interval': '1s',
      'spinagent.ha.owner-timeout'     : '5s',
      'sql.cache.enabled'              : 'true'] + properties))
    plugin.scan(SpinAgentPlugin.package.name)
    plugin.refresh()
  }

  /** The plugin's bean of that type. */
  def <T> T bean(Class<T> type) {
    plugin.getBean(type)
  }

  String id() {
    plugin.getBean(ReplicaIdentity).id()
  }

  int grpcPort() {
    plugin.getBean(AgentGrpcServer).boundPort()
  }

  String clusterUrl(String account) {
    plugin.getBean(TunnelServerLifecycle).server().orElseThrow().clusterUrl(account)
  }

  String caCertificatePem() {
    plugin.getBean(TunnelServerLifecycle).server().orElseThrow().caCertificatePem()
  }

  TunnelTokens tokens() {
    plugin.getBean(TunnelTokens)
  }

  AccountRegistry accounts() {
    plugin.getBean(AccountRegistry)
  }

  String forwardingUrl() {
    plugin.getBean(ReplicaGroup).forwardingUrl()
  }

  double counted(String meter, String tag, String value) {
    meters.find(meter).tag(tag, value).counters()*.count().sum() ?: 0
  }

  @Override
  void close() {
    plugin.close()
    clouddriver.close()
  }
}
