package dev.backoff.spring.operation;

import java.lang.reflect.Method;

import kotlin.coroutines.Continuation;
import kotlin.coroutines.CoroutineContext;
import kotlinx.coroutines.Job;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;

import org.springframework.core.CoroutinesUtils;
import org.springframework.core.ReactiveAdapter;

/**
 * Kotlin's {@code suspend} functions and {@code Flow}, retried through the Reactor paths of
 * {@link ReactorRetry} ({@link CoroutineShape} chooses them). Spring AOP already bridges a {@code suspend} function: proceeding
 * with its invocation returns a {@code Mono} (a {@code Flux} for one that returns
 * {@code Flow}) that runs the function in the caller's coroutine context, and the proxy
 * awaits whatever the advice returns. So a {@code suspend} function is retried as a
 * {@code Mono} is, each attempt a new coroutine, each wait a Reactor delay, and cancelling
 * the caller's coroutine cancels the subscription: the pending wait and the attempt in
 * flight. A {@code Flow} is adapted to a {@code Flux} for each attempt and back, so that each
 * collection is one call, as each subscription of a {@code Flux} is. Kept apart so that
 * Kotlin stays optional: loaded only for such methods.
 */
final class Coroutines {

	private Coroutines() {
	}

	/** @return a publisher of what a method returned, or {@code null} for {@code null} */
	static @Nullable Publisher<?> toPublisher(ReactiveAdapter adapter, @Nullable Object result) {
		return (result != null) ? adapter.toPublisher(result) : null;
	}

	/**
	 * Invokes a {@code suspend} fallback in the calling coroutine's context, without its job,
	 * as Spring AOP invokes the method itself: the caller's cancellation reaches it through
	 * the subscription of what it returns.
	 * @param fallback the fallback
	 * @param receiver what to call it on
	 * @param arguments its arguments, without a {@code Continuation}
	 * @param continuation the calling coroutine's continuation: the method's last argument
	 * @return a {@code Mono} of what it returns, or a {@code Flux} if it returns {@code Flow}
	 */
	static Publisher<?> invokeSuspending(Method fallback, @Nullable Object receiver, @Nullable Object[] arguments,
			@Nullable Object continuation) {
		CoroutineContext context = (continuation instanceof Continuation<?> caller)
				? caller.getContext().minusKey(Job.Key) : kotlinx.coroutines.Dispatchers.getUnconfined();
		return CoroutinesUtils.invokeSuspendingFunction(context, fallback, receiver, arguments);
	}

}
