package io.spinagent.agent.cluster;

import com.google.gson.Gson;
import com.google.gson.JsonObject;
import com.google.protobuf.ByteString;
import io.kubernetes.client.informer.ResourceEventHandler;
import io.kubernetes.client.informer.impl.DefaultSharedIndexInformer;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesListObject;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesObject;
import io.spinagent.agent.stream.Outbox;
import io.spinagent.protocol.v1.ChangeType;
import io.spinagent.protocol.v1.Kind;
import io.spinagent.protocol.v1.ObjectChange;
import io.spinagent.protocol.v1.ResyncPhase;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Watches one resource of one account: one {@link DefaultSharedIndexInformer} across the cluster,
 * or one per namespace when the account lists namespaces. Every add, update and delete goes to the
 * outbox; once all informers have synced, and whenever Clouddriver asks for it, a complete listing
 * goes out between BEGIN and END resync markers.
 *
 * <p>Events that arrive before the first complete listing are not forwarded: the listing, taken
 * under the same lock that forwarding takes, contains their outcome.
 */
final class KindWatch {

  private static final Logger log = LoggerFactory.getLogger(KindWatch.class);
  private static final Gson GSON = new Gson();

  private final String account;
  private final ApiResource resource;
  private final Kind kind;
  private final Outbox outbox;
  private final Set<String> omitNamespaces;
  private final List<
          DefaultSharedIndexInformer<DynamicKubernetesObject, DynamicKubernetesListObject>>
      informers = new ArrayList<>();
  private final Runnable onChangeAfterSync;
  private final AtomicLong changes = new AtomicLong();
  private final AtomicReference<String> lastError = new AtomicReference<>();
  private final Object lock = new Object();
  private boolean forwarding;
  private volatile boolean stopped;

  /**
   * @param listerWatchers one per informer: from the namespace (null for the cluster) and a
   *     consumer of request problems (null meaning success) to its lister-watcher
   * @param onChangeAfterSync called after each forwarded change (e.g. to rediscover on CRD changes)
   */
  KindWatch(
      String account,
      ApiResource resource,
      List<String> namespaces,
      Set<String> omitNamespaces,
      java.util.function.BiFunction<
              String, java.util.function.Consumer<Throwable>, DynamicListerWatcher>
          listerWatchers,
      Outbox outbox,
      Runnable onChangeAfterSync) {
    this.account = account;
    this.resource = resource;
    this.kind = resource.toKind();
    this.outbox = outbox;
    this.omitNamespaces = Set.copyOf(omitNamespaces);
    this.onChangeAfterSync = onChangeAfterSync;
    List<String> scopes =
        resource.namespaced() && !namespaces.isEmpty()
            ? namespaces
            : java.util.Collections.singletonList(null);
    for (String namespace : scopes) {
      DefaultSharedIndexInformer<DynamicKubernetesObject, DynamicKubernetesListObject> informer =
          new DefaultSharedIndexInformer<>(
              DynamicKubernetesObject.class,
              listerWatchers.apply(namespace, this::requestOutcome),
              0L,
              new io.kubernetes.client.informer.cache.Cache<>(),
              this::reflectorProblem);
      informer.addEventHandler(new Handler());
      informers.add(informer);
    }
  }

  ApiResource resource() {
    return resource;
  }

  void start() {
    informers.forEach(DefaultSharedIndexInformer::run);
  }

  boolean hasSynced() {
    return informers.stream().allMatch(DefaultSharedIndexInformer::hasSynced);
  }

  /** Whether the first complete listing has gone out. */
  boolean isForwarding() {
    synchronized (lock) {
      return forwarding;
    }
  }

  long changes() {
    return changes.get();
  }

  String lastError() {
    return lastError.get();
  }

  int informerCount() {
    return informers.size();
  }

  /** Objects currently held, across this kind's informers. */
  int size() {
    return informers.stream().mapToInt(i -> i.getIndexer().list().size()).sum();
  }

