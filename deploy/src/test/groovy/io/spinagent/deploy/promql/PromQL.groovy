package io.spinagent.deploy.promql

import java.util.regex.Pattern
import java.util.regex.PatternSyntaxException
import org.antlr.v4.runtime.BaseErrorListener
import org.antlr.v4.runtime.CharStreams
import org.antlr.v4.runtime.CommonTokenStream
import org.antlr.v4.runtime.ParserRuleContext
import org.antlr.v4.runtime.RecognitionException
import org.antlr.v4.runtime.Recognizer

/**
 * A PromQL expression, parsed with the grammar PromQL.g4 and then checked as Prometheus' parser
 * checks it after parsing: function names, the number and types of arguments (a rate() of an
 * instant vector, a range of anything but a selector), vector matching only between vectors,
 * comparisons of scalars only with bool, selectors that match something, valid regular
 * expressions. What it names (metrics, label matchers, grouping labels) is kept for checks against
 * the documentation. {@link #parse} throws a {@link PromQLException} naming the column and the
 * problem.
 */
final class PromQL {

  static final String SCALAR = 'scalar'
  static final String VECTOR = 'instant vector'
  static final String MATRIX = 'range vector'
  static final String STRING = 'string'

  static record Matcher(String label, String op, String value) {}

  static record Selector(String metric, List<Matcher> matchers) {}

  /** Labels named by a by, without, on, ignoring, group_left or group_right clause, with the selectors whose series it groups. */
  static record LabelUse(String clause, List<String> labels, List<Selector> selectors) {}

  /**
   * Prometheus' functions: argument types (s scalar, v instant vector, m range vector, str string;
   * ? optional, * any number more) and the result type.
   */
  private static final Map<String, String> FUNCTIONS = [
      abs: 'v>v', absent: 'v>v', absent_over_time: 'm>v', acos: 'v>v', acosh: 'v>v', asin: 'v>v',
      asinh: 'v>v', atan: 'v>v', atanh: 'v>v', avg_over_time: 'm>v', ceil: 'v>v', changes: 'm>v',
      clamp: 'v,s,s>v', clamp_max: 'v,s>v', clamp_min: 'v,s>v', cos: 'v>v', cosh: 'v>v',
      count_over_time: 'm>v', day_of_month: 'v?>v', day_of_week: 'v?>v', day_of_year: 'v?>v',
      days_in_month: 'v?>v', deg: 'v>v', delta: 'm>v', deriv: 'm>v', exp: 'v>v', floor: 'v>v',
      histogram_avg: 'v>v', histogram_count: 'v>v', histogram_fraction: 's,s,v>v',
      histogram_quantile: 's,v>v', histogram_stddev: 'v>v', histogram_stdvar: 'v>v',
      histogram_sum: 'v>v', holt_winters: 'm,s,s>v', double_exponential_smoothing: 'm,s,s>v',
      hour: 'v?>v', idelta: 'm>v', increase: 'm>v', irate: 'm>v', label_join: 'v,str,str,str*>v',
      label_replace: 'v,str,str,str,str>v', last_over_time: 'm>v', ln: 'v>v', log10: 'v>v',
      log2: 'v>v', mad_over_time: 'm>v', max_over_time: 'm>v', min_over_time: 'm>v', minute: 'v?>v',
      month: 'v?>v', pi: '>s', predict_linear: 'm,s>v', present_over_time: 'm>v',
      quantile_over_time: 's,m>v', rad: 'v>v', rate: 'm>v', resets: 'm>v', round: 'v,s?>v',
      scalar: 'v>s', sgn: 'v>v', sin: 'v>v', sinh: 'v>v', sort: 'v>v', sort_by_label: 'v,str*>v',
      sort_by_label_desc: 'v,str*>v', sort_desc: 'v>v', sqrt: 'v>v', stddev_over_time: 'm>v',
      stdvar_over_time: 'm>v', sum_over_time: 'm>v', tan: 'v>v', tanh: 'v>v', time: '>s',
      timestamp: 'v>v', vector: 's>v', year: 'v?>v',
  ]
  private static final Map<String, String> TYPE_CODES = [s: SCALAR, v: VECTOR, m: MATRIX, str: STRING]
  /** Aggregations that take a parameter before the vector, with the parameter's type. */
  private static final Map<String, String> AGGREGATION_PARAMETERS = [
      topk: SCALAR, bottomk: SCALAR, quantile: SCALAR, limitk: SCALAR, limit_ratio: SCALAR, count_values: STRING]
  private static final Pattern LABEL_NAME = Pattern.compile('[a-zA-Z_][a-zA-Z0-9_]*')

  final String text
  final String type
  final List<Selector> selectors
  final List<LabelUse> labelUses

  private PromQL(String text, String type, List<Selector> selectors, List<LabelUse> labelUses) {
    this.text = text
    this.type = type
    this.selectors = selectors.asImmutable()
    this.labelUses = labelUses.asImmutable()
  }

