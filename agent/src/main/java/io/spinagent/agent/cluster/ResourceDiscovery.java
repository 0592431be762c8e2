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
 * out.
 *
 * <p>Asks for aggregated discovery ({@code apidiscovery.k8s.io/v2}, Kubernetes 1.30+; 1.26–1.29
 * with the feature on): two documents list every group with its resources, instead of one request
 * per group version. An API server that does not serve it answers the same requests with the legacy
 * documents ({@code APIVersions}, {@code APIGroupList}), and the group versions are then read one
 * by one. A group version that fails to answer, or that aggregated discovery marks {@code Stale}
 * (an aggregated API whose backend is down), is skipped with a warning rather than failing the
 * whole discovery.
 */
final class ResourceDiscovery {

  private static final Logger log = LoggerFactory.getLogger(ResourceDiscovery.class);

  /** Aggregated discovery if served, else the legacy document (as client-go asks). */
  static final String ACCEPT =
      "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,"
          + "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,"
          + "application/json;q=0.9";

  private final KubeHttp http;

  ResourceDiscovery(KubeHttp http) {
    this.http = http;
  }

  String gitVersion() throws ApiException {
    JsonObject version = getJson("/version", KubeHttp.JSON).json();
    return string(version, "gitVersion");
  }

  List<ApiResource> discover() throws ApiException {
    List<ApiResource> found = new ArrayList<>();
    Document core = getJson("/api", ACCEPT);
    if (core.aggregated()) {
      aggregated(core.json(), found);
    } else {
      for (JsonElement v : array(core.json(), "versions")) {
        if ("v1".equals(v.getAsString())) {
          resources("", "v1", found, true);
        }
      }
    }
    Document groups = getJson("/apis", ACCEPT);
    if (groups.aggregated()) {
      aggregated(groups.json(), found);
      return found;
    }
    for (JsonElement g : array(groups.json(), "groups")) {
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

  /**
   * Reads an {@code APIGroupDiscoveryList}: each group's first version is its preferred one; the
   * core group (no name) is read at v1 only, as in the legacy documents.
   */
  private static void aggregated(JsonObject list, List<ApiResource> found) {
    for (JsonElement item : array(list, "items")) {
      JsonObject group = item.getAsJsonObject();
      JsonObject metadata = group.has("metadata") ? group.getAsJsonObject("metadata") : null;
      String name = metadata == null ? null : string(metadata, "name");
      String groupName = name == null ? "" : name;
      JsonObject preferred = null;
      for (JsonElement v : array(group, "versions")) {
        JsonObject version = v.getAsJsonObject();
        if (!groupName.isEmpty() || "v1".equals(string(version, "version"))) {
          preferred = version;
          break;
        }
      }
      if (preferred == null) {
        continue;
      }
      String version = string(preferred, "version");
      if ("Stale".equals(string(preferred, "freshness"))) {
        log.warn(
            "Discovery of {} is stale (its API service does not answer), its resources are skipped"
                + " until the next discovery",
            groupName.isEmpty() ? "/api/" + version : "/apis/" + groupName + "/" + version);
        continue;
      }
      for (JsonElement r : array(preferred, "resources")) {
        JsonObject resource = r.getAsJsonObject();
        String plural = string(resource, "resource");
        if (plural == null) {
          continue;
        }
        JsonObject responseKind =
            resource.has("responseKind") && resource.get("responseKind").isJsonObject()
                ? resource.getAsJsonObject("responseKind")
                : new JsonObject();
        found.add(
            new ApiResource(
                groupName,
                version,
                string(responseKind, "kind"),
                plural,
                "Namespaced".equals(string(resource, "scope")),
                verbs(resource)));
      }
    }
  }

  private void resources(String group, String version, List<ApiResource> found, boolean required)
      throws ApiException {
    String path = group.isEmpty() ? "/api/" + version : "/apis/" + group + "/" + version;
    JsonObject list;
    try {
      list = getJson(path, KubeHttp.JSON).json();
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
      boolean namespaced = resource.has("namespaced") && resource.get("namespaced").getAsBoolean();
      found.add(
          new ApiResource(
              group, version, string(resource, "kind"), name, namespaced, verbs(resource)));
    }
  }

  private static List<String> verbs(JsonObject resource) {
    List<String> verbs = new ArrayList<>();
    array(resource, "verbs").forEach(v -> verbs.add(v.getAsString()));
    return verbs;
  }

  /** A discovery document, and whether the server answered with aggregated discovery. */
  private record Document(JsonObject json, boolean aggregated) {}

  private Document getJson(String path, String accept) throws ApiException {
    try (Response response = http.get(path, Map.of(), accept);
        Reader reader =
            new InputStreamReader(response.body().byteStream(), StandardCharsets.UTF_8)) {
      String type = response.header("Content-Type", "");
      boolean aggregated =
          type.contains("as=APIGroupDiscoveryList") && type.contains("g=apidiscovery.k8s.io");
      return new Document(JsonParser.parseReader(reader).getAsJsonObject(), aggregated);
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
