package io.spinagent.sandbox

import spock.lang.Specification

/** What {@link SandboxMetricsSpec} counts as a dashboard series served, and what not. */
class DashboardSeriesCheckSpec extends Specification {

  static final Map COUNTER = [name: 'spinagent.sessions.closed', type: 'COUNTER', baseUnit: null, tags: [status: 'OK']]
  static final Map GAUGE = [name: 'spinagent.agents.connected', type: 'GAUGE', baseUnit: null, tags: [:]]
  static final Map TIMER = [name: 'spinagent.tunnel.request.latency', type: 'TIMER', baseUnit: 'seconds',
                            tags: [verb: 'get'], histogram: false]
  static final Map SUMMARY = [name: 'spinagent.cache.group.batches', type: 'DISTRIBUTION_SUMMARY', baseUnit: null,
                              tags: [:], histogram: false]

  def "a plugin row is served by a meter Prometheus exports as its series, with the tags the docs give it: #series"() {
    given:
    def row = new DashboardSeriesCheck.Row('plugin', series, source)

    expect:
    DashboardSeriesCheck.pluginProblem(row, meters, [(source): tags as Set]) == problem

    where:
    series                                           | source                             | meters                        | tags       || problem
    'spinagent_sessions_closed_total'                | 'spinagent.sessions.closed'        | [COUNTER]                     | ['status'] || null
    'spinagent_sessions_closed_total'                | 'spinagent.sessions.closed'        | [GAUGE]                       | []         || "no meter spinagent.sessions.closed in Clouddriver's registry"
    'spinagent_sessions_closed_total'                | 'spinagent.sessions.closed'        | [COUNTER]                     | ['code']   || 'spinagent.sessions.closed lacks the tags docs/metrics.md documents: [code]'
    'spinagent_agents_connected'                     | 'spinagent.agents.connected'       | [GAUGE]                       | []         || null
    'spinagent_agents_connected_total'               | 'spinagent.agents.connected'       | [GAUGE]                       | []         || 'spinagent.agents.connected (GAUGE) is exported as [spinagent_agents_connected]'
    'spinagent_tunnel_request_latency_seconds_count' | 'spinagent.tunnel.request.latency' | [TIMER]                       | ['verb']   || null
    'spinagent_tunnel_request_latency_seconds_bucket'| 'spinagent.tunnel.request.latency' | [TIMER + [histogram: true]]   | ['verb']   || null
    'spinagent_tunnel_request_latency_seconds_bucket'| 'spinagent.tunnel.request.latency' | [TIMER]                       | ['verb']   || 'spinagent.tunnel.request.latency (TIMER) is exported as [spinagent_tunnel_request_latency_seconds_count, spinagent_tunnel_request_latency_seconds_max, spinagent_tunnel_request_latency_seconds_sum]: a _bucket series needs a percentile histogram'
    'spinagent_cache_group_batches_sum'              | 'spinagent.cache.group.batches'    | [SUMMARY]                     | []         || null
    'spinagent_cache_group_batches_seconds_sum'      | 'spinagent.cache.group.batches'    | [SUMMARY]                     | []         || 'spinagent.cache.group.batches (DISTRIBUTION_SUMMARY) is exported as [spinagent_cache_group_batches_count, spinagent_cache_group_batches_max, spinagent_cache_group_batches_sum]'
  }

  def "a meter's base unit is part of its series, once"() {
    expect:
    DashboardSeriesCheck.prometheusSeries([name: 'a.size', type: 'GAUGE', baseUnit: 'bytes']) == ['a_size_bytes'] as Set
    DashboardSeriesCheck.prometheusSeries([name: 'a.bytes', type: 'COUNTER', baseUnit: 'bytes']) == ['a_bytes_total'] as Set
  }

  def "an agent row is served by a series of the scrape with the labels it names: #source"() {
    given:
    def scrape = '''\
      # HELP spinagent_accounts Accounts by state
      # TYPE spinagent_accounts gauge
      spinagent_accounts{state="READY",} 1.0
      spinagent_agent_connected 1.0
      spinagent_kubernetes_requests_seconds_count{status="200",verb="list",} 20.0
      '''.stripIndent()

    expect:
    DashboardSeriesCheck.agentProblem(new DashboardSeriesCheck.Row('agent', series, source), scrape) == problem

    where:
    series                                     | source                                           || problem
    'spinagent_accounts'                       | 'spinagent_accounts{state}'                      || null
    'spinagent_agent_connected'                | 'spinagent_agent_connected'                      || null
    'spinagent_kubernetes_requests_seconds_count' | 'spinagent_kubernetes_requests_seconds{verb,status}' || null
    'spinagent_agent_sessions_ended_total'     | 'spinagent_agent_sessions_ended_total{code}'     || "no series spinagent_agent_sessions_ended_total on the agent's /metrics"
    'spinagent_accounts'                       | 'spinagent_accounts{state,zone}'                 || 'spinagent_accounts has the labels [state], not all of [state, zone]'
    'spinagent_agent'                          | 'spinagent_agent'                                || "no series spinagent_agent on the agent's /metrics"
  }

  def "every plugin row names a meter docs/metrics.md documents, so that its tags are checked"() {
    given:
    def documented = DashboardSeriesCheck.documentedPluginTags()

    expect:
    documented['spinagent.cache.rows'] == ['table', 'operation'] as Set
    documented['spinagent.bytes.sent'] == [] as Set
    DashboardSeriesCheck.rows('plugin')*.source().findAll { !documented.containsKey(it) } == []
    !DashboardSeriesCheck.rows('agent').isEmpty()
  }
}
