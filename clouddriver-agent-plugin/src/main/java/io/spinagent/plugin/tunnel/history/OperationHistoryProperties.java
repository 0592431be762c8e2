package io.spinagent.plugin.tunnel.history;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;

/** {@code spinagent.operations.history.*}: what is kept of the requests the tunnel served. */
@ConfigurationProperties("spinagent.operations.history")
public class OperationHistoryProperties {

  /** Operations older than this are deleted from the database. */
  private Duration maxAge = Duration.ofDays(7);

  /** How often old operations are deleted. */
  private Duration purgeInterval = Duration.ofHours(1);

  /**
   * Operations waiting to be written to the database. When the database falls this far behind,
   * further operations are dropped (and counted) rather than slowing a request.
   */
  private int queueSize = 1000;

  /** Operations kept in memory when Clouddriver has no database (per replica, newest kept). */
  private int memoryEntries = 1000;

  public Duration getMaxAge() {
    return maxAge;
  }

  public void setMaxAge(Duration maxAge) {
    this.maxAge = maxAge;
  }

  public Duration getPurgeInterval() {
    return purgeInterval;
  }

  public void setPurgeInterval(Duration purgeInterval) {
    this.purgeInterval = purgeInterval;
  }

  public int getQueueSize() {
    return queueSize;
  }

  public void setQueueSize(int queueSize) {
    this.queueSize = queueSize;
  }

  public int getMemoryEntries() {
    return memoryEntries;
  }

  public void setMemoryEntries(int memoryEntries) {
    this.memoryEntries = memoryEntries;
  }
}
