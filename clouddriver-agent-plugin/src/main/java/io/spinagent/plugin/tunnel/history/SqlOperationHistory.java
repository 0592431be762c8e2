package io.spinagent.plugin.tunnel.history;

import static org.jooq.impl.DSL.field;
import static org.jooq.impl.DSL.table;
import static org.jooq.impl.DSL.unquotedName;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.spinagent.common.DaemonThreads;
import io.spinagent.plugin.config.StartupPhases;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.jooq.Condition;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.InsertValuesStep10;
import org.jooq.Record;
import org.jooq.Table;
import org.jooq.impl.DSL;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;

/**
 * The history in {@code spinagent_operations}, shared by all replicas. Requests never wait for the
 * database: {@link #record} only queues, one thread writes the queue in batches, and when the queue
 * is full (the database is slow or down) operations are dropped and counted in {@code
 * spinagent.operations.history.dropped}. Rows older than the maximum age are deleted periodically.
 */
public final class SqlOperationHistory implements OperationHistory, SmartLifecycle {

  private static final Logger log = LoggerFactory.getLogger(SqlOperationHistory.class);
  static final String TABLE = "spinagent_operations";
  private static final int BATCH = 100;
  private static final long WARN_EVERY_MILLIS = 60_000;

  private static final Table<Record> OPERATIONS = table(unquotedName(TABLE));
  private static final Field<Long> ID = field(unquotedName("id"), Long.class);
  private static final Field<String> ACCOUNT = field(unquotedName("account"), String.class);
  private static final Field<String> METHOD = field(unquotedName("method"), String.class);
  private static final Field<String> VERB = field(unquotedName("verb"), String.class);
  private static final Field<String> PATH = field(unquotedName("path"), String.class);
  private static final Field<Integer> STATUS = field(unquotedName("status"), Integer.class);
  private static final Field<Long> FIRST_BYTE =
      field(unquotedName("time_to_first_byte_ms"), Long.class);
  private static final Field<Long> DURATION = field(unquotedName("duration_ms"), Long.class);
  private static final Field<String> REPLICA = field(unquotedName("replica"), String.class);
  private static final Field<String> AGENT = field(unquotedName("agent_id"), String.class);
  private static final Field<Long> STARTED_AT = field(unquotedName("started_at"), Long.class);

  /** The column sizes of the changelog: longer values are cut rather than failing the batch. */
  private static final int PATH_LENGTH = 1000;

  private static final int NAME_LENGTH = 255;

  private final DSLContext jooq;
  private final Clock clock;
  private final Duration maxAge;
  private final BlockingQueue<OperationRecord> queue;
  private final Counter droppedQueueFull;
  private final Counter droppedWriteFailed;
  private final AtomicLong lastWarning = new AtomicLong();
  private final long purgeEveryMillis;
  private Thread writer;
  private ScheduledExecutorService purger;
  private volatile boolean closed;

  public SqlOperationHistory(
      DSLContext jooq, OperationHistoryProperties properties, MeterRegistry meters, Clock clock) {
    if (properties.getQueueSize() < 1) {
      throw new IllegalArgumentException(
          "spinagent.operations.history.queue-size must be at least 1, not "
              + properties.getQueueSize());
    }
    if (properties.getMaxAge().isNegative() || properties.getMaxAge().isZero()) {
      throw new IllegalArgumentException(
          "spinagent.operations.history.max-age must be positive, not " + properties.getMaxAge());
    }
    this.jooq = jooq;
    this.clock = clock;
    this.maxAge = properties.getMaxAge();
    this.queue = new ArrayBlockingQueue<>(properties.getQueueSize());
    this.droppedQueueFull = dropped(meters, "queue-full");
    this.droppedWriteFailed = dropped(meters, "write-failed");
    this.purgeEveryMillis = Math.max(1, properties.getPurgeInterval().toMillis());
  }

  /**
   * Starts the writer ({@code spinagent-operations-writer}) and the purge of old rows ({@code
   * spinagent-operations-purge}), after the schema migration and before the tunnel serves ({@link
   * StartupPhases#OPERATION_HISTORY}). Operations recorded before are queued.
   */
  @Override
  public synchronized void start() {
    if (writer != null || closed) {
      return;
    }
    writer = DaemonThreads.named("spinagent-operations-writer").newThread(this::writeLoop);
    writer.start();
    purger =
        Executors.newSingleThreadScheduledExecutor(
            DaemonThreads.named("spinagent-operations-purge"));
    // Soon after start too, so that replicas restarted more often than the interval still purge.
    long first = Math.min(purgeEveryMillis, TimeUnit.MINUTES.toMillis(1));
    ScheduledFuture<?> unused =
        purger.scheduleWithFixedDelay(
            this::purgeQuietly, first, purgeEveryMillis, TimeUnit.MILLISECONDS);
  }

  /** Writes what is queued, once, and stops the threads; the history takes no more records. */
  @Override
  public void stop() {
    close();
  }

  @Override
  public synchronized boolean isRunning() {
    return writer != null && !closed;
  }

  @Override
  public int getPhase() {
    return StartupPhases.OPERATION_HISTORY;
  }

  private static Counter dropped(MeterRegistry meters, String reason) {
    return Counter.builder("spinagent.operations.history.dropped")
        .description("Tunnel operations not written to the history")
        .tag("reason", reason)
        .register(meters);
  }