  /** Parses and checks {@code text}; throws a PromQLException naming the position and the problem. */
  static PromQL parse(String text) {
    def errors = new BaseErrorListener() {
      @Override
      void syntaxError(Recognizer<?, ?> recognizer, Object offendingSymbol, int line, int column, String message,
                       RecognitionException e) {
        throw new PromQLException("$line:${column + 1}: $message")
      }
    }
    def lexer = new PromQLLexer(CharStreams.fromString(text))
    lexer.removeErrorListeners()
    lexer.addErrorListener(errors)
    def parser = new PromQLParser(new CommonTokenStream(lexer))
    parser.removeErrorListeners()
    parser.addErrorListener(errors)
    def tree = parser.expression()
    def analysis = new Analysis()
    String type = analysis.visit(tree).type()
    new PromQL(text, type, analysis.selectors, analysis.labelUses)
  }

  /** The type and selectors of a subexpression. */
  private static record Value(String type, List<Selector> selectors) {}

  private static final class Analysis extends PromQLBaseVisitor<Value> {

    final List<Selector> selectors = []
    final List<LabelUse> labelUses = []

    @Override
    Value visitExpression(PromQLParser.ExpressionContext ctx) {
      visit(ctx.expr())
    }

    @Override
    Value visitParens(PromQLParser.ParensContext ctx) {
      visit(ctx.expr())
    }

    @Override
    Value visitNumber(PromQLParser.NumberContext ctx) {
      new Value(SCALAR, [])
    }

    @Override
    Value visitString(PromQLParser.StringContext ctx) {
      new Value(STRING, [])
    }

    @Override
    Value visitRangeOrSubquery(PromQLParser.RangeOrSubqueryContext ctx) {
      Value inner = visit(ctx.expr())
      if (ctx.COLON() != null) {
        expect(ctx, inner, [VECTOR], 'subquery')
      } else if (!(ctx.expr() instanceof PromQLParser.SelectorContext)) {
        fail(ctx, "ranges are only allowed for vector selectors, not '${ctx.expr().text}'")
      }
      new Value(MATRIX, inner.selectors())
    }

    @Override
    Value visitModified(PromQLParser.ModifiedContext ctx) {
      def target = ctx.expr()
      if (!(target instanceof PromQLParser.SelectorContext || target instanceof PromQLParser.RangeOrSubqueryContext
          || target instanceof PromQLParser.ModifiedContext)) {
        fail(ctx, 'offset and @ modifiers must follow a vector selector, a range vector selector or a subquery')
      }
      visit(target)
    }

    @Override
    Value visitUnary(PromQLParser.UnaryContext ctx) {
      Value inner = visit(ctx.expr())
      expect(ctx, inner, [SCALAR, VECTOR], 'unary expression')
      inner
    }

    @Override
    Value visitBinary(PromQLParser.BinaryContext ctx) {
      String operator = ctx.comparison()?.text ?: ctx.getChild(1).text.toLowerCase(Locale.ROOT)
      Value left = visit(ctx.expr(0))
      Value right = visit(ctx.expr(1))
      [left, right].each { expect(ctx, it, [SCALAR, VECTOR], "operand of '$operator'") }
      boolean setOperator = operator in ['and', 'or', 'unless']
      boolean vectors = left.type() == VECTOR && right.type() == VECTOR
      if (setOperator && !vectors) {
        fail(ctx, "set operator '$operator' not allowed in binary scalar expression")
      }
      if (ctx.comparison() != null && left.type() == SCALAR && right.type() == SCALAR && ctx.BOOL() == null) {
        fail(ctx, 'comparisons between scalars must use the bool modifier')
      }
      List<Selector> both = left.selectors() + right.selectors()
      def grouping = ctx.grouping()
      if (grouping != null) {
        if (!vectors) {
          fail(ctx, 'vector matching only allowed between instant vectors')
        }
        labelUses << new LabelUse(grouping.getChild(0).text.toLowerCase(Locale.ROOT), labels(grouping.labelList(0)), both)
        if (grouping.labelList().size() > 1 || grouping.GROUP_LEFT() || grouping.GROUP_RIGHT()) {
          if (setOperator) {
            fail(ctx, "no grouping allowed for '$operator' operation")
          }
          String clause = grouping.GROUP_LEFT() ? 'group_left' : 'group_right'
          labelUses << new LabelUse(clause, grouping.labelList().size() > 1 ? labels(grouping.labelList(1)) : [], both)
        }
      }
      new Value(left.type() == SCALAR && right.type() == SCALAR ? SCALAR : VECTOR, both)
    }

