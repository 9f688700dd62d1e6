package org.springframework.cloud.context.environment;

import java.util.Set;

import org.springframework.context.ApplicationEvent;

/**
 * A stand-in for Spring Cloud Context's event of the same name, with its shape (an
 * {@link ApplicationEvent} carrying the changed keys): no Spring Cloud Context release that
 * works with Spring Boot 4.1 can be resolved on this project's machines, and Backoff matches
 * the event by class name, so this class on the test class path is what the real one would be.
 */
public class EnvironmentChangeEvent extends ApplicationEvent {

	private final Set<String> keys;

	public EnvironmentChangeEvent(Set<String> keys) {
		super(keys);
		this.keys = keys;
	}

	public Set<String> getKeys() {
		return this.keys;
	}

}
