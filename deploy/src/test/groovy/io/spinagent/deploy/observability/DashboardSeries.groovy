package io.spinagent.deploy.observability

import io.spinagent.deploy.promql.PromQL

import java.nio.file.Files
import java.nio.file.Path

/**
 * The series the Grafana dashboards query, by side, with the meter (plugin) or metric (agent) each
 * comes from: what a running SpinAgent must serve for every panel to show data. Kept as
 * deploy/observability/dashboard-series.tsv, which ObservabilityKitSpec keeps current, so that the
 * sandbox's end-to-end specs can check that their Clouddriver and agent serve each one without
 * depending on this module: a line per series, "side TAB series TAB source".
 */
final class DashboardSeries {

  static final String FILE = 'dashboard-series.tsv'

  static record Row(String side, String series, String source) {}

  private DashboardSeries() {}

  /** The series the dashboards query, as docs/metrics.md names their sources. */
  static List<Row> of(MetricsReference reference) {
    ObservabilityKit.DASHBOARDS.keySet().collectMany { ObservabilityKit.dashboardExpressions(it) }
        .collectMany { expression ->
          PromQL.parse(expression.text()).selectors.collect { selector ->
            def series = reference.find(expression.side(), selector.metric())
            assert series != null: "$expression queries ${selector.metric()}, which docs/metrics.md does not document"
            new Row(expression.side(), series.name(), series.source())
          }
        }.unique().sort { a, b -> a.side() <=> b.side() ?: a.series() <=> b.series() }
  }

  static List<Row> read(Path file) {
    Files.readAllLines(file).findAll { it && !it.startsWith('#') }.collect { line ->
      def cells = line.split('\t')
      assert cells.length == 3: "$file: '$line' is not side, series and source separated by tabs"
      new Row(cells[0], cells[1], cells[2])
    }
  }

  /** The rows as the file writes them, for comparisons whose failure shows what to write. */
  static String rows(List<Row> rows) {
    rows.collect { "${it.side()}\t${it.series()}\t${it.source()}" }.join('\n')
  }
}
