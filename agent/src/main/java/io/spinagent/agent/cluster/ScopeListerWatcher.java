package io.spinagent.agent.cluster;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.models.V1Status;
import io.kubernetes.client.util.Watch;
import io.kubernetes.client.util.Watchable;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import okhttp3.Call;
import okhttp3.Response;

/**
 * The requests of one list-then-watch loop: one resource, in one namespace or across the cluster.
 * Every object is scrubbed by {@link ObjectScrubber} while it is read from the wire, and reaches
 * the caller as its scrubbed JSON plus the metadata the agent keeps: nothing is built from an
 * object but the bytes that are sent.
 *
 * <ul>
 *   <li>Lists are paginated ({@code limit}/{@code continue}) and always consistent reads (no {@code
 *       resourceVersion}), so a relist after 410 Gone never meets 410 again.
 *   <li>Watches ask for bookmarks, and give their events as client-java's {@link Watch.Response}s.
 *   <li>Secrets (with {@code metadataOnly}) are requested as PartialObjectMetadata, so their data
 *       is never sent; they are labelled {@code v1/Secret} again while being scrubbed.
 * </ul>
 *
 * <p>Every request goes through the caller's {@link Calls}, which can cancel it.
 */
final class ScopeListerWatcher {

  /**
   * Sends calls where the caller can cancel them while they run; the caller closes the response.
   * Told when a call is done, so that it lets go of the call (whose connection holds the last bytes
   * read, possibly of a Secret).
   */
  interface Calls {
    Response execute(Call call, String what) throws ApiException;

    void done(Call call);
  }

  /** One page of a listing: its objects, the list's resourceVersion and the next page's token. */
  record Page(List<ObjectScrubber.Scrubbed> items, String resourceVersion, String cont) {}

  private final KubeHttp http;
  private final ApiResource resource;
  private final String namespace;
  private final String labelSelector;
  private final boolean metadataOnly;
  private final ObjectScrubber scrubber;
  private final int pageSize;

  ScopeListerWatcher(
      KubeHttp http,
      ApiResource resource,
      String namespace,
      String labelSelector,
      boolean metadataOnly,
      ObjectScrubber scrubber,
      int pageSize) {
    this.http = http;
    this.resource = resource;
    this.namespace = namespace;
    this.labelSelector = labelSelector;
    this.metadataOnly = metadataOnly;
    this.scrubber = scrubber;
    this.pageSize = pageSize;
  }

  /**
   * Reads one page whole (so that the response is not held open while its objects wait for space in
   * the outbox).
   *
   * @param cont the continue token of the page before; null for the first page
   */
  Page listPage(String cont, Calls calls) throws ApiException {
    Map<String, String> query = new LinkedHashMap<>();
    query.put("limit", Integer.toString(pageSize));
    query.put("continue", cont);
    query.put("labelSelector", labelSelector);
    String path = resource.collectionPath(namespace);
    Call call =
        http.newGet(
            path, query, metadataOnly ? KubeHttp.METADATA_LIST : KubeHttp.JSON, false, isolated());
    try (Response response = calls.execute(call, "GET " + path);
        JsonParser parser = ObjectScrubber.JSON.createParser(response.body().byteStream())) {
      return readPage(parser);
    } catch (IOException e) {
      throw new ApiException(e);
    } finally {
      calls.done(call);
      if (isolated()) {
        KubeHttp.wipePooledBuffers();
      }
    }
  }

