package io.spinagent.common

import spock.lang.Specification

/**
 * Requests named as the API server names them for authorization (k8s.io/apiserver's
 * RequestInfoFactory): the cases the agent's and the plugin's parsers covered, and where they
 * disagreed (PUT, logs, scale, a named GET with watch=true, non-resource paths), the API server's
 * answer.
 */
class KubernetesRequestSpec extends Specification {

  def "#method #path?#query is '#verb' of '#resourcePath' named '#name' in '#namespace'"() {
    when:
    def request = KubernetesRequest.of(method, path, query)

    then:
    request.resourceRequest()
    request.verb() == verb
    request.verbLabel() == verb
    request.resourcePath() == resourcePath
    request.name() == name
    request.namespace() == namespace
    !request.discovery()

    where:
    method   | path                                                            | query                       || verb               | resourcePath          | name       | namespace
    // reads
    'GET'    | '/apis/apps/v1/namespaces/default/deployments/frontend'         | ''                          || 'get'              | 'deployments'         | 'frontend' | 'default'
    'HEAD'   | '/apis/apps/v1/namespaces/default/deployments/frontend'         | ''                          || 'get'              | 'deployments'         | 'frontend' | 'default'
    'GET'    | '/apis/apps/v1/namespaces/default/deployments'                  | 'limit=500'                 || 'list'             | 'deployments'         | ''         | 'default'
    'GET'    | '/apis/apps/v1/deployments'                                     | 'limit=500&watch=false'     || 'list'             | 'deployments'         | ''         | ''
    'get'    | '/api/v1/pods'                                                  | null                        || 'list'             | 'pods'                | ''         | ''
    // watches: ?watch=true (as Go reads a bool) on a collection, or the old /watch/ path
    'GET'    | '/apis/apps/v1/deployments'                                     | 'watch=true&resourceVersion=5' || 'watch'         | 'deployments'         | ''         | ''
    'GET'    | '/api/v1/namespaces/default/pods'                               | 'allowWatchBookmarks=true&watch=1' || 'watch'     | 'pods'                | ''         | 'default'
    'GET'    | '/api/v1/watch/namespaces/default/pods'                         | ''                          || 'watch'            | 'pods'                | ''         | 'default'
    'GET'    | '/api/v1/watch/namespaces/default/pods/web-1'                   | ''                          || 'watch'            | 'pods'                | 'web-1'    | 'default'
    // a named GET stays a get, watch=true or not (the agent and the plugin called it a watch)
    'GET'    | '/api/v1/namespaces/default/pods/web-1'                         | 'watch=true'                || 'get'              | 'pods'                | 'web-1'    | 'default'
    // namespaces themselves, and their own subresources
    'GET'    | '/api/v1/namespaces'                                            | ''                          || 'list'             | 'namespaces'          | ''         | ''
    'GET'    | '/api/v1/namespaces/default'                                    | ''                          || 'get'              | 'namespaces'          | 'default'  | 'default'
    'PUT'    | '/api/v1/namespaces/old/finalize'                               | ''                          || 'update'           | 'namespaces/finalize' | 'old'      | 'old'
    'PATCH'  | '/api/v1/namespaces/old/status'                                 | ''                          || 'patch'            | 'namespaces/status'   | 'old'      | 'old'
    // writes (PUT is update, as RBAC says; the plugin called it replace)
    'POST'   | '/apis/apps/v1/namespaces/default/deployments'                  | 'fieldManager=kubectl'      || 'create'           | 'deployments'         | ''         | 'default'
    'PUT'    | '/apis/apps/v1/namespaces/default/deployments/frontend'         | ''                          || 'update'           | 'deployments'         | 'frontend' | 'default'
    'PATCH'  | '/apis/apps/v1/namespaces/default/deployments/frontend'         | ''                          || 'patch'            | 'deployments'         | 'frontend' | 'default'
    'DELETE' | '/apis/apps/v1/namespaces/default/deployments/frontend'         | ''                          || 'delete'           | 'deployments'         | 'frontend' | 'default'
    'DELETE' | '/apis/apps/v1/namespaces/default/deployments'                  | 'labelSelector=app'         || 'deletecollection' | 'deployments'         | ''         | 'default'
    'DELETE' | '/api/v1/persistentvolumes'                                     | ''                          || 'deletecollection' | 'persistentvolumes'   | ''         | ''
    // subresources keep their method's verb (the plugin called these logs and scale)
    'GET'    | '/api/v1/namespaces/default/pods/web-1/log'                     | 'container=web&follow=true' || 'get'              | 'pods/log'            | 'web-1'    | 'default'
    'PATCH'  | '/apis/apps/v1/namespaces/default/deployments/frontend/scale'   | ''                          || 'patch'            | 'deployments/scale'   | 'frontend' | 'default'
    'PUT'    | '/apis/apps/v1/namespaces/default/deployments/frontend/scale'   | ''                          || 'update'           | 'deployments/scale'   | 'frontend' | 'default'
    'PATCH'  | '/apis/apps/v1/namespaces/default/deployments/frontend/status'  | ''                          || 'patch'            | 'deployments/status'  | 'frontend' | 'default'
    'POST'   | '/api/v1/namespaces/default/pods/web-1/exec'                    | 'command=sh&stdin=true'     || 'create'           | 'pods/exec'           | 'web-1'    | 'default'
    'GET'    | '/api/v1/namespaces/default/pods/web-1/exec'                    | 'command=sh'                || 'get'              | 'pods/exec'           | 'web-1'    | 'default'
    'POST'   | '/api/v1/namespaces/default/pods/web-1/attach'                  | ''                          || 'create'           | 'pods/attach'         | 'web-1'    | 'default'
    'POST'   | '/api/v1/namespaces/default/pods/web-1/portforward'             | ''                          || 'create'           | 'pods/portforward'    | 'web-1'    | 'default'
    'POST'   | '/api/v1/namespaces/default/pods/web-1/eviction'                | ''                          || 'create'           | 'pods/eviction'       | 'web-1'    | 'default'
    'GET'    | '/api/v1/namespaces/default/services/web:80/proxy/healthz'      | ''                          || 'get'              | 'services/proxy'      | 'web:80'   | 'default'
    'POST'   | '/api/v1/namespaces/default/pods/web-1/proxy/api/run'           | ''                          || 'create'           | 'pods/proxy'          | 'web-1'    | 'default'
    // the old proxy verb path has no subresource
    'GET'    | '/api/v1/proxy/namespaces/default/pods/web-1/metrics'           | ''                          || 'proxy'            | 'pods'                | 'web-1'    | 'default'
    // access reviews the agent sends
    'POST'   | '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews'        | ''                          || 'create'           | 'selfsubjectaccessreviews' | ''    | ''
  }

