package io.spinagent.deploy.observability

import static io.spinagent.deploy.observability.MetricsReference.AGENT
import static io.spinagent.deploy.observability.MetricsReference.PLUGIN

import io.spinagent.deploy.Renderings
import java.nio.file.Files
import java.nio.file.Path
import spock.lang.Shared
import spock.lang.Specification

/**
 * The operations kit in deploy/observability, checked against docs/metrics.md: every expression of
 * the Grafana dashboards and the alert rules parses as PromQL and names only documented metrics,
 * labels and label values of its side; the dashboards take their data source from a variable; every
 * alert has a duration, a severity, a summary, a description and a runbook link to a section of
 * docs/troubleshooting.md that exists; the copies the Helm chart and the Kustomize components ship
 * are the originals; and the list of series the dashboards need (what the sandbox must serve) is
 * current.
 */
class ObservabilityKitSpec extends Specification {

  static final Path DOCS = Renderings.deployDir().resolveSibling('docs')
  static final String RUNBOOKS = 'https://github.com/spinagent/spinagent/blob/main/docs/troubleshooting.md#'

  @Shared MetricsReference reference = MetricsReference.read(DOCS.resolve('metrics.md'))

  def "docs/metrics.md is read whole: both sides' metrics, with their labels, and the scrape labels"() {
    expect:
    reference.find(PLUGIN, 'spinagent_agents_connected').source() == 'spinagent.agents.connected'
    reference.find(PLUGIN, 'spinagent_cache_change_latency_seconds_bucket').labels() == ['le'] as Set
    reference.find(PLUGIN, 'spinagent_tunnel_requests_seconds_count').labels() == ['account', 'verb', 'status'] as Set
    reference.find(PLUGIN, 'spinagent_bytes_sent_total') != null
    reference.find(PLUGIN, 'spinagent_cache_group_changes_max') != null
    reference.find(PLUGIN, 'spinagent_accounts').words().containsAll(['ACTIVE', 'ORPHANED', 'FAILED'])
    reference.find(AGENT, 'spinagent_kubernetes_requests_seconds_count').labels() == ['verb', 'status'] as Set
    reference.find(AGENT, 'spinagent_agent_reconnects_total') != null
    reference.find(AGENT, 'spinagent_accounts').words().containsAll(['READY', 'FAILED', 'REFUSED'])
    reference.scrapeLabels == ['job', 'instance', 'namespace'] as Set
  }

  def "#expression parses and names only documented metrics and labels"() {
    expect:
    ExpressionCheck.problems(expression, reference) == []

    where:
    expression << ObservabilityKit.all()
  }

  def "the check refuses what Prometheus or the docs would: #why"() {
    given:
    def expression = new ObservabilityKit.Expression('a test', side, text, labels)

    expect:
    ExpressionCheck.problems(expression, reference).any { it.contains(problem) }

    where:
    why                             | side   | text                                                         | labels       | problem
    'a syntax error'                | AGENT  | 'sum(rate(spinagent_agent_reconnects_total[5m])'             | []           | 'does not parse: 1:47: no viable alternative'
    'an unknown function'           | AGENT  | 'rat(spinagent_agent_reconnects_total[5m])'                  | []           | "unknown function with name 'rat'"
    'rate of an instant vector'     | AGENT  | 'rate(spinagent_agent_reconnects_total)'                     | []           | "argument 1 of 'rate': expected range vector, got instant vector"
    'a range of an expression'      | AGENT  | 'sum(spinagent_agent_connected)[5m]'                         | []           | 'ranges are only allowed for vector selectors'
    'a range vector as the result'  | AGENT  | 'spinagent_agent_reconnects_total[5m]'                       | []           | 'yields a range vector'
    'scalars compared without bool' | AGENT  | '1 > 2'                                                      | []           | 'comparisons between scalars must use the bool modifier'
    'and between scalars'           | AGENT  | '1 and 2'                                                    | []           | "set operator 'and' not allowed"
    'group_left with a set operator'| AGENT  | 'spinagent_agent_connected and on (job) group_left spinagent_agent_acks_received_total' | [] | "no grouping allowed for 'and'"
    'a selector matching anything'  | AGENT  | '{job=~".*"}'                                                | []           | 'at least one non-empty matcher'
    'a broken regular expression'   | AGENT  | 'spinagent_accounts{state=~"READY|("}'                       | []           | 'invalid regular expression'
    'an undocumented metric'        | AGENT  | 'spinagent_agent_uptime_seconds'                             | []           | 'spinagent_agent_uptime_seconds is not a metric of the agent'
    "the plugin's metric"           | AGENT  | 'spinagent_agents_connected'                                 | []           | 'spinagent_agents_connected is a metric of the plugin, not of the agent'
    "the agent's metric"            | PLUGIN | 'spinagent_agent_outbox_bytes'                               | []           | 'is a metric of the agent, not of the plugin'
    'a timer without _seconds'      | PLUGIN | 'spinagent_cache_commit_time_count'                          | []           | 'is not a metric of the plugin'
    'a histogram without buckets'   | PLUGIN | 'spinagent_tunnel_requests_seconds_bucket'                   | []           | 'is not a metric of the plugin'
    'an undocumented label'         | AGENT  | 'spinagent_agent_connected{account="x"}'                     | []           | 'account is not a label of spinagent_agent_connected'
    'an undocumented label value'   | AGENT  | 'spinagent_accounts{state="ACTIVE"}'                         | []           | "'ACTIVE' is not a value"
    'one undocumented alternative'  | PLUGIN | 'spinagent_ha_ownership_changes_total{change=~"lost|stolen"}'| []           | "'stolen' is not a value"
    'grouping by a foreign label'   | PLUGIN | 'sum by (verb) (rate(spinagent_cache_rows_total[5m]))'       | []           | 'by (verb): verb is not a label of [spinagent_cache_rows_total]'
    'joining on a foreign label'    | PLUGIN | 'spinagent_agents_connected * on (table) spinagent_ha_accounts_owned' | [] | 'on (table): table is not a label'
    'a variable label'              | PLUGIN | 'spinagent_agents_connected'                                 | ['pod']      | 'pod is not a label of [spinagent_agents_connected]'
    'an undefined variable'         | PLUGIN | 'spinagent_agents_connected{job=~"$cluster"}'                | []           | 'uses $cluster, a variable the dashboard does not define'
  }

