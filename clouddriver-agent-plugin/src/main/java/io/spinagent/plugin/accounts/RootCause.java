package io.spinagent.plugin.accounts;

import com.google.common.base.Throwables;

/** The message an operator reads for a failure: its root cause's, or the cause's type. */
final class RootCause {

  private RootCause() {}

  static String messageOf(Throwable error) {
    Throwable root = Throwables.getRootCause(error);
    return root.getMessage() == null ? root.getClass().getSimpleName() : root.getMessage();
  }
}
