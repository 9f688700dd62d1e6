package dev.backoff.spring.operation;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Predicate;
import java.util.function.UnaryOperator;

import org.jspecify.annotations.Nullable;

import org.springframework.core.KotlinDetector;
import org.springframework.util.ReflectionUtils;

/**
 * The fallback method of a {@code @Backoff} method, called with the same arguments, plus the
 * final failure when it declares a parameter for it, once the call has finally failed. The
 * failure parameter comes last (as in Resilience4j) or first (as in Spring Retry's
 * {@code @Recover}). Overloads of the fallback's name that take different failure types are
 * all kept, as Spring Retry keeps its {@code @Recover} methods: a failure goes to the one whose
 * failure parameter is the most specific type it is an instance of, then to one without a
 * failure parameter.
 *
 * <p>It answers for {@link Exception}s, or only for those of its failure parameter's type when
 * that is narrower. An {@link Error} (an {@code OutOfMemoryError}, a
 * {@code StackOverflowError}) is not a failure to answer with a value: it reaches the caller,
 * unless the failure parameter names an {@code Error} type that it is an instance of.
 *
 * <p>A public fallback is called through the proxy, as Spring Retry calls its
 * {@code @Recover} methods, so that advice on it (its own {@code @Transactional}, say) applies,
 * and so that a default method of an interface client with no target object can answer; any
 * other fallback is called on the target bean.
 *
 * <p>The fallback of a Kotlin {@code suspend} function is called without the call's
 * {@code Continuation}; a {@code suspend} fallback runs in the calling coroutine's context
 * and answers with a {@code Mono} (see {@link Coroutines#invokeSuspending}).
 */
final class Fallback {

	private final Method method;

	/** The type of the parameter that takes the failure, or {@code null} for none. */
	private final @Nullable Class<?> failureType;

	/** Whether the failure parameter comes first (Spring Retry's shape) rather than last. */
	private final boolean failureFirst;

	/** Another overload, asked when this one does not take a failure; ordered most specific first. */
	private final @Nullable Fallback overload;

	private final boolean viaProxy;

	/** Whether the call's last argument is a {@code Continuation} that the fallback does not take. */
	private final boolean suspendingCall;

	/** Whether the fallback is a {@code suspend} function. */
	private final boolean suspending;

	/** Makes what a plain fallback returns into what the method's invoker expects, or {@code null}. */
	private final @Nullable UnaryOperator<@Nullable Object> result;

	Fallback(Method method, @Nullable Class<?> failureType) {
		this(method, failureType, false, null, false, null);
	}

	/**
	 * @param method the fallback
	 * @param failureType the type of its parameter that takes the failure, or {@code null}
	 * @param failureFirst whether that parameter comes first rather than last
	 * @param overload another overload of the name, asked when this one does not take a failure
	 * @param suspendingCall whether the {@code @Backoff} method is a {@code suspend} function
	 * @param result adapts what a fallback that is not a {@code suspend} function returns, or {@code null}
	 */
	Fallback(Method method, @Nullable Class<?> failureType, boolean failureFirst, @Nullable Fallback overload,
			boolean suspendingCall, @Nullable UnaryOperator<@Nullable Object> result) {
		this.method = method;
		this.failureType = failureType;
		this.failureFirst = failureFirst;
		this.overload = overload;
		this.suspendingCall = suspendingCall;
		this.suspending = suspendingCall && KotlinDetector.isSuspendingFunction(method);
		this.result = result;
		int modifiers = method.getModifiers();
		// One receiver for every overload: the proxy only when each of them can be called on it.
		this.viaProxy = Modifier.isPublic(modifiers) && !Modifier.isFinal(modifiers) && !Modifier.isStatic(modifiers)
				&& (overload == null || overload.viaProxy);
		ReflectionUtils.makeAccessible(method);
	}

	String getName() {
		return this.method.getName();
	}

	/** @return the type of the failure parameter, or {@code null} for none */
	@Nullable Class<?> getFailureType() {
		return this.failureType;
	}

	/**
	 * @param failure a call's final failure
	 * @return whether this fallback, or one of its overloads, answers for it
	 */
	boolean handles(Throwable failure) {
		return select(failure) != null;
	}

