package io.spinagent.testkit.kubernetes

import groovy.json.JsonOutput
import java.nio.file.Files
import java.nio.file.Path
import java.time.Duration
import java.time.Instant
import spock.lang.Shared

/**
 * kubectl 1.32 prints the test server's objects as it prints a real cluster's: the server-side
 * tables carry the columns and cells of a Kubernetes 1.32 API server for the built-in kinds, with
 * the -o wide ones. The server's clock is stepped, so ages and durations come out exact; objects
 * get their status as a controller or kubelet writes it (the status subresource).
 */
class ServerSideTablesSpec extends ApiServerSpecification {

  static final Instant START = Instant.parse('2025-03-01T12:00:00Z')

  @Shared SteppingClock clock = new SteppingClock(START)
  @Shared Path dir
  @Shared Path kubeconfig
  @Shared Kubectl kubectl

  @Override
  KubernetesApiServer.Builder newServer() {
    // The dispatching kubectl of the Google Cloud SDK runs the release of the server's minor.
    KubernetesApiServer.builder().gitVersion('v1.32.4').clock(clock)
        .initialNamespaces(['default', 'kube-system', 'shop'])
  }

  def setupSpec() {
    dir = Files.createTempDirectory('server-side-tables')
    kubectl = new Kubectl(dir)
    kubeconfig = server.kubeconfig().writeTo(dir.resolve('kubeconfig'))
    seedShop()
    seedWorkloads()
    seedConfiguration()
    seedCluster()
    clock.step(Duration.ofMinutes(5))
  }

  def cleanupSpec() {
    dir?.toFile()?.deleteDir()
  }

  def "kubectl get deployments,replicasets,pods,services prints a real server's columns"() {
    expect:
    get('deployments,replicasets,pods,services') == '''\
        NAME                  READY   UP-TO-DATE   AVAILABLE   AGE
        deployment.apps/web   2/3     3            2           6m48s

        NAME                             DESIRED   CURRENT   READY   AGE
        replicaset.apps/web-6d4cf56db6   3         3         2       6m48s

        NAME                       READY   STATUS             RESTARTS        AGE
        pod/db-0                   0/1     Init:0/1           0               6m48s
        pod/migrate-x7k2p          0/1     Completed          0               6m48s
        pod/web-6d4cf56db6-2xkqv   2/2     Running            0               6m48s
        pod/web-6d4cf56db6-8hmzr   1/2     CrashLoopBackOff   3 (3m48s ago)   6m48s
        pod/web-6d4cf56db6-q9tdc   0/2     Pending            0               6m48s

        NAME                 TYPE           CLUSTER-IP   EXTERNAL-IP    PORT(S)                      AGE
        service/db           ClusterIP      None         <none>         5432/TCP                     5m
        service/web          ClusterIP      10.96.41.7   <none>         80/TCP                       5m
        service/web-public   LoadBalancer   10.96.41.8   203.0.113.10   80:31080/TCP,443:31443/TCP   5m
        '''.stripIndent()
  }

  def "-o wide adds the priority 1 columns"() {
    expect:
    get('deployments,replicasets,pods,services', '-o', 'wide') == '''\
        NAME                  READY   UP-TO-DATE   AVAILABLE   AGE     CONTAINERS          IMAGES                            SELECTOR
        deployment.apps/web   2/3     3            2           6m48s   nginx,istio-proxy   nginx:1.27,istio/proxyv2:1.24.0   app=web

        NAME                             DESIRED   CURRENT   READY   AGE     CONTAINERS          IMAGES                            SELECTOR
        replicaset.apps/web-6d4cf56db6   3         3         2       6m48s   nginx,istio-proxy   nginx:1.27,istio/proxyv2:1.24.0   app=web,pod-template-hash=6d4cf56db6

        NAME                       READY   STATUS             RESTARTS        AGE     IP            NODE     NOMINATED NODE   READINESS GATES
        pod/db-0                   0/1     Init:0/1           0               6m48s   10.244.2.8    node-b   <none>           0/1
        pod/migrate-x7k2p          0/1     Completed          0               6m48s   10.244.2.7    node-b   <none>           <none>
        pod/web-6d4cf56db6-2xkqv   2/2     Running            0               6m48s   10.244.1.12   node-a   <none>           <none>
        pod/web-6d4cf56db6-8hmzr   1/2     CrashLoopBackOff   3 (3m48s ago)   6m48s   10.244.1.13   node-a   <none>           <none>
        pod/web-6d4cf56db6-q9tdc   0/2     Pending            0               6m48s   <none>        <none>   <none>           <none>

        NAME                 TYPE           CLUSTER-IP   EXTERNAL-IP    PORT(S)                      AGE   SELECTOR
        service/db           ClusterIP      None         <none>         5432/TCP                     5m    app=db
        service/web          ClusterIP      10.96.41.7   <none>         80/TCP                       5m    app=web
        service/web-public   LoadBalancer   10.96.41.8   203.0.113.10   80:31080/TCP,443:31443/TCP   5m    app=web
        '''.stripIndent()
  }

