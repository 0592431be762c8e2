package io.spinagent.plugin.tunnel;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;

/** {@code spinagent.operations.*}: how long Clouddriver's requests to a cluster may take. */
@ConfigurationProperties("spinagent.operations")
public class OperationsProperties {

  /**
   * How long a request through the tunnel waits for the cluster to start answering. Once it has, a
   * watch or a followed log streams for as long as the client reads.
   */
  private Duration timeout = Duration.ofSeconds(30);

  public Duration getTimeout() {
    return timeout;
  }

  public void setTimeout(Duration timeout) {
    this.timeout = timeout;
  }
}
