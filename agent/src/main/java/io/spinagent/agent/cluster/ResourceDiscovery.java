package io.spinagent.agent.cluster;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import io.kubernetes.client.openapi.ApiException;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import okhttp3.Response;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finds every resource the API server serves: the core group ({@code /api/v1}) and every group
 * under {@code /apis} at its preferred version, custom resources included. Subresources are left
 * out. A group version that fails to answer (e.g. an aggregated API whose backend is down) is
 * skipped with a warning rather than failing the whole discovery.
 */
final class ResourceDiscovery {

  private static final Logger log = LoggerFactory.getLogger(ResourceDiscovery.class);

  private final KubeHttp http;

  ResourceDiscovery(KubeHttp http) {
    this.http = http;
  }

  String gitVersion() throws ApiException {
    JsonObject version = getJson("/version").getAsJsonObject();
    return string(version, "gitVersion");
  }

  List<ApiResource> discover() throws ApiException {
    List<ApiResource> found = new ArrayList<>();
    JsonObject core = getJson("/api").getAsJsonObject();
    for (JsonElement v : array(core, "versions")) {
      if ("v1".equals(v.getAsString())) {
        resources("", "v1", found, true);
      }
    }
    JsonObject groups = getJson("/apis").getAsJsonObject();
    for (JsonElement g : array(groups, "groups")) {
      JsonObject group = g.getAsJsonObject();
      String name = string(group, "name");
      JsonObject preferred =
          group.has("preferredVersion") ? group.getAsJsonObject("preferredVersion") : null;
      String version = preferred != null ? string(preferred, "version") : null;
      if (version == null) {
        JsonArray versions = array(group, "versions");
        if (versions.isEmpty()) {
          continue;
        }
        version = string(versions.get(0).getAsJsonObject(), "version");
      }
      resources(name, version, found, false);
    }
    return found;
  }

  private void resources(String group, String version, List<ApiResource> found, boolean required)
      throws ApiException {
    String path = group.isEmpty() ? "/api/" + version : "/apis/" + group + "/" + version;
    JsonObject list;
    try {
      list = getJson(path).getAsJsonObject();
    } catch (ApiException e) {
      if (required) {
        throw e;
      }
      log.warn(
          "Discovery of {} failed, its resources are skipped until the next discovery: {}",
          path,
          e.getMessage());
      return;
    }
    for (JsonElement r : array(list, "resources")) {
      JsonObject resource = r.getAsJsonObject();
      String name = string(resource, "name");
      if (name == null || name.contains("/")) {
        continue;
      }
      List<String> verbs = new ArrayList<>();
      array(resource, "verbs").forEach(v -> verbs.add(v.getAsString()));
      boolean namespaced = resource.has("namespaced") && resource.get("namespaced").getAsBoolean();
      found.add(new ApiResource(group, version, string(resource, "kind"), name, namespaced, verbs));
    }
  }

  private JsonElement getJson(String path) throws ApiException {
    try (Response response = http.get(path, Map.of(), KubeHttp.JSON);
        Reader reader =
            new InputStreamReader(response.body().byteStream(), StandardCharsets.UTF_8)) {
      return JsonParser.parseReader(reader);
    } catch (IOException | RuntimeException e) {
      throw new ApiException("GET " + path + " failed: " + e.getMessage(), e, 0, null);
    }
  }

  private static JsonArray array(JsonObject object, String field) {
    JsonElement e = object.get(field);
    return e != null && e.isJsonArray() ? e.getAsJsonArray() : new JsonArray();
  }

  private static String string(JsonObject object, String field) {
    JsonElement e = object.get(field);
    return e != null && e.isJsonPrimitive() ? e.getAsString() : null;
  }
}