  def "the other workloads: StatefulSets, DaemonSets, Jobs and CronJobs"() {
    expect:
    get('statefulsets,daemonsets,jobs,cronjobs') == '''\
        NAME                  READY   AGE
        statefulset.apps/db   1/3     5m

        NAME                         DESIRED   CURRENT   READY   UP-TO-DATE   AVAILABLE   NODE SELECTOR            AGE
        daemonset.apps/log-shipper   2         2         1       2            1           kubernetes.io/os=linux   5m

        NAME                 STATUS      COMPLETIONS   DURATION   AGE
        job.batch/backfill   Suspended   2/5                      5m
        job.batch/migrate    Complete    1/1           38s        5m
        job.batch/reindex    Running     0/1 of 3      6m18s      5m

        NAME                           SCHEDULE       TIMEZONE        SUSPEND   ACTIVE   LAST SCHEDULE   AGE
        cronjob.batch/cleanup          */15 * * * *   Europe/Berlin   True      1        5m48s           5m
        cronjob.batch/nightly-report   0 3 * * *      <none>          False     0        <none>          5m
        '''.stripIndent()
    get('statefulsets,daemonsets,jobs,cronjobs', '-o', 'wide') == '''\
        NAME                  READY   AGE   CONTAINERS          IMAGES
        statefulset.apps/db   1/3     5m    postgres,exporter   postgres:16,prometheuscommunity/postgres-exporter:v0.15.0

        NAME                         DESIRED   CURRENT   READY   UP-TO-DATE   AVAILABLE   NODE SELECTOR            AGE   CONTAINERS   IMAGES                  SELECTOR
        daemonset.apps/log-shipper   2         2         1       2            1           kubernetes.io/os=linux   5m    fluent-bit   fluent/fluent-bit:3.1   app=log-shipper,tier in (infra,system)

        NAME                 STATUS      COMPLETIONS   DURATION   AGE   CONTAINERS   IMAGES            SELECTOR
        job.batch/backfill   Suspended   2/5                      5m    backfill     shop/backfill:7   <none>
        job.batch/migrate    Complete    1/1           38s        5m    migrate      shop/migrate:7    batch.kubernetes.io/controller-uid=a1b2
        job.batch/reindex    Running     0/1 of 3      6m18s      5m    reindex      shop/reindex:7    <none>

        NAME                           SCHEDULE       TIMEZONE        SUSPEND   ACTIVE   LAST SCHEDULE   AGE   CONTAINERS       IMAGES                  SELECTOR
        cronjob.batch/cleanup          */15 * * * *   Europe/Berlin   True      1        5m48s           5m    cleanup          shop/cleanup:7          <none>
        cronjob.batch/nightly-report   0 3 * * *      <none>          False     0        <none>          5m    nightly-report   shop/nightly-report:7   <none>
        '''.stripIndent()
  }

  def "Ingresses, ConfigMaps and Secrets"() {
    expect:
    get('ingresses,configmaps,secrets') == '''\
        NAME                                  CLASS    HOSTS                                   ADDRESS                       PORTS     AGE
        ingress.networking.k8s.io/catch-all   <none>   *                                                                     80        5m
        ingress.networking.k8s.io/web         nginx    shop.example.com,www.shop.example.com   203.0.113.20,lb.example.net   80, 443   5m

        NAME                 DATA   AGE
        configmap/empty      0      5m
        configmap/settings   3      5m

        NAME                 TYPE                DATA   AGE
        secret/db-password   Opaque              1      5m
        secret/web-tls       kubernetes.io/tls   2      5m
        '''.stripIndent()
  }

