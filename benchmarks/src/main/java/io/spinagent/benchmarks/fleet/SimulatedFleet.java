package io.spinagent.benchmarks.fleet;

import static io.spinagent.benchmarks.FailureReporting.reported;

import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Many {@link SimulatedAgent}s in this JVM, each with its own gRPC connection to each replica it
 * may use (as separate agent processes would have), sharing a few threads: gRPC's event loop, two
 * threads for gRPC's callbacks, and one timer thread for heartbeats, reconnections and the load.
 *
 * <p>The load is open-loop: changes are due at the times of a Poisson process (exponential gaps, so
 * that agents do not fire in lockstep), whether or not earlier ones were acknowledged, and each
 * timed change is timed from when it was due.
 */
final class SimulatedFleet implements AutoCloseable {

  /** What happened on the agents' sessions, for the report. */
  static final class Counters {
    final AtomicLong frames = new AtomicLong();
    final AtomicLong sessionsEnded = new AtomicLong();
    final AtomicLong silenceEnded = new AtomicLong();
    final AtomicLong refused = new AtomicLong();
    final AtomicLong resyncRequests = new AtomicLong();
    final AtomicLong listingsRequested = new AtomicLong();
    final AtomicLong listedObjects = new AtomicLong();
    final AtomicLong resumedKinds = new AtomicLong();
    final Map<Integer, Integer> protocolVersions = new ConcurrentHashMap<>();

    /** The counts now. */
    Counts snapshot() {
      return new Counts(
          frames.get(),
          sessionsEnded.get(),
          silenceEnded.get(),
          refused.get(),
          resyncRequests.get(),
          listedObjects.get(),
          resumedKinds.get(),
          Map.copyOf(protocolVersions));
    }
  }

  /**
   * Counts of the agents' sessions: frames sent, sessions that ended after Welcome, of those ended
   * by the agents' silence rule, refused account decisions, ResyncRequests received, objects sent
   * in listings, kinds resumed without listing, and sessions per negotiated protocol version.
   */
  record Counts(
      long frames,
      long sessionsEnded,
      long silenceEnded,
      long refused,
      long resyncRequests,
      long listedObjects,
      long resumedKinds,
      Map<Integer, Integer> protocolVersions) {

    /** What happened between {@code earlier} and these counts. */
    Counts since(Counts earlier) {
      Map<Integer, Integer> versions = new java.util.TreeMap<>(protocolVersions);
      earlier.protocolVersions.forEach((v, n) -> versions.merge(v, -n, Integer::sum));
      versions.values().removeIf(n -> n == 0);
      return new Counts(
          frames - earlier.frames,
          sessionsEnded - earlier.sessionsEnded,
          silenceEnded - earlier.silenceEnded,
          refused - earlier.refused,
          resyncRequests - earlier.resyncRequests,
          listedObjects - earlier.listedObjects,
          resumedKinds - earlier.resumedKinds,
          versions);
    }
  }

  private final List<SimulatedAgent> agents = new ArrayList<>();
  private final List<ManagedChannel> channels = new ArrayList<>();
  private final ExecutorService callbacks;
  private final ScheduledThreadPoolExecutor timer;
  private final Counters counters = new Counters();

  /**
   * @param prefix names the agents ({@code <prefix>-agent-0001}) and accounts ({@code
   *     <prefix>-0001})
   * @param replicaPorts the plugin's gRPC ports; agent i connects first to replica i mod n, and to
   *     the next one on each reconnection
   */
  SimulatedFleet(String prefix, int agentCount, int objects, List<Integer> replicaPorts) {
    this.callbacks = Executors.newFixedThreadPool(2, named("fleet-bench-sim-grpc-"));
    this.timer = new ScheduledThreadPoolExecutor(1, named("fleet-bench-sim-timer-"));
    timer.setRemoveOnCancelPolicy(true);
    for (int i = 1; i <= agentCount; i++) {
      List<ManagedChannel> replicas = new ArrayList<>();
      for (int port : replicaPorts) {
        ManagedChannel channel =
            NettyChannelBuilder.forAddress("127.0.0.1", port)
                .usePlaintext()
                .executor(callbacks)
                .keepAliveTime(20, TimeUnit.SECONDS)
                .keepAliveTimeout(10, TimeUnit.SECONDS)
                .build();
        replicas.add(channel);
        channels.add(channel);
      }
      String number = String.format("%04d", i);
      agents.add(
          new SimulatedAgent(
              prefix + "-agent-" + number, prefix + "-" + number, objects, replicas, i - 1, this));
    }
  }