	/** The first overload, most specific first, that takes the failure. */
	private @Nullable Fallback select(Throwable failure) {
		for (Fallback candidate = this; candidate != null; candidate = candidate.overload) {
			if (candidate.takes(failure)) {
				return candidate;
			}
		}
		return null;
	}

	private boolean takes(Throwable failure) {
		Class<?> type = this.failureType;
		if (failure instanceof Error) {
			return type != null && Error.class.isAssignableFrom(type) && type.isInstance(failure);
		}
		return type == null || type.isInstance(failure);
	}

	/**
	 * @param proxy the proxy the call came through, or {@code null} (AspectJ weaving)
	 * @param target the target bean, or {@code null} for a proxy without one
	 * @return what to call the fallback on
	 */
	@Nullable Object receiver(@Nullable Object proxy, @Nullable Object target) {
		return (this.viaProxy && this.method.getDeclaringClass().isInstance(proxy)) ? proxy : target;
	}

	/**
	 * @param receiver what to call the fallback on (see {@link #receiver})
	 * @return what the fallback returns
	 * @throws Throwable what the fallback throws, unwrapped
	 */
	@Nullable Object invoke(@Nullable Object receiver, @Nullable Object[] arguments, Throwable failure)
			throws Throwable {
		Fallback chosen = select(failure);
		if (chosen == null) {
			// Callers ask handles() first; an overload set that takes nothing of this failure leaves it to the caller.
			throw failure;
		}
		return chosen.call(receiver, arguments, failure);
	}

	private @Nullable Object call(@Nullable Object receiver, @Nullable Object[] arguments, Throwable failure)
			throws Throwable {
		// A suspend function's last argument is its caller's Continuation, which the fallback does not take.
		int count = this.suspendingCall ? arguments.length - 1 : arguments.length;
		@Nullable Object[] fallbackArguments = (count < arguments.length) ? Arrays.copyOf(arguments, count) : arguments;
		if (this.failureType != null) {
			fallbackArguments = new Object[count + 1];
			System.arraycopy(arguments, 0, fallbackArguments, this.failureFirst ? 1 : 0, count);
			fallbackArguments[this.failureFirst ? 0 : count] = failure;
		}
		if (this.suspending) {
			return Coroutines.invokeSuspending(this.method, receiver, fallbackArguments, arguments[count]);
		}
		try {
			Object value = this.method.invoke(receiver, fallbackArguments);
			return (this.result != null) ? this.result.apply(value) : value;
		}
		catch (InvocationTargetException ex) {
			throw ex.getTargetException();
		}
	}

	/**
	 * Continues an asynchronous call with the fallback when it fails with a failure that
	 * {@code fallsBack}. Cancelling the returned future cancels the call.
	 */
	CompletableFuture<@Nullable Object> afterAsync(CompletableFuture<@Nullable Object> call, @Nullable Object receiver,
			@Nullable Object[] arguments, Predicate<Throwable> fallsBack) {
		LinkedFuture result = new LinkedFuture(call);
		call.whenComplete((value, failure) -> {
			if (failure == null) {
				result.complete(value);
				return;
			}
			if (result.isCancelled()) {
				// The caller cancelled: nobody waits for a fallback.
				return;
			}
			if (!fallsBack.test(failure)) {
				result.completeExceptionally(failure);
				return;
			}
			try {
				@SuppressWarnings("unchecked")
				CompletionStage<@Nullable Object> stage = (CompletionStage<@Nullable Object>) invoke(receiver, arguments,
						failure);
				if (stage == null) {
					result.complete(null);
				}
				else {
					stage.whenComplete((fallbackValue, fallbackFailure) -> {
						if (fallbackFailure != null) {
							result.completeExceptionally(fallbackFailure);
						}
						else {
							result.complete(fallbackValue);
						}
					});
				}
			}
			catch (Throwable ex) {
				result.completeExceptionally(ex);
			}
		});
		return result;
	}

	/** A future whose cancellation cancels the call it follows. */
	private static final class LinkedFuture extends CompletableFuture<@Nullable Object> {

		private final CompletableFuture<?> call;

		LinkedFuture(CompletableFuture<?> call) {
			this.call = call;
		}

		@Override
		public boolean cancel(boolean mayInterruptIfRunning) {
			boolean cancelled = super.cancel(mayInterruptIfRunning);
			this.call.cancel(mayInterruptIfRunning);
			return cancelled;
		}

	}

}
