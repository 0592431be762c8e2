package io.spinagent.plugin.tunnel.history

import spock.lang.Specification

class KubectlVerbsSpec extends Specification {

  def "#method #path?#query is recorded as '#verb'"() {
    expect:
    KubectlVerbs.of(method, path, query) == verb

    where:
    method   | path                                                         | query                   || verb
    'GET'    | '/apis/apps/v1/namespaces/default/deployments/frontend'      | ''                      || 'get'
    'GET'    | '/apis/apps/v1/namespaces/default/deployments'               | 'limit=500'             || 'list'
    'GET'    | '/apis/apps/v1/deployments'                                  | 'watch=true&rv=5'       || 'watch'
    'GET'    | '/api/v1/watch/namespaces/default/pods'                      | ''                      || 'watch'
    'GET'    | '/api/v1/namespaces/default'                                 | ''                      || 'get'
    'GET'    | '/api/v1/namespaces'                                         | ''                      || 'list'
    'GET'    | '/api/v1/namespaces/default/pods/web-1/log'                  | 'container=web&follow=true' || 'logs'
    'POST'   | '/apis/apps/v1/namespaces/default/deployments'               | 'fieldManager=kubectl'  || 'create'
    'PUT'    | '/apis/apps/v1/namespaces/default/deployments/frontend'      | ''                      || 'replace'
    'PATCH'  | '/apis/apps/v1/namespaces/default/deployments/frontend'      | ''                      || 'patch'
    'PATCH'  | '/apis/apps/v1/namespaces/default/deployments/frontend/scale' | ''                     || 'scale'
    'DELETE' | '/apis/apps/v1/namespaces/default/deployments/frontend'      | ''                      || 'delete'
    'DELETE' | '/apis/apps/v1/namespaces/default/deployments'               | 'labelSelector=app'     || 'deletecollection'
    'GET'    | '/api'                                                       | ''                      || 'discovery'
    'GET'    | '/apis/apps/v1'                                              | ''                      || 'discovery'
    'GET'    | '/openapi/v3/apis/apps/v1'                                   | ''                      || 'discovery'
    'GET'    | '/version'                                                   | ''                      || 'discovery'
    'GET'    | '/healthz'                                                   | ''                      || ''
  }
}
