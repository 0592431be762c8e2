package io.spinagent.agent.config.yaml

import spock.lang.Specification

/** The streaming writer lays YAML out exactly as {@link YamlOutput#dump} does. */
class YamlWriterSpec extends Specification {

  static String written(Object data) {
    def text = new StringWriter()
    def yaml = new YamlWriter(text)
    yaml.value(data)
    yaml.end()
    text.toString()
  }

  def "plain data is written as dump writes it, quoting what YAML would read as something else"() {
    given:
    def data = [
        name     : 'prod',
        port     : '8082',
        flag     : 'on',
        empty    : '',
        spaced   : ' x ',
        multiline: 'line one\nline two\n',
        colon    : 'a: b',
        hash     : '#not a comment',
        number   : 30,
        big      : 1234567890123L,
        fraction : 1.6d,
        enabled  : false,
        nothing  : null,
        list     : ['a', '1', 'true'],
        none     : [],
        map      : [READ: ['dev', 'ops'], WRITE: []],
        nested   : [[deeper: [x: 'y']]],
        emptyMap : [:]]

    expect:
    written(data) == YamlOutput.dump(data)
  }

  def "an empty map at the top is written as dump writes it"() {
    expect:
    written([:]) == YamlOutput.dump([:])
  }
}
