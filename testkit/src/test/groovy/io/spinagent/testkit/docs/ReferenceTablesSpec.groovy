package io.spinagent.testkit.docs

import java.nio.file.Files
import java.nio.file.Path
import spock.lang.Specification
import spock.lang.TempDir

class ReferenceTablesSpec extends Specification {

  @TempDir Path dir

  static final String PAGE = '''\
      # Reference

      ## `server`

      | Key | Type | Meaning |
      |---|---|---|
      | `server.port` / `server.address` | port | where it listens |

      Text between tables.

      ## Metrics

      | Metric | Type | Meaning |
      |:---|---|---|
      | `spinagent_accounts{state}` | gauge | by state (`READY`, `FAILED`) |
      | `spinagent_x` | counter | a pipe in a cell: `change=~"lost\\|taken_over"` |

      | a stray row | after the table ended, in no table |
      '''.stripIndent()

  def "reads every table with its heading, header, cells and lines"() {
    given:
    def page = Files.writeString(dir.resolve('page.md'), PAGE)

    when:
    def tables = ReferenceTables.tables(page)

    then:
    tables*.heading() == ['`server`', 'Metrics']
    tables*.kind() == ['key', 'metric']
    tables[1].header() == ['Metric', 'Type', 'Meaning']
    tables[1].rows()*.line() == [15, 16]
    tables[1].rows()[0].quoted(2) == ['READY', 'FAILED']
    tables[1].rows()[1].cells() == ['`spinagent_x`', 'counter', 'a pipe in a cell: `change=~"lost|taken_over"`']
    tables[1].rows()[1].cell(7) == ''
  }

  def "key rows are the quoted names in the first cell of Key tables only"() {
    given:
    def page = Files.writeString(dir.resolve('page.md'), PAGE)

    expect:
    ReferenceTables.keyRows(page) == [
        new ReferenceTables.KeyRow('`server`', 'server.port', 7),
        new ReferenceTables.KeyRow('`server`', 'server.address', 7)]
  }
}
