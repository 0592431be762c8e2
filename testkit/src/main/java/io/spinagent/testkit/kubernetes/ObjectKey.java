package io.spinagent.testkit.kubernetes;

import java.util.Comparator;

/**
 * Identity of a stored object. Ordered the way etcd orders a real API server's keys
 * (/registry/{group}/{plural}/{namespace}/{name}), which is the order lists and pages come back in.
 *
 * @param namespace empty for cluster-scoped objects
 */
record ObjectKey(String group, String plural, String namespace, String name)
    implements Comparable<ObjectKey> {

  private static final Comparator<ObjectKey> ORDER =
      Comparator.comparing(ObjectKey::group)
          .thenComparing(ObjectKey::plural)
          .thenComparing(ObjectKey::namespace)
          .thenComparing(ObjectKey::name);

  static ObjectKey of(ResourceType type, String namespace, String name) {
    return new ObjectKey(
        type.group(), type.plural(), type.namespaced() && namespace != null ? namespace : "", name);
  }

  /** Smallest key of a type: lists start here. */
  static ObjectKey first(ResourceType type) {
    return new ObjectKey(type.group(), type.plural(), "", "");
  }

  /** Position within a type's listing; continue tokens carry it. */
  String position() {
    return namespace + "/" + name;
  }

  boolean sameType(ResourceType type) {
    return group.equals(type.group()) && plural.equals(type.plural());
  }

  @Override
  public int compareTo(ObjectKey other) {
    return ORDER.compare(this, other);
  }
}