  /**
   * Puts BEGIN, every object held, END into the outbox, and from then on forwards every change.
   * Blocks while the outbox is full.
   */
  void resync() throws InterruptedException {
    synchronized (lock) {
      if (stopped) {
        return;
      }
      String resyncId = UUID.randomUUID().toString();
      outbox.putResyncMarker(account, kind, ResyncPhase.RESYNC_PHASE_BEGIN, resyncId);
      int count = 0;
      for (var informer : informers) {
        for (Object object : informer.getIndexer().list()) {
          DynamicKubernetesObject o = (DynamicKubernetesObject) object;
          if (included(o)) {
            outbox.put(account, change(o, ChangeType.CHANGE_TYPE_UPSERT));
            count++;
          }
        }
      }
      outbox.putResyncMarker(account, kind, ResyncPhase.RESYNC_PHASE_END, resyncId);
      forwarding = true;
      log.debug("Account '{}': resync of {} sent {} objects", account, resource, count);
    }
  }

  void stop() {
    stopped = true;
    informers.forEach(DefaultSharedIndexInformer::stop);
  }

  private void requestOutcome(Throwable problem) {
    if (problem == null) {
      lastError.set(null);
    } else {
      lastError.set(AccountWatcher.describe(problem));
    }
  }

  private void reflectorProblem(Class<DynamicKubernetesObject> type, Throwable t) {
    String message = t.getMessage() == null ? t.toString() : t.getMessage();
    if (message.contains("got ERROR event")) {
      // 410 Gone on a watch: the informer lists again; nothing is lost.
      log.info("Account '{}': watch of {} expired, relisting", account, resource);
      return;
    }
    lastError.set(message);
    if (!stopped) {
      log.warn("Account '{}': watching {} failed, retrying: {}", account, resource, message);
    }
  }

  private boolean included(DynamicKubernetesObject object) {
    if (omitNamespaces.isEmpty()) {
      return true;
    }
    String namespace = namespaceOf(object);
    return namespace == null || !omitNamespaces.contains(namespace);
  }

  private static String namespaceOf(DynamicKubernetesObject object) {
    JsonObject metadata = object.getRaw().getAsJsonObject("metadata");
    return metadata != null && metadata.has("namespace")
        ? metadata.get("namespace").getAsString()
        : null;
  }

  private static String field(JsonObject metadata, String name) {
    return metadata != null && metadata.has(name) && metadata.get(name).isJsonPrimitive()
        ? metadata.get(name).getAsString()
        : "";
  }

  ObjectChange change(DynamicKubernetesObject object, ChangeType type) {
    JsonObject metadata = object.getRaw().getAsJsonObject("metadata");
    ObjectChange.Builder change =
        ObjectChange.newBuilder()
            .setKind(kind)
            .setNamespace(field(metadata, "namespace"))
            .setName(field(metadata, "name"))
            .setUid(field(metadata, "uid"))
            .setResourceVersion(field(metadata, "resourceVersion"))
            .setType(type);
    if (type == ChangeType.CHANGE_TYPE_UPSERT) {
      change.setObjectJson(
          ByteString.copyFrom(GSON.toJson(object.getRaw()), StandardCharsets.UTF_8));
    }
    return change.build();
  }

  private void forward(DynamicKubernetesObject object, ChangeType type) {
    if (stopped || !included(object)) {
      return;
    }
    synchronized (lock) {
      if (!forwarding || stopped) {
        return;
      }
      try {
        outbox.put(account, change(object, type));
        changes.incrementAndGet();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      } catch (IllegalStateException e) {
        // The outbox was closed: the agent is stopping.
        return;
      }
    }
    onChangeAfterSync.run();
  }

  private final class Handler implements ResourceEventHandler<DynamicKubernetesObject> {
    @Override
    public void onAdd(DynamicKubernetesObject object) {
      forward(object, ChangeType.CHANGE_TYPE_UPSERT);
    }

    @Override
    public void onUpdate(DynamicKubernetesObject before, DynamicKubernetesObject after) {
      // A relist reports every object as updated; unchanged ones need not travel again.
      if (before != null && Objects.equals(resourceVersion(before), resourceVersion(after))) {
        return;
      }
      forward(after, ChangeType.CHANGE_TYPE_UPSERT);
    }

    @Override
    public void onDelete(DynamicKubernetesObject object, boolean finalStateUnknown) {
      forward(object, ChangeType.CHANGE_TYPE_DELETE);
    }
  }

  private static String resourceVersion(DynamicKubernetesObject object) {
    return field(object.getRaw().getAsJsonObject("metadata"), "resourceVersion");
  }
}
