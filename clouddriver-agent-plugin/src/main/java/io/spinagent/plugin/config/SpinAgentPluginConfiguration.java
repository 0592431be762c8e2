package io.spinagent.plugin.config;

import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Configuration;

@Configuration
@EnableConfigurationProperties(SpinAgentProperties.class)
public class SpinAgentPluginConfiguration {}
