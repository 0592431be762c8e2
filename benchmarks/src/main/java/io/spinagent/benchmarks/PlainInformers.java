package io.spinagent.benchmarks;

import io.kubernetes.client.informer.SharedIndexInformer;
import io.kubernetes.client.informer.SharedInformerFactory;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesApi;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesObject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The baseline the agent is measured against: client-java's informers as a plain user starts them.
 * One {@link SharedInformerFactory} per kind, since a factory keeps one informer per Java type and
 * every kind here is a {@link DynamicKubernetesObject}.
 */
public final class PlainInformers {

  private final List<SharedInformerFactory> factories = new ArrayList<>();
  private final List<SharedIndexInformer<DynamicKubernetesObject>> informers = new ArrayList<>();

  /** Starts an informer for each kind ({@code {group, version, plural, ...}}) of the cluster. */
  public void start(ApiClient client, String[][] kinds) {
    for (String[] kind : kinds) {
      SharedInformerFactory factory = new SharedInformerFactory(client);
      informers.add(
          factory.sharedIndexInformerFor(
              new DynamicKubernetesApi(kind[0], kind[1], kind[2], client),
              DynamicKubernetesObject.class,
              0));
      factory.startAllRegisteredInformers();
      factories.add(factory);
    }
  }

  /** Waits until every informer started so far has listed once, looking every {@code poll}. */
  public void awaitSynced(Duration poll) throws InterruptedException {
    while (!informers.stream().allMatch(SharedIndexInformer::hasSynced)) {
      Thread.sleep(poll.toMillis());
    }
  }

  /** The objects the informers hold. */
  public int objects() {
    return informers.stream().mapToInt(i -> i.getIndexer().list().size()).sum();
  }

  public void stop() {
    factories.forEach(SharedInformerFactory::stopAllRegisteredInformers);
  }
}
