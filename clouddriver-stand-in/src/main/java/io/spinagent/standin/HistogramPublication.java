package io.spinagent.standin;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.config.MeterFilter;
import io.micrometer.core.instrument.distribution.DistributionStatisticConfig;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.core.Ordered;

/**
 * Remembers, for every timer and distribution summary registered in Clouddriver's registries,
 * whether it publishes histogram buckets (a percentile histogram or service level objectives): what
 * a Prometheus registry exports as {@code _bucket} series. The stand-in's own registry keeps no
 * buckets for percentile histograms (it supports no aggregable percentiles), so its snapshots
 * cannot tell. A filter that changes nothing; Spring Boot applies it to every registry it
 * configures, last, so that it sees what the filters before it made of the meter.
 */
public final class HistogramPublication implements MeterFilter, Ordered {

  private final Map<Meter.Id, Boolean> publishing = new ConcurrentHashMap<>();

  @Override
  public DistributionStatisticConfig configure(Meter.Id id, DistributionStatisticConfig config) {
    publishing.merge(id, config.isPublishingHistogram(), Boolean::logicalOr);
    return config;
  }

  /** Whether the meter publishes histogram buckets; empty for a meter with no distribution. */
  public Optional<Boolean> publishesHistogram(Meter.Id id) {
    return Optional.ofNullable(publishing.get(id));
  }

  @Override
  public int getOrder() {
    return Ordered.LOWEST_PRECEDENCE;
  }
}
