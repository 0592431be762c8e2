package io.spinagent.agent.config

import spock.lang.Specification

/** HTTPS_PROXY, HTTP_PROXY and NO_PROXY, read as Go's HTTP clients (and Armory's agent) read them. */
class ProxyEnvironmentSpec extends Specification {

  static ProxyEnvironment env(Map<String, String> variables) {
    ProxyEnvironment.of { variables[it] }
  }

  def "#scheme://#host:#port with #variables: #expected"() {
    when:
    def proxy = env(variables).proxyFor(scheme, host, port)

    then:
    proxy.map { it.describe() }.orElse('direct') == expected

    where:
    scheme  | host                  | port | variables                                                              || expected
    'https' | 'cd.example.com'      | 443  | [HTTPS_PROXY: 'http://proxy:3128']                                     || 'proxy:3128 (HTTPS_PROXY)'
    'https' | 'cd.example.com'      | 443  | [https_proxy: 'proxy.corp:8080']                                       || 'proxy.corp:8080 (https_proxy)'
    'https' | 'cd.example.com'      | 443  | [HTTPS_PROXY: 'http://upper:1', https_proxy: 'http://lower:2']         || 'upper:1 (HTTPS_PROXY)'
    'https' | 'cd.example.com'      | 443  | [HTTPS_PROXY: 'http://proxy']                                          || 'proxy:80 (HTTPS_PROXY)'
    'https' | 'cd.example.com'      | 443  | [HTTP_PROXY: 'http://proxy:3128']                                      || 'direct'
    'http'  | 'cd.example.com'      | 80   | [HTTP_PROXY: 'http://proxy:3128', HTTPS_PROXY: 'http://other:1']       || 'proxy:3128 (HTTP_PROXY)'
    'https' | 'localhost'           | 443  | [HTTPS_PROXY: 'http://proxy:3128']                                     || 'direct'
    'https' | '127.0.0.1'           | 443  | [HTTPS_PROXY: 'http://proxy:3128']                                     || 'direct'
    'https' | '::1'                 | 443  | [HTTPS_PROXY: 'http://proxy:3128']                                     || 'direct'
    'https' | 'cd.example.com'      | 443  | [HTTPS_PROXY: 'http://proxy:3128', NO_PROXY: '*']                      || 'direct'
    'https' | 'cd.example.com'      | 443  | [HTTPS_PROXY: 'http://proxy:3128', NO_PROXY: 'example.com']            || 'direct'
    'https' | 'example.com'         | 443  | [HTTPS_PROXY: 'http://proxy:3128', NO_PROXY: 'example.com']            || 'direct'
    'https' | 'example.com'         | 443  | [HTTPS_PROXY: 'http://proxy:3128', NO_PROXY: '.example.com']           || 'proxy:3128 (HTTPS_PROXY)'
    'https' | 'cd.example.com'      | 443  | [HTTPS_PROXY: 'http://proxy:3128', NO_PROXY: '*.example.com']          || 'direct'
    'https' | 'notexample.com'      | 443  | [HTTPS_PROXY: 'http://proxy:3128', NO_PROXY: 'example.com']            || 'proxy:3128 (HTTPS_PROXY)'
    'https' | 'cd.example.com'      | 9091 | [HTTPS_PROXY: 'http://proxy:3128', NO_PROXY: 'cd.example.com:443']     || 'proxy:3128 (HTTPS_PROXY)'
    'https' | 'cd.example.com'      | 443  | [HTTPS_PROXY: 'http://proxy:3128', NO_PROXY: 'cd.example.com:443']     || 'direct'
    'https' | 'CD.Example.COM'      | 443  | [HTTPS_PROXY: 'http://proxy:3128', NO_PROXY: 'cd.example.com']         || 'direct'
    'https' | '10.1.2.3'            | 6443 | [HTTPS_PROXY: 'http://proxy:3128', NO_PROXY: '10.0.0.0/8']             || 'direct'
    'https' | '11.1.2.3'            | 6443 | [HTTPS_PROXY: 'http://proxy:3128', NO_PROXY: '10.0.0.0/8']             || 'proxy:3128 (HTTPS_PROXY)'
    'https' | '10.1.2.3'            | 6443 | [HTTPS_PROXY: 'http://proxy:3128', NO_PROXY: 'a.com, 10.1.2.3']        || 'direct'
    'https' | 'fd00::5'             | 6443 | [HTTPS_PROXY: 'http://proxy:3128', NO_PROXY: 'fd00::/16']              || 'direct'
    'https' | 'cd.example.com'      | 443  | [HTTPS_PROXY: '', https_proxy: 'http://lower:2']                        || 'lower:2 (https_proxy)'
  }

  def "credentials in the proxy URL are used but never described"() {
    when:
    def proxy = env([HTTPS_PROXY: 'http://agent:p%40ss@proxy:3128']).proxyFor('https', 'cd', 443).get()

    then:
    proxy.username() == Optional.of('agent')
    proxy.password() == Optional.of('p@ss')
    !proxy.toString().contains('p@ss')
    !env([HTTPS_PROXY: 'http://agent:p%40ss@proxy:3128']).describe().contains('ss@')
  }

  def "#value is refused, naming the variable"() {
    when:
    env([HTTPS_PROXY: value]).proxyFor('https', 'cd.example.com', 443)

    then:
    def e = thrown(IllegalArgumentException)
    e.message == message

    where:
    value                     || message
    'https://proxy:3128'      || 'HTTPS_PROXY names a https proxy; the agent connects through HTTP proxies only (http://host:port)'
    'socks5://proxy:1080'     || 'HTTPS_PROXY names a socks5 proxy; the agent connects through HTTP proxies only (http://host:port)'
    'http://'                 || 'HTTPS_PROXY is not a proxy URL such as http://proxy:3128: Expected authority'
  }

  def "without proxy variables nothing is proxied and the JVM's own settings are left alone"() {
    expect:
    !env([:]).isSet()
    env([NO_PROXY: 'x']).proxyFor('https', 'cd', 443).isEmpty()
    env([HTTP_PROXY: 'http://p:1']).isSet()
  }
}