  List<SimulatedAgent> agents() {
    return agents;
  }

  Counters counters() {
    return counters;
  }

  ScheduledThreadPoolExecutor timer() {
    return timer;
  }

  /** Opens every agent's session at once, as after a plugin restart or an outage. */
  void connectAll() {
    agents.forEach(SimulatedAgent::connect);
  }

  /**
   * Whether every agent is {@linkplain SimulatedAgent#settledSince settled} since {@code nanos}.
   */
  boolean settledSince(long nanos) {
    return agents.stream().allMatch(agent -> agent.settledSince(nanos));
  }

  int connected() {
    return (int) agents.stream().filter(SimulatedAgent::isConnected).count();
  }

  /**
   * Every agent changes an object {@code perAgentRate} times a second (Poisson), for {@code warmUp}
   * untimed and then {@code measured} timed; returns once every timed change is acknowledged or a
   * minute after the end.
   */
  Latencies perAgent(double perAgentRate, Duration warmUp, Duration measured) {
    Latencies latencies = new Latencies();
    long start = System.nanoTime();
    long measureFrom = start + warmUp.toNanos();
    long end = measureFrom + measured.toNanos();
    for (SimulatedAgent agent : agents) {
      schedule(() -> agent, perAgentRate, start, measureFrom, end, latencies);
    }
    awaitEnd(end, latencies);
    return latencies;
  }

  /**
   * Changes arrive {@code totalRate} times a second (Poisson) across the fleet, each on an agent
   * chosen at random; timed as {@link #perAgent}.
   */
  Latencies spread(double totalRate, Duration warmUp, Duration measured) {
    Latencies latencies = new Latencies();
    long start = System.nanoTime();
    long measureFrom = start + warmUp.toNanos();
    long end = measureFrom + measured.toNanos();
    schedule(
        () -> agents.get(ThreadLocalRandom.current().nextInt(agents.size())),
        totalRate,
        start,
        measureFrom,
        end,
        latencies);
    awaitEnd(end, latencies);
    return latencies;
  }

  private void schedule(
      java.util.function.Supplier<SimulatedAgent> agent,
      double rate,
      long previousDue,
      long measureFrom,
      long end,
      Latencies latencies) {
    double gap = -Math.log(1 - ThreadLocalRandom.current().nextDouble()) / rate;
    long due = previousDue + (long) (gap * 1e9);
    if (due >= end) {
      return;
    }
    // A failed change is printed: it ends the load, which would otherwise just fall silent.
    ScheduledFuture<?> unused =
        timer.schedule(
            reported(
                "A simulated change",
                () -> {
                  agent.get().change(due, due >= measureFrom ? latencies : null);
                  schedule(agent, rate, due, measureFrom, end, latencies);
                }),
            due - System.nanoTime(),
            TimeUnit.NANOSECONDS);
  }

  private static void awaitEnd(long end, Latencies latencies) {
    long giveUp = end + TimeUnit.MINUTES.toNanos(1);
    while (System.nanoTime() < end || (latencies.missing() > 0 && System.nanoTime() < giveUp)) {
      try {
        Thread.sleep(100);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }

  @Override
  public void close() {
    agents.forEach(SimulatedAgent::close);
    timer.shutdownNow();
    channels.forEach(ManagedChannel::shutdownNow);
    for (ManagedChannel channel : channels) {
      try {
        channel.awaitTermination(5, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    callbacks.shutdownNow();
  }

  private static ThreadFactory named(String prefix) {
    AtomicInteger count = new AtomicInteger();
    return runnable -> {
      Thread thread = new Thread(runnable, prefix + count.incrementAndGet());
      thread.setDaemon(true);
      return thread;
    };
  }
}
