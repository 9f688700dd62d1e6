package dev.backoff.autoconfigure;

import dev.backoff.spring.config.BackoffSettings;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * {@code backoff.*} bound by Spring Boot from {@code application.yml}: the settings of
 * {@link BackoffSettings}, whose descriptions the IDE shows from this module's configuration
 * metadata. Boot's binding adds relaxed names and the strict check of unknown keys.
 */
@ConfigurationProperties("backoff")
public class BackoffProperties extends BackoffSettings {

}
