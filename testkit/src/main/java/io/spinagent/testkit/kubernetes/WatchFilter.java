package io.spinagent.testkit.kubernetes;

/**
 * What one watch asks for (a resource type, maybe a namespace, maybe selectors) and how a committed
 * change looks through it. As in a real API server, an object that stops matching a selector is
 * sent as DELETED and one that starts matching as ADDED, so a selector-filtered informer cache
 * stays right.
 */
record WatchFilter(ResourceType type, String namespace, Selectors.Selector selector) {

  boolean includes(ObjectKey key) {
    return key.sameType(type) && (namespace == null || namespace.equals(key.namespace()));
  }

  WatchHub.Delivery view(WatchEvent event) {
    if (!includes(event.key())) {
      return null;
    }
    long rv = event.resourceVersion();
    switch (event.type()) {
      case ADDED:
        return selector.matches(event.object())
            ? new WatchHub.Delivery("ADDED", event.object(), rv)
            : null;
      case MODIFIED:
        {
          boolean before = event.previous() != null && selector.matches(event.previous());
          boolean after = selector.matches(event.object());
          if (before && after) {
            return new WatchHub.Delivery("MODIFIED", event.object(), rv);
          }
          if (before) {
            return new WatchHub.Delivery("DELETED", event.object(), rv);
          }
          return after ? new WatchHub.Delivery("ADDED", event.object(), rv) : null;
        }
      case DELETED:
        {
          boolean matched =
              (event.previous() != null && selector.matches(event.previous()))
                  || selector.matches(event.object());
          return matched ? new WatchHub.Delivery("DELETED", event.object(), rv) : null;
        }
      default:
        return null;
    }
  }
}
