package io.spinagent.standin;

import com.netflix.spinnaker.credentials.definition.CredentialsDefinitionSource;
import com.netflix.spinnaker.kork.plugins.SpinnakerPluginManager;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.distribution.CountAtBucket;
import io.micrometer.core.instrument.distribution.HistogramSnapshot;
import io.spinagent.testkit.clouddriver.KubernetesAccountDefinition;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.pf4j.PluginWrapper;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.ApplicationContext;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * What the sandbox and the specs ask the stand-in, as an operator would look at a Clouddriver: the
 * plugin framework's view of its plugins (and stopping one), the tunnel kubeconfig the plugin
 * offers its host, the plugin's change-to-row latency, the meters in Clouddriver's registry, the
 * Kubernetes accounts Clouddriver loads, and which {@code /credentials} requests reached
 * Clouddriver's own handling. Not part of Clouddriver.
 */
@RestController
@RequestMapping(path = "/standin", produces = MediaType.APPLICATION_JSON_VALUE)
public class StandInController {

  /** The bean the plugin registers in its host for tunnel kubeconfigs (TunnelKubeconfigs). */
  static final String TUNNEL_KUBECONFIGS_BEAN = "spinAgentTunnelKubeconfigs";

  static final String CHANGE_LATENCY = "spinagent.cache.change.latency";

  private final SpinnakerPluginManager plugins;
  private final ApplicationContext clouddriver;
  private final ObjectProvider<MeterRegistry> meters;
  private final HistogramPublication histograms;
  private final CredentialsDefinitionSource<KubernetesAccountDefinition> kubernetesAccounts;
  private final CredentialsController credentials;

  public StandInController(
      SpinnakerPluginManager plugins,
      ApplicationContext clouddriver,
      ObjectProvider<MeterRegistry> meters,
      HistogramPublication histograms,
      CredentialsDefinitionSource<KubernetesAccountDefinition> kubernetesAccountSource,
      CredentialsController credentials) {
    this.plugins = plugins;
    this.clouddriver = clouddriver;
    this.meters = meters;
    this.histograms = histograms;
    this.kubernetesAccounts = kubernetesAccountSource;
    this.credentials = credentials;
  }

  @GetMapping("/plugins")
  public Map<String, Object> plugins() {
    Map<String, Object> all = new LinkedHashMap<>();
    for (PluginWrapper plugin : plugins.getPlugins()) {
      all.put(plugin.getPluginId(), plugin(plugin));
    }
    return Map.of("systemVersion", plugins.getSystemVersion(), "plugins", all);
  }

  @PostMapping("/plugins/{id}/stop")
  public Map<String, Object> stop(@PathVariable String id) {
    plugins.stopPlugin(id);
    return plugin(plugins.getPlugin(id));
  }

  private static Map<String, Object> plugin(PluginWrapper plugin) {
    Map<String, Object> view = new LinkedHashMap<>();
    view.put("version", plugin.getDescriptor().getVersion());
    view.put("requires", plugin.getDescriptor().getRequires());
    view.put("state", plugin.getPluginState().name());
    return view;
  }

  /** The kubeconfig through the plugin's tunnel for {@code account}, as Clouddriver stores it. */
  @GetMapping(path = "/tunnel-kubeconfig/{account}", produces = MediaType.TEXT_PLAIN_VALUE)
  @SuppressWarnings("unchecked")
  public ResponseEntity<String> tunnelKubeconfig(@PathVariable String account) {
    if (!clouddriver.containsBean(TUNNEL_KUBECONFIGS_BEAN)) {
      return ResponseEntity.status(404).body("the plugin offers no tunnel kubeconfigs");
    }
    Function<String, String> kubeconfigs =
        clouddriver.getBean(TUNNEL_KUBECONFIGS_BEAN, Function.class);
    return ResponseEntity.ok(kubeconfigs.apply(account));
  }

