package io.spinagent.plugin.web;

import io.spinagent.plugin.config.SpinAgentProperties;
import io.spinagent.plugin.grpc.AgentGrpcServer;
import io.spinagent.plugin.ha.ReplicaGroup;
import io.spinagent.plugin.identity.ReplicaIdentity;
import org.pf4j.PluginDescriptor;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code GET /spinagent/info}: which plugin build is running, where agents connect, and which
 * replica answered (with HA on, the address other replicas forward to it on).
 */
@RestController
@RequestMapping("/spinagent")
public class PluginInfoController {

  private final PluginDescriptor descriptor;
  private final SpinAgentProperties properties;
  private final AgentGrpcServer grpcServer;
  private final ReplicaIdentity replica;
  private final ReplicaGroup replicas;

  public PluginInfoController(
      PluginDescriptor descriptor,
      SpinAgentProperties properties,
      AgentGrpcServer grpcServer,
      ReplicaIdentity replica,
      ReplicaGroup replicas) {
    this.descriptor = descriptor;
    this.properties = properties;
    this.grpcServer = grpcServer;
    this.replica = replica;
    this.replicas = replicas;
  }

  @GetMapping({"/info", "/info/"})
  public PluginInfo info() {
    SpinAgentProperties.Grpc grpc = properties.getGrpc();
    return new PluginInfo(
        descriptor.getPluginId(),
        descriptor.getVersion(),
        descriptor.getRequires(),
        new PluginInfo.GrpcInfo(
            grpc.getAddress(), grpcServer.boundPort(), grpc.getMaxInboundMessageSize().toBytes()),
        replica.id(),
        replicas.forwardingUrl());
  }

  /**
   * What this replica runs and how other replicas reach it.
   *
   * @param forwardUrl where other replicas forward tunnel requests and account commands to this
   *     one; null when HA is off
   */
  public record PluginInfo(
      String pluginId,
      String version,
      String requires,
      GrpcInfo grpc,
      String replicaId,
      String forwardUrl) {
    public record GrpcInfo(String address, int port, long maxInboundMessageSize) {}
  }
}
