package io.spinagent.testkit.kubernetes

import io.kubernetes.client.openapi.ApiClient
import java.nio.charset.StandardCharsets
import java.util.concurrent.CompletableFuture
import java.util.concurrent.TimeUnit
import okhttp3.Request
import spock.lang.Shared

/** The {@code pods/log} subresource: lines a test gives a container, plain, tailed and followed. */
class PodLogsSpec extends ApiServerSpecification {

  @Shared ApiClient api

  def setupSpec() {
    api = client()
  }

  def setup() {
    server.createObject('''{"apiVersion":"v1","kind":"Pod","metadata":{"name":"web","namespace":"default"},
      "spec":{"containers":[{"name":"nginx","image":"nginx"}]}}''')
    server.createObject('''{"apiVersion":"v1","kind":"Pod","metadata":{"name":"two","namespace":"default"},
      "spec":{"containers":[{"name":"app","image":"app"},{"name":"sidecar","image":"envoy"}]}}''')
  }

  def cleanup() {
    ['web', 'two'].each { name ->
      if (server.getObject('v1', 'Pod', 'default', name).isPresent()) {
        server.deleteObject('v1', 'Pod', 'default', name)
      }
      server.podLogs().clear('default', name)
    }
  }

  def "a container's lines come back as text, all of them or the last few"() {
    given:
    server.podLogs().append('default', 'web', 'nginx', 'started', 'GET / 200', 'GET /health 200')
    server.podLogs().append('default', 'two', 'sidecar', 'envoy ready')

    expect:
    with(http(api, 'GET', '/api/v1/namespaces/default/pods/web/log')) {
      status == 200
      contentType.startsWith('text/plain')
      text == 'started\nGET / 200\nGET /health 200\n'
    }
    http(api, 'GET', '/api/v1/namespaces/default/pods/web/log?tailLines=2').text == 'GET / 200\nGET /health 200\n'
    http(api, 'GET', '/api/v1/namespaces/default/pods/two/log?container=sidecar').text == 'envoy ready\n'
    http(api, 'GET', '/api/v1/namespaces/default/pods/two/log?container=app').text == ''
  }

  def "asking for a pod or container that is not there is answered as the API server does"() {
    expect:
    with(http(api, 'GET', '/api/v1/namespaces/default/pods/two/log')) {
      status == 400
      json.message == 'a container name must be specified for pod two, choose one of: [app, sidecar]'
    }
    http(api, 'GET', '/api/v1/namespaces/default/pods/web/log?container=php').json.message ==
      'container php is not valid for pod web'
    http(api, 'GET', '/api/v1/namespaces/default/pods/nowhere/log').json.message == 'pods "nowhere" not found'
    http(api, 'DELETE', '/api/v1/namespaces/default/pods/web/log').status == 405
    http(api, 'GET', '/apis/apps/v1/namespaces/default/deployments/web/log').status == 404
  }

  def "follow=true streams lines as they are appended, until the pod is deleted"() {
    given:
    server.podLogs().append('default', 'web', 'nginx', 'one')
    def received = new StringBuffer()
    def call = api.httpClient.newCall(new Request.Builder()
      .url(api.basePath + '/api/v1/namespaces/default/pods/web/log?follow=true').build())
    def done = CompletableFuture.supplyAsync {
      call.execute().withCloseable { response ->
        def body = response.body().byteStream()
        byte[] buffer = new byte[1024]
        int read
        while ((read = body.read(buffer)) >= 0) {
          received.append(new String(buffer, 0, read, StandardCharsets.UTF_8))
        }
        response.header('Transfer-Encoding')
      }
    }

    when:
    assert eventually(20_000) { received.toString() == 'one\n' }
    server.podLogs().append('default', 'web', 'nginx', 'two', 'three')

    then:
    eventually(20_000) { received.toString() == 'one\ntwo\nthree\n' }
    !done.isDone()

    when:
    server.deleteObject('v1', 'Pod', 'default', 'web')

    then:
    done.get(20, TimeUnit.SECONDS) == 'chunked'
    received.toString() == 'one\ntwo\nthree\n'
  }
}
