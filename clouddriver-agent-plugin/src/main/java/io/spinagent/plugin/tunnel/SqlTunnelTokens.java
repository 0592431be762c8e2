package io.spinagent.plugin.tunnel;

import static org.jooq.impl.DSL.field;
import static org.jooq.impl.DSL.table;
import static org.jooq.impl.DSL.unquotedName;

import java.time.Clock;
import java.util.Optional;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Record;
import org.jooq.Table;
import org.jooq.impl.SQLDataType;

/**
 * Tunnel tokens in {@code spinagent_tunnel_tokens}, shared by every replica. The token is kept in
 * clear: any replica may have to write the account's kubeconfig again (after the agent moved to
 * it), and that kubeconfig must carry the same token the others check. A hash would protect nothing
 * here: the same database holds the kubeconfig, token included, in Clouddriver's account storage.
 */
public final class SqlTunnelTokens implements TunnelTokens.Store {

  private static final Table<Record> TOKENS = table(unquotedName("spinagent_tunnel_tokens"));
  private static final Field<String> ACCOUNT = field(unquotedName("account"), SQLDataType.VARCHAR);
  private static final Field<String> TOKEN = field(unquotedName("token"), SQLDataType.VARCHAR);
  private static final Field<Long> CREATED_AT =
      field(unquotedName("created_at"), SQLDataType.BIGINT);

  private final DSLContext jooq;
  private final Clock clock;

  public SqlTunnelTokens(DSLContext jooq, Clock clock) {
    this.jooq = jooq;
    this.clock = clock;
  }

  @Override
  public String keepFirst(String account, String candidate) {
    // Replicas racing on a new account both insert; the primary key keeps one, which both then
    // read.
    jooq.insertInto(TOKENS, ACCOUNT, TOKEN, CREATED_AT)
        .values(account, candidate, clock.millis())
        .onDuplicateKeyIgnore()
        .execute();
    return find(account)
        .orElseThrow(
            () ->
                new IllegalStateException(
                    "the tunnel token of account '"
                        + account
                        + "' was neither inserted nor found in spinagent_tunnel_tokens"));
  }

  @Override
  public Optional<String> find(String account) {
    return jooq.select(TOKEN).from(TOKENS).where(ACCOUNT.eq(account)).fetchOptional(TOKEN);
  }
}
