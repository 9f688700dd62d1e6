package dev.backoff.autoconfigure;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import org.jspecify.annotations.Nullable;

import org.springframework.util.ReflectionUtils;

/**
 * The fallback method of a {@code @Backoff} method: called on the target bean (not through
 * its proxy) with the same arguments, plus the final failure when it declares a last
 * parameter for it, once the call has finally failed.
 */
final class Fallback {

	private final Method method;

	private final boolean takesFailure;

	Fallback(Method method, boolean takesFailure) {
		this.method = method;
		this.takesFailure = takesFailure;
		ReflectionUtils.makeAccessible(method);
	}

	String getName() {
		return this.method.getName();
	}

	/**
	 * @return what the fallback returns
	 * @throws Throwable what the fallback throws, unwrapped
	 */
	@Nullable Object invoke(@Nullable Object target, @Nullable Object[] arguments, Throwable failure) throws Throwable {
		@Nullable Object[] fallbackArguments = arguments;
		if (this.takesFailure) {
			fallbackArguments = Arrays.copyOf(arguments, arguments.length + 1);
			fallbackArguments[arguments.length] = failure;
		}
		try {
			return this.method.invoke(target, fallbackArguments);
		}
		catch (InvocationTargetException ex) {
			throw ex.getTargetException();
		}
	}

	/**
	 * Continues an asynchronous call with the fallback when it fails. Cancelling the returned
	 * future cancels the call.
	 */
	CompletableFuture<@Nullable Object> afterAsync(CompletableFuture<@Nullable Object> call, @Nullable Object target,
			@Nullable Object[] arguments) {
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
			try {
				@SuppressWarnings("unchecked")
				CompletionStage<@Nullable Object> stage = (CompletionStage<@Nullable Object>) invoke(target, arguments,
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
