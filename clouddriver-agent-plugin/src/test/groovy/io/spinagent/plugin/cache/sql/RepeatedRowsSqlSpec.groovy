package io.spinagent.plugin.cache.sql

import spock.lang.Specification
import spock.lang.Tag

@Tag('one-class')
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

  def "each table's statement is rendered for that table, three times on its first use and never again"() {
    given:
    List<String> rendered = []
    def byTable = new RepeatedRowsSql.ByTable({ String table, int rows ->
      rendered << table
      ("insert into $table values (?)" + ', (?)' * (rows - 1)).toString()
    })

    when:
    def statements = [byTable.sql('a', 2), byTable.sql('b', 1), byTable.sql('a', 3), byTable.sql('b', 4)]

    then:
    statements == ['insert into a values (?), (?)', 'insert into b values (?)',
                   'insert into a values (?), (?), (?)', 'insert into b values (?), (?), (?), (?)']
    rendered == ['a', 'a', 'a', 'b', 'b', 'b']
  }

  def "a statement needs a row"() {
    when:
    RepeatedRowsSql.of { int rows -> 'v' + ' (?)' * rows }.sql(0)

    then:
    thrown(IllegalArgumentException)
  }
}
