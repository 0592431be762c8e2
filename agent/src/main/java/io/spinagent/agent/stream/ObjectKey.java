package io.spinagent.agent.stream;

import io.spinagent.protocol.v1.ObjectChange;

/**
 * Identifies one Kubernetes object within an account: the unit of coalescing in the {@link Outbox}.
 * The API version is not part of it, since one object served under two versions is still one
 * object.
 */
record ObjectKey(String group, String kind, String namespace, String name) {

  static ObjectKey of(ObjectChange change) {
    return new ObjectKey(
        change.getKind().getGroup(),
        change.getKind().getKind(),
        change.getNamespace(),
        change.getName());
  }
}
