package io.spinagent.testkit.kubernetes;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.server.mock.KubernetesAttributesExtractor;
import io.fabric8.kubernetes.client.server.mock.crud.KubernetesCrudDispatcherException;
import io.fabric8.kubernetes.client.server.mock.crud.KubernetesCrudPersistence;
import io.fabric8.kubernetes.client.server.mock.crud.PostHandler;
import io.fabric8.kubernetes.client.server.mock.crud.PutHandler;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.mockwebserver.crud.Attribute;
import io.fabric8.mockwebserver.crud.AttributeSet;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.UnaryOperator;
import java.util.regex.Pattern;

/**
 * The object store. fabric8's mock server does the CRUD work: its {@link PostHandler} (create: uid,
 * creationTimestamp, generation, resourceVersion, 409 on duplicates) and {@link PutHandler}
 * (replace: 409 on a stale resourceVersion, metadata preserved, generation bumped on spec changes,
 * status vs main resource) run against this class as their {@link KubernetesCrudPersistence}. What
 * fabric8's own dispatcher lacks for client-java and kubectl is done here: one global
 * resourceVersion counter, a commit of every change into the {@link WatchHub} history (including a
 * fresh resourceVersion for deletions), reads of past states for consistent pagination, namespaces
 * and CRD side effects.
 *
 * <p>All writes take the write lock, so changes are totally ordered by resourceVersion; lists and
 * watch registrations take the read lock, so a list's resourceVersion is exactly the state it
 * shows.
 *
 * <p>Past 500 lines because every operation runs under the one lock and keeps the one counter and
 * history above; spread over classes, that ordering would be harder to see.
 */
public final class ResourceStore implements KubernetesCrudPersistence {

  private static final Pattern PATH_SEGMENT_NAME = Pattern.compile("[^/%]+");
  private static final char[] GENERATE_NAME_ALPHABET = "bcdfghjklmnpqrstvwxz2456789".toCharArray();

  private final ResourceTypeRegistry registry;
  private final WatchHub hub;
  private final boolean requireNamespaces;
  private final Clock clock;
  private final KubernetesAttributesExtractor extractor = new KubernetesAttributesExtractor();
  private final PostHandler postHandler;
  private final PutHandler putHandler;
  private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();
  private final NavigableMap<ObjectKey, StoredObject> objects = new TreeMap<>();
  private final SecureRandom random = new SecureRandom();
  private long resourceVersion;

  /** The write in progress; only touched while holding the write lock. */
  private WriteContext write;

  ResourceStore(
      ResourceTypeRegistry registry, WatchHub hub, boolean requireNamespaces, Clock clock) {
    this.registry = registry;
    this.hub = hub;
    this.requireNamespaces = requireNamespaces;
    this.clock = clock;
    this.postHandler = new PostHandler(extractor, this);
    this.putHandler = new PutHandler(this);
  }

  /** Every resource type served, built-in and custom. */
  List<ResourceType> types() {
    return registry.allTypes();
  }

  /** Options of a list call, straight from the query string. */
  record ListOptions(
      long limit,
      String continueToken,
      String resourceVersion,
      String resourceVersionMatch,
      String query) {
    static final ListOptions ALL = new ListOptions(0, null, null, null, "");
  }

  /** A list result: the resourceVersion it reflects, the items of this page, and paging data. */
  record ListResult(
      long resourceVersion,
      List<StoredObject> items,
      String continueToken,
      Long remainingItemCount) {}

  /** A started watch and the version its initial state (if any) corresponds to. */
  record WatchStart(
      WatchHub.Subscription subscription,
      long initialResourceVersion,
      int initialEvents,
      String expiredMessage) {
    boolean expired() {
      return expiredMessage != null;
    }
  }

  private static final class WriteContext {
    final ResourceType type;
    final ObjectKey key;
    final boolean dryRun;
    boolean keepStatusOnCreate;
    StoredObject result;

