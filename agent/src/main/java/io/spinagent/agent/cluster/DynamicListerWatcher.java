package io.spinagent.agent.cluster;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.google.gson.JsonObject;
import com.google.gson.JsonParseException;
import io.kubernetes.client.informer.ListerWatcher;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.models.V1ListMeta;
import io.kubernetes.client.openapi.models.V1Status;
import io.kubernetes.client.util.CallGeneratorParams;
import io.kubernetes.client.util.Watch;
import io.kubernetes.client.util.Watchable;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesListObject;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesObject;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.function.Consumer;
import okhttp3.Response;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Lists and watches one resource (in one namespace, or across the cluster) for a client-java
 * informer, on {@link DynamicKubernetesObject} so that any kind parses, with every object scrubbed
 * by {@link ObjectScrubber} while it is read from the wire.
 *
 * <ul>
 *   <li>Lists are paginated ({@code limit}/{@code continue}) and always consistent reads: the
 *       informer's {@code resourceVersion} hint is ignored, so a relist after 410 Gone never meets
 *       410 again. An expired continue token restarts the listing.
 *   <li>Watches resume from the informer's last resourceVersion. A connection that breaks ends the
 *       watch quietly, and the informer watches again from where it was; only 410 Gone (an HTTP
 *       status or an ERROR event) makes it list again.
 *   <li>Secrets (with {@code metadataOnly}) are requested as PartialObjectMetadata, so their data
 *       is never sent; they are then labelled {@code v1/Secret} again.
 * </ul>
 */
