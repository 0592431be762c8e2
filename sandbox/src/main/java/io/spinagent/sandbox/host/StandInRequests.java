package io.spinagent.sandbox.host;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** Plain GETs to a Clouddriver stand-in, for what the sandbox asks it. */
public final class StandInRequests {

  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  private StandInRequests() {}

  /** The body of {@code GET path}; anything but a 200 is an error naming the answer. */
  public static String get(ClouddriverProcess clouddriver, String path) {
    HttpRequest request =
        HttpRequest.newBuilder(URI.create(clouddriver.url() + path))
            .timeout(Duration.ofSeconds(30))
            .build();
    try {
      HttpResponse<String> response = HTTP.send(request, HttpResponse.BodyHandlers.ofString());
      if (response.statusCode() != 200) {
        throw new IllegalStateException(
            "GET " + path + " answered " + response.statusCode() + ": " + response.body());
      }
      return response.body();
    } catch (IOException e) {
      throw new UncheckedIOException("GET " + path + " failed", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted: GET " + path, e);
    }
  }
}
