package dev.backoff.spring.operation;

import java.util.function.UnaryOperator;

import dev.backoff.BackoffTask;
import dev.backoff.spring.config.BackoffConfigurationException;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;

import org.springframework.core.KotlinDetector;
import org.springframework.core.ReactiveAdapter;
import org.springframework.core.ReactiveAdapterRegistry;
import org.springframework.util.ClassUtils;

/**
 * Kotlin: a {@code suspend} function, retried as a {@code Mono} (as a {@code Flux} if it
 * returns {@code Flow}), which is what Spring AOP proceeds with; and a method that returns
 * {@code Flow}, through a {@code Flux} (see {@link Coroutines}). Kotlin's own types are
 * touched only for such methods, so that Kotlin stays optional.
 */
final class CoroutineShape implements ReturnShape {

	/** Spring AOP runs a {@code suspend} function as a {@code Mono} only with kotlinx-coroutines-reactor. */
	private static final boolean COROUTINES_REACTOR_PRESENT = ClassUtils.isPresent("kotlinx.coroutines.reactor.MonoKt",
			CoroutineShape.class.getClassLoader());

	private static final String FLOW = "kotlinx.coroutines.flow.Flow";

	@Override
	public @Nullable Invoker invoker(Returned returned, String where) {
		boolean flow = returned.type().getName().equals(FLOW);
		if (returned.suspending()) {
			if (!REACTOR_PRESENT || !COROUTINES_REACTOR_PRESENT || !KotlinDetector.isKotlinReflectPresent()) {
				throw new BackoffConfigurationException("return type" + where, "suspend",
						"needs Spring's coroutine support, which runs a suspend function as a Mono",
						"Add org.jetbrains.kotlinx:kotlinx-coroutines-reactor and org.jetbrains.kotlin:kotlin-reflect.");
			}
			return flow ? new Suspending(ReactorRetry.FLUX, adapter(returned.type())) : new Suspending(ReactorRetry.MONO, null);
		}
		if (!flow) {
			return null;
		}
		ReactiveAdapter adapter = adapter(returned.type());
		if (adapter == null) {
			throw new BackoffConfigurationException("return type" + where, FLOW,
					"needs Spring's adapter of Flow to a Flux, which Reactor and kotlinx-coroutines-reactor give",
					"Add io.projectreactor:reactor-core and org.jetbrains.kotlinx:kotlinx-coroutines-reactor.");
		}
		return new FlowInvoker(adapter);
	}

	/** @return Spring's adapter of Kotlin's {@code Flow}, when Reactor is present */
	private static @Nullable ReactiveAdapter adapter(Class<?> flow) {
		return REACTOR_PRESENT ? ReactiveAdapterRegistry.getSharedInstance().getAdapter(flow) : null;
	}

	/**
	 * A {@code suspend} function, proceeded with as a {@code Mono} or a {@code Flux}.
	 * @param reactor the Reactor invoker of what it is proceeded with
	 * @param flow the adapter of the {@code Flow} it returns, or {@code null} for one value
	 */
	private record Suspending(Invoker reactor, @Nullable ReactiveAdapter flow) implements Invoker {

		@Override
		public @Nullable Object invoke(BackoffOperation operation, BackoffTask<@Nullable Object> attempt,
				@Nullable Object receiver, @Nullable Object[] arguments) throws Throwable {
			return this.reactor.invoke(operation, attempt, receiver, arguments);
		}

		@Override
		public boolean returnsOneValue() {
			return this.flow == null;
		}

		@Override
		public UnaryOperator<@Nullable Object> fallbackResult() {
			ReactiveAdapter flow = this.flow;
			return (flow != null) ? (value) -> Coroutines.toPublisher(flow, value)
					: Mono::justOrEmpty;
		}

	}

	/** A method that returns {@code Flow} without being a {@code suspend} function. */
	private record FlowInvoker(ReactiveAdapter adapter) implements Invoker {

		@Override
		public Object invoke(BackoffOperation operation, BackoffTask<@Nullable Object> attempt,
				@Nullable Object receiver, @Nullable Object[] arguments) {
			return this.adapter.fromPublisher(ReactorRetry.flux(operation,
					() -> Coroutines.toPublisher(this.adapter, attempt.run()), receiver, arguments));
		}

		@Override
		public boolean returnsOneValue() {
			return false;
		}

		@Override
		public UnaryOperator<@Nullable Object> fallbackResult() {
			return (value) -> Coroutines.toPublisher(this.adapter, value);
		}

	}

}