  def "cluster-scoped kinds: Namespaces, Nodes, CustomResourceDefinitions and a custom resource"() {
    expect:
    kubectl.ok(kubeconfig, 'get', 'namespaces') == '''\
        NAME          STATUS        AGE
        default       Active        6m48s
        kube-system   Active        6m48s
        retired       Terminating   5m
        shop          Active        6m48s
        '''.stripIndent()
    kubectl.ok(kubeconfig, 'get', 'nodes', '-o', 'wide') == '''\
        NAME     STATUS                        ROLES           AGE   VERSION   INTERNAL-IP    EXTERNAL-IP    OS-IMAGE             KERNEL-VERSION     CONTAINER-RUNTIME
        node-a   Ready                         control-plane   5m    v1.32.4   192.168.49.2   <none>         Ubuntu 22.04.4 LTS   6.8.0-45-generic   containerd://1.7.22
        node-b   NotReady,SchedulingDisabled   worker          5m    v1.31.2   192.168.49.3   198.51.100.7   <unknown>            <unknown>          <unknown>
        '''.stripIndent()
    kubectl.ok(kubeconfig, 'get', 'crds') == '''\
        NAME                  CREATED AT
        widgets.example.com   2025-03-01T12:01:48Z
        '''.stripIndent()
    get('widgets') == '''\
        NAME   AGE
        gear   5m
        '''.stripIndent()
  }

