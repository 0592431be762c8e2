package io.spinagent.plugin.ha;

import static org.jooq.impl.DSL.field;
import static org.jooq.impl.DSL.table;
import static org.jooq.impl.DSL.unquotedName;

import java.time.Instant;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import org.jooq.Condition;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Record;
import org.jooq.Table;
import org.jooq.impl.SQLDataType;

/**
 * {@code spinagent_connected_agents}: one row per agent and replica it is connected to, renewed by
 * that replica's heartbeat, so that any replica can send a command for an agent (or a zone) to the
 * replica holding its stream, also before the agent serves an account. Like ownership, a replica
 * only writes and deletes its own rows; a row whose heartbeat is older than the owner timeout is
 * left over from a replica that died and is ignored.
 */
public final class ConnectedAgentTable {

  private static final Table<Record> AGENTS = table(unquotedName("spinagent_connected_agents"));
  private static final Field<String> AGENT = field(unquotedName("agent_id"), SQLDataType.VARCHAR);
  private static final Field<String> REPLICA =
      field(unquotedName("replica_id"), SQLDataType.VARCHAR);
  private static final Field<String> ZONE = field(unquotedName("zone_id"), SQLDataType.VARCHAR);
  private static final Field<String> FORWARD_URL =
      field(unquotedName("forward_url"), SQLDataType.VARCHAR);
  private static final Field<Long> HEARTBEAT_AT =
      field(unquotedName("heartbeat_at"), SQLDataType.BIGINT);

  private final DSLContext jooq;

  public ConnectedAgentTable(DSLContext jooq) {
    this.jooq = jooq;
  }

  /** An agent connected to a replica, as the replica last recorded it. */
  public record Row(
      String agentId, String zoneId, String replicaId, String forwardUrl, Instant heartbeatAt) {}

  /** An agent (and its zone, null for none) connected to this replica now. */
  public record Connected(String agentId, String zoneId) {}

  /**
   * Records that exactly {@code agents} are connected to {@code replicaId}, as of {@code now}:
   * their rows are renewed or added, the replica's other rows removed.
   */
  public void record(
      String replicaId, String forwardUrl, Collection<Connected> agents, Instant now) {
    jooq.update(AGENTS)
        .set(FORWARD_URL, forwardUrl)
        .set(HEARTBEAT_AT, now.toEpochMilli())
        .where(REPLICA.eq(replicaId))
        .execute();
    Map<String, String> recorded = new HashMap<>();
    jooq.select(AGENT, ZONE)
        .from(AGENTS)
        .where(REPLICA.eq(replicaId))
        .forEach(r -> recorded.put(r.value1(), r.value2()));
    for (Connected agent : agents) {
      if (!recorded.containsKey(agent.agentId())) {
        jooq.insertInto(AGENTS, AGENT, REPLICA, ZONE, FORWARD_URL, HEARTBEAT_AT)
            .values(agent.agentId(), replicaId, agent.zoneId(), forwardUrl, now.toEpochMilli())
            .onDuplicateKeyIgnore()
            .execute();
      } else if (!Objects.equals(recorded.get(agent.agentId()), agent.zoneId())) {
        jooq.update(AGENTS)
            .set(ZONE, agent.zoneId())
            .where(AGENT.eq(agent.agentId()).and(REPLICA.eq(replicaId)))
            .execute();
      }
    }
    Set<String> ids = agents.stream().map(Connected::agentId).collect(Collectors.toSet());
    Condition gone = REPLICA.eq(replicaId);
    if (!ids.isEmpty()) {
      gone = gone.and(AGENT.notIn(ids));
    }
    jooq.deleteFrom(AGENTS).where(gone).execute();
  }

  /**
   * The most recently renewed row of another replica than {@code replicaId} holding agent {@code
   * agentId} (or, with a null agent id, an agent of zone {@code zoneId}), renewed at or after
   * {@code liveSince}.
   */
  public Optional<Row> findElsewhere(
      String agentId, String zoneId, String replicaId, Instant liveSince) {
    Condition which = agentId != null ? AGENT.eq(agentId) : ZONE.eq(zoneId);
    return jooq.select(AGENT, ZONE, REPLICA, FORWARD_URL, HEARTBEAT_AT)
        .from(AGENTS)
        .where(which)
        .and(REPLICA.ne(replicaId))
        .and(HEARTBEAT_AT.ge(liveSince.toEpochMilli()))
        .orderBy(HEARTBEAT_AT.desc(), REPLICA)
        .limit(Integer.valueOf(1)) // limit(Number): limit(int) is gone from jOOQ 3.17 on
        .fetchOptional(
            r ->
                new Row(
                    r.value1(),
                    r.value2(),
                    r.value3(),
                    r.value4(),
                    Instant.ofEpochMilli(r.value5())));
  }

  /** Removes every row of {@code replicaId}: the replica is stopping. */
  public int releaseAll(String replicaId) {
    return jooq.deleteFrom(AGENTS).where(REPLICA.eq(replicaId)).execute();
  }
}
