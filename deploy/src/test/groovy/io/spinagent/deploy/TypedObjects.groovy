package io.spinagent.deploy

import groovy.json.JsonOutput
import io.kubernetes.client.openapi.JSON
import io.kubernetes.client.util.ModelMapper

/**
 * Reads rendered objects into the official Kubernetes Java client's model classes (V1Deployment,
 * V1ClusterRole, ...). Those classes are generated from the Kubernetes OpenAPI document and refuse,
 * while reading, fields their kind does not have (a misspelt {@code readinesProbe}) and missing
 * required fields (a container without a name, a rule without verbs): the schema checks a real API
 * server makes and the test server does not.
 */
final class TypedObjects {

  private TypedObjects() {}

  /** The object as an instance of its kind's model class; fails naming the object and the problem. */
  static Object read(Map object) {
    String where = "${object.kind} ${object.metadata?.namespace ? object.metadata.namespace + '/' : ''}${object.metadata?.name}"
    Class<?> type = ModelMapper.getApiTypeClass(object.apiVersion as String, object.kind as String)
    assert type != null: "$where: ${object.apiVersion} ${object.kind} is not a Kubernetes kind the client knows"
    try {
      JSON.deserialize(JsonOutput.toJson(object), type)
    } catch (RuntimeException e) {
      throw new AssertionError("$where is not a valid ${type.simpleName}: ${e.message}".toString(), e)
    }
  }
}
