package io.spinagent.agent.admin;

import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.ApiResponse;
import io.kubernetes.client.openapi.apis.VersionApi;
import io.kubernetes.client.openapi.models.VersionInfo;
import io.spinagent.agent.cluster.AccountStatus;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import okhttp3.Call;

/**
 * {@code GET /accounts/{name}/version}: asks the account's API server for its version now, with the
 * account's own client, so the answer also tells whether the cluster can be reached.
 */
final class ClusterVersion {

  /** An admin thread waits no longer than this for a cluster. */
  static final Duration TIMEOUT = Duration.ofSeconds(5);

  private ClusterVersion() {}

  static AdminServer.Reply of(AccountStatus account, Optional<ApiClient> client) {
    if (client.isEmpty()) {
      return AdminServer.Reply.error(
          503,
          "account '"
              + account.name()
              + "' is not connected to its cluster (state "
              + account.state()
              + (account.error() == null ? "" : ": " + account.error())
              + ")");
    }
    try {
      Call call = new VersionApi(client.get()).getCode().buildCall(null);
      call.timeout().timeout(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
      ApiResponse<VersionInfo> response = client.get().execute(call, VersionInfo.class);
      VersionInfo info = response.getData();
      Map<String, Object> kubernetes = new LinkedHashMap<>();
      kubernetes.put("major", info.getMajor());
      kubernetes.put("minor", info.getMinor());
      kubernetes.put("gitVersion", info.getGitVersion());
      kubernetes.put("gitCommit", info.getGitCommit());
      kubernetes.put("gitTreeState", info.getGitTreeState());
      kubernetes.put("buildDate", info.getBuildDate());
      kubernetes.put("goVersion", info.getGoVersion());
      kubernetes.put("compiler", info.getCompiler());
      kubernetes.put("platform", info.getPlatform());
      Map<String, Object> body = new LinkedHashMap<>();
      body.put("account", account.name());
      body.put("apiServerHost", account.apiServerHost());
      body.put("kubernetes", kubernetes);
      return AdminServer.Reply.json(200, body);
    } catch (ApiException e) {
      String reason =
          e.getCode() > 0
              ? "answered " + e.getCode()
              : "could not be reached: " + (e.getCause() != null ? e.getCause() : e.getMessage());
      return AdminServer.Reply.error(
          502, "the API server of account '" + account.name() + "' " + reason);
    }
  }
}
