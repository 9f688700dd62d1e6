package dev.backoff.spring;

import org.springframework.context.annotation.Configuration;

/**
 * The application's configuration in tests of backoff-spring's behaviour: {@link EnableBackoff}
 * and nothing else, given to an {@code ApplicationContextRunner} with
 * {@code withUserConfiguration}; policies come from {@code withPropertyValues}.
 */
@Configuration(proxyBeanMethods = false)
@EnableBackoff
public class EnabledBackoff {

}