final class DynamicListerWatcher
    implements ListerWatcher<DynamicKubernetesObject, DynamicKubernetesListObject> {

  private static final Logger log = LoggerFactory.getLogger(DynamicListerWatcher.class);
  static final long WATCH_RETRY_MILLIS = 1000;

  private final KubeHttp http;
  private final ApiResource resource;
  private final String namespace;
  private final String labelSelector;
  private final boolean metadataOnly;
  private final ObjectScrubber scrubber;
  private final ListBudget.Account budget;
  private final int pageSize;
  private final Consumer<Throwable> problems;

  DynamicListerWatcher(
      KubeHttp http,
      ApiResource resource,
      String namespace,
      String labelSelector,
      boolean metadataOnly,
      ObjectScrubber scrubber,
      ListBudget.Account budget,
      int pageSize,
      Consumer<Throwable> problems) {
    this.http = http;
    this.resource = resource;
    this.namespace = namespace;
    this.labelSelector = labelSelector;
    this.metadataOnly = metadataOnly;
    this.scrubber = scrubber;
    this.budget = budget;
    this.pageSize = pageSize;
    this.problems = problems;
  }

  @Override
  public DynamicKubernetesListObject list(CallGeneratorParams params) throws ApiException {
    try {
      budget.acquire();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ApiException(e);
    }
    try {
      for (int attempt = 0; ; attempt++) {
        try {
          DynamicKubernetesListObject list = listAllPages();
          problems.accept(null);
          return list;
        } catch (ApiException e) {
          // 410 on a continue token: the listing took longer than the server keeps its snapshot.
          if (e.getCode() != 410 || attempt >= 2) {
            problems.accept(e);
            // The informer retries a failed list after a second, but does not log why it failed.
            log.warn("{}: list failed, retrying: {}", this, AccountWatcher.describe(e));
            throw e;
          }
          log.info("{}: continue token expired, listing again from the start", this);
        }
      }
    } finally {
      budget.release();
    }
  }

  private DynamicKubernetesListObject listAllPages() throws ApiException {
    List<DynamicKubernetesObject> items = new ArrayList<>();
    String resourceVersion = null;
    String cont = null;
    do {
      Map<String, String> query = new LinkedHashMap<>();
      query.put("limit", Integer.toString(pageSize));
      query.put("continue", cont);
      query.put("labelSelector", labelSelector);
      try (Response response =
              http.get(
                  resource.collectionPath(namespace),
                  query,
                  metadataOnly ? KubeHttp.METADATA_LIST : KubeHttp.JSON,
                  false,
                  scrubber.isSecret());
          JsonParser parser = ObjectScrubber.JSON.createParser(response.body().byteStream())) {
        Page page = readPage(parser, items);
        cont = page.cont;
        if (page.resourceVersion != null) {
          resourceVersion = page.resourceVersion;
        }
      } catch (IOException e) {
        throw new ApiException(e);
      } finally {
        if (scrubber.isSecret()) {
          KubeHttp.wipePooledBuffers();
        }
      }
    } while (cont != null && !cont.isEmpty());
    // The informer reads only getMetadata() and getItems(): hold the parsed items as they are.
    return new ItemsList(
        resource.apiVersion(),
        resource.kind() + "List",
        new V1ListMeta().resourceVersion(resourceVersion),
        items);
  }

  private record Page(String resourceVersion, String cont) {}

  private Page readPage(JsonParser p, List<DynamicKubernetesObject> items) throws IOException {
    if (p.nextToken() != JsonToken.START_OBJECT) {
      throw new IOException("expected a list object from " + resource);
    }
    String rv = null;
    String cont = null;
    while (p.nextToken() == JsonToken.FIELD_NAME) {
      String field = p.currentName();
      JsonToken value = p.nextToken();
      if ("metadata".equals(field) && value == JsonToken.START_OBJECT) {
        while (p.nextToken() == JsonToken.FIELD_NAME) {
          String name = p.currentName();
          JsonToken v = p.nextToken();
          if ("resourceVersion".equals(name) && v == JsonToken.VALUE_STRING) {
            rv = p.getText();
          } else if ("continue".equals(name) && v == JsonToken.VALUE_STRING) {
            cont = p.getText();
          } else {
            p.skipChildren();
          }
        }
      } else if ("items".equals(field) && value == JsonToken.START_ARRAY) {
        while (p.nextToken() == JsonToken.START_OBJECT) {
          items.add(toObject(scrubber.scrub(p)));
        }
      } else {
        p.skipChildren();
      }
    }
    return new Page(rv, cont);
  }

  DynamicKubernetesObject toObject(byte[] scrubbed) throws IOException {
    JsonObject raw;
    try {
      raw =
          com.google.gson.JsonParser.parseReader(
                  new InputStreamReader(
                      new java.io.ByteArrayInputStream(scrubbed), StandardCharsets.UTF_8))
              .getAsJsonObject();
    } catch (JsonParseException | IllegalStateException e) {
      throw new IOException("unparseable object from " + resource + ": " + e.getMessage(), e);
    }
    if (metadataOnly) {
      raw.addProperty("apiVersion", resource.apiVersion());
      raw.addProperty("kind", resource.kind());
    }
    return new DynamicKubernetesObject(raw);
  }

  @Override
  public Watchable<DynamicKubernetesObject> watch(CallGeneratorParams params) throws ApiException {
    Map<String, String> query = new LinkedHashMap<>();
    query.put("watch", "true");
    query.put("resourceVersion", params.resourceVersion);
    query.put("allowWatchBookmarks", "true");
    query.put(
        "timeoutSeconds", params.timeoutSeconds == null ? null : params.timeoutSeconds.toString());
    query.put("labelSelector", labelSelector);
    Response response;
    try {
      response =
          http.get(
              resource.collectionPath(namespace),
              query,
              metadataOnly ? KubeHttp.METADATA_OBJECT : KubeHttp.JSON,
              true,
              scrubber.isSecret());
    } catch (ApiException e) {
      if (e.getCode() == 0) {
        // The API server cannot be reached (restarting, network trouble). Pause, then let the
        // informer watch again from the same resourceVersion: nothing is relisted when it returns.
        problems.accept(e);
        log.debug(
            "{}: cannot watch, retrying from resourceVersion {}: {}",
            this,
            params.resourceVersion,
            e.getMessage());
        pause(WATCH_RETRY_MILLIS);
        return new EmptyWatch();
      }
      if (e.getCode() != 410) {
        problems.accept(e);
      }
      throw e;
    }
    try {
      EventStream events = new EventStream(response);
      problems.accept(null);
      return events;
    } catch (IOException e) {
      // The stream broke before its first event (the parser reads ahead): as for a broken
      // connection.
      response.close();
      log.debug("{}: watch ended before its first event: {}", this, e.toString());
      pause(WATCH_RETRY_MILLIS / 5);
      return new EmptyWatch();
    }
  }

  @Override
  public String toString() {
    return resource + (namespace == null ? "" : " in " + namespace);
  }

  /** The watch's events, read one JSON value at a time from the chunked response. */
  private final class EventStream implements Watchable<DynamicKubernetesObject> {
    private final Response response;
    private final InputStream body;
    private final JsonParser parser;
    private Watch.Response<DynamicKubernetesObject> next;
    private volatile boolean closed;
    private boolean ended;

    EventStream(Response response) throws IOException {
      this.response = response;
      this.body = response.body().byteStream();
      this.parser = ObjectScrubber.JSON.createParser(body);
    }

    @Override
    public boolean hasNext() {
      if (next != null) {
        return true;
      }
      if (ended || closed) {
        return false;
      }
      try {
        next = readEvent();
        if (scrubber.isSecret()) {
          KubeHttp.wipePooledBuffers();
        }
      } catch (IOException | RuntimeException e) {
        if (!closed) {
          // The connection broke: end this watch; the informer watches again from its last version.
          log.debug("{}: watch ended: {}", DynamicListerWatcher.this, e.toString());
        }
        next = null;
      }
      if (next == null) {
        ended = true;
        close();
        return false;
      }
      return true;
    }

    private Watch.Response<DynamicKubernetesObject> readEvent() throws IOException {
      JsonToken start = parser.nextToken();
      if (start == null) {
        return null;
      }
      if (start != JsonToken.START_OBJECT) {
        throw new IOException("expected a watch event, got " + start);
      }
      String type = null;
      DynamicKubernetesObject object = null;
      V1Status status = null;
      while (parser.nextToken() == JsonToken.FIELD_NAME) {
        String field = parser.currentName();
        JsonToken value = parser.nextToken();
        if ("type".equals(field)) {
          type = parser.getText();
        } else if ("object".equals(field) && value == JsonToken.START_OBJECT) {
          if ("ERROR".equals(type)) {
            status = readStatus(parser);
          } else {
            object = toObject(scrubber.scrub(parser));
          }
        } else {
          parser.skipChildren();
        }
      }
      if ("ERROR".equals(type)) {
        return new Watch.Response<>(type, status == null ? new V1Status() : status);
      }
      if (type == null || object == null) {
        throw new IOException("malformed watch event");
      }
      return new Watch.Response<>(type, object);
    }

    private V1Status readStatus(JsonParser p) throws IOException {
      V1Status status = new V1Status();
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        String field = p.currentName();
        JsonToken value = p.nextToken();
        switch (field) {
          case "code" -> status.setCode(p.getIntValue());
          case "reason" -> status.setReason(p.getText());
          case "message" -> status.setMessage(p.getText());
          default -> p.skipChildren();
        }
        if (value == null) {
          break;
        }
      }
      return status;
    }

    @Override
    public Watch.Response<DynamicKubernetesObject> next() {
      if (!hasNext()) {
        throw new NoSuchElementException();
      }
      Watch.Response<DynamicKubernetesObject> result = next;
      next = null;
      if ("ERROR".equals(result.type)
          && result.status != null
          && result.status.getCode() != null
          && result.status.getCode() == 410) {
        log.info("{}: watch expired (410 Gone), relisting", DynamicListerWatcher.this);
      }
      return result;
    }

    @Override
    public Iterator<Watch.Response<DynamicKubernetesObject>> iterator() {
      return this;
    }

    @Override
    public void close() {
      closed = true;
      try {
        parser.close();
      } catch (IOException ignored) {
        // Closing anyway.
      }
      response.close();
    }
  }

  private static void pause(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** A watch that ends at once: the informer then watches again from the same resourceVersion. */
  private static final class EmptyWatch implements Watchable<DynamicKubernetesObject> {
    @Override
    public boolean hasNext() {
      return false;
    }

    @Override
    public Watch.Response<DynamicKubernetesObject> next() {
      throw new NoSuchElementException();
    }

    @Override
    public Iterator<Watch.Response<DynamicKubernetesObject>> iterator() {
      return this;
    }

    @Override
    public void close() {}
  }

  /** A list result whose items are held as objects rather than re-derived from raw JSON. */
  private static final class ItemsList extends DynamicKubernetesListObject {
    private final String apiVersion;
    private final String kind;
    private final V1ListMeta metadata;
    private final List<DynamicKubernetesObject> items;

    ItemsList(
        String apiVersion, String kind, V1ListMeta metadata, List<DynamicKubernetesObject> items) {
      this.apiVersion = apiVersion;
      this.kind = kind;
      this.metadata = metadata;
      this.items = items;
    }

    @Override
    public String getApiVersion() {
      return apiVersion;
    }

    @Override
    public String getKind() {
      return kind;
    }

    @Override
    public V1ListMeta getMetadata() {
      return metadata;
    }

    @Override
    public List<DynamicKubernetesObject> getItems() {
      return items;
    }
  }
}
