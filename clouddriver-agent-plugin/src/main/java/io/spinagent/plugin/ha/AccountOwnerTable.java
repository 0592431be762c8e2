package io.spinagent.plugin.ha;

import static org.jooq.impl.DSL.field;
import static org.jooq.impl.DSL.table;
import static org.jooq.impl.DSL.unquotedName;

import java.time.Instant;
import java.util.Optional;
import java.util.Set;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Record;
import org.jooq.Table;
import org.jooq.impl.SQLDataType;

/**
 * {@code spinagent_account_owners}: one row per account naming the replica that holds its agent
 * stream. Heartbeats and releases only touch rows of the replica making them, so a replica that
 * lost an account (its agent reconnected elsewhere) can never take it back by renewing.
 */
public final class AccountOwnerTable {

  private static final Table<Record> OWNERS = table(unquotedName("spinagent_account_owners"));
  private static final Field<String> ACCOUNT = field(unquotedName("account"), SQLDataType.VARCHAR);
  private static final Field<String> REPLICA =
      field(unquotedName("replica_id"), SQLDataType.VARCHAR);
  private static final Field<String> FORWARD_URL =
      field(unquotedName("forward_url"), SQLDataType.VARCHAR);
  private static final Field<String> AGENT = field(unquotedName("agent_id"), SQLDataType.VARCHAR);
  private static final Field<Long> HEARTBEAT_AT =
      field(unquotedName("heartbeat_at"), SQLDataType.BIGINT);
  private static final Field<Long> ACQUIRED_AT =
      field(unquotedName("acquired_at"), SQLDataType.BIGINT);

  private final DSLContext jooq;

  public AccountOwnerTable(DSLContext jooq) {
    this.jooq = jooq;
  }

  /**
   * Makes {@code owner} the account's owner, whoever owned it before: the latest connection wins.
   */
  public void acquire(AccountOwner owner) {
    if (update(owner, null) > 0) {
      return;
    }
    if (insert(owner) > 0) {
      return;
    }
    update(owner, null); // another replica inserted in between; ours is the later claim
  }

  /**
   * Makes {@code owner} the owner only if nobody owns the account or its owner's heartbeat is older
   * than {@code staleBefore}; true when it did.
   */
  public boolean takeOverIfStale(AccountOwner owner, Instant staleBefore) {
    return update(owner, staleBefore) > 0 || insert(owner) > 0;
  }

  /** Renews every row of {@code replicaId}; returns the accounts it still owns. */
  public Set<String> heartbeat(String replicaId, Instant now) {
    jooq.update(OWNERS)
        .set(HEARTBEAT_AT, now.toEpochMilli())
        .where(REPLICA.eq(replicaId))
        .execute();
    return Set.copyOf(
        jooq.select(ACCOUNT).from(OWNERS).where(REPLICA.eq(replicaId)).fetch(ACCOUNT));
  }

  public Optional<AccountOwner> find(String account) {
    return jooq.select(ACCOUNT, REPLICA, FORWARD_URL, AGENT, HEARTBEAT_AT, ACQUIRED_AT)
        .from(OWNERS)
        .where(ACCOUNT.eq(account))
        .fetchOptional(
            r ->
                new AccountOwner(
                    r.value1(),
                    r.value2(),
                    r.value3(),
                    r.value4(),
                    Instant.ofEpochMilli(r.value5()),
                    Instant.ofEpochMilli(r.value6())));
  }

  /** Gives the account up, if {@code replicaId} still owns it. */
  public boolean release(String account, String replicaId) {
    return jooq.deleteFrom(OWNERS).where(ACCOUNT.eq(account).and(REPLICA.eq(replicaId))).execute()
        > 0;
  }

  /** Gives up every account of {@code replicaId}: the replica is stopping. */
  public int releaseAll(String replicaId) {
    return jooq.deleteFrom(OWNERS).where(REPLICA.eq(replicaId)).execute();
  }

  private int update(AccountOwner owner, Instant staleBefore) {
    var condition = ACCOUNT.eq(owner.account());
    if (staleBefore != null) {
      condition = condition.and(HEARTBEAT_AT.lt(staleBefore.toEpochMilli()));
    }
    return jooq.update(OWNERS)
        .set(REPLICA, owner.replicaId())
        .set(FORWARD_URL, owner.forwardUrl())
        .set(AGENT, owner.agentId())
        .set(HEARTBEAT_AT, owner.heartbeatAt().toEpochMilli())
        .set(ACQUIRED_AT, owner.acquiredAt().toEpochMilli())
        .where(condition)
        .execute();
  }

  private int insert(AccountOwner owner) {
    return jooq.insertInto(OWNERS, ACCOUNT, REPLICA, FORWARD_URL, AGENT, HEARTBEAT_AT, ACQUIRED_AT)
        .values(
            owner.account(),
            owner.replicaId(),
            owner.forwardUrl(),
            owner.agentId(),
            owner.heartbeatAt().toEpochMilli(),
            owner.acquiredAt().toEpochMilli())
        .onDuplicateKeyIgnore()
        .execute();
  }
}
