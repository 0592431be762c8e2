package io.spinagent.plugin.grpc.session;

import io.spinagent.plugin.accounts.AccountRegistry;
import io.spinagent.plugin.accounts.AgentWelcomeListener;
import io.spinagent.plugin.cache.ChangeSink;
import io.spinagent.plugin.cache.ResumePoints;
import io.spinagent.plugin.config.SpinAgentProperties;
import java.time.Clock;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;

/** What every session of this replica shares. */
public record SessionContext(
    String replicaId,
    SpinAgentProperties.Sessions settings,
    SessionRegistry sessions,
    AccountRegistry accounts,
    AgentWelcomeListener welcomeListener,
    ChangeSink sink,
    ResumePoints resumePoints,
    Executor sinkExecutor,
    ScheduledExecutorService scheduler,
    ChannelMetrics metrics,
    Clock clock) {}
