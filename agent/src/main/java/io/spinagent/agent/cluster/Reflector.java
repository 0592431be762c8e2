package io.spinagent.agent.cluster;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import com.google.protobuf.UnsafeByteOperations;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.util.Watch;
import io.spinagent.common.Backoff;
import io.spinagent.protocol.v1.ChangeType;
import io.spinagent.protocol.v1.ObjectChange;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import okhttp3.Call;
import okhttp3.Response;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The list-then-watch loop of one kind of one account in one scope (a namespace, or the whole
 * cluster), on one thread of the shared watch executor: lists, puts what it listed into the outbox,
 * watches from the list's resourceVersion, and puts every event into the outbox as it is read. No
 * queue stands between the connection and the outbox: when the outbox is full the loop waits, and
 * the API server's stream waits with it.
 *
 * <p>What it keeps per object is its key ({@code namespace/name}) and resourceVersion: enough to
 * skip unchanged objects when it lists again and to tell which objects went away. Full objects
 * exist only in the outbox, until Clouddriver acknowledges them.
 *
 * <ul>
 *   <li>A full listing (as part of its {@link KindWatch}'s listing, between resync markers) sends
 *       every object.
 *   <li>After 410 Gone, a scope that knows every key of its objects (it listed them in this
 *       process) lists again and sends only the differences; one that resumed from a
 *       resourceVersion without listing asks its kind for a full listing.
 *   <li>A watch that ends or breaks is watched again from the last resourceVersion seen; an API
 *       server that cannot be reached is retried with backoff.
 * </ul>
 */
final class Reflector implements Runnable {

  private static final Logger log = LoggerFactory.getLogger(Reflector.class);

  /** A failed list or watch is tried again after 1 s, 2 s, 4 s, … at most 30 s. */
  private static final Backoff RETRIES =
      Backoff.doubling(Duration.ofSeconds(1), Duration.ofSeconds(30));

  /** A broken watch is watched again after this pause, so a failing server is not hammered. */
  static final long REWATCH_PAUSE_MILLIS = 200;

  /** Watches end after a random 5 to 10 minutes, as client-java's informers do. */
  static final long MIN_WATCH_SECONDS = 300;

  private final KindWatch kind;
  private final ScopeListerWatcher requests;
  private final KindWatch.Account account;

  // Confined to the loop's thread.
  private Map<String, String> known = new HashMap<>();
  private String resourceVersion;
  private boolean complete;

  // Shared with the kind and the account.
  private volatile boolean stopped;
  private volatile String progress;
  private volatile boolean established;
  private volatile int size;
  private volatile String lastError;
  private final CompletableFuture<Void> done = new CompletableFuture<>();
  private volatile Future<?> task;

  private final Object calls = new Object();

  @GuardedBy("calls")
  private Call current;

  @GuardedBy("calls")
  private boolean currentIsWatch;

  @GuardedBy("calls")
  private boolean watchInterrupted;

  Reflector(KindWatch kind, ScopeListerWatcher requests, KindWatch.Account account) {
    this.kind = kind;
    this.requests = requests;
    this.account = account;
  }

  /** Before {@link #start}: watch from {@code resourceVersion} instead of waiting for a listing. */
  void resumeFrom(String resourceVersion) {
    this.resourceVersion = resourceVersion;
    this.progress = resourceVersion;
  }

  void start(ExecutorService executor) {
    try {
      task = executor.submit(this);
    } catch (RejectedExecutionException stopping) {
      done.complete(null);
    }
  }

  /** Ends the loop: cancels its request, and interrupts it wherever it waits. */
  void stop() {
    stopped = true;
    synchronized (calls) {
      if (current != null) {
        current.cancel();
      }
    }
    Future<?> running = task;
    if (running != null) {
      running.cancel(true);
    }
  }

  /** Completes when the loop has ended. */
  CompletableFuture<Void> stopped() {
    return done;
  }

  /**
   * Ends the current watch (if any), so that the loop comes round and takes part in its kind's
   * listing. A listing in progress is left to finish.
   */
  void interruptWatch() {
    synchronized (calls) {
      watchInterrupted = true;
      if (current != null && currentIsWatch) {
        current.cancel();
      }
    }
  }

  /** The resourceVersion up to which every change of this scope is in the outbox; null if none. */
  String progress() {
    return progress;
  }

  /** Whether a watch from the resume point was accepted by the API server. */
  boolean isEstablished() {
    return established;
  }

  /** Objects this scope knows of. */
  int size() {
    return size;
  }

  String lastError() {
    return lastError;
  }

  @Override
  public void run() {
    // Named for thread dumps; a pooled platform thread gets its own name back when the loop ends.
    String threadName = Thread.currentThread().getName();
    Thread.currentThread().setName("spinagent-watch-" + account.name() + "-" + this);
    int failures = 0;
    try {
      while (!stopped) {
        synchronized (calls) {
          watchInterrupted = false;
        }
        try {
          KindWatch.Listing listing = kind.listingFor(this);
          if (listing != null) {
            list(true);
            kind.listed(this, listing);
          } else if (resourceVersion == null) {
            if (complete) {
              list(false);
            } else {
              kind.expiredBeforeListing(this + ": resumed without listing, and the watch expired");
            }
          } else if (!watch()) {
            Thread.sleep(REWATCH_PAUSE_MILLIS);
          }
          failures = 0;
        } catch (ApiException e) {
          if (stopped || isCancelled(e)) {
            continue;
          }
          lastError = AccountWatcher.describe(e);
          retryAfter(++failures, e, null);
        } catch (RuntimeException e) {
          if (stopped || account.outbox().isClosed()) {
            return;
          }
          // A bug, most likely: keep the kind watched rather than give it up.
          lastError = e.toString();
          retryAfter(++failures, e, e);
        }
      }
    } catch (InterruptedException e) {
      // Stopped while waiting (for the outbox, a list permit, or a retry).
    } catch (Error e) {
      // E.g. a library older than the one the agent was built with: the executor would keep the
      // error to itself, so say here that this kind is no longer watched, and why.
      lastError = e.toString();
      log.error("Account '{}': the watch of {} stopped: {}", account.name(), this, e, e);
      throw e;
    } finally {
      Thread.currentThread().setName(threadName);
      done.complete(null);
    }
  }

  /**
   * Logs a failure (the first of a series as a warning: an API server that went away would
   * otherwise log a warning per kind every retry) and waits before the next attempt.
   */
  private void retryAfter(int failures, Exception e, Throwable stackTrace)
      throws InterruptedException {
    long millis = RETRIES.delay(failures).toMillis();
    if (failures == 1 || stackTrace != null) {
      log.warn(
          "Account '{}': {} failed, retrying in {} ms: {}",
          account.name(),
          this,
          millis,
          AccountWatcher.describe(e),
          stackTrace);
    } else {
      log.debug(
          "Account '{}': {} failed again, retrying in {} ms: {}",
          account.name(),
          this,
          millis,
          AccountWatcher.describe(e));
    }
    Thread.sleep(millis);
  }

  private boolean isWatchInterrupted() {
    synchronized (calls) {
      return watchInterrupted;
    }
  }

  private boolean isCancelled(ApiException e) {
    if (e.getCode() != 0) {
      return false;
    }
    synchronized (calls) {
      return watchInterrupted || (current != null && current.isCanceled());
    }
  }

  // ------------------------------------------------------------------------------------- listing

  /**
   * Lists the scope and puts what changed ({@code full}: everything) into the outbox; when not
   * {@code full}, also a delete for every known object that is gone. Then watches resume from the
   * list's resourceVersion.
   */
  private void list(boolean full) throws ApiException, InterruptedException {
    account.budget().acquire();
    try {
      for (int attempt = 0; ; attempt++) {
        try {
          listPages(full);
          lastError = null;
          return;
        } catch (ApiException e) {
          // 410 on a continue token: the listing took longer than the server keeps its snapshot.
          if (e.getCode() != 410 || attempt >= 2) {
            throw e;
          }
          log.info(
              "Account '{}': {}: continue token expired, listing again from the start",
              account.name(),
              this);
        }
      }
    } finally {
      account.budget().release();
    }
  }

  private void listPages(boolean full) throws ApiException, InterruptedException {
    Map<String, String> listed = new HashMap<>();
    String listedAt = null;
    String cont = null;
    int sent = 0;
    do {
      ScopeListerWatcher.Page page = requests.listPage(cont, listCalls);
      long observed = System.currentTimeMillis();
      if (listedAt == null) {
        listedAt = page.resourceVersion();
      }
      for (ObjectScrubber.Scrubbed object : page.items()) {
        if (!account.includes(object.namespace())) {
          continue;
        }
        if (full || !object.resourceVersion().equals(known.get(object.key()))) {
          put(upsert(object, observed));
          sent++;
        }
        listed.put(object.key(), object.resourceVersion());
      }
      cont = page.cont();
    } while (cont != null);
    if (!full) {
      long observed = System.currentTimeMillis();
      for (String key : known.keySet()) {
        if (!listed.containsKey(key)) {
          put(delete(key, "", listedAt, observed));
          sent++;
        }
      }
    }
    log.debug(
        "Account '{}': {} listed {} objects at resourceVersion {}, sent {}",
        account.name(),
        this,
        listed.size(),
        listedAt,
        sent);
    known = listed;
    size = listed.size();
    complete = true;
    resourceVersion = listedAt;
    progress = listedAt;
    kind.progressed();
  }

  // ------------------------------------------------------------------------------------ watching

  /**
   * Watches from {@link #resourceVersion} until the watch ends. Returns false when the connection
   * broke (watch again after a pause), true otherwise; a 410 Gone clears the resourceVersion.
   */
  private boolean watch() throws ApiException, InterruptedException {
    long timeout = MIN_WATCH_SECONDS + ThreadLocalRandom.current().nextLong(MIN_WATCH_SECONDS);
    ScopeListerWatcher.EventStream events;
    try {
      events = requests.watch(resourceVersion, timeout, watchCalls);
    } catch (ApiException e) {
      if (e.getCode() == 410) {
        expired();
        return true;
      }
      throw e;
    }
    try {
      lastError = null;
      if (!established) {
        established = true;
        kind.established();
      }
      while (events.hasNext()) {
        Watch.Response<ObjectScrubber.Scrubbed> event = events.next();
        if ("ERROR".equals(event.type)) {
          Integer code = event.status == null ? null : event.status.getCode();
          if (code != null && code == 410) {
            expired();
            return true;
          }
          throw new ApiException(
              "watch of " + this + " failed: " + (event.status == null ? "" : event.status),
              code == null ? 500 : code,
              null,
              null);
        }
        handle(event.type, event.object);
      }
      if (events.failure() != null && !stopped && !isWatchInterrupted()) {
        log.debug("Account '{}': watch of {} ended: {}", account.name(), this, events.failure());
        return false;
      }
      return true;
    } finally {
      events.close();
    }
  }

  private void handle(String type, ObjectScrubber.Scrubbed object) throws InterruptedException {
    boolean included = account.includes(object.namespace());
    switch (type) {
      case "ADDED", "MODIFIED" -> {
        if (included && !object.resourceVersion().equals(known.get(object.key()))) {
          put(upsert(object, System.currentTimeMillis()));
          known.put(object.key(), object.resourceVersion());
          kind.changed();
        }
      }
      case "DELETED" -> {
        if (included) {
          put(
              delete(
                  object.key(),
                  object.uid(),
                  object.resourceVersion(),
                  System.currentTimeMillis()));
          known.remove(object.key());
          kind.changed();
        }
      }
      default -> {
        // BOOKMARK: only its resourceVersion matters.
      }
    }
    if (!object.resourceVersion().isEmpty()) {
      resourceVersion = object.resourceVersion();
      progress = resourceVersion;
    }
    size = known.size();
    kind.progressed();
  }

  private void expired() {
    log.info(
        "Account '{}': watch of {} expired (410 Gone), {}",
        account.name(),
        this,
        complete ? "listing it again" : "listing the kind again");
    resourceVersion = null;
  }

  // ---------------------------------------------------------------------------------- the outbox

  private void put(ObjectChange change) throws InterruptedException {
    account.outbox().put(account.name(), change);
  }

  private ObjectChange upsert(ObjectScrubber.Scrubbed object, long observedAt) {
    return ObjectChange.newBuilder()
        .setKind(kind.kind())
        .setNamespace(object.namespace())
        .setName(object.name())
        .setUid(object.uid())
        .setResourceVersion(object.resourceVersion())
        .setType(ChangeType.CHANGE_TYPE_UPSERT)
        // The bytes are this object's own and never change: no copy.
        .setObjectJson(UnsafeByteOperations.unsafeWrap(object.json()))
        .setObservedAtMillis(observedAt)
        .build();
  }

  private ObjectChange delete(String key, String uid, String resourceVersion, long observedAt) {
    int slash = key.indexOf('/');
    return ObjectChange.newBuilder()
        .setKind(kind.kind())
        .setNamespace(key.substring(0, slash))
        .setName(key.substring(slash + 1))
        .setUid(uid)
        .setResourceVersion(resourceVersion)
        .setType(ChangeType.CHANGE_TYPE_DELETE)
        .setObservedAtMillis(observedAt)
        .build();
  }

  // -------------------------------------------------------------------------------------- calls

  private final ScopeListerWatcher.Calls listCalls = new Calls(false);
  private final ScopeListerWatcher.Calls watchCalls = new Calls(true);

  /** Registers each call where {@link #stop} and {@link #interruptWatch} find it. */
  private final class Calls implements ScopeListerWatcher.Calls {
    private final boolean watch;

    Calls(boolean watch) {
      this.watch = watch;
    }

    @Override
    public Response execute(Call call, String what) throws ApiException {
      return Reflector.this.execute(call, what, watch);
    }

    @Override
    public void done(Call call) {
      synchronized (calls) {
        if (current == call) {
          current = null;
        }
      }
    }
  }

  /** Sends {@code call} where {@link #stop} and {@link #interruptWatch} can cancel it. */
  private Response execute(Call call, String what, boolean watch) throws ApiException {
    synchronized (calls) {
      if (stopped || (watch && watchInterrupted)) {
        call.cancel();
      }
      current = call;
      currentIsWatch = watch;
    }
    return KubeHttp.execute(call, what);
  }

  @Override
  public String toString() {
    return requests.toString();
  }
}