  private Page readPage(JsonParser p) throws IOException {
    if (p.nextToken() != JsonToken.START_OBJECT) {
      throw new IOException("expected a list object from " + resource);
    }
    List<ObjectScrubber.Scrubbed> items = new ArrayList<>();
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
          items.add(scrubber.scrubObject(p));
        }
      } else {
        p.skipChildren();
      }
    }
    if (rv == null || rv.isEmpty()) {
      throw new IOException("the list of " + this + " has no resourceVersion");
    }
    return new Page(items, rv, cont == null || cont.isEmpty() ? null : cont);
  }

  /**
   * Starts a watch from {@code resourceVersion}; returns once the API server has answered (200),
   * before any event.
   *
   * @param timeoutSeconds when the API server ends the watch (the loop then watches again)
   */
  EventStream watch(String resourceVersion, long timeoutSeconds, Calls calls) throws ApiException {
    Map<String, String> query = new LinkedHashMap<>();
    query.put("watch", "true");
    query.put("resourceVersion", resourceVersion);
    query.put("allowWatchBookmarks", "true");
    query.put("timeoutSeconds", Long.toString(timeoutSeconds));
    query.put("labelSelector", labelSelector);
    String path = resource.collectionPath(namespace);
    Call call =
        http.newGet(
            path, query, metadataOnly ? KubeHttp.METADATA_OBJECT : KubeHttp.JSON, true, isolated());
    return new EventStream(calls.execute(call, "watch " + path), () -> calls.done(call));
  }

  private boolean isolated() {
    return scrubber.isSecret();
  }

  @Override
  public String toString() {
    return resource + (namespace == null ? "" : " in " + namespace);
  }

  /**
   * A watch's events, read one JSON value at a time from the chunked response. Ends (hasNext false)
   * when the API server ends the watch, the connection breaks, or the call is cancelled; {@link
   * #failure} then says why, if it was not a clean end.
   */
  final class EventStream implements Watchable<ObjectScrubber.Scrubbed> {
    private final Response response;
    private final Runnable done;
    private JsonParser parser;
    private Watch.Response<ObjectScrubber.Scrubbed> next;
    private boolean ended;
    private Exception failure;

    private EventStream(Response response, Runnable done) {
      this.response = response;
      this.done = done;
    }

    /** Why the stream ended early (a broken connection, a malformed event); null otherwise. */
    Exception failure() {
      return failure;
    }

    @Override
    public boolean hasNext() {
      if (next != null) {
        return true;
      }
      if (ended) {
        return false;
      }
      try {
        if (parser == null) {
          // Created here: the parser reads ahead to detect the encoding, i.e. waits for data.
          parser = ObjectScrubber.JSON.createParser(response.body().byteStream());
        }
        next = readEvent(parser);
      } catch (IOException | RuntimeException e) {
        failure = e;
        next = null;
      } finally {
        if (isolated()) {
          KubeHttp.wipePooledBuffers();
        }
      }
      if (next == null) {
        ended = true;
        return false;
      }
      return true;
    }

    @Override
    public Watch.Response<ObjectScrubber.Scrubbed> next() {
      if (!hasNext()) {
        throw new NoSuchElementException();
      }
      Watch.Response<ObjectScrubber.Scrubbed> result = next;
      next = null;
      return result;
    }

    @Override
    public Iterator<Watch.Response<ObjectScrubber.Scrubbed>> iterator() {
      return this;
    }

    /** Closes the response; its call should have been cancelled first, or ended on its own. */
    @Override
    public void close() {
      ended = true;
      try {
        if (parser != null) {
          parser.close();
        }
      } catch (IOException ignored) {
        // Closing anyway.
      }
      response.close();
      done.run();
    }

    private Watch.Response<ObjectScrubber.Scrubbed> readEvent(JsonParser p) throws IOException {
      JsonToken start = p.nextToken();
      if (start == null) {
        return null;
      }
      if (start != JsonToken.START_OBJECT) {
        throw new IOException("expected a watch event, got " + start);
      }
      String type = null;
      ObjectScrubber.Scrubbed object = null;
      V1Status status = null;
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        String field = p.currentName();
        JsonToken value = p.nextToken();
        if ("type".equals(field)) {
          type = p.getText();
        } else if ("object".equals(field) && value == JsonToken.START_OBJECT) {
          if ("ERROR".equals(type)) {
            status = readStatus(p);
          } else {
            object = scrubber.scrubObject(p);
          }
        } else {
          p.skipChildren();
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
        p.nextToken();
        switch (field) {
          case "code" -> status.setCode(p.getIntValue());
          case "reason" -> status.setReason(p.getText());
          case "message" -> status.setMessage(p.getText());
          default -> p.skipChildren();
        }
      }
      return status;
    }
  }
}
