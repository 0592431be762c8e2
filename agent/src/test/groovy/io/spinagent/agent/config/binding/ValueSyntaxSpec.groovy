package io.spinagent.agent.config.binding

import io.spinagent.agent.config.GrpcTarget
import io.spinagent.agent.config.yaml.ByteSizes
import java.time.Duration
import spock.lang.Specification

/** The written forms of durations, sizes and host:port addresses. */
class ValueSyntaxSpec extends Specification {

  def "duration '#text' is #expected"() {
    expect:
    Durations.parse(text) == expected

    where:
    text     || expected
    '0'      || Duration.ZERO
    '500ms'  || Duration.ofMillis(500)
    '1s'     || Duration.ofSeconds(1)
    '1.5s'   || Duration.ofMillis(1500)
    '2m'     || Duration.ofMinutes(2)
    '1h30m'  || Duration.ofMinutes(90)
    '250us'  || Duration.ofNanos(250_000)
    '10ns'   || Duration.ofNanos(10)
  }

  def "duration '#text' is refused: #message"() {
    when:
    Durations.parse(text)

    then:
    def e = thrown(IllegalArgumentException)
    e.message == message

    where:
    text        || message
    '30'        || "'30' has no unit; write e.g. 30s or 30ms"
    '1 s'       || "expected a duration such as 500ms, 1s, 2m or 1h30m, got '1 s'"
    '-1s'       || "expected a duration such as 500ms, 1s, 2m or 1h30m, got '-1s'"
    '1d'        || "expected a duration such as 500ms, 1s, 2m or 1h30m, got '1d'"
    '0.5ns'     || "'0.5ns' is not a whole number of nanoseconds below 292 years"
  }

  def "duration #duration is printed as #text"() {
    expect:
    Durations.format(duration) == text

    where:
    duration                 || text
    Duration.ofSeconds(120)  || '2m'
    Duration.ofMillis(1500)  || '1500ms'
    Duration.ofHours(3)      || '3h'
    Duration.ZERO            || '0'
  }

  def "size '#text' is #expected bytes"() {
    expect:
    ByteSizes.parse(text) == expected

    where:
    text      || expected
    '1048576' || 1048576L
    '64Mi'    || 64L * 1024 * 1024
    '1Gi'     || 1024L * 1024 * 1024
    '100M'    || 100_000_000L
    '8k'      || 8000L
    '2Ti'     || 2L << 40
  }

  def "size '#text' is refused"() {
    when:
    ByteSizes.parse(text)

    then:
    thrown(IllegalArgumentException)

    where:
    text << ['64MB', '64MiB', '1.5Gi', '-1', '8K', 'lots', '99999999999999999999', '9999999Ti']
  }

  def "size #bytes is printed as #text"() {
    expect:
    ByteSizes.format(bytes) == text

    where:
    bytes             || text
    64L * 1024 * 1024 || '64Mi'
    1536L             || '1536'
    3L << 30          || '3Gi'
    1000L             || '1000'
  }

  def "gRPC target '#text' is #host port #port"() {
    expect:
    GrpcTarget.parse(text) == new GrpcTarget(host, port)

    where:
    text                          || host                     | port
    'spin-clouddriver-grpc:9091'  || 'spin-clouddriver-grpc'  | 9091
    '10.0.0.1:1'                  || '10.0.0.1'               | 1
    '[fd00::1]:65535'             || 'fd00::1'                | 65535
  }

  def "closest key to '#typed' is #expected"() {
    expect:
    ClosestKey.among(typed, ['kubernetes', 'clouddriver', 'server', 'READ', 'WRITE']) == Optional.ofNullable(expected)

    where:
    typed          || expected
    'kubernets'    || 'kubernetes'
    'clouddrvier'  || 'clouddriver'
    'Server'       || 'server'
    'read'         || 'READ'
    'colour'       || null
    'x'            || null
  }
}
