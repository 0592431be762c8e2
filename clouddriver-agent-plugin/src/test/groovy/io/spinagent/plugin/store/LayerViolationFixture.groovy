package io.spinagent.plugin.store

import io.spinagent.plugin.web.AccountView

/** A store class that uses the web layer, for PackageLayersSpec to catch; never used otherwise. */
class LayerViolationFixture {

  static String stateOf(AccountView view) {
    view.toString()
  }
}
