package io.spinagent.agent.convert

import io.spinagent.agent.armory.ArmoryAgentKeys
import io.spinagent.agent.armory.ArmoryKey
import java.nio.file.Files
import java.nio.file.Path
import spock.lang.Specification

/**
 * docs/migrating-from-armory.md cannot drift from the code: its tables of Armory's agent keys and
 * plugin keys are exactly what the agent's mapping table ({@link ArmoryAgentKeys}) and the
 * converter's plugin table ({@link ArmoryPluginKeys}) say. On a difference the message shows the
 * table to paste between the markers.
 */
class MigrationDocSpec extends Specification {

  static final Path DOC = Path.of(System.getProperty('user.dir')).resolve('../docs/migrating-from-armory.md').normalize()

  def "the #table table in docs/migrating-from-armory.md is the code's"() {
    given:
    String text = Files.readString(DOC)
    String begin = "<!-- BEGIN generated from $source: do not edit by hand; MigrationDocSpec prints it -->"
    String end = "<!-- END generated from $source -->"
    assert text.contains(begin) && text.contains(end): "docs/migrating-from-armory.md has no markers for the $table table: $begin ... $end"
    String written = text.substring(text.indexOf(begin) + begin.length(), text.indexOf(end)).trim()

    expect:
    assert written == expected: "docs/migrating-from-armory.md's $table table differs from $source; put this between the markers:\n\n$expected\n"

    where:
    table    | source                                          | expected
    'agent'  | 'io.spinagent.agent.armory.ArmoryAgentKeys'     | markdown(ArmoryAgentKeys.rows())
    'plugin' | 'io.spinagent.agent.convert.ArmoryPluginKeys'   | markdown(ArmoryPluginKeys.rows()*.key())
  }

  static String markdown(List<ArmoryKey> rows) {
    List<String> lines = ['| Armory key | In Armory | SpinAgent key | Treatment | What SpinAgent does |', '|---|---|---|---|---|']
    rows.each { row ->
      lines << "| `${row.key()}` | ${row.armory()} | ${row.spinAgentKey() ? "`${row.spinAgentKey()}`" : '—'} |" +
          " ${row.treatment().label()} | ${row.spinAgent()} |"
    }
    lines.join('\n')
  }
}
