package io.spinagent.testkit.kubernetes;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;

/**
 * Writes one watch to its HTTP response: a chunked stream of newline-delimited JSON WatchEvents,
 * flushed one by one, until the client's {@code timeoutSeconds} (or the server's default) elapses,
 * the client goes away, or the server stops. Sends BOOKMARK events periodically when the client
 * allowed them, and the "initial-events-end" bookmark of a {@code sendInitialEvents} watch.
 */
final class WatchStream {

  private final ApiExchange exchange;
  private final ResourceType type;
  private final ResponseShape shape;
  private final String includeObject;
  private final long timeoutMillis;
  private final boolean bookmarks;
  private final long bookmarkIntervalMillis;
  private final boolean sendInitialEventsEnd;

  WatchStream(
      ApiExchange exchange,
      ResourceType type,
      ResponseShape shape,
      String includeObject,
      long timeoutMillis,
      boolean bookmarks,
      long bookmarkIntervalMillis,
      boolean sendInitialEventsEnd) {
    this.exchange = exchange;
    this.type = type;
    this.shape = shape;
    this.includeObject = includeObject;
    this.timeoutMillis = timeoutMillis;
    this.bookmarks = bookmarks;
    this.bookmarkIntervalMillis = bookmarkIntervalMillis;
    this.sendInitialEventsEnd = sendInitialEventsEnd;
  }

  void run(ResourceStore.WatchStart start) throws IOException {
    OutputStream out = exchange.startStream("application/json");
    if (start.expired()) {
      // A real API server answers 200 and sends the 410 as the stream's only event.
      exchange.markWatchExpired();
      write(out, "ERROR", ApiError.expired(start.expiredMessage()).toStatus());
      return;
    }
    WatchHub.Subscription subscription = start.subscription();
    try {
      long deadline = System.currentTimeMillis() + timeoutMillis;
      long nextBookmark = System.currentTimeMillis() + bookmarkIntervalMillis;
      int initialLeft = start.initialEvents();
      if (sendInitialEventsEnd && initialLeft == 0) {
        write(out, "BOOKMARK", shape.bookmark(type, start.initialResourceVersion(), true));
      }
      while (true) {
        long now = System.currentTimeMillis();
        if (now >= deadline) {
          return;
        }
        long wait = deadline - now;
        if (bookmarks) {
          wait = Math.min(wait, Math.max(0, nextBookmark - now));
        }
        WatchHub.Delivery delivery;
        try {
          delivery = subscription.poll(wait);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        }
        if (delivery != null) {
          write(out, delivery.type(), shape.single(delivery.object(), type, includeObject));
          if (initialLeft > 0 && --initialLeft == 0 && sendInitialEventsEnd) {
            write(out, "BOOKMARK", shape.bookmark(type, start.initialResourceVersion(), true));
          }
        } else if (subscription.isClosed()) {
          return;
        }
        if (bookmarks && initialLeft == 0 && System.currentTimeMillis() >= nextBookmark) {
          write(out, "BOOKMARK", shape.bookmark(type, subscription.bookmarkVersion(), false));
          nextBookmark = System.currentTimeMillis() + bookmarkIntervalMillis;
        }
      }
    } catch (IOException clientWentAway) {
      // Nothing to tell anyone: the client closed the stream, which is how watches usually end.
    } finally {
      subscription.close();
    }
  }

  private static void write(OutputStream out, String type, JsonNode object) throws IOException {
    ObjectNode event = Json.object();
    event.put("type", type);
    event.set("object", object);
    out.write((Json.write(event) + "\n").getBytes(StandardCharsets.UTF_8));
    out.flush();
  }
}
