package io.spinagent.plugin.tunnel;

import java.util.List;

/**
 * Told about every request the tunnel served, on the request's own thread once its response has
 * ended: an implementation must return at once (hand the operation off, never write it there).
 */
@FunctionalInterface
public interface TunnelOperationListener {

  TunnelOperationListener NONE = operation -> {};

  void completed(TunnelOperation operation);

  /** Tells each of {@code listeners}, in order; one that fails does not keep the others from it. */
  static TunnelOperationListener all(TunnelOperationListener... listeners) {
    List<TunnelOperationListener> each = List.of(listeners);
    return operation -> {
      RuntimeException first = null;
      for (TunnelOperationListener listener : each) {
        try {
          listener.completed(operation);
        } catch (RuntimeException e) {
          if (first == null) {
            first = e;
          } else {
            first.addSuppressed(e);
          }
        }
      }
      if (first != null) {
        throw first;
      }
    };
  }
}
