package io.spinagent.sandbox

import java.nio.file.Files
import java.nio.file.Path
import java.nio.file.Paths

/**
 * The series the Grafana dashboards query, as deploy/observability/dashboard-series.tsv lists them
 * (the deploy module's ObservabilityKitSpec keeps it current), and whether a running SpinAgent
 * serves each: a plugin row by a meter of Clouddriver's registry, as Micrometer's Prometheus
 * registry exports it, with the tags docs/metrics.md documents for it; an agent row by a series of
 * the agent's {@code GET /metrics} with the labels the row names.
 */
class DashboardSeriesCheck {

  static final Path FILE = Paths.get('..', 'deploy', 'observability', 'dashboard-series.tsv')
  static final Path METRICS_DOC = Paths.get('..', 'docs', 'metrics.md')

  /** One line of the file: side ({@code plugin}, {@code agent}), series, and the meter or metric it comes from. */
  static record Row(String side, String series, String source) {
    @Override
    String toString() {
      "$side\t$series\t$source"
    }
  }

  /** The rows of one side. */
  static List<Row> rows(String side) {
    Files.readAllLines(FILE).findAll { it && !it.startsWith('#') }.collect { line ->
      def cells = line.split('\t')
      assert cells.length == 3: "$FILE: '$line' is not side, series and source separated by tabs"
      new Row(cells[0], cells[1], cells[2])
    }.findAll { it.side() == side }
  }

  /**
   * Why {@code meters} (as the stand-in's {@code /standin/meters} lists them, of every replica) do
   * not serve the plugin row; null when they do.
   */
  static String pluginProblem(Row row, List<Map> meters, Map<String, Set<String>> documentedTags) {
    def named = meters.findAll { it.name == row.source() }
    if (named.isEmpty()) {
      return "no meter ${row.source()} in Clouddriver's registry"
    }
    Set<String> exported = named.collectMany { prometheusSeries(it) } as Set
    if (!exported.contains(row.series())) {
      return "${row.source()} (${named*.type.unique().join(', ')}) is exported as ${exported.sort()}" +
        (row.series().endsWith('_bucket') ? ': a _bucket series needs a percentile histogram' : '')
    }
    Set<String> tags = named.collectMany { (it.tags as Map).keySet() } as Set
    Set<String> missing = (documentedTags[row.source()] ?: [] as Set) - tags
    missing ? "${row.source()} lacks the tags docs/metrics.md documents: ${missing.sort()}" : null
  }

  /**
   * The series Micrometer's Prometheus registry exports for a meter: the name with {@code _} for
   * {@code .}, the base unit (seconds for timers) appended, {@code _total} for counters, {@code
   * _count}/{@code _sum}/{@code _max} for timers and summaries, and {@code _bucket} when they
   * publish histogram buckets.
   */
  static Set<String> prometheusSeries(Map meter) {
    String name = (meter.name as String).replace('.', '_')
    String unit = meter.type in ['TIMER', 'LONG_TASK_TIMER'] ? 'seconds' : meter.baseUnit
    if (unit && !name.endsWith("_$unit")) {
      name = "${name}_$unit"
    }
    switch (meter.type) {
      case 'COUNTER':
        return [name.endsWith('_total') ? name : "${name}_total".toString()] as Set
      case ['TIMER', 'DISTRIBUTION_SUMMARY']:
        def series = ['_count', '_sum', '_max'].collect { name + it }
        return (meter.histogram ? series + ["${name}_bucket".toString()] : series) as Set
      case 'LONG_TASK_TIMER':
        return ['_active_count', '_duration_sum', '_max'].collect { name + it } as Set
      default:
        return [name] as Set
    }
  }

  /**
   * The tags docs/metrics.md documents for each meter of its plugin table ("| `meter` [/ `meter`] |
   * type | `tag`, `tag` | meaning |").
   */
  static Map<String, Set<String>> documentedPluginTags() {
    boolean inPlugin = false
    Map<String, Set<String>> tags = [:]
    for (String line : Files.readAllLines(METRICS_DOC)) {
      if (line.startsWith('## ')) {
        inPlugin = line.startsWith('## The plugin')
      } else if (inPlugin && line.startsWith('| `')) {
        def cells = line.split(/\|/)
        Set<String> documented = (cells[3] =~ /`([^`]+)`/).collect { it[1] } as Set
        (cells[1] =~ /`([^`]+)`/).each { tags[it[1] as String] = documented }
      }
    }
    assert tags: "no meters found in the plugin table of $METRICS_DOC"
    tags
  }

  /**
   * Why the agent's scrape ({@code GET /metrics}, Prometheus' text format) does not serve the agent
   * row, whose source names the labels it needs ({@code metric{label,label}}); null when it does.
   */
  static String agentProblem(Row row, String scrape) {
    def labels = row.source().contains('{') ?
      row.source().replaceFirst(/^[^{]*\{/, '').replace('}', '').split(',')*.trim() as Set : [] as Set
    def samples = scrape.readLines().findAll { it && !it.startsWith('#') }.findResults { line ->
      def sample = line =~ /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{([^}]*)})?\s/
      sample.find() && sample.group(1) == row.series() ?
        ((sample.group(3) ?: '') =~ /([a-zA-Z_][a-zA-Z0-9_]*)="/).collect { it[1] } as Set : null
    }
    if (samples.isEmpty()) {
      return "no series ${row.series()} on the agent's /metrics"
    }
    samples.any { it.containsAll(labels) } ? null :
      "${row.series()} has the labels ${samples.flatten().unique().sort()}, not all of ${labels.sort()}"
  }
}
