package io.spinagent.plugin.tunnel;

import static org.jooq.impl.DSL.field;
import static org.jooq.impl.DSL.table;
import static org.jooq.impl.DSL.unquotedName;

import java.time.Clock;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Record;
import org.jooq.Record2;
import org.jooq.Table;
import org.jooq.impl.SQLDataType;

/**
 * The tunnel's certificate authority in {@code spinagent_tunnel_authority}: one row, written by the
 * first replica to start. Its private key is stored so every replica can sign its own serving
 * certificate; whoever can read this table can also read the kubeconfigs in Clouddriver's account
 * storage, which are what the CA protects.
 */
public final class SqlTunnelAuthority implements TunnelAuthority.Store {

  private static final String ROW = "tunnel";
  private static final Table<Record> AUTHORITY = table(unquotedName("spinagent_tunnel_authority"));
  private static final Field<String> ID = field(unquotedName("id"), SQLDataType.VARCHAR);
  private static final Field<String> CERTIFICATE =
      field(unquotedName("certificate_pem"), SQLDataType.CLOB);
  private static final Field<String> PRIVATE_KEY =
      field(unquotedName("private_key_pem"), SQLDataType.CLOB);
  private static final Field<Long> CREATED_AT =
      field(unquotedName("created_at"), SQLDataType.BIGINT);

  private final DSLContext jooq;
  private final Clock clock;

  public SqlTunnelAuthority(DSLContext jooq, Clock clock) {
    this.jooq = jooq;
    this.clock = clock;
  }

  @Override
  public TunnelAuthority keepFirst(TunnelAuthority candidate) {
    // Replicas starting together both insert; the primary key keeps the first, which all then use.
    jooq.insertInto(AUTHORITY, ID, CERTIFICATE, PRIVATE_KEY, CREATED_AT)
        .values(ROW, candidate.certificatePem(), candidate.privateKeyPem(), clock.millis())
        .onDuplicateKeyIgnore()
        .execute();
    Record2<String, String> stored =
        jooq.select(CERTIFICATE, PRIVATE_KEY).from(AUTHORITY).where(ID.eq(ROW)).fetchOne();
    if (stored == null) {
      throw new IllegalStateException(
          "the tunnel CA was neither inserted nor found in spinagent_tunnel_authority");
    }
    return TunnelAuthority.fromPem(stored.value1(), stored.value2());
  }
}
