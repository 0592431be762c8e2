package io.spinagent.plugin.accounts;

/**
 * Where accounts migrated by a setting go: the agents of a zone, or one agent by id. Exactly one is
 * set.
 */
public record MigrationTarget(String zoneId, String agentId) {

  /**
   * From a setting's {@code zone-id} and {@code agent-id} (blank counts as unset).
   *
   * @param setting the setting's key, named in the error
   * @param what what the setting migrates, named in the error
   * @throws IllegalArgumentException unless exactly one is set: Clouddriver does not start
   */
  public static MigrationTarget of(String setting, String zoneId, String agentId, String what) {
    String zone = zoneId == null || zoneId.isBlank() ? null : zoneId;
    String agent = agentId == null || agentId.isBlank() ? null : agentId;
    if ((zone == null) == (agent == null)) {
      throw new IllegalArgumentException(
          setting
              + ": give exactly one of zone-id and agent-id (the agents that "
              + what
              + " are migrated to)");
    }
    return new MigrationTarget(zone, agent);
  }

  /** Whether an agent with this id, in this zone, is one of the target's. */
  public boolean includes(String agentId, String zoneId) {
    return this.agentId != null ? this.agentId.equals(agentId) : this.zoneId.equals(zoneId);
  }

  /** "zone 'a'" or "agent 'b'", for log lines and answers. */
  @Override
  public String toString() {
    return zoneId != null ? "zone '" + zoneId + "'" : "agent '" + agentId + "'";
  }
}