    @Override
    Value visitAggregation(PromQLParser.AggregationContext ctx) {
      String name = ctx.AGGREGATOR().text.toLowerCase(Locale.ROOT)
      List<Value> arguments = ctx.arguments().expr().collect { visit(it) }
      String parameter = AGGREGATION_PARAMETERS[name]
      int expected = parameter ? 2 : 1
      if (arguments.size() != expected) {
        fail(ctx, "wrong number of arguments for aggregation '$name': expected $expected, got ${arguments.size()}")
      }
      if (parameter) {
        expect(ctx, arguments[0], [parameter], "parameter of '$name'")
      }
      expect(ctx, arguments.last(), [VECTOR], "argument of '$name'")
      def modifier = ctx.aggregationModifier()
      if (modifier != null) {
        labelUses << new LabelUse(modifier.getChild(0).text.toLowerCase(Locale.ROOT), labels(modifier.labelList()),
            arguments.last().selectors())
      }
      new Value(VECTOR, arguments.collectMany { it.selectors() })
    }

    @Override
    Value visitCall(PromQLParser.CallContext ctx) {
      String name = ctx.IDENTIFIER().text
      String signature = FUNCTIONS[name]
      if (signature == null) {
        fail(ctx, "unknown function with name '$name'")
      }
      List<Value> arguments = ctx.arguments()?.expr()?.collect { visit(it) } ?: []
      def (String parameters, String result) = signature.split('>', -1) as List
      List<String> declared = parameters ? parameters.split(',') as List : []
      int required = declared.count { !it.endsWith('?') && !it.endsWith('*') }
      boolean variadic = declared && declared.last().endsWith('*')
      if (arguments.size() < required || (!variadic && arguments.size() > declared.size())) {
        fail(ctx, "wrong number of arguments for function '$name': expected ${variadic ? 'at least ' : ''}$required" +
            "${declared.size() > required && !variadic ? ' or ' + declared.size() : ''}, got ${arguments.size()}")
      }
      arguments.eachWithIndex { Value argument, int i ->
        String code = declared[Math.min(i, declared.size() - 1)].replaceAll(/[?*]$/, '')
        expect(ctx, argument, [TYPE_CODES[code]], "argument ${i + 1} of '$name'")
      }
      new Value(TYPE_CODES[result], arguments.collectMany { it.selectors() })
    }

    @Override
    Value visitSelector(PromQLParser.SelectorContext ctx) {
      def vectorSelector = ctx.vectorSelector()
      String metric = vectorSelector.IDENTIFIER()?.text
      List<Matcher> matchers = vectorSelector.matchers()?.matcher()?.collect { matcher ->
        String label = matcher.labelName().text
        if (!LABEL_NAME.matcher(label).matches()) {
          fail(matcher, "invalid label name '$label'")
        }
        String op = matcher.getChild(1).text
        String value = unquote(matcher.STRING().text)
        if (op in ['=~', '!~']) {
          try {
            Pattern.compile(value)
          } catch (PatternSyntaxException e) {
            fail(matcher, "invalid regular expression '$value' for label $label: ${e.description}")
          }
        }
        new Matcher(label, op, value)
      } ?: []
      if (metric != null && matchers.any { it.label() == '__name__' }) {
        fail(ctx, "metric name set twice: '$metric' and a __name__ matcher")
      }
      if (metric == null && matchers.every { matchesEmpty(it) }) {
        fail(ctx, 'vector selector must contain at least one non-empty matcher')
      }
      def selector = new Selector(metric, matchers)
      selectors << selector
      new Value(VECTOR, [selector])
    }

    private static List<String> labels(PromQLParser.LabelListContext list) {
      List<String> names = list.labelName()*.text
      names.each { name ->
        if (!LABEL_NAME.matcher(name).matches()) {
          throw new PromQLException("${list.start.line}:${list.start.charPositionInLine + 1}: invalid label name '$name'")
        }
      }
      names
    }

    private static boolean matchesEmpty(Matcher matcher) {
      switch (matcher.op()) {
        case '=': return matcher.value().isEmpty()
        case '!=': return !matcher.value().isEmpty()
        case '=~': return ''.matches(matcher.value())
        default: return !''.matches(matcher.value())
      }
    }

    private static void expect(ParserRuleContext ctx, Value value, List<String> types, String what) {
      if (!(value.type() in types)) {
        fail(ctx, "$what: expected ${types.join(' or ')}, got ${value.type()}")
      }
    }

    private static void fail(ParserRuleContext ctx, String message) {
      throw new PromQLException("${ctx.start.line}:${ctx.start.charPositionInLine + 1}: $message")
    }
  }

  /** The value of a PromQL string literal: double- or single-quoted with escapes, or back-quoted raw. */
  static String unquote(String literal) {
    String body = literal.substring(1, literal.length() - 1)
    if (literal.startsWith('`')) {
      return body
    }
    def value = new StringBuilder()
    for (int i = 0; i < body.length(); i++) {
      char c = body.charAt(i)
      if (c == '\\' as char && i + 1 < body.length()) {
        char next = body.charAt(++i)
        value.append(next == 'n' as char ? '\n' : next == 't' as char ? '\t' : next as String)
      } else {
        value.append(c)
      }
    }
    value.toString()
  }
}
