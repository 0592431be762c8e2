/**
 * Armory Scale Agent compatibility: every key of Armory's agent configuration and what SpinAgent
 * does with it ({@link io.spinagent.agent.armory.ArmoryAgentKeys}), and the rewrites that carry a
 * file over to SpinAgent's forms. The binder follows the table; {@code convert} writes the
 * rewrites. Uses {@code config.yaml} only.
 */
package io.spinagent.agent.armory;
