package io.spinagent.plugin.cache.sql

import spock.lang.Specification

class RepeatedRowsSqlSpec extends Specification {

  def "a statement of any number of rows repeats the text the second row adds"() {
    given:
    def render = { int n -> 'insert into t (a, b) values (?, ?)' + ', (?, ?)' * (n - 1) + ' on conflict do nothing' }

    expect:
    RepeatedRowsSql.of(render).sql(rows) == render(rows)

    where:
    rows << [1, 2, 3, 10, 500]
  }

  def "a row whose text begins like what follows the rows is still found"() {
    given: 'the text after the rows starts with what each added row starts with'
    def render = { int rows -> 'values (?)' + ', (?)' * (rows - 1) + ', (0) tail' }

    expect:
    RepeatedRowsSql.of(render).sql(4) == render(4)
  }

  def "a rendering that numbers its rows is refused, naming the statement"() {
    given:
    def render = { int rows -> 'values ' + (1..rows).collect { "(\$$it)" }.join(', ') }

    when:
    RepeatedRowsSql.of(render)

    then:
    def e = thrown(IllegalStateException)
    e.message.contains('values ($1), ($2)')
  }

  def "a statement needs a row"() {
    when:
    RepeatedRowsSql.of { int rows -> 'v' + ' (?)' * rows }.sql(0)

    then:
    thrown(IllegalArgumentException)
  }
}
