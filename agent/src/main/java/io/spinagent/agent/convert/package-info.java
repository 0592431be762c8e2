/**
 * {@code spinagent-agent convert-armory}: turns configuration written for Armory Scale Agent into
 * SpinAgent's. The agent's file is converted as the agent's own binder reads it (the binder records
 * every Armory spelling, value form and unused setting it meets, see {@link
 * io.spinagent.agent.config.ArmoryAgentKeys}); the plugin's {@code kubesvc.*} block by the table in
 * {@link io.spinagent.agent.convert.ArmoryPluginKeys}. Depends on {@code config} only.
 */
package io.spinagent.agent.convert;
