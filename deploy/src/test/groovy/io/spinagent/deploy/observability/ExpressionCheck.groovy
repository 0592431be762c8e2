package io.spinagent.deploy.observability

import io.spinagent.deploy.promql.PromQL
import io.spinagent.deploy.promql.PromQLException

/**
 * Checks an expression of the operations kit: it parses as PromQL and yields an instant vector or
 * a scalar; it queries only metrics docs/metrics.md documents for its side (agent or plugin); each
 * label it matches, groups or joins on is one of those metrics' documented labels or a scrape label;
 * each literal label value it matches is one the metric's row names.
 */
final class ExpressionCheck {

  private ExpressionCheck() {}

  /** What is wrong with the expression, one message each; empty when nothing is. */
  static List<String> problems(ObservabilityKit.Expression expression, MetricsReference reference) {
    def unknownVariable = expression.text() =~ /\$\{?\w+/
    if (unknownVariable.find()) {
      return ["uses ${unknownVariable.group()}, a variable the dashboard does not define"]
    }
    PromQL query
    try {
      query = PromQL.parse(expression.text())
    } catch (PromQLException e) {
      return ["does not parse: ${e.message}"]
    }
    List<String> problems = []
    if (!(query.type in [PromQL.VECTOR, PromQL.SCALAR])) {
      problems << "yields a ${query.type}; a query or rule must yield an instant vector or a scalar"
    }
    List<MetricsReference.Series> documented = []
    query.selectors.each { selector ->
      def series = selector.metric() == null ? null : reference.find(expression.side(), selector.metric())
      if (selector.metric() == null) {
        problems << "selects ${selector.matchers()} without a metric name"
      } else if (series == null) {
        boolean otherSide = reference.find(reference.otherSide(expression.side()), selector.metric()) != null
        problems << (otherSide
            ? "${selector.metric()} is a metric of the ${reference.otherSide(expression.side())}, not of the ${expression.side()}"
            : "${selector.metric()} is not a metric of the ${expression.side()} in ${reference.page}")
      } else {
        documented << series
        selector.matchers().each { matcher -> problems.addAll(matcherProblems(matcher, series, reference)) }
      }
    }
    Set<String> labelsInScope = reference.scrapeLabels + documented.collectMany { it.labels() }
    query.labelUses.each { use ->
      Set<String> allowed = reference.scrapeLabels + use.selectors().collectMany { selector ->
        reference.find(expression.side(), selector.metric() ?: '')?.labels() ?: []
      }
      (use.labels() - allowed).each { label ->
        problems << "${use.clause()} (${use.labels().join(', ')}): $label is not a label of ${use.selectors()*.metric().unique()}"
      }
    }
    (expression.labels() - labelsInScope).each { label ->
      problems << "$label is not a label of ${documented*.name().unique()}"
    }
    problems
  }

  private static List<String> matcherProblems(PromQL.Matcher matcher, MetricsReference.Series series,
                                              MetricsReference reference) {
    String label = matcher.label()
    if (label in reference.scrapeLabels) {
      return []
    }
    if (!(label in series.labels())) {
      return ["$label is not a label of ${series.name()} (${reference.page.fileName}:${series.line()} documents " +
                  "${series.labels() ? series.labels().sort().join(', ') : 'none'})"]
    }
    if (label == 'le') {
      return []
    }
    literalValues(matcher).findAll { !(it in series.words()) }.collect { value ->
      "${series.name()}{$label${matcher.op()}\"${matcher.value()}\"}: '$value' is not a value " +
          "${reference.page.fileName}:${series.line()} names for $label"
    }
  }

  /** The literal values a matcher names: its value, or each alternative of a regular expression that is a plain word. */
  private static List<String> literalValues(PromQL.Matcher matcher) {
    if (matcher.op() in ['=', '!=']) {
      return [matcher.value()]
    }
    matcher.value().split(/\|/).findAll { it ==~ /[A-Za-z0-9_-]+/ }
  }
}