    WriteContext(ResourceType type, ObjectKey key, boolean dryRun) {
      this.type = type;
      this.key = key;
      this.dryRun = dryRun;
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Reads

  public long currentResourceVersion() {
    lock.readLock().lock();
    try {
      return resourceVersion;
    } finally {
      lock.readLock().unlock();
    }
  }

  boolean exists(ResourceType type, String namespace, String name) {
    lock.readLock().lock();
    try {
      return objects.containsKey(ObjectKey.of(type, namespace, name));
    } finally {
      lock.readLock().unlock();
    }
  }

  StoredObject get(ResourceType type, String namespace, String name) {
    lock.readLock().lock();
    try {
      StoredObject stored = objects.get(ObjectKey.of(type, namespace, name));
      if (stored == null) {
        throw ApiError.notFound(type, name);
      }
      return stored;
    } finally {
      lock.readLock().unlock();
    }
  }

  ListResult list(
      ResourceType type, String namespace, Selectors.Selector selector, ListOptions options) {
    lock.readLock().lock();
    try {
      long current = resourceVersion;
      long at = current;
      String startAfter = "";
      String query =
          type.groupResource() + "|" + (namespace == null ? "" : namespace) + "|" + options.query();
      if (options.continueToken() != null && !options.continueToken().isEmpty()) {
        Pagination.Token token = Pagination.decode(options.continueToken());
        if (!token.query().equals(query)) {
          throw ApiError.badRequest("the continue token was issued for a different list request");
        }
        if (token.resourceVersion() < hub.compactedThrough()) {
          throw ApiError.expired(
              "The provided continue parameter is too old to display a consistent list result. "
                  + "You can start a new list without the continue parameter.");
        }
        at = token.resourceVersion();
        startAfter = token.startAfter();
      } else if (options.resourceVersion() != null
          && !options.resourceVersion().isEmpty()
          && !"0".equals(options.resourceVersion())) {
        long requested = parseResourceVersion(options.resourceVersion());
        boolean exact =
            "Exact".equals(options.resourceVersionMatch())
                || (options.resourceVersionMatch() == null && options.limit() > 0);
        if (requested > current) {
          throw new ApiError(
              504, "Timeout", "Too large resource version: " + requested + ", current: " + current);
        }
        if (exact) {
          hub.requireInWindow(requested);
          at = requested;
        }
      }
      List<StoredObject> matching = new ArrayList<>();
      for (StoredObject object : stateAt(type, at).values()) {
        if ((namespace == null || namespace.equals(object.key().namespace()))
            && selector.matches(object)) {
          matching.add(object);
        }
      }
      Pagination.Page page = Pagination.page(matching, startAfter, options.limit(), at, query);
      Long remaining = page.continueToken() != null && selector.isEmpty() ? page.remaining() : null;
      return new ListResult(at, page.items(), page.continueToken(), remaining);
    } finally {
      lock.readLock().unlock();
    }
  }

  /**
   * Starts a watch. Without a resourceVersion (or with "0") the watcher first gets synthetic ADDED
   * events for the current state, as the Kubernetes API concepts describe; with one, it gets
   * exactly the events after it, or a 410 when they are no longer in history.
   */
  WatchStart watch(WatchFilter filter, String requestedVersion, boolean sendInitialEvents) {
    lock.readLock().lock();
    try {
      long current = resourceVersion;
      boolean fromNow =
          requestedVersion == null || requestedVersion.isEmpty() || "0".equals(requestedVersion);
      long from;
      List<WatchHub.Delivery> initial = new ArrayList<>();
      if (fromNow || sendInitialEvents) {
        from = current;
        for (StoredObject object : typeRange(filter.type()).values()) {
          if (filter.includes(object.key()) && filter.selector().matches(object)) {
            initial.add(new WatchHub.Delivery("ADDED", object, object.resourceVersion()));
          }
        }
      } else {
        from = parseResourceVersion(requestedVersion);
        if (from < hub.compactedThrough()) {
          return new WatchStart(
              null,
              from,
              0,
              "too old resource version: " + from + " (" + hub.compactedThrough() + ")");
        }
      }
      return new WatchStart(hub.subscribe(filter, from, initial), from, initial.size(), null);
    } finally {
      lock.readLock().unlock();
    }
  }

  private NavigableMap<ObjectKey, StoredObject> typeRange(ResourceType type) {
    ObjectKey first = ObjectKey.first(type);
    NavigableMap<ObjectKey, StoredObject> range = new TreeMap<>();
    for (Map.Entry<ObjectKey, StoredObject> entry : objects.tailMap(first, true).entrySet()) {
      if (!entry.getKey().sameType(type)) {
        break;
      }
      range.put(entry.getKey(), entry.getValue());
    }
    return range;
  }

  /** The objects of a type as they were at {@code version}, rebuilt by undoing later history. */
  private NavigableMap<ObjectKey, StoredObject> stateAt(ResourceType type, long version) {
    NavigableMap<ObjectKey, StoredObject> state = typeRange(type);
    if (version >= resourceVersion) {
      return state;
    }
    List<WatchEvent> later = hub.eventsAfter(version);
    for (int i = later.size() - 1; i >= 0; i--) {
      WatchEvent event = later.get(i);
      if (!event.key().sameType(type)) {
        continue;
      }
      if (event.type() == WatchEvent.Type.ADDED) {
        state.remove(event.key());
      } else {
        state.put(event.key(), event.previous());
      }
    }
    return state;
  }

  private static long parseResourceVersion(String value) {
    try {
      long parsed = Long.parseLong(value);
      if (parsed < 0) {
        throw new NumberFormatException();
      }
      return parsed;
    } catch (NumberFormatException e) {
      throw ApiError.badRequest(
          "Invalid value: \"" + value + "\": resourceVersion must be a number");
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Writes

  StoredObject create(ResourceType type, String namespace, ObjectNode body, boolean dryRun) {
    requireStored(type);
    fillTypeMeta(type, body);
    ObjectNode metadata = Json.metadata(body);
    String bodyNamespace = metadata.path("namespace").asText("");
    if (type.namespaced()) {
      if (namespace == null || namespace.isEmpty()) {
        namespace = bodyNamespace;
      }
      if (namespace.isEmpty()) {
        throw ApiError.badRequest("a namespace is required to create a namespaced " + type.kind());
      }
      if (bodyNamespace.isEmpty()) {
        metadata.put("namespace", namespace);
      }
    } else {
      metadata.remove("namespace");
      namespace = null;
    }
    metadata.remove("resourceVersion");
    Json.stripNulls(body);
    String name = metadata.path("name").asText("");
    if (name.isEmpty()) {
      String generateName = metadata.path("generateName").asText("");
      if (generateName.isEmpty()) {
        throw ApiError.invalid(
            type, "", "metadata.name: Required value: name or generateName is required");
      }
      name = generateName + randomSuffix();
      metadata.put("name", name);
    }
    validateName(type, name);
    boolean keepStatus = false;
    if (isNamespaceType(type)) {
      Json.child(metadata, "labels").put("kubernetes.io/metadata.name", name);
      Json.child(body, "status").put("phase", "Active");
      keepStatus = true;
    } else if (CustomResourceDefinitions.isCrd(type)) {
      CustomResourceDefinitions.validate(type, body);
    }
    lock.writeLock().lock();
    try {
      if (type.namespaced() && requireNamespaces && !namespaceExists(namespace)) {
        throw new ApiError(
            404,
            "NotFound",
            "namespaces \"" + namespace + "\" not found",
            namespace,
            "",
            "namespaces");
      }
      ObjectKey key = ObjectKey.of(type, namespace, name);
      if (objects.containsKey(key)) {
        throw ApiError.alreadyExists(type, name);
      }
      WriteContext outer = write;
      write = new WriteContext(type, key, dryRun);
      write.keepStatusOnCreate = keepStatus;
      try {
        try {
          postHandler.handle(type.collectionPath(namespace), "application/json", Json.write(body));
        } catch (KubernetesCrudDispatcherException e) {
          throw translate(e, type, name);
        }
        StoredObject created = write.result;
        if (!dryRun && CustomResourceDefinitions.isCrd(type)) {
          markEstablished(type, key);
        }
        return created;
      } finally {
        write = outer;
      }
    } finally {
      lock.writeLock().unlock();
    }
  }

  /** PUT: replaces the object, or only its status when {@code subresource} is "status". */
  StoredObject replace(
      ResourceType type,
      String namespace,
      String name,
      String subresource,
      ObjectNode body,
      boolean dryRun) {
    requireStored(type);
    fillTypeMeta(type, body);
    lock.writeLock().lock();
    try {
      return replaceLocked(type, ObjectKey.of(type, namespace, name), subresource, body, dryRun);
    } finally {
      lock.writeLock().unlock();
    }
  }

  /**
   * Read-modify-write under the write lock, for PATCH and the scale subresource: {@code change}
   * gets a copy of the current object and returns the desired one, which is then stored with PUT
   * semantics (a resourceVersion it carries is a precondition).
   */
  StoredObject modify(
      ResourceType type,
      String namespace,
      String name,
      String subresource,
      UnaryOperator<ObjectNode> change,
      boolean dryRun) {
    requireStored(type);
    lock.writeLock().lock();
    try {
      ObjectKey key = ObjectKey.of(type, namespace, name);
      StoredObject current = objects.get(key);
      if (current == null) {
        throw ApiError.notFound(type, name);
      }
      ObjectNode desired = change.apply(current.tree());
      fillTypeMeta(type, desired);
      ObjectNode metadata = Json.metadata(desired);
      if (metadata.path("resourceVersion").asText("").isEmpty()) {
        metadata.put("resourceVersion", String.valueOf(current.resourceVersion()));
      }
      return replaceLocked(type, key, subresource, desired, dryRun);
    } finally {
      lock.writeLock().unlock();
    }
  }

  /** Server-side apply of an object that may not exist yet: create it, else merge into it. */
  StoredObject applyOrCreate(
      ResourceType type,
      String namespace,
      String name,
      ObjectNode applied,
      UnaryOperator<ObjectNode> merge,
      boolean dryRun) {
    lock.writeLock().lock();
    try {
      if (!objects.containsKey(ObjectKey.of(type, namespace, name))) {
        return create(type, namespace, applied, dryRun);
      }
      return modify(type, namespace, name, null, merge, dryRun);
    } finally {
      lock.writeLock().unlock();
    }
  }

  private StoredObject replaceLocked(
      ResourceType type, ObjectKey key, String subresource, ObjectNode body, boolean dryRun) {
    StoredObject current = objects.get(key);
    if (current == null) {
      throw ApiError.notFound(type, key.name());
    }
    ObjectNode metadata = Json.metadata(body);
    String bodyName = metadata.path("name").asText("");
    if (!bodyName.isEmpty() && !bodyName.equals(key.name())) {
      throw ApiError.badRequest(
          "the name of the object ("
              + bodyName
              + ") does not match the name on the URL ("
              + key.name()
              + ")");
    }
    metadata.put("name", key.name());
    if (type.namespaced()) {
      String bodyNamespace = metadata.path("namespace").asText("");
      if (!bodyNamespace.isEmpty() && !bodyNamespace.equals(key.namespace())) {
        throw ApiError.badRequest(
            "the namespace of the object ("
                + bodyNamespace
                + ") does not match the namespace on the URL ("
                + key.namespace()
                + ")");
      }
      metadata.put("namespace", key.namespace());
    } else {
      metadata.remove("namespace");
    }
    // Once deletion has started it cannot be undone by an update, as on a real server.
    JsonNode deletionTimestamp = current.tree().path("metadata").get("deletionTimestamp");
    if (deletionTimestamp != null && !deletionTimestamp.isNull()) {
      metadata.set("deletionTimestamp", deletionTimestamp);
    }
    if (CustomResourceDefinitions.isCrd(type) && !"status".equals(subresource)) {
      CustomResourceDefinitions.validate(type, body);
    }
    Json.stripNulls(body);
    Json.keepEquivalent(current.tree(), body);
    WriteContext previous = write;
    write = new WriteContext(type, key, dryRun);
    try {
      String path =
          type.objectPath(key.namespace(), key.name())
              + ("status".equals(subresource) ? "/status" : "");
      try {
        putHandler.handle(path, "application/json", Json.write(body));
      } catch (KubernetesCrudDispatcherException e) {
        throw translate(e, type, key.name());
      }
      return write.result != null ? write.result : objects.getOrDefault(key, current);
    } finally {
      write = previous;
    }
  }

  /** DELETE: removes the object, or starts its deletion when finalizers are pending. */
  StoredObject delete(
      ResourceType type, String namespace, String name, ObjectNode options, boolean dryRun) {
    requireStored(type);
    lock.writeLock().lock();
    try {
      ObjectKey key = ObjectKey.of(type, namespace, name);
      StoredObject current = objects.get(key);
      if (current == null) {
        throw ApiError.notFound(type, name);
      }
      ObjectNode tree = current.tree();
      checkPreconditions(type, name, tree, options);
      JsonNode finalizers = tree.path("metadata").path("finalizers");
      if (finalizers.isArray() && !finalizers.isEmpty()) {
        JsonNode deletionTimestamp = tree.path("metadata").get("deletionTimestamp");
        if (deletionTimestamp != null && !deletionTimestamp.isNull()) {
          return current;
        }
        ObjectNode metadata = Json.metadata(tree);
        metadata.put("deletionTimestamp", now());
        metadata.put("deletionGracePeriodSeconds", 0);
        return replaceLocked(type, key, null, tree, dryRun);
      }
      WriteContext previous = write;
      write = new WriteContext(type, key, dryRun);
      try {
        commitDelete(type, key);
        return write.result;
      } finally {
        write = previous;
      }
    } finally {
      lock.writeLock().unlock();
    }
  }

  List<StoredObject> deleteCollection(
      ResourceType type, String namespace, Selectors.Selector selector, boolean dryRun) {
    lock.writeLock().lock();
    try {
      List<StoredObject> deleted = new ArrayList<>();
      for (StoredObject object : list(type, namespace, selector, ListOptions.ALL).items()) {
        deleted.add(delete(type, object.key().namespace(), object.key().name(), null, dryRun));
      }
      return deleted;
    } finally {
      lock.writeLock().unlock();
    }
  }

  /** Drops the whole event history up to now: older watches and continue tokens now get 410. */
  public void compact() {
    lock.writeLock().lock();
    try {
      hub.compact(resourceVersion);
    } finally {
      lock.writeLock().unlock();
    }
  }

  private void checkPreconditions(
      ResourceType type, String name, ObjectNode tree, ObjectNode options) {
    if (options == null) {
      return;
    }
    JsonNode preconditions = options.path("preconditions");
    String uid = preconditions.path("uid").asText("");
    String rv = preconditions.path("resourceVersion").asText("");
    String actualUid = tree.path("metadata").path("uid").asText();
    String actualRv = tree.path("metadata").path("resourceVersion").asText();
    if (!uid.isEmpty() && !uid.equals(actualUid)) {
      throw new ApiError(
          409,
          "Conflict",
          "Precondition failed: UID in precondition: " + uid + ", UID in object meta: " + actualUid,
          name,
          type.group(),
          type.plural());
    }
    if (!rv.isEmpty() && !rv.equals(actualRv)) {
      throw new ApiError(
          409,
          "Conflict",
          "Precondition failed: ResourceVersion in precondition: "
              + rv
              + ", ResourceVersion in object meta: "
              + actualRv,
          name,
          type.group(),
          type.plural());
    }
  }

  private void markEstablished(ResourceType crdType, ObjectKey key) {
    StoredObject crd = objects.get(key);
    if (crd == null) {
      return;
    }
    ObjectNode tree = crd.tree();
    tree.set("status", CustomResourceDefinitions.establishedStatus(tree, now()));
    replaceLocked(crdType, key, "status", tree, false);
  }

  // ---------------------------------------------------------------------------------------------
  // Commit: the single place where the map changes and events are published.

  private void commitWrite(ResourceType type, ObjectKey key, String json) {
    ObjectNode tree = Json.readStored(json);
    ObjectNode metadata = Json.metadata(tree);
    // fabric8's PUT copies a missing namespace as JSON null; a cluster-scoped object has none at
    // all.
    if (!type.namespaced() || metadata.path("namespace").isNull()) {
      metadata.remove("namespace");
    }
    StoredObject previous = objects.get(key);
    if (previous == null) {
      // fabric8 numbers uids with a JVM-wide counter (two test clusters would share uids) and takes
      // creationTimestamp, with nanoseconds, from the system clock; a real server uses random UUIDs
      // and whole seconds of its own time.
      metadata.put("uid", UUID.randomUUID().toString());
      metadata.put("creationTimestamp", now());
    }
    if (previous != null && sameApartFromResourceVersion(previous.tree(), tree)) {
      write.result = previous;
      return;
    }
    String normalized = Json.write(tree);
    long version = Long.parseLong(metadata.path("resourceVersion").asText("0"));
    StoredObject stored =
        new StoredObject(key, normalized, attributesOf(type, normalized), version);
    write.result = stored;
    if (write.dryRun) {
      return;
    }
    objects.put(key, stored);
    hub.publish(
        new WatchEvent(
            version,
            previous == null ? WatchEvent.Type.ADDED : WatchEvent.Type.MODIFIED,
            stored,
            previous));
    if (CustomResourceDefinitions.isCrd(type)) {
      registry.registerCustomResourceDefinition(
          key.name(), CustomResourceDefinitions.typesOf(tree));
    }
  }

  private void commitDelete(ResourceType type, ObjectKey key) {
    StoredObject previous = objects.get(key);
    if (previous == null) {
      return;
    }
    if (isNamespaceType(type) && !write.dryRun) {
      // A real namespace controller empties the namespace before the namespace itself goes away.
      for (StoredObject inside : List.copyOf(objects.values())) {
        if (!inside.key().namespace().isEmpty() && inside.key().namespace().equals(key.name())) {
          deleteInternal(inside.key());
        }
      }
    }
    long version = write.dryRun ? resourceVersion + 1 : ++resourceVersion;
    ObjectNode tree = previous.tree();
    Json.metadata(tree).put("resourceVersion", String.valueOf(version));
    StoredObject tombstone =
        new StoredObject(key, Json.write(tree), previous.attributes(), version);
    write.result = tombstone;
    if (write.dryRun) {
      return;
    }
    objects.remove(key);
    hub.publish(new WatchEvent(version, WatchEvent.Type.DELETED, tombstone, previous));
    if (CustomResourceDefinitions.isCrd(type)) {
      for (ResourceType removed : registry.unregisterCustomResourceDefinition(key.name())) {
        for (StoredObject object : List.copyOf(typeRange(removed).values())) {
          deleteInternal(object.key());
        }
      }
    }
  }

  /** Deletes an object as a side effect of another deletion (namespace contents, CRD instances). */
  private void deleteInternal(ObjectKey key) {
    StoredObject object = objects.get(key);
    if (object == null) {
      return;
    }
    ResourceType type =
        registry.allTypes().stream()
            .filter(key::sameType)
            .findFirst()
            .orElse(
                new ResourceType(
                    key.group(),
                    "v1",
                    "Unknown",
                    key.plural(),
                    null,
                    !key.namespace().isEmpty(),
                    null,
                    null,
                    false,
                    null,
                    ResourceType.Serving.STORED,
                    null));
    WriteContext outer = write;
    write = new WriteContext(type, key, false);
    try {
      commitDelete(type, key);
    } finally {
      write = outer;
    }
  }

  private static boolean sameApartFromResourceVersion(ObjectNode a, ObjectNode b) {
    ObjectNode left = a.deepCopy();
    ObjectNode right = b.deepCopy();
    Json.metadata(left).remove("resourceVersion");
    Json.metadata(right).remove("resourceVersion");
    return left.equals(right);
  }

  private AttributeSet attributesOf(ResourceType type, String json) {
    GenericKubernetesResource resource =
        Serialization.unmarshal(json, GenericKubernetesResource.class);
    return extractor
        .extract(resource)
        .add(new Attribute(KubernetesAttributesExtractor.PLURAL, type.plural()));
  }

  // ---------------------------------------------------------------------------------------------
  // KubernetesCrudPersistence: the callbacks fabric8's handlers make while a write is in progress.

  @Override
  public long requestResourceVersion() {
    return write != null && write.dryRun ? resourceVersion + 1 : ++resourceVersion;
  }

  @Override
  public AttributeSet getKey(String path) {
    ObjectKey key = write.key;
    List<Attribute> attributes = new ArrayList<>();
    attributes.add(new Attribute(KubernetesAttributesExtractor.NAME, key.name()));
    attributes.add(new Attribute(KubernetesAttributesExtractor.PLURAL, key.plural()));
    if (!key.namespace().isEmpty()) {
      attributes.add(new Attribute(KubernetesAttributesExtractor.NAMESPACE, key.namespace()));
    }
    if (!key.group().isEmpty()) {
      attributes.add(new Attribute(KubernetesAttributesExtractor.API, key.group()));
    }
    return new AttributeSet(attributes);
  }

  @Override
  public Map.Entry<AttributeSet, String> findResource(AttributeSet attributes) {
    StoredObject stored =
        objects.get(
            new ObjectKey(
                value(attributes, KubernetesAttributesExtractor.API, ""),
                value(attributes, KubernetesAttributesExtractor.PLURAL, write.type.plural()),
                value(attributes, KubernetesAttributesExtractor.NAMESPACE, ""),
                value(attributes, KubernetesAttributesExtractor.NAME, "")));
    return stored == null ? null : Map.entry(stored.attributes(), stored.json());
  }

  @Override
  public boolean isStatusSubresourceEnabledForResource(String path) {
    return write.type.statusSubresource() && !write.keepStatusOnCreate;
  }

  @Override
  public void processEvent(
      String path,
      AttributeSet pathAttributes,
      AttributeSet oldAttributes,
      GenericKubernetesResource resource,
      String newState) {
    if (newState == null) {
      commitDelete(write.type, write.key);
    } else {
      commitWrite(write.type, write.key, newState);
    }
  }

  @Override
  public void reset() {
    lock.writeLock().lock();
    try {
      objects.clear();
      hub.compact(resourceVersion);
    } finally {
      lock.writeLock().unlock();
    }
  }

  private static String value(AttributeSet attributes, String key, String fallback) {
    Attribute attribute = attributes.getAttribute(key);
    if (attribute == null || attribute.getValues().isEmpty()) {
      return fallback;
    }
    Object value = attribute.getValues().iterator().next();
    return value == null || "null".equals(value.toString()) ? fallback : value.toString();
  }

  // ---------------------------------------------------------------------------------------------

  /** The server's time in whole seconds, as timestamps of objects have it. */
  private String now() {
    return clock.instant().truncatedTo(ChronoUnit.SECONDS).toString();
  }

  private boolean namespaceExists(String namespace) {
    return objects.containsKey(new ObjectKey("", "namespaces", "", namespace));
  }

  private static boolean isNamespaceType(ResourceType type) {
    return type.group().isEmpty() && "namespaces".equals(type.plural());
  }

  private static void requireStored(ResourceType type) {
    if (!type.stored()) {
      throw ApiError.methodNotAllowed();
    }
  }

  /** The API server defaults apiVersion/kind from the URL and rejects a body for another kind. */
  private static void fillTypeMeta(ResourceType type, ObjectNode body) {
    String kind = body.path("kind").asText("");
    String apiVersion = body.path("apiVersion").asText("");
    if (!kind.isEmpty() && !kind.equals(type.kind())) {
      throw ApiError.badRequest(
          "the kind in the data ("
              + kind
              + ") does not match the expected kind ("
              + type.kind()
              + ")");
    }
    if (!apiVersion.isEmpty()) {
      String group =
          apiVersion.contains("/") ? apiVersion.substring(0, apiVersion.indexOf('/')) : "";
      if (!group.equals(type.group())) {
        throw ApiError.badRequest(
            "the API version in the data ("
                + apiVersion
                + ") does not match the expected API version ("
                + type.apiVersion()
                + ")");
      }
    } else {
      body.put("apiVersion", type.apiVersion());
    }
    if (kind.isEmpty()) {
      body.put("kind", type.kind());
    }
  }

  private static void validateName(ResourceType type, String name) {
    if (name.length() > 253
        || ".".equals(name)
        || "..".equals(name)
        || !PATH_SEGMENT_NAME.matcher(name).matches()) {
      throw ApiError.invalid(
          type,
          name,
          "metadata.name: Invalid value: \""
              + name
              + "\": may not contain '/' or '%'"
              + " and must be at most 253 characters");
    }
  }

  private String randomSuffix() {
    StringBuilder suffix = new StringBuilder();
    for (int i = 0; i < 5; i++) {
      suffix.append(GENERATE_NAME_ALPHABET[random.nextInt(GENERATE_NAME_ALPHABET.length)]);
    }
    return suffix.toString();
  }

  private static ApiError translate(
      KubernetesCrudDispatcherException e, ResourceType type, String name) {
    return switch (e.getCode()) {
      case 409 ->
          e.getMessage().contains("already exists")
              ? ApiError.alreadyExists(type, name)
              : ApiError.conflict(type, name);
      case 400 -> ApiError.badRequest(e.getMessage());
      case 422 -> ApiError.invalid(type, name, e.getMessage());
      default -> new ApiError(e.getCode(), "InternalError", e.getMessage());
    };
  }
}
