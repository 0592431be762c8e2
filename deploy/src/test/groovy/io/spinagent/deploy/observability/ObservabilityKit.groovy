package io.spinagent.deploy.observability

import static io.spinagent.deploy.observability.MetricsReference.AGENT
import static io.spinagent.deploy.observability.MetricsReference.PLUGIN

import groovy.json.JsonSlurper
import io.spinagent.deploy.Renderings
import java.nio.file.Files
import java.nio.file.Path
import org.yaml.snakeyaml.LoaderOptions
import org.yaml.snakeyaml.Yaml
import org.yaml.snakeyaml.constructor.SafeConstructor

/**
 * The operations kit in deploy/observability: the Grafana dashboards and the Prometheus rules file,
 * and every PromQL expression they hold, each with where it is and which side's metrics (the
 * agent's or the plugin's) it queries.
 */
final class ObservabilityKit {

  /**
   * A PromQL expression: where it is (for messages), whose metrics it queries, its text with the
   * Grafana variables replaced by values PromQL accepts, and the labels it names outside the
   * expression (a variable's label_values(metric, label)).
   */
  static record Expression(String where, String side, String text, List<String> labels) {

    @Override
    String toString() {
      where
    }
  }

  static final Map<String, String> DASHBOARDS = ['spinagent-agent.json': AGENT, 'spinagent-plugin.json': PLUGIN]
  static final Map<String, String> RULE_GROUPS = ['spinagent-agent': AGENT, 'spinagent-plugin': PLUGIN]
  /** Grafana's interval variables, replaced by a duration; any dashboard variable by a regular expression. */
  private static final Set<String> INTERVAL_VARIABLES = ['__rate_interval', '__interval', '__range'] as Set
  private static final String VARIABLE = /\$\{(\w+)(?::\w+)?}|\$(\w+)|\[\[(\w+)]]/

  private ObservabilityKit() {}

  static Path dir() {
    Renderings.deployDir().resolve('observability')
  }

  static Path dashboardFile(String name) {
    dir().resolve('grafana').resolve(name)
  }

  static Path rulesFile() {
    dir().resolve('prometheus/spinagent-alerts.rules.yml')
  }

  static Map dashboard(String name) {
    new JsonSlurper().parse(dashboardFile(name).toFile()) as Map
  }

  static Map rules() {
    new Yaml(new SafeConstructor(new LoaderOptions())).load(Files.readString(rulesFile())) as Map
  }

  /** The dashboard's panels, those inside collapsed rows included. */
  static List<Map> panels(Map dashboard) {
    dashboard.panels.collectMany { Map panel -> [panel] + (panel.panels ?: []) } as List<Map>
  }

  /** Every expression of a dashboard: each panel's queries and each variable's label_values(). */
  static List<Expression> dashboardExpressions(String name) {
    Map dashboard = dashboard(name)
    String side = DASHBOARDS[name]
    Set<String> variables = dashboard.templating.list*.name as Set
    List<Expression> expressions = panels(dashboard).collectMany { Map panel ->
      (panel.targets ?: []).collect { Map target ->
        new Expression("$name panel '${panel.title}' query ${target.refId}", side,
            grafanaExpanded(target.expr as String, variables), [])
      }
    }
    dashboard.templating.list.findAll { it.type == 'query' }.each { Map variable ->
      String query = variable.query instanceof Map ? variable.query.query : variable.query
      def labelValues = query =~ /^label_values\((.+),\s*(\w+)\)$/
      assert labelValues.matches(): "$name: variable ${variable.name} is not label_values(metric, label): $query"
      expressions << new Expression("$name variable ${variable.name}", side,
          grafanaExpanded(labelValues.group(1), variables), [labelValues.group(2)])
    }
    expressions
  }

  /** Every alerting and recording rule's expression. */
  static List<Expression> ruleExpressions() {
    rules().groups.collectMany { Map group ->
      String side = RULE_GROUPS[group.name]
      assert side != null: "$rulesFile: group ${group.name} is none of ${RULE_GROUPS.keySet()}, whose metrics it queries is unknown"
      group.rules.collect { Map rule ->
        new Expression("rules group ${group.name} ${rule.alert ?: rule.record}", side, rule.expr as String, [])
      }
    }
  }

  static List<Expression> all() {
    DASHBOARDS.keySet().collectMany { dashboardExpressions(it) } + ruleExpressions()
  }

  /**
   * {@code text} with Grafana's interval variables replaced by 5m and the dashboard's own variables
   * by .+ (what "All" selects); an unknown variable stays, and the check names it.
   */
  static String grafanaExpanded(String text, Set<String> dashboardVariables) {
    text.replaceAll(VARIABLE) { List<String> match ->
      String name = match[1] ?: match[2] ?: match[3]
      name in INTERVAL_VARIABLES ? '5m' : name in dashboardVariables ? '.+' : match[0]
    }
  }
}
