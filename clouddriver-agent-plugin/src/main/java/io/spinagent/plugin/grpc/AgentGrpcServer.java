package io.spinagent.plugin.grpc;

import io.grpc.Server;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.protobuf.services.HealthStatusManager;
import io.spinagent.plugin.config.SpinAgentProperties;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;
import org.springframework.stereotype.Component;

/**
 * The port agents connect to. It starts with the plugin's context and stops with it, so stopping
 * the plugin or Clouddriver frees the port.
 */
@Component
public class AgentGrpcServer implements SmartLifecycle {

  private static final Logger log = LoggerFactory.getLogger(AgentGrpcServer.class);

  private final SpinAgentProperties.Grpc config;
  private final HealthStatusManager health = new HealthStatusManager();
  private volatile Server server;

  public AgentGrpcServer(SpinAgentProperties properties) {
    this.config = properties.getGrpc();
  }

  @Override
  public synchronized void start() {
    InetSocketAddress bindAddress = new InetSocketAddress(config.getAddress(), config.getPort());
    Server candidate =
        NettyServerBuilder.forAddress(bindAddress)
            .maxInboundMessageSize((int) config.getMaxInboundMessageSize().toBytes())
            .addService(health.getHealthService())
            .build();
    try {
      candidate.start();
    } catch (IOException e) {
      throw new UncheckedIOException(
          "SpinAgent cannot listen for agents on "
              + bindAddress
              + " (spinagent.grpc.address / spinagent.grpc.port): "
              + e.getMessage(),
          e);
    }
    server = candidate;
    health.setStatus(HealthStatusManager.SERVICE_NAME_ALL_SERVICES, ServingStatus.SERVING);
    log.info("Listening for SpinAgent agents on {}:{}", config.getAddress(), server.getPort());
  }

  @Override
  public synchronized void stop() {
    Server running = server;
    if (running == null) {
      return;
    }
    server = null;
    health.enterTerminalState();
    running.shutdown();
    try {
      if (!running.awaitTermination(10, TimeUnit.SECONDS)) {
        running.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      running.shutdownNow();
      Thread.currentThread().interrupt();
    }
    log.info("Stopped listening for SpinAgent agents");
  }

  @Override
  public boolean isRunning() {
    return server != null;
  }

  /** The port actually bound, which differs from the configured one when that is 0; -1 when stopped. */
  public int boundPort() {
    Server running = server;
    return running == null ? -1 : running.getPort();
  }
}
