package io.spinagent.plugin.cache.sql

import com.fasterxml.jackson.databind.ObjectMapper
import io.spinagent.plugin.cache.format.CacheTypes
import org.jooq.DSLContext

/**
 * Reads the cache the way cats-sql's SqlCache does for Clouddriver's Kubernetes provider
 * (mergeDataAndRelationships): every body of a type's table, duplicate ids (rows of different
 * agents) merged — first attributes win, relationships unioned, group names cut at ':' — then the
 * type's _rel rows merged into the relationships of ids that have a body. Never looks at agent,
 * body_hash or last_updated.
 */
class CatsReader {

  static final ObjectMapper MAPPER = new ObjectMapper()

  final DSLContext jooq
  final CacheTypes.Dialect dialect

  CatsReader(DSLContext jooq) {
    this.jooq = jooq
    this.dialect = CacheTables.dialectOf(jooq.dialect())
  }

  /** id → [attributes: Map, relationships: Map<String, Set<String>>, ttlSeconds: int] */
  Map<String, Map> all(String type) {
    Map<String, Map> data = [:]
    List bodies
    try {
      bodies = jooq.fetch("select id, body from " + CacheTypes.resourceTable(type, null, dialect))
    } catch (Exception ignored) {
      return data
    }
    bodies.each { r ->
      Map body = MAPPER.readValue(r.get(1, String), Map)
      Map<String, Set<String>> rels = [:]
      (body.relationships as Map ?: [:]).each { String group, List keys ->
        rels.computeIfAbsent(group.split(':')[0]) { new TreeSet<String>() }.addAll(keys)
      }
      Map existing = data[r.get(0, String)]
      if (existing == null) {
        data[r.get(0, String)] = [attributes: new LinkedHashMap(body.attributes as Map), relationships: rels, ttlSeconds: body.ttlSeconds]
      } else {
        rels.each { g, keys -> existing.relationships.computeIfAbsent(g) { new TreeSet<String>() }.addAll(keys) }
        (body.attributes as Map).each { k, v -> existing.attributes.putIfAbsent(k, v) }
      }
    }
    try {
      jooq.fetch("select id, rel_id, rel_type from " + CacheTypes.relTable(type, null, dialect)).each { r ->
        Map d = data[r.get(0, String)]
        if (d != null) {
          d.relationships.computeIfAbsent(r.get(2, String)) { new TreeSet<String>() }.add(r.get(1, String))
        }
      }
    } catch (Exception ignored) {
      // no _rel table: bodies only
    }
    data
  }

  Map get(String type, String id) {
    all(type)[id]
  }

  /** Related keys of a group, empty when absent. */
  static Set<String> related(Map item, String group) {
    (item?.relationships?.get(group) ?: []) as Set<String>
  }

  /**
   * What Deck's application view needs: application → clusters → server groups → instances, and
   * the load balancers of the server groups and of the application.
   */
  Map walk(String application) {
    Map app = get(CacheTypes.APPLICATIONS, io.spinagent.plugin.cache.format.CacheKeys.application(application))
    if (app == null) {
      return null
    }
    Map clusters = all(CacheTypes.CLUSTERS)
    Map replicaSets = all(CacheTypes.REPLICA_SET)
    Map deployments = all(CacheTypes.DEPLOYMENT)
    Map pods = all(CacheTypes.POD)
    Map services = all(CacheTypes.SERVICE)
    Map ingresses = all(CacheTypes.INGRESS)
    def result = [clusters: [:], loadBalancers: [] as Set, ingresses: [] as Set]
    related(app, CacheTypes.CLUSTERS).each { clusterKey ->
      Map cluster = clusters[clusterKey]
      if (cluster == null) {
        return
      }
      def serverGroups = [:]
      related(cluster, CacheTypes.REPLICA_SET).each { rsKey ->
        Map rs = replicaSets[rsKey]
        if (rs != null) {
          serverGroups[rs.attributes.name] = [
              instances    : related(rs, CacheTypes.POD).findAll { pods[it] != null }.collect { pods[it].attributes.name } as Set,
              loadBalancers: related(rs, CacheTypes.SERVICE).findAll { services[it] != null }.collect { services[it].attributes.name } as Set]
        }
      }
      result.clusters[cluster.attributes.name] = [
          serverGroups: serverGroups,
          managers    : related(cluster, CacheTypes.DEPLOYMENT).findAll { deployments[it] != null }.collect { deployments[it].attributes.name } as Set]
    }
    related(app, CacheTypes.SERVICE).each { k ->
      if (services[k] != null) {
        result.loadBalancers << services[k].attributes.name
      }
    }
    related(app, CacheTypes.INGRESS).each { k ->
      if (ingresses[k] != null) {
        result.ingresses << ingresses[k].attributes.name
        result.loadBalancers.addAll(related(ingresses[k], CacheTypes.SERVICE).findAll { services[it] != null }.collect { services[it].attributes.name })
      }
    }
    result
  }
}