  def "group and version are read from the path"() {
    expect:
    with(KubernetesRequest.of('GET', '/apis/networking.k8s.io/v1/namespaces/x/ingresses', '')) {
      apiGroup() == 'networking.k8s.io'
      apiVersion() == 'v1'
    }
    with(KubernetesRequest.of('GET', '/api/v1/configmaps', '')) {
      apiGroup() == ''
      apiVersion() == 'v1'
    }
  }

  def "#method #path is a non-resource request: verb '#verb', labelled '#label'"() {
    when:
    def request = KubernetesRequest.of(method, path, '')

    then:
    !request.resourceRequest()
    request.verb() == verb
    request.discovery() == (label == 'discovery')
    request.verbLabel() == label

    where:
    method | path                        || verb   | label
    'GET'  | '/'                         || 'get'  | 'discovery'
    'GET'  | '/api'                      || 'get'  | 'discovery'
    'GET'  | '/api/v1'                   || 'get'  | 'discovery'
    'GET'  | '/apis'                     || 'get'  | 'discovery'
    'GET'  | '/apis/apps'                || 'get'  | 'discovery'
    'GET'  | '/apis/apps/v1'             || 'get'  | 'discovery'
    'HEAD' | '/apis/apps/v1'             || 'head' | 'discovery'
    'GET'  | '/openapi/v3/apis/apps/v1'  || 'get'  | 'discovery'
    'GET'  | '/version'                  || 'get'  | 'discovery'
    'GET'  | '/healthz'                  || 'get'  | 'other'
    'GET'  | '/metrics'                  || 'get'  | 'other'
    'POST' | '/api'                      || 'post' | 'other'
  }

  def "a method the API server knows no verb for is labelled 'other', never with what the client sent"() {
    expect:
    KubernetesRequest.of('OPTIONS', '/api/v1/namespaces/default/pods', '').verbLabel() == 'other'
    KubernetesRequest.of('BREW', '/apis/apps/v1/deployments/x', '').verbLabel() == 'other'
    KubernetesRequest.of('BREW', '/coffee', '').verbLabel() == 'other'
  }

  def "a watch or proxy segment with nothing after it is a resource of that name"() {
    expect:
    with(KubernetesRequest.of('GET', '/api/v1/watch', '')) {
      verb() == 'list'
      resource() == 'watch'
    }
  }
}
