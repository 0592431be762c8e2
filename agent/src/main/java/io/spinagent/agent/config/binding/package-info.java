/**
 * From the configuration file to the typed configuration: {@link
 * io.spinagent.agent.config.binding.ConfigLoader} reads the file and its overlay, binds them with
 * every problem collected at once, and records the Armory Scale Agent forms it meets for {@code
 * convert-armory}; the account definitions Clouddriver sends are bound by the same rules. Also what
 * the agent prints of its configuration, and the watch that reloads it. Uses {@code config}, {@code
 * config.yaml} and {@code armory}.
 */
package io.spinagent.agent.config.binding;
