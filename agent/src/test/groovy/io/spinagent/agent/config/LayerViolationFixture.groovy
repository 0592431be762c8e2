package io.spinagent.agent.config

import io.spinagent.agent.stream.ObjectKey

/** A config class that uses the stream package, for PackageLayersSpec to catch; never used otherwise. */
class LayerViolationFixture {

  static String describe(ObjectKey key) {
    key.toString()
  }
}
