package io.spinagent.deploy

import io.spinagent.agent.cluster.KindSelection

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

  private RbacRules() {}

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