  /**
   * The plugin's {@value #CHANGE_LATENCY} since start: count, and p50 and p99 as the upper bounds
   * of the histogram buckets holding them (so "at most"); count 0 before the first change.
   */
  @GetMapping("/change-latency")
  public Map<String, Object> changeLatency() {
    for (MeterRegistry registry : meters) {
      Timer timer = registry.find(CHANGE_LATENCY).timer();
      if (timer != null && timer.count() > 0) {
        HistogramSnapshot snapshot = timer.takeSnapshot();
        Map<String, Object> latency = new LinkedHashMap<>();
        latency.put("count", snapshot.count());
        latency.put("p50Ms", percentile(snapshot, 0.50));
        latency.put("p99Ms", percentile(snapshot, 0.99));
        return latency;
      }
    }
    return Map.of("count", 0);
  }

  /** The upper bound of the first bucket holding the {@code q} quantile; the maximum past all. */
  static double percentile(HistogramSnapshot snapshot, double q) {
    double wanted = q * snapshot.count();
    for (CountAtBucket bucket : snapshot.histogramCounts()) {
      if (bucket.count() >= wanted) {
        return Math.min(bucket.bucket(TimeUnit.MILLISECONDS), snapshot.max(TimeUnit.MILLISECONDS));
      }
    }
    return snapshot.max(TimeUnit.MILLISECONDS);
  }

  /**
   * The meters of Clouddriver's registry whose names start with {@code prefix} (all by default), as
   * a Prometheus scrape would find them: each one's name, type ({@code COUNTER}, {@code GAUGE},
   * {@code TIMER}, {@code DISTRIBUTION_SUMMARY}, ...), base unit, tags and, for timers and
   * distribution summaries, whether it publishes histogram buckets (the {@code _bucket} series
   * {@code histogram_quantile} reads; see {@link HistogramPublication}). Only Micrometer API of
   * every line's Micrometer (1.9 to 1.15) is used.
   */
  @GetMapping("/meters")
  public List<Map<String, Object>> meters(@RequestParam(defaultValue = "") String prefix) {
    // The same meter can be reached through a composite registry and the registry under it.
    Map<Meter.Id, Map<String, Object>> found = new LinkedHashMap<>();
    for (MeterRegistry registry : meters) {
      for (Meter meter : registry.getMeters()) {
        if (meter.getId().getName().startsWith(prefix)) {
          found.putIfAbsent(meter.getId(), meter(meter));
        }
      }
    }
    List<Map<String, Object>> listed = new ArrayList<>(found.values());
    listed.sort(Comparator.comparing(m -> (String) m.get("name")));
    return listed;
  }

  private Map<String, Object> meter(Meter meter) {
    Meter.Id id = meter.getId();
    Map<String, String> tags = new TreeMap<>();
    for (Tag tag : id.getTags()) {
      tags.put(tag.getKey(), tag.getValue());
    }
    Map<String, Object> view = new LinkedHashMap<>();
    view.put("name", id.getName());
    view.put("type", id.getType().name());
    view.put("baseUnit", id.getBaseUnit());
    view.put("tags", tags);
    if (meter instanceof Timer || meter instanceof DistributionSummary) {
      view.put("histogram", histograms.publishesHistogram(id).orElse(false));
    }
    return view;
  }

  /** The Kubernetes accounts Clouddriver loads, each definition whole. */
  @GetMapping("/kubernetes-accounts")
  public List<KubernetesAccountDefinition> kubernetesAccounts() {
    return kubernetesAccounts.getCredentialsDefinitions();
  }

  /** The methods of the {@code /credentials} requests that reached Clouddriver's handling. */
  @GetMapping("/credentials-requests")
  public List<String> credentialsRequests() {
    return credentials.reached();
  }

  /** Forgets the {@code /credentials} requests recorded so far. */
  @DeleteMapping("/credentials-requests")
  public Map<String, Object> forgetCredentialsRequests() {
    credentials.forgetReached();
    return Map.of();
  }
}
