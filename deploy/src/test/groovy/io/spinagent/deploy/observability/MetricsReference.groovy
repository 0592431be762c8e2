package io.spinagent.deploy.observability

import io.spinagent.testkit.docs.ReferenceTables

import java.nio.file.Path

/**
 * What docs/metrics.md documents, as the series Prometheus stores: the plugin's Micrometer meters
 * (table "meter") under the names Micrometer's Prometheus registry gives them, the agent's metrics
 * (tables "Metric") as written, each with its labels and the words its row quotes (the label
 * values it names), and the scrape labels Prometheus adds to every series (table "Scrape label").
 */
final class MetricsReference {

  static final String PLUGIN = 'plugin'
  static final String AGENT = 'agent'

  /**
   * One series name: its side, what the doc's row names (the plugin's meter, the agent's metric),
   * its labels, the words the row quotes, and the row's line.
   */
  static record Series(String name, String side, String source, Set<String> labels, Set<String> words, int line) {}

  final Path page
  final Map<String, Map<String, Series>> series
  final Set<String> scrapeLabels

  private MetricsReference(Path page, Map<String, Map<String, Series>> series, Set<String> scrapeLabels) {
    this.page = page
    this.series = series
    this.scrapeLabels = scrapeLabels
  }

  static MetricsReference read(Path page) {
    Map<String, Map<String, Series>> series = [(PLUGIN): [:], (AGENT): [:]]
    Set<String> scrapeLabels = [] as Set
    ReferenceTables.tables(page).each { table ->
      table.rows().each { row ->
        switch (table.kind()) {
          case 'meter':
            pluginSeries(page, row).each { series[PLUGIN][it.name()] = it }
            break
          case 'metric':
            agentSeries(page, row).each { series[AGENT][it.name()] = it }
            break
          case 'scrape label':
            scrapeLabels.addAll(row.quoted(0))
            break
        }
      }
    }
    assert series[PLUGIN] && series[AGENT]: "$page documents no metric of the plugin or of the agent"
    assert scrapeLabels: "$page has no 'Scrape label' table"
    new MetricsReference(page, series, scrapeLabels)
  }

  /** The series of a side, or null when that side has no series of this name. */
  Series find(String side, String name) {
    series[side][name]
  }

  String otherSide(String side) {
    side == PLUGIN ? AGENT : PLUGIN
  }

  /**
   * The plugin's meters: `a.b` / `a.c` in the first cell, Micrometer's type in the second, the tags
   * in the third. Prometheus names: dots become underscores; counters end in _total; timers in
   * _seconds with _count, _sum, _max and, with a histogram, _bucket (labelled le); distribution
   * summaries have _count, _sum and _max.
   */
  private static List<Series> pluginSeries(Path page, ReferenceTables.Row row) {
    String type = row.cell(1)
    Set<String> tags = row.quoted(2) as Set
    Set<String> words = row.quoted(3) as Set
    row.quoted(0).collectMany { String meter ->
      String base = meter.replace('.', '_')
      Map<String, Set<String>> names
      switch (type) {
        case 'gauge': names = [(base): tags]; break
        case 'counter': names = [(base + '_total'): tags]; break
        case 'summary': names = ['_count', '_sum', '_max'].collectEntries { [(base + it): tags] }; break
        case 'timer': names = ['_count', '_sum', '_max'].collectEntries { [(base + '_seconds' + it): tags] }; break
        case 'timer (histogram)':
          names = ['_count', '_sum', '_max'].collectEntries { [(base + '_seconds' + it): tags] }
          names[base + '_seconds_bucket'] = tags + 'le'
          break
        default: throw new AssertionError("$page:${row.line()}: unknown meter type '$type' of $meter")
      }
      names.collect { name, labels -> new Series(name, PLUGIN, meter, labels, words, row.line()) }
    }
  }

  /**
   * The agent's metrics: `name{label,label}` in the first cell, the type in the second. Timers
   * (named ..._seconds) have _count, _sum and _max; counters are documented with their _total.
   */
  private static List<Series> agentSeries(Path page, ReferenceTables.Row row) {
    String type = row.cell(1)
    Set<String> words = row.quoted(2) as Set
    row.quoted(0).collectMany { String metric ->
      def parts = metric =~ /^([a-z_:][a-z0-9_:]*)(?:\{([a-z_,]*)})?$/
      assert parts.matches(): "$page:${row.line()}: '$metric' is not written as name or name{label,...}"
      String name = parts.group(1)
      Set<String> labels = (parts.group(2) ?: '').split(',').findAll() as Set
      switch (type) {
        case 'gauge':
          return [new Series(name, AGENT, metric, labels, words, row.line())]
        case 'counter':
          assert name.endsWith('_total'): "$page:${row.line()}: the counter $name is not named ..._total"
          return [new Series(name, AGENT, metric, labels, words, row.line())]
        case 'timer':
          return ['_count', '_sum', '_max'].collect { new Series(name + it, AGENT, metric, labels, words, row.line()) }
        default:
          throw new AssertionError("$page:${row.line()}: unknown metric type '$type' of $metric")
      }
    }
  }
}
