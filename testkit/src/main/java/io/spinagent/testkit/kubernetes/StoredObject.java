package io.spinagent.testkit.kubernetes;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.mockwebserver.crud.AttributeSet;

/**
 * One object as the store keeps it: the exact JSON last written (an immutable string, so snapshots
 * and watch history can share it) and fabric8's attribute set of it (name, namespace, labels),
 * which is what label and field selectors are matched against.
 */
record StoredObject(ObjectKey key, String json, AttributeSet attributes, long resourceVersion) {

  /** A fresh, mutable copy of the object. */
  ObjectNode tree() {
    return Json.readStored(json);
  }
}
