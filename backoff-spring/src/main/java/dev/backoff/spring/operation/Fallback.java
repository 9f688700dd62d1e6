package dev.backoff.spring.operation;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Predicate;

import org.jspecify.annotations.Nullable;

import org.springframework.util.ReflectionUtils;

/**
 * The fallback method of a {@code @Backoff} method, called with the same arguments, plus the
 * final failure when it declares a last parameter for it, once the call has finally failed.
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
 */
final class Fallback {

	private final Method method;

	/** The type of the last parameter that takes the failure, or {@code null} for none. */
	private final @Nullable Class<?> failureType;

	private final boolean viaProxy;

	Fallback(Method method, @Nullable Class<?> failureType) {
		this.method = method;
		this.failureType = failureType;
		int modifiers = method.getModifiers();
		this.viaProxy = Modifier.isPublic(modifiers) && !Modifier.isFinal(modifiers) && !Modifier.isStatic(modifiers);
		ReflectionUtils.makeAccessible(method);
	}

	String getName() {
		return this.method.getName();
	}

	/**
	 * @param failure a call's final failure
	 * @return whether this fallback answers for it
	 */
	boolean handles(Throwable failure) {
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
		@Nullable Object[] fallbackArguments = arguments;
		if (this.failureType != null) {
			fallbackArguments = Arrays.copyOf(arguments, arguments.length + 1);
			fallbackArguments[arguments.length] = failure;
		}
		try {
			return this.method.invoke(receiver, fallbackArguments);
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
