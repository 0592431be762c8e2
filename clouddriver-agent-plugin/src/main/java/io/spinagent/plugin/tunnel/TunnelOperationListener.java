package io.spinagent.plugin.tunnel;

/**
 * Told about every request the tunnel served, on the request's own thread once its response has
 * ended: an implementation must return at once (hand the operation off, never write it there).
 */
@FunctionalInterface
public interface TunnelOperationListener {

  TunnelOperationListener NONE = operation -> {};

  void completed(TunnelOperation operation);
}
