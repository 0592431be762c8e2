/**
 * The agent's typed configuration: {@link io.spinagent.agent.config.AgentConfig} and the records it
 * is made of, each with its documented defaults, and the proxy settings of the environment. Every
 * other package reads these; this one uses none of the agent's others. The file is read and bound
 * to them by {@code config.binding}.
 */
package io.spinagent.agent.config;
