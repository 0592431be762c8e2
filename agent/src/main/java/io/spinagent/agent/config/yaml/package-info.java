/**
 * Reading the files the agent is given within limits ({@link
 * io.spinagent.agent.config.yaml.BoundedFiles}, {@link
 * io.spinagent.agent.config.yaml.BoundedYaml}), its configuration file as a tree of YAML nodes that
 * remember where each value was written, the problems found there, and YAML written as the docs lay
 * it out. Uses none of the agent's other packages.
 */
package io.spinagent.agent.config.yaml;
