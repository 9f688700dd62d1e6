package dev.backoff.spring.operation;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Flow;
import java.util.concurrent.Future;

import dev.backoff.spring.config.BackoffConfigurationException;
import org.jspecify.annotations.Nullable;

import org.springframework.core.KotlinDetector;
import org.springframework.core.MethodParameter;
import org.springframework.util.ClassUtils;

/**
 * One shape of return type (blocking, {@code CompletionStage}, Reactor, Kotlin coroutines) and
 * how its calls are retried. A method's shape is the first of {@link #ALL} that recognises it:
 * a new shape is one class and one line there, before {@link BlockingShape}, which takes the rest.
 */
interface ReturnShape {

	boolean REACTOR_PRESENT = ClassUtils.isPresent("reactor.core.publisher.Mono", ReturnShape.class.getClassLoader());

	/** Reactive Streams' {@code Publisher}, when on the class path. */
	@Nullable Class<?> PUBLISHER = ClassUtils.isPresent("org.reactivestreams.Publisher", ReturnShape.class.getClassLoader())
			? ClassUtils.resolveClassName("org.reactivestreams.Publisher", ReturnShape.class.getClassLoader()) : null;

	/** Every shape, in the order they are asked; the blocking one, which takes the rest, last. */
	List<ReturnShape> ALL = shapes();

	/**
	 * @param returned what a method returns to its caller
	 * @param where where the method is, for an error, such as {@code  on QuoteClient.fetch}
	 * @return the invoker of a method of this shape, or {@code null} when the method is not of it
	 * @throws BackoffConfigurationException when it is, but cannot be retried with what is on
	 * the class path
	 */
	@Nullable Invoker invoker(Returned returned, String where);

	/**
	 * @param returned what a method returns to its caller
	 * @param where where the method is, for an error
	 * @return the invoker of the first shape that recognises it
	 */
	static Invoker of(Returned returned, String where) {
		for (ReturnShape shape : ALL) {
			Invoker invoker = shape.invoker(returned, where);
			if (invoker != null) {
				return invoker;
			}
		}
		throw new IllegalStateException("BlockingShape takes every method");
	}

	private static List<ReturnShape> shapes() {
		List<ReturnShape> shapes = new ArrayList<>();
		shapes.add(new CoroutineShape());
		shapes.add(new CompletionStageShape());
		if (REACTOR_PRESENT) {
			shapes.add(new ReactorRetry());
		}
		shapes.add(new BlockingShape());
		return List.copyOf(shapes);
	}

	/** The error for a type that no shape retries. */
	static BackoffConfigurationException unsupported(Class<?> type, String where) {
		return new BackoffConfigurationException("return type" + where, type.getName(),
				"cannot be retried without blocking a thread or losing the caller's handle on the call",
				"Return a plain value, CompletionStage or CompletableFuture"
						+ (REACTOR_PRESENT ? ", Mono or Flux" : " (or Mono/Flux with reactor-core on the class path)")
						+ ".");
	}

	/** Whether a method hands its result over later, which a blocking retry cannot see fail. */
	static boolean isDeferred(Class<?> type) {
		return Future.class.isAssignableFrom(type) || Flow.Publisher.class.isAssignableFrom(type)
				|| (PUBLISHER != null && PUBLISHER.isAssignableFrom(type));
	}

	/**
	 * What a method returns to its caller.
	 * @param type the return type; for a Kotlin {@code suspend} function, what it returns to its caller
	 * @param suspending whether it is a {@code suspend} function
	 */
	record Returned(Class<?> type, boolean suspending) {

		static Returned of(Method method) {
			boolean suspending = KotlinDetector.isSuspendingFunction(method);
			return new Returned(suspending ? new MethodParameter(method, -1).getParameterType() : method.getReturnType(),
					suspending);
		}

		static Returned of(Class<?> type) {
			return new Returned(type, false);
		}

	}

}
