package io.spinagent.plugin.web;

import io.spinagent.plugin.config.SpinAgentProperties;
import io.spinagent.plugin.grpc.AgentGrpcServer;
import org.pf4j.PluginDescriptor;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/** {@code GET /spinagent/info}: which plugin build is running and where agents connect. */
@RestController
@RequestMapping("/spinagent")
public class PluginInfoController {

  private final PluginDescriptor descriptor;
  private final SpinAgentProperties properties;
  private final AgentGrpcServer grpcServer;

  public PluginInfoController(
      PluginDescriptor descriptor, SpinAgentProperties properties, AgentGrpcServer grpcServer) {
    this.descriptor = descriptor;
    this.properties = properties;
    this.grpcServer = grpcServer;
  }

  @GetMapping("/info")
  public PluginInfo info() {
    SpinAgentProperties.Grpc grpc = properties.getGrpc();
    return new PluginInfo(
        descriptor.getPluginId(),
        descriptor.getVersion(),
        descriptor.getRequires(),
        new PluginInfo.GrpcInfo(
            grpc.getAddress(), grpcServer.boundPort(), grpc.getMaxInboundMessageSize().toBytes()));
  }

  public record PluginInfo(String pluginId, String version, String requires, GrpcInfo grpc) {
    public record GrpcInfo(String address, int port, long maxInboundMessageSize) {}
  }
}
