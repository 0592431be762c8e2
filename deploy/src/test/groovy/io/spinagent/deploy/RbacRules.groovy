package io.spinagent.deploy

import io.spinagent.agent.cluster.KindSelection
import io.spinagent.testkit.kubernetes.AccessControl

/** What a Role's or ClusterRole's rules grant, as comparable "group/resource verb" strings. */
final class RbacRules {

  /**
   * The group and resource of each kind the agent watches by default; the specs check that this
   * list is the agent's own (KindSelection.DEFAULT_KINDS), so a new default kind fails them here.
   */
  static final Map<String, String> DEFAULT_KIND_RESOURCES = [
      ReplicaSet              : 'apps/replicasets',
      Service                 : '/services',
      Ingress                 : 'networking.k8s.io/ingresses',
      DaemonSet               : 'apps/daemonsets',
      Deployment              : 'apps/deployments',
      Pod                     : '/pods',
      StatefulSet             : 'apps/statefulsets',
      Job                     : 'batch/jobs',
      CronJob                 : 'batch/cronjobs',
      NetworkPolicy           : 'networking.k8s.io/networkpolicies',
      Namespace               : '/namespaces',
      CustomResourceDefinition: 'apiextensions.k8s.io/customresourcedefinitions',
  ]
  static final Set<String> CLUSTER_SCOPED_DEFAULT_KINDS = ['Namespace', 'CustomResourceDefinition'] as Set

  /** What Clouddriver's kubectl needs through the tunnel to deploy, scale, roll back and read logs. */
  static final List<String> DEPLOY_GRANTS = [
      'apps/deployments create', 'apps/deployments patch', 'apps/deployments update', 'apps/deployments delete',
      '/services create', '/services patch', '/configmaps create', '/configmaps get', '/secrets create',
      '/secrets get', 'batch/jobs create', 'networking.k8s.io/ingresses patch',
      'apps/deployments/scale patch', 'apps/replicasets/scale patch', '/pods/log get',
      'apps/controllerrevisions list', '/events list',
  ]

  /** What {@code kubectl top pod} reads, and Clouddriver runs for an account with metrics: true. */
  static final List<String> POD_METRICS_GRANTS = ['metrics.k8s.io/pods get', 'metrics.k8s.io/pods list']

  /** What {@code kubectl top node} reads besides: node metrics and the nodes' allocatable resources. */
  static final List<String> NODE_METRICS_GRANTS = ['metrics.k8s.io/nodes get', 'metrics.k8s.io/nodes list',
                                                   '/nodes get', '/nodes list']

  private RbacRules() {}

  /**
   * The rules as an API server's RBAC evaluates them, for the test server: a request is allowed when
   * one rule names (or wildcards) its group, resource (with subresource) and verb; a Role's rules
   * ({@code roleNamespace} set) allow only requests in that namespace.
   */
  static AccessControl.AccessRule accessRule(List<Map> rules, String roleNamespace = null) {
    def matches = { List values, String value -> values.contains('*') || values.contains(value) }
    return { AccessControl.AccessRequest request ->
      String resource = request.subresource() ? "${request.resource()}/${request.subresource()}" : request.resource()
      (roleNamespace == null || request.namespace() == roleNamespace) && rules.any { rule ->
        matches(rule.apiGroups, request.group()) && matches(rule.resources, resource) && matches(rule.verbs, request.verb())
      }
    } as AccessControl.AccessRule
  }

  static Set<String> defaultKinds() {
    KindSelection.DEFAULT_KINDS
  }

  static Set<String> grants(List<Map> rules) {
    Set<String> granted = [] as Set
    rules.each { rule ->
      rule.apiGroups.each { group ->
        rule.resources.each { resource ->
          rule.verbs.each { verb -> granted << "$group/$resource $verb".toString() }
        }
      }
    }
    granted
  }

  static Set<String> watchGrants(Collection<String> kinds) {
    kinds.collectMany { kind ->
      ['get', 'list', 'watch'].collect { "${DEFAULT_KIND_RESOURCES[kind]} $it".toString() }
    } as Set
  }

  static boolean hasWriteVerb(Set<String> grants) {
    grants.any { it.endsWith(' create') && !it.startsWith('authorization.k8s.io/') } ||
        grants.any { it ==~ /.* (update|patch|delete)$/ }
  }
}
