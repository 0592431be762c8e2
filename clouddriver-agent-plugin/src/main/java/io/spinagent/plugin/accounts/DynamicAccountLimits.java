package io.spinagent.plugin.accounts;

import java.time.Duration;

/**
 * What a request about dynamic accounts may cost.
 *
 * @param answerWait how long a request waits for the agents' answer before it answers 202 and the
 *     outcome is left to the account's state ({@code spinagent.accounts.command-timeout})
 * @param perAgent dynamic accounts one agent may be named to serve ({@code
 *     spinagent.accounts.max-dynamic-per-agent})
 * @param perZone dynamic accounts one zone may be named to serve ({@code
 *     spinagent.accounts.max-dynamic-per-zone})
 */
public record DynamicAccountLimits(Duration answerWait, int perAgent, int perZone) {}
