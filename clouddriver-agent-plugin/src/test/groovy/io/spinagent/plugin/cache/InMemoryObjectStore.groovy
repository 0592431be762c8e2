package io.spinagent.plugin.cache;

import io.spinagent.plugin.accounts.AccountLifecycleListener;
import io.spinagent.plugin.accounts.AccountState;
import io.spinagent.plugin.accounts.AgentAccount;
import io.spinagent.protocol.v1.ChangeType;
import io.spinagent.protocol.v1.Kind;
import io.spinagent.protocol.v1.ObjectChange;
import io.spinagent.protocol.v1.ResumePoint;
import io.spinagent.protocol.v1.ResyncMarker;
import io.spinagent.protocol.v1.ResyncPhase;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A sink for specs of the agent channel, which shows what the agents streamed: the latest state of
 * every object, held in memory. It applies the rules the SQL cache writer must: a change older than
 * what is held never overwrites it, replays are harmless, a delete leaves a tombstone so a late
 * older upsert cannot resurrect the object, and a complete listing sweeps what it did not list (an
 * END whose BEGIN it did not see sweeps nothing, and asks for the kind to be listed again). The
 * plugin itself never holds streamed objects in memory: without a database it drops them.
 */
public final class InMemoryObjectStore implements ChangeSink, ResumePoints, AccountLifecycleListener {

  private final Map<String, AccountObjects> accounts = new ConcurrentHashMap<>();

  /** The last committed watch progress per account, by kind (group/kind). */
  private final Map<String, Map<String, ResumePoint>> progress = new ConcurrentHashMap<>();

  @Override
  public CompletionStage<CommitOutcome> commit(SinkBatch batch) {
    AccountObjects objects = accounts.computeIfAbsent(batch.account(), a -> new AccountObjects());
    List<Kind> relist = new ArrayList<>();
    synchronized (objects) {
      for (SinkEntry entry : batch.entries()) {
        if (entry instanceof SinkEntry.Change) {
          objects.apply(((SinkEntry.Change) entry).change())
        } else if (entry instanceof SinkEntry.Resync
            && !objects.apply(((SinkEntry.Resync) entry).marker())) {
          relist.add(((SinkEntry.Resync) entry).marker().getKind())
        } else if (entry instanceof SinkEntry.Progress) {
          def made = ((SinkEntry.Progress) entry).progress()
          progress.computeIfAbsent(batch.account(), a -> new ConcurrentHashMap<>())
            .put(made.kind.group + '/' + made.kind.kind, ResumePoint.newBuilder()
              .setKind(made.kind).setResourceVersion(made.resourceVersion).setCommittedAtMillis(System.currentTimeMillis()).build())
        }
      }
    }
    return CompletableFuture.completedFuture(
        relist.isEmpty() ? CommitOutcome.STORED : new CommitOutcome(List.of(), relist));
  }

  @Override
  public void onStateChange(AgentAccount account, AccountState previous) {
    if (account.state() == AccountState.REMOVED || account.state() == AccountState.INACTIVE) {
      accounts.remove(account.name());
      progress.remove(account.name());
    }
  }

  @Override
  public Map<String, List<ResumePoint>> of(Collection<String> names) {
    Map<String, List<ResumePoint>> points = [:]
    names.each { name ->
      def kinds = progress.get(name)
      if (kinds) {
        points[name] = List.copyOf(kinds.values())
      }
    }
    points
  }

  /** The live objects of an account, by {@link ObjectKey}. */
  public Map<ObjectKey, StoredObject> objects(String account) {
    AccountObjects objects = accounts.get(account);
    if (objects == null) {
      return Map.of();
    }
    synchronized (objects) {
      Map<ObjectKey, StoredObject> live = new HashMap<>();
      objects.byKey.forEach(
          (key, object) -> {
            if (!object.deleted()) {
              live.put(key, object);
            }
          });
      return live;
    }
  }

  public Optional<StoredObject> find(String account, ObjectKey key) {
    return Optional.ofNullable(objects(account).get(key));
  }

  /** Identifies an object within an account. */
  public record ObjectKey(String group, String kind, String namespace, String name) {
    static ObjectKey of(Kind kind, String namespace, String name) {
      return new ObjectKey(kind.getGroup(), kind.getKind(), namespace, name);
    }
  }

  /** An object as last streamed; {@code deleted} marks a tombstone. */
  public record StoredObject(String uid, String resourceVersion, String json, boolean deleted) {}

  private static final class AccountObjects {
    final Map<ObjectKey, StoredObject> byKey = new HashMap<>();

    /** The listing in progress per kind ("group/kind"): a newer BEGIN replaces an abandoned one. */
    final Map<String, Listing> listings = new HashMap<>();

    void apply(ObjectChange change) {
      ObjectKey key = ObjectKey.of(change.getKind(), change.getNamespace(), change.getName());
      Listing listing = listings.get(kindKey(change.getKind()));
      if (listing != null) {
        listing.keys.add(key);
      }
      StoredObject held = byKey.get(key);
      if (held != null
          && ResourceVersions.isOlder(change.getResourceVersion(), held.resourceVersion())) {
        return;
      }
      boolean delete = change.getType() == ChangeType.CHANGE_TYPE_DELETE;
      byKey.put(
          key,
          new StoredObject(
              change.getUid(),
              change.getResourceVersion(),
              delete ? null : change.getObjectJson().toStringUtf8(),
              delete));
    }

    /** Applies a marker; false for an END whose BEGIN this store never saw. */
    boolean apply(ResyncMarker marker) {
      String kind = kindKey(marker.getKind());
      if (marker.getPhase() == ResyncPhase.RESYNC_PHASE_BEGIN) {
        listings.put(kind, new Listing(marker.getResyncId(), new HashSet<>()));
        return true;
      }
      Listing listing = listings.get(kind);
      if (listing == null || !listing.resyncId.equals(marker.getResyncId())) {
        // An END whose BEGIN this store never saw (or that a newer listing replaced): sweeping on
        // it could remove objects that were never listed, so the kind is to be listed again.
        return false;
      }
      listings.remove(kind);
      byKey.keySet().removeIf(key -> kindKey(key).equals(kind) && !listing.keys.contains(key));
      return true;
    }

    private static String kindKey(Kind kind) {
      return kind.getGroup() + "/" + kind.getKind();
    }

    private static String kindKey(ObjectKey key) {
      return key.group() + "/" + key.kind();
    }

    private static final class Listing {
      final String resyncId;
      final Set<ObjectKey> keys;

      Listing(String resyncId, Set<ObjectKey> keys) {
        this.resyncId = resyncId;
        this.keys = keys;
      }
    }
  }
}
