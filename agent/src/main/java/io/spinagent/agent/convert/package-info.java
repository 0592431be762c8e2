/**
 * {@code spinagent-agent convert-armory}: turns configuration written for Armory Scale Agent into
 * SpinAgent's. The agent's file is converted as the agent's own binder reads it (the binder records
 * every Armory spelling, value form and unused setting it meets, see {@link
 * io.spinagent.agent.armory.ArmoryAgentKeys}); the plugin's {@code kubesvc.*} block by the table in
 * {@link io.spinagent.agent.convert.ArmoryPluginKeys}. Uses {@code armory}, {@code config.binding}
 * (to read the agent's file as the agent does) and {@code config.yaml}.
 */
package io.spinagent.agent.convert;