  def "what the kit queries parses as it should: precedence, modifiers and the three kinds of string"() {
    expect:
    def expression = new ObservabilityKit.Expression('a test', PLUGIN, text, [])
    ExpressionCheck.problems(expression, reference) == []

    where:
    text << [
        '-spinagent_agents_connected ^ 2 * 3 + 1 > bool 2 unless on (instance) spinagent_ha_accounts_owned or vector(1)',
        'sum(rate(spinagent_cache_rows_total{table=\'body\', operation=`write`,}[5m] offset 1h)) by (table)',
        'max_over_time(spinagent_agents_connected[1h:1m] @ end()) / ignoring (job) group_left () spinagent_ha_accounts_owned',
        'topk(3, sum without (instance) (spinagent_cache_accounts_busy))',
        'count_values("n", spinagent_agents_connected) > 0x10 and spinagent_agents_connected != Inf',
        'SUM BY (le) (RATE(spinagent_cache_commit_time_seconds_bucket[1m]))'.replace('RATE', 'rate'),
    ]
  }

  def "#name takes its data source from a variable and hard-codes none"() {
    given:
    def dashboard = ObservabilityKit.dashboard(name)
    def variables = dashboard.templating.list
    def datasources = []
    collectDatasources(dashboard, datasources)

    expect: 'a data source variable of type prometheus, and every panel and query uses it'
    variables.find { it.name == 'datasource' }?.subMap(['type', 'query']) == [type: 'datasource', query: 'prometheus']
    datasources.every { it == [type: 'prometheus', uid: '${datasource}'] || it.uid == '-- Grafana --' }
    ObservabilityKit.panels(dashboard).findAll { it.type != 'row' }.every { it.datasource?.uid == '${datasource}' }

    and: 'no data source variable was resolved when the dashboard was exported'
    !dashboard.containsKey('__inputs')
    !Files.readString(ObservabilityKit.dashboardFile(name)).contains('DS_PROMETHEUS')

    and: 'a stable uid, the spinagent tag, unique panel ids, a layout 24 columns wide'
    dashboard.uid == name - '.json'
    'spinagent' in dashboard.tags
    def panels = ObservabilityKit.panels(dashboard)
    panels*.id.unique(false).size() == panels.size()
    panels.every { it.gridPos.x + it.gridPos.w <= 24 && it.title }

    where:
    name << ObservabilityKit.DASHBOARDS.keySet()
  }

  def "the dashboards show what issue 36 asks of them"() {
    given:
    def titles = ObservabilityKit.DASHBOARDS.keySet().collectEntries { name ->
      [name, ObservabilityKit.panels(ObservabilityKit.dashboard(name))*.title]
    }
    def queried = ObservabilityKit.DASHBOARDS.keySet().collectEntries { name ->
      [name, ObservabilityKit.dashboardExpressions(name)*.text().join('\n')]
    }

    expect: 'the agent: sessions, accounts by state, refused changes, outbox bytes, reconnects'
    titles['spinagent-agent.json'].containsAll(['Session', 'Accounts by state', 'Outbox fill', 'Changes refused by Clouddriver',
                                                'Reconnect attempts and sessions ended'])
    queried['spinagent-agent.json'].contains('spinagent_agent_outbox_bytes')

    and: 'the plugin: sessions, accounts by state, change → row p50/p99, commit time and batch size, rows by table, tunnel latency and status by verb'
    titles['spinagent-plugin.json'].containsAll(['Sessions opened and closed', 'Accounts by state', 'Change → row latency',
                                                 'Commit time and queue wait', 'Batch size', 'Rows by table',
                                                 'Tunnel latency by verb', 'Tunnel requests by verb and status',
                                                 'Refused changes, failed batches, retries'])
    queried['spinagent-plugin.json'].contains('histogram_quantile(0.99, sum by (le) (rate(spinagent_cache_change_latency_seconds_bucket')
    queried['spinagent-plugin.json'].contains('histogram_quantile(0.5, sum by (verb, le) (rate(spinagent_tunnel_request_latency_seconds_bucket')
    queried['spinagent-plugin.json'].contains('sum by (verb, status) (rate(spinagent_tunnel_requests_seconds_count')
  }

