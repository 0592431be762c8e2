package io.spinagent.plugin.cache.format

import com.fasterxml.jackson.databind.JsonNode
import com.fasterxml.jackson.databind.ObjectMapper

/**
 * Realistic objects of one namespace, shaped like `kubectl get -o json` items (status and most
 * defaulted fields trimmed): a Deployment with its ReplicaSet and Pod as Spinnaker deploys them
 * (moniker annotations copied by Kubernetes onto the ReplicaSet and, via the template, the Pod),
 * a Service and an Ingress in front of it, a StatefulSet with its headless Service, a CronJob with
 * a Job and its Pod, and an ignored Service.
 */
class Manifests {

  static final ObjectMapper MAPPER = new ObjectMapper()
  static final String ACCOUNT = 'prod-k8s'
  static final String NS = 'web'

  static JsonNode json(Map m) {
    MAPPER.valueToTree(m)
  }

  static Map shopAnnotations() {
    ['moniker.spinnaker.io/application': 'shop', 'moniker.spinnaker.io/cluster': 'deployment frontend']
  }

  static Map deployment() {
    [apiVersion: 'apps/v1', kind: 'Deployment',
     metadata  : [name: 'frontend', namespace: NS, uid: 'd-1', resourceVersion: '100',
                  labels     : [app: 'frontend', 'app.kubernetes.io/managed-by': 'spinnaker', 'app.kubernetes.io/name': 'shop'],
                  annotations: shopAnnotations() + ['deployment.kubernetes.io/revision': '3']],
     spec      : [replicas: 2, selector: [matchLabels: [app: 'frontend']],
                  template: [metadata: [creationTimestamp: null, labels: [app: 'frontend'], annotations: shopAnnotations()],
                             spec    : [containers: [[name: 'web', image: 'nginx:1.27']]]]]]
  }

  static Map replicaSet() {
    [apiVersion: 'apps/v1', kind: 'ReplicaSet',
     metadata  : [name: 'frontend-7d9f8c6b5', namespace: NS, uid: 'rs-1',
                  labels         : [app: 'frontend', 'pod-template-hash': '7d9f8c6b5'],
                  annotations    : shopAnnotations() + ['deployment.kubernetes.io/revision': '3', 'deployment.kubernetes.io/desired-replicas': '2'],
                  ownerReferences: [[apiVersion: 'apps/v1', kind: 'Deployment', name: 'frontend', uid: 'd-1', controller: true, blockOwnerDeletion: true]]],
     spec      : [replicas: 2, selector: [matchLabels: [app: 'frontend', 'pod-template-hash': '7d9f8c6b5']],
                  template: [metadata: [creationTimestamp: null, labels: [app: 'frontend', 'pod-template-hash': '7d9f8c6b5'], annotations: shopAnnotations()],
                             spec    : [containers: [[name: 'web', image: 'nginx:1.27']]]]]]
  }

  static Map pod() {
    [apiVersion: 'v1', kind: 'Pod',
     metadata  : [name: 'frontend-7d9f8c6b5-x2x7k', namespace: NS, uid: 'p-1',
                  labels         : [app: 'frontend', 'pod-template-hash': '7d9f8c6b5'],
                  annotations    : shopAnnotations(),
                  ownerReferences: [[apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'frontend-7d9f8c6b5', uid: 'rs-1', controller: true, blockOwnerDeletion: true]]],
     spec      : [containers: [[name: 'web', image: 'nginx:1.27']], nodeName: 'node-a'],
     status    : [phase: 'Running', podIP: '10.0.0.12']]
  }

  static Map service() {
    [apiVersion: 'v1', kind: 'Service',
     metadata  : [name: 'frontend', namespace: NS, uid: 's-1', annotations: ['moniker.spinnaker.io/application': 'shop']],
     spec      : [selector: [app: 'frontend'], ports: [[port: 80, targetPort: 8080, protocol: 'TCP']], type: 'ClusterIP']]
  }

  static Map ingress() {
    [apiVersion: 'networking.k8s.io/v1', kind: 'Ingress',
     metadata  : [name: 'shop', namespace: NS, uid: 'i-1'],
     spec      : [ingressClassName: 'nginx',
                  rules           : [[host: 'shop.example.com', http: [paths: [
                      [path: '/', pathType: 'Prefix', backend: [service: [name: 'frontend', port: [number: 80]]]],
                      [path: '/old', pathType: 'Prefix', backend: [service: [name: 'legacy', port: [number: 80]]]]]]]]]]
  }

  static Map statefulSet() {
    [apiVersion: 'apps/v1', kind: 'StatefulSet',
     metadata  : [name: 'redis', namespace: NS, uid: 'ss-1'],
     spec      : [serviceName: 'redis-headless', replicas: 1, selector: [matchLabels: [app: 'redis']],
                  template   : [metadata: [labels: [app: 'redis']], spec: [containers: [[name: 'redis', image: 'redis:7']]]]]]
  }

  static Map headlessService() {
    [apiVersion: 'v1', kind: 'Service',
     metadata  : [name: 'redis-headless', namespace: NS, uid: 's-2'],
     spec      : [clusterIP: 'None', selector: [app: 'redis'], ports: [[port: 6379]]]]
  }

  static Map cronJob() {
    [apiVersion: 'batch/v1', kind: 'CronJob',
     metadata  : [name: 'report-nightly', namespace: NS, uid: 'cj-1'],
     spec      : [schedule: '0 2 * * *', jobTemplate: [spec: [template: [spec: [restartPolicy: 'Never', containers: [[name: 'report', image: 'report:2']]]]]]]]
  }

  static Map job() {
    [apiVersion: 'batch/v1', kind: 'Job',
     metadata  : [name: 'report-nightly-28512345', namespace: NS, uid: 'j-1',
                  ownerReferences: [[apiVersion: 'batch/v1', kind: 'CronJob', name: 'report-nightly', uid: 'cj-1', controller: true]]],
     spec      : [template: [spec: [restartPolicy: 'Never', containers: [[name: 'report', image: 'report:2']]]]]]
  }

  static Map jobPod() {
    [apiVersion: 'v1', kind: 'Pod',
     metadata  : [name: 'report-nightly-28512345-5jq8n', namespace: NS, uid: 'p-2',
                  ownerReferences: [[apiVersion: 'batch/v1', kind: 'Job', name: 'report-nightly-28512345', uid: 'j-1', controller: true]]],
     spec      : [containers: [[name: 'report', image: 'report:2']]]]
  }

  static Map ignoredService() {
    [apiVersion: 'v1', kind: 'Service',
     metadata  : [name: 'frontend-debug', namespace: NS, annotations: ['caching.spinnaker.io/ignore': 'true']],
     spec      : [selector: [app: 'frontend'], ports: [[port: 9090]]]]
  }

  static Map podEvent() {
    [apiVersion: 'v1', kind: 'Event',
     metadata  : [name: 'frontend-7d9f8c6b5-x2x7k.17f3a1', namespace: NS],
     involvedObject: [apiVersion: 'v1', kind: 'Pod', name: 'frontend-7d9f8c6b5-x2x7k', namespace: NS, uid: 'p-1'],
     reason    : 'Pulled', message: 'Container image "nginx:1.27" already present on machine', type: 'Normal']
  }

  static List<JsonNode> all() {
    [deployment(), replicaSet(), pod(), service(), ingress(), statefulSet(), headlessService(),
     cronJob(), job(), jobPod(), ignoredService()].collect { json(it) }
  }

  static String infra(String type, String name, String ns = NS) {
    CacheKeys.infrastructure(type, ACCOUNT, ns, name)
  }
}
