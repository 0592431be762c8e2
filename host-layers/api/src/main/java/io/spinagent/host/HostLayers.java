package io.spinagent.host;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;

/**
 * Chooses the host layer that serves the Clouddriver at hand among those the bundle carries. A
 * Clouddriver no layer serves (a newer Spinnaker line than this bundle knows, or an older one) is
 * refused with one message that says what was found and what to install, so that the plugin can
 * step aside and let Clouddriver start without it.
 */
public final class HostLayers {

  private HostLayers() {}

  /** The outcome: the layer to use, or why none can be used. */
  public sealed interface Choice permits Chosen, Refused {}

  /**
   * The layer that serves the host.
   *
   * @param layer the chosen layer
   */
  public record Chosen(HostLayer layer) implements Choice {}

  /**
   * No layer serves the host.
   *
   * @param message one paragraph for Clouddriver's log: what was found, what would serve it
   */
  public record Refused(String message) implements Choice {}

  /** Chooses among the layers {@code plugin} (the plugin's class loader) offers. */
  public static Choice choose(HostLibraries host, ClassLoader plugin, String bundle) {
    List<HostLayer> layers = new ArrayList<>();
    List<String> broken = new ArrayList<>();
    ServiceLoader<HostLayer> found = ServiceLoader.load(HostLayer.class, plugin);
    for (var iterator = found.iterator(); ; ) {
      try {
        if (!iterator.hasNext()) {
          break;
        }
        layers.add(iterator.next());
      } catch (ServiceConfigurationError | LinkageError e) {
        broken.add(e.getMessage());
      }
    }
    return choose(host, layers, broken, bundle);
  }

  static Choice choose(
      HostLibraries host, List<HostLayer> layers, List<String> broken, String bundle) {
    List<String> reasons = new ArrayList<>();
    for (HostLayer layer : layers) {
      Optional<String> mismatch = layer.mismatch(host);
      if (mismatch.isEmpty()) {
        return new Chosen(layer);
      }
      reasons.add(layer.name() + " (" + layer.serves() + "): " + mismatch.get());
    }
    reasons.addAll(
        broken.stream().map(problem -> "a layer that cannot be loaded: " + problem).toList());
    return new Refused(
        bundle
            + " cannot run on this Clouddriver: "
            + host.describe()
            + ". "
            + (reasons.isEmpty()
                ? "The bundle carries no host layer."
                : "The bundle's host layers: " + String.join("; ", reasons) + ".")
            + " Install the SpinAgent release made for your Spinnaker version (see"
            + " docs/compatibility.md); SpinAgent registers nothing, and Clouddriver runs"
            + " without it.");
  }
}
