package io.spinagent.plugin.grpc;

import io.micrometer.core.instrument.MeterRegistry;
import io.spinagent.plugin.accounts.AccountRegistry;
import io.spinagent.plugin.accounts.AgentWelcomeListener;
import io.spinagent.plugin.cache.ChangeSink;
import io.spinagent.plugin.cache.ResumePoints;
import io.spinagent.plugin.config.SpinAgentProperties;
import io.spinagent.plugin.grpc.session.SessionRegistry;
import java.time.Clock;

/**
 * What the agent channel's sessions work with, gathered once (a bean in the plugin, a fixture in
 * specs) so that it travels as one value to {@link AgentChannel#start}.
 *
 * @param replicaId this Clouddriver replica, as agents and other replicas know it
 * @param welcomeListener told of each agent that connects, and asked first about its claims
 */
public record ChannelParts(
    SpinAgentProperties properties,
    String replicaId,
    AccountRegistry accounts,
    AgentWelcomeListener welcomeListener,
    SessionRegistry sessions,
    ChangeSink sink,
    ResumePoints resumePoints,
    MeterRegistry meters,
    Clock clock) {}
