package dev.backoff.spring.aot;

import dev.backoff.BackoffCall;
import dev.backoff.RetryBudget;
import org.jspecify.annotations.Nullable;

import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.util.ReflectionUtils;

/**
 * The hints every application with Backoff needs in a native image, whatever its beans: the
 * fields that {@code BackoffCall} and {@code RetryBudget} update through a {@code VarHandle},
 * and the optional neighbours whose presence Backoff asks at run time with
 * {@code ClassUtils.isPresent} (Reactor for {@code Mono}/{@code Flux} methods, WebFlux for
 * {@code WebClient} failures, spring-tx for transactions and data-access failures), so that a
 * native image answers as the JVM does.
 */
public class BackoffRuntimeHints implements RuntimeHintsRegistrar {

	/** The classes whose presence Backoff asks at run time. */
	static final String[] OPTIONAL_TYPES = { "reactor.core.publisher.Mono", "reactor.core.publisher.Flux",
			"org.reactivestreams.Publisher",
			"org.springframework.web.reactive.function.client.WebClientResponseException",
			"org.springframework.transaction.support.TransactionSynchronizationManager",
			"org.springframework.dao.DataAccessException" };

	@Override
	public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
		hints.reflection().registerField(ReflectionUtils.findField(BackoffCall.class, "ended"));
		hints.reflection().registerField(ReflectionUtils.findField(RetryBudget.class, "milliTokens"));
		for (String type : OPTIONAL_TYPES) {
			hints.reflection().registerTypeIfPresent(classLoader, type);
		}
	}

}