  def "the Table the server sends: every column defined once, every cell sent, priority 1 for wide ones"() {
    when:
    def table = http(client(), 'GET', '/apis/apps/v1/namespaces/shop/deployments', null,
        [Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json']).json

    then:
    table.kind == 'Table'
    table.columnDefinitions.collect { [it.name, it.type, it.format, it.priority] } == [
        ['Name', 'string', 'name', 0], ['Ready', 'string', '', 0], ['Up-to-date', 'string', '', 0],
        ['Available', 'string', '', 0], ['Age', 'string', '', 0], ['Containers', 'string', '', 1],
        ['Images', 'string', '', 1], ['Selector', 'string', '', 1]]
    table.columnDefinitions.every { it.description }
    table.rows*.cells == [['web', '2/3', 3, 2, '6m48s', 'nginx,istio-proxy', 'nginx:1.27,istio/proxyv2:1.24.0', 'app=web']]
    table.rows[0].object.kind == 'PartialObjectMetadata'
  }

  def "a finished pod's row carries the Completed condition"() {
    when:
    def table = http(client(), 'GET', '/api/v1/namespaces/shop/pods/migrate-x7k2p', null,
        [Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io']).json

    then:
    table.rows[0].cells.take(3) == ['migrate-x7k2p', '0/1', 'Completed']
    table.rows[0].conditions == [[type: 'Completed', status: 'True', reason: 'Succeeded',
                                  message: 'The pod has completed successfully.']]
  }

  private String get(String kinds, String... more) {
    kubectl.ok(kubeconfig, (['get', kinds, '-n', 'shop'] + more.toList()) as String[])
  }

  /** Creates an object and, if given, writes its status through the status subresource. */
  private void create(Map object, Map status = null) {
    server.createObject(JsonOutput.toJson(object))
    if (status != null) {
      server.mergePatchStatus(object.apiVersion as String, object.kind as String,
          object.metadata.namespace as String, object.metadata.name as String, JsonOutput.toJson([status: status]))
    }
  }

  private static String at(Duration sinceStart) {
    START.plus(sinceStart).toString()
  }

  private void seedShop() {
    def web = [containers: [[name: 'nginx', image: 'nginx:1.27', resources: [requests: [cpu: '100m', memory: '64Mi']]],
                            [name: 'istio-proxy', image: 'istio/proxyv2:1.24.0']]]
    create([apiVersion: 'apps/v1', kind: 'Deployment', metadata: [name: 'web', namespace: 'shop', labels: [app: 'web']],
            spec: [replicas: 3, selector: [matchLabels: [app: 'web']],
                   template: [metadata: [labels: [app: 'web']], spec: web]]],
        [replicas: 3, updatedReplicas: 3, readyReplicas: 2, availableReplicas: 2])
    create([apiVersion: 'apps/v1', kind: 'ReplicaSet',
            metadata: [name: 'web-6d4cf56db6', namespace: 'shop', labels: [app: 'web', 'pod-template-hash': '6d4cf56db6']],
            spec: [replicas: 3, selector: [matchLabels: [app: 'web', 'pod-template-hash': '6d4cf56db6']],
                   template: [metadata: [labels: [app: 'web', 'pod-template-hash': '6d4cf56db6']], spec: web]]],
        [replicas: 3, readyReplicas: 2, availableReplicas: 2])
    def podOf = { String name -> [apiVersion: 'v1', kind: 'Pod',
                                  metadata: [name: name, namespace: 'shop', labels: [app: 'web', 'pod-template-hash': '6d4cf56db6']],
                                  spec: web + [nodeName: 'node-a']] }
    def running = [running: [startedAt: at(Duration.ZERO)]]
    create(podOf('web-6d4cf56db6-2xkqv'),
        [phase: 'Running', podIP: '10.244.1.12', conditions: [[type: 'Ready', status: 'True']],
         containerStatuses: [[name: 'nginx', ready: true, restartCount: 0, state: running],
                             [name: 'istio-proxy', ready: true, restartCount: 0, state: running]]])
    create(podOf('web-6d4cf56db6-8hmzr'),
        [phase: 'Running', podIPs: [[ip: '10.244.1.13']], conditions: [[type: 'Ready', status: 'False']],
         containerStatuses: [[name: 'nginx', ready: false, restartCount: 3, state: [waiting: [reason: 'CrashLoopBackOff']],
                              lastState: [terminated: [exitCode: 1, reason: 'Error', finishedAt: at(Duration.ofMinutes(3))]]],
                             [name: 'istio-proxy', ready: true, restartCount: 0, state: running]]])
    // Created by the controller, not scheduled yet: no status but the phase it starts with.
    create(podOf('web-6d4cf56db6-q9tdc') + [spec: web])
    create([apiVersion: 'v1', kind: 'Pod', metadata: [name: 'migrate-x7k2p', namespace: 'shop', labels: ['job-name': 'migrate']],
            spec: [restartPolicy: 'Never', nodeName: 'node-b', containers: [[name: 'migrate', image: 'shop/migrate:7']]]],
        [phase: 'Succeeded', podIP: '10.244.2.7',
         containerStatuses: [[name: 'migrate', ready: false, restartCount: 0,
                              state: [terminated: [exitCode: 0, reason: 'Completed', finishedAt: at(Duration.ofSeconds(40))]]]]])
    create([apiVersion: 'v1', kind: 'Pod', metadata: [name: 'db-0', namespace: 'shop', labels: [app: 'db']],
            spec: [nodeName: 'node-b', initContainers: [[name: 'init-schema', image: 'postgres:16']],
                   containers: [[name: 'postgres', image: 'postgres:16']],
                   readinessGates: [[conditionType: 'example.com/replicated']]]],
        [phase: 'Pending', podIP: '10.244.2.8',
         initContainerStatuses: [[name: 'init-schema', ready: false, restartCount: 0, state: running]],
         containerStatuses: [[name: 'postgres', ready: false, restartCount: 0, state: [waiting: [reason: 'PodInitializing']]]]])
    clock.step(Duration.ofSeconds(108))
    create([apiVersion: 'v1', kind: 'Service', metadata: [name: 'web', namespace: 'shop'],
            spec: [clusterIP: '10.96.41.7', selector: [app: 'web'], ports: [[port: 80, targetPort: 8080]]]])
    create([apiVersion: 'v1', kind: 'Service', metadata: [name: 'web-public', namespace: 'shop'],
            spec: [type: 'LoadBalancer', clusterIPs: ['10.96.41.8'], selector: [app: 'web'],
                   ports: [[port: 80, nodePort: 31080, protocol: 'TCP'], [port: 443, nodePort: 31443, protocol: 'TCP']]]],
        [loadBalancer: [ingress: [[ip: '203.0.113.10']]]])
    create([apiVersion: 'v1', kind: 'Service', metadata: [name: 'db', namespace: 'shop'],
            spec: [clusterIP: 'None', selector: [app: 'db'], ports: [[port: 5432]]]])
  }

  private void seedWorkloads() {
    def db = [containers: [[name: 'postgres', image: 'postgres:16'], [name: 'exporter', image: 'prometheuscommunity/postgres-exporter:v0.15.0']]]
    create([apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: [name: 'db', namespace: 'shop'],
            spec: [replicas: 3, serviceName: 'db', selector: [matchLabels: [app: 'db']],
                   template: [metadata: [labels: [app: 'db']], spec: db]]],
        [replicas: 2, readyReplicas: 1])
    create([apiVersion: 'apps/v1', kind: 'DaemonSet', metadata: [name: 'log-shipper', namespace: 'shop'],
            spec: [selector: [matchLabels: [app: 'log-shipper'], matchExpressions: [[key: 'tier', operator: 'In', values: ['system', 'infra']]]],
                   template: [metadata: [labels: [app: 'log-shipper', tier: 'infra']],
                              spec: [nodeSelector: ['kubernetes.io/os': 'linux'], containers: [[name: 'fluent-bit', image: 'fluent/fluent-bit:3.1']]]]]],
        [desiredNumberScheduled: 2, currentNumberScheduled: 2, numberReady: 1, updatedNumberScheduled: 2, numberAvailable: 1])
    def job = { String name, Map spec -> [apiVersion: 'batch/v1', kind: 'Job', metadata: [name: name, namespace: 'shop'],
                                          spec: spec + [template: [spec: [restartPolicy: 'Never', containers: [[name: name, image: "shop/${name}:7".toString()]]]]]] }
    create(job('migrate', [selector: [matchLabels: ['batch.kubernetes.io/controller-uid': 'a1b2']]]),
        [startTime: at(Duration.ZERO), completionTime: at(Duration.ofSeconds(38)), succeeded: 1,
         conditions: [[type: 'Complete', status: 'True']]])
    create(job('reindex', [parallelism: 3]), [startTime: at(Duration.ofSeconds(30)), active: 3])
    create(job('backfill', [completions: 5, parallelism: 2, suspend: true]),
        [succeeded: 2, conditions: [[type: 'Suspended', status: 'True']]])
    def cronJob = { String name, Map spec -> [apiVersion: 'batch/v1', kind: 'CronJob', metadata: [name: name, namespace: 'shop'],
                                              spec: spec + [jobTemplate: [spec: [template: [spec: [restartPolicy: 'OnFailure',
                                                  containers: [[name: name, image: "shop/${name}:7".toString()]]]]]]]] }
    create(cronJob('nightly-report', [schedule: '0 3 * * *']))
    create(cronJob('cleanup', [schedule: '*/15 * * * *', timeZone: 'Europe/Berlin', suspend: true]),
        [active: [[name: 'cleanup-28990', namespace: 'shop']], lastScheduleTime: at(Duration.ofSeconds(60))])
  }

  private void seedConfiguration() {
    create([apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', metadata: [name: 'web', namespace: 'shop'],
            spec: [ingressClassName: 'nginx', tls: [[hosts: ['shop.example.com'], secretName: 'web-tls']],
                   rules: [[host: 'shop.example.com'], [host: 'www.shop.example.com']]]],
        [loadBalancer: [ingress: [[hostname: 'lb.example.net'], [ip: '203.0.113.20']]]])
    create([apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', metadata: [name: 'catch-all', namespace: 'shop'],
            spec: [defaultBackend: [service: [name: 'web', port: [number: 80]]]]])
    create([apiVersion: 'v1', kind: 'ConfigMap', metadata: [name: 'settings', namespace: 'shop'],
            data: [LOG_LEVEL: 'info', REGION: 'eu-west-1'], binaryData: [logo: 'iVBORw0K']])
    create([apiVersion: 'v1', kind: 'ConfigMap', metadata: [name: 'empty', namespace: 'shop']])
    create([apiVersion: 'v1', kind: 'Secret', metadata: [name: 'web-tls', namespace: 'shop'], type: 'kubernetes.io/tls',
            data: ['tls.crt': 'Y2VydA==', 'tls.key': 'a2V5']])
    create([apiVersion: 'v1', kind: 'Secret', metadata: [name: 'db-password', namespace: 'shop'], stringData: [password: 'hunter2']])
  }

  private void seedCluster() {
    create([apiVersion: 'v1', kind: 'Node', metadata: [name: 'node-a', labels: ['node-role.kubernetes.io/control-plane': '']]],
        [conditions: [[type: 'MemoryPressure', status: 'False'], [type: 'Ready', status: 'True']],
         addresses: [[type: 'InternalIP', address: '192.168.49.2'], [type: 'Hostname', address: 'node-a']],
         nodeInfo: [kubeletVersion: 'v1.32.4', osImage: 'Ubuntu 22.04.4 LTS', kernelVersion: '6.8.0-45-generic',
                    containerRuntimeVersion: 'containerd://1.7.22']])
    create([apiVersion: 'v1', kind: 'Node', metadata: [name: 'node-b', labels: ['kubernetes.io/role': 'worker']],
            spec: [unschedulable: true]],
        [conditions: [[type: 'Ready', status: 'Unknown']],
         addresses: [[type: 'InternalIP', address: '192.168.49.3'], [type: 'ExternalIP', address: '198.51.100.7']],
         nodeInfo: [kubeletVersion: 'v1.31.2']])
    create([apiVersion: 'v1', kind: 'Namespace', metadata: [name: 'retired']], [phase: 'Terminating'])
    create([apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: [name: 'widgets.example.com'],
            spec: [group: 'example.com', scope: 'Namespaced', names: [plural: 'widgets', singular: 'widget', kind: 'Widget'],
                   versions: [[name: 'v1', served: true, storage: true,
                               schema: [openAPIV3Schema: [type: 'object', 'x-kubernetes-preserve-unknown-fields': true]]]]]])
    create([apiVersion: 'example.com/v1', kind: 'Widget', metadata: [name: 'gear', namespace: 'shop'], spec: [teeth: 12]])
  }
}