  @Override
  public void record(OperationRecord record) {
    if (closed || !queue.offer(record)) {
      droppedQueueFull.increment();
      warn(
          "the database is not keeping up: operations are dropped from the history"
              + " (spinagent.operations.history.queue-size "
              + (queue.size() + queue.remainingCapacity())
              + ")");
    }
  }

  /** Deletes what is older than the maximum age; the number of rows deleted. */
  public int purge() {
    long cutoff = clock.instant().minus(maxAge).toEpochMilli();
    return jooq.deleteFrom(OPERATIONS).where(STARTED_AT.lt(cutoff)).execute();
  }

  @Override
  public OperationPage find(OperationQuery query) {
    List<Condition> conditions = new ArrayList<>();
    if (query.account() != null) {
      conditions.add(ACCOUNT.eq(query.account()));
    }
    if (query.status() != null) {
      conditions.add(STATUS.between(query.status().low(), query.status().high()));
    }
    if (query.since() != null) {
      conditions.add(STARTED_AT.ge(query.since().toEpochMilli()));
    }
    // One row more than asked tells whether another page follows.
    List<OperationRecord> rows =
        jooq.select(
                ACCOUNT,
                METHOD,
                VERB,
                PATH,
                STATUS,
                FIRST_BYTE,
                DURATION,
                REPLICA,
                AGENT,
                STARTED_AT)
            .from(OPERATIONS)
            .where(DSL.and(conditions))
            .orderBy(STARTED_AT.desc(), ID.desc())
            // limit(Number) and offset(Number): the int forms are gone from jOOQ 3.17 on
            .limit(Integer.valueOf(query.limit() + 1))
            .offset(Integer.valueOf(query.offset()))
            .fetch(
                row ->
                    new OperationRecord(
                        row.get(ACCOUNT),
                        row.get(METHOD),
                        row.get(VERB),
                        row.get(PATH),
                        row.get(STATUS),
                        row.get(FIRST_BYTE),
                        row.get(DURATION),
                        row.get(REPLICA),
                        row.get(AGENT),
                        Instant.ofEpochMilli(row.get(STARTED_AT))));
    boolean more = rows.size() > query.limit();
    List<OperationRecord> page = more ? rows.subList(0, query.limit()) : rows;
    return new OperationPage(
        List.copyOf(page),
        query.offset(),
        query.limit(),
        more ? query.offset() + query.limit() : null,
        "sql");
  }

  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    if (writer == null) {
      return;
    }
    purger.shutdownNow();
    writer.interrupt();
    try {
      writer.join(TimeUnit.SECONDS.toMillis(5));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void writeLoop() {
    List<OperationRecord> batch = new ArrayList<>(BATCH);
    while (!closed) {
      try {
        OperationRecord first = queue.poll(1, TimeUnit.SECONDS);
        if (first == null) {
          continue;
        }
        batch.add(first);
        queue.drainTo(batch, BATCH - 1);
        write(batch);
      } catch (InterruptedException e) {
        // close(): what is queued still goes out, once.
        queue.drainTo(batch);
        write(batch);
        return;
      } finally {
        batch.clear();
      }
    }
  }

  private void write(List<OperationRecord> batch) {
    if (batch.isEmpty()) {
      return;
    }
    try {
      InsertValuesStep10<
              Record, String, String, String, String, Integer, Long, Long, String, String, Long>
          insert =
              jooq.insertInto(
                  OPERATIONS,
                  ACCOUNT,
                  METHOD,
                  VERB,
                  PATH,
                  STATUS,
                  FIRST_BYTE,
                  DURATION,
                  REPLICA,
                  AGENT,
                  STARTED_AT);
      for (OperationRecord r : batch) {
        insert =
            insert.values(
                cut(r.account(), NAME_LENGTH),
                cut(r.method(), 16),
                cut(r.verb(), 32),
                cut(r.path(), PATH_LENGTH),
                r.status(),
                r.timeToFirstByteMs(),
                r.durationMs(),
                cut(r.replica(), NAME_LENGTH),
                cut(r.agentId(), NAME_LENGTH),
                r.startedAt().toEpochMilli());
      }
      insert.execute();
    } catch (RuntimeException e) {
      droppedWriteFailed.increment(batch.size());
      warn("could not write " + batch.size() + " operations to " + TABLE + ": " + e.getMessage());
    }
  }

  private void purgeQuietly() {
    try {
      int deleted = purge();
      if (deleted > 0) {
        log.debug("Deleted {} operations older than {} from {}", deleted, maxAge, TABLE);
      }
    } catch (RuntimeException e) {
      log.warn(
          "Could not delete old operations from {} (spinagent.operations.history.max-age {}): {}",
          TABLE,
          maxAge,
          e.getMessage());
    }
  }

  /**
   * At most once a minute: a slow database would otherwise flood the log it is slow to report in.
   */
  private void warn(String message) {
    long now = System.currentTimeMillis();
    long last = lastWarning.get();
    if (now - last >= WARN_EVERY_MILLIS && lastWarning.compareAndSet(last, now)) {
      log.warn("Operation history: {}", message);
    }
  }

  private static String cut(String value, int length) {
    return value.length() <= length ? value : value.substring(0, length);
  }
}