  def "alert #rule.alert has a duration, a severity, a summary, a description and a runbook in docs/troubleshooting.md"() {
    expect:
    rule.expr && rule.for ==~ /\d+[smh]/
    rule.labels.severity in ['critical', 'warning', 'info']
    rule.annotations.summary && rule.annotations.description
    rule.annotations.runbook_url.startsWith(RUNBOOKS)
    (rule.annotations.runbook_url - RUNBOOKS) in troubleshootingAnchors()

    where:
    rule << ObservabilityKit.rules().groups.collectMany { it.rules }
  }

  def "the rules are alerts with unique names, and docs/troubleshooting.md explains each and no other"() {
    given:
    def alerts = ObservabilityKit.rules().groups.collectMany { it.rules }*.alert

    expect:
    alerts.every { it ==~ /SpinAgent[A-Za-z]+/ }
    alerts.unique(false) == alerts
    alertSections() == alerts.collect { it.toString() } as Set
  }

  def "the Helm chart and the Kustomize components ship the originals: #copy"() {
    expect:
    Files.exists(copyPath)
    Files.readString(copyPath) == Files.readString(original)

    where:
    copy                                                           | source
    'helm/spinagent-agent/files/spinagent-alerts.rules.yml'        | 'prometheus/spinagent-alerts.rules.yml'
    'helm/spinagent-agent/files/dashboards/spinagent-agent.json'   | 'grafana/spinagent-agent.json'
    'helm/spinagent-agent/files/dashboards/spinagent-plugin.json'  | 'grafana/spinagent-plugin.json'
    'kustomize/components/grafana-dashboards/spinagent-agent.json' | 'grafana/spinagent-agent.json'
    'kustomize/components/grafana-dashboards/spinagent-plugin.json'| 'grafana/spinagent-plugin.json'
    copyPath = Renderings.deployDir().resolve(copy)
    original = ObservabilityKit.dir().resolve(source)
  }

  def "the Kustomize component's PrometheusRule holds the rules file's groups"() {
    given:
    def component = Renderings.deployDir().resolve('kustomize/components/prometheus-rule/prometheusrule.yaml')
    def prometheusRule = new org.yaml.snakeyaml.Yaml().load(Files.readString(component)) as Map

    expect: 'to update it: (sed -n 1,11p <it>; sed -n "/^groups:/,\\$p" <rules file> | sed "s/^./  &/")'
    prometheusRule.spec == ObservabilityKit.rules()
  }

  def "deploy/observability/dashboard-series.tsv lists every series the dashboards query"() {
    given:
    def file = ObservabilityKit.dir().resolve(DashboardSeries.FILE)

    expect: 'else replace its rows by those of the message'
    DashboardSeries.rows(DashboardSeries.read(file)) == DashboardSeries.rows(DashboardSeries.of(reference))
  }

  private static Set<String> troubleshootingAnchors() {
    Files.readAllLines(DOCS.resolve('troubleshooting.md')).findAll { it.startsWith('#') }.collect { heading ->
      // GitHub's anchors: lower case, punctuation dropped, spaces as hyphens.
      heading.replaceFirst(/^#+\s*/, '').toLowerCase().replaceAll(/[^\p{L}\p{N} _-]/, '').replace(' ', '-')
    } as Set
  }

  /** The alerts docs/troubleshooting.md has a section for: the headings under "## Alerts". */
  private static Set<String> alertSections() {
    boolean inAlerts = false
    Files.readAllLines(DOCS.resolve('troubleshooting.md')).findResults { line ->
      if (line.startsWith('## ')) {
        inAlerts = line == '## Alerts'
      }
      inAlerts && line.startsWith('### ') ? line.substring(4).trim() : null
    } as Set
  }

  private static void collectDatasources(Object node, List found) {
    if (node instanceof Map) {
      node.each { key, value ->
        if (key == 'datasource') {
          found << value
        } else {
          collectDatasources(value, found)
        }
      }
    } else if (node instanceof List) {
      node.each { collectDatasources(it, found) }
    }
  }
}
