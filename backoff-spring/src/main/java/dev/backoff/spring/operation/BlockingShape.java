package dev.backoff.spring.operation;

import java.util.concurrent.CompletionStage;

import dev.backoff.BackoffExecutor;
import dev.backoff.BackoffListener;
import dev.backoff.BackoffPolicy;
import dev.backoff.BackoffTask;
import dev.backoff.OverloadControls;
import org.jspecify.annotations.Nullable;

/**
 * A method that returns a plain value, or nothing: the calling thread runs the attempts and
 * waits. Asked last, it takes every method the other shapes leave, and refuses a type whose
 * result comes later (a {@code Future}, a publisher): its failure would come after the call
 * had ended, so it could never be retried.
 */
final class BlockingShape implements ReturnShape {

	/** A plain value, or nothing. */
	static final Invoker VALUE = new Invoker() {

		@Override
		public @Nullable Object invoke(BackoffOperation operation, BackoffTask<@Nullable Object> attempt,
				@Nullable Object receiver, @Nullable Object[] arguments) throws Throwable {
			BackoffOperation.State state = operation.getState();
			ObservedCall observed = operation.observe(null);
			BackoffListener listener = (observed != null) ? observed.listener() : operation.getListener();
			BackoffTask<@Nullable Object> task = (observed != null) ? observed.wrap(attempt) : attempt;
			BackoffPolicy policy = operation.policyFor(state);
			Fallback fallback = operation.getFallback();
			if (fallback == null) {
				return execute(operation.getExecutor(), state, policy, listener, task);
			}
			try {
				return execute(operation.getExecutor(), state, policy, listener, task);
			}
			catch (Throwable ex) {
				// The thread is back outside this call's attempts: what encloses it is the caller's.
				if (!operation.fallsBack(ex, policy, operation.getExecutor().getEnclosingPolicy())) {
					throw ex;
				}
				return fallback.invoke(receiver, arguments, ex);
			}
		}

		@Override
		public boolean isBlocking() {
			return true;
		}

	};

	/**
	 * A method declared to return {@code Object}, retried as a blocking one; a result that is a
	 * future or a publisher is refused at run time.
	 */
	static final Invoker OBJECT = new Invoker() {

		@Override
		public @Nullable Object invoke(BackoffOperation operation, BackoffTask<@Nullable Object> attempt,
				@Nullable Object receiver, @Nullable Object[] arguments) throws Throwable {
			Object result = VALUE.invoke(operation, attempt, receiver, arguments);
			if (result != null && (result instanceof CompletionStage<?> || ReturnShape.isDeferred(result.getClass()))) {
				throw new IllegalStateException("@Backoff method " + operation.getMethodTag() + " is declared to return "
						+ "Object but returned a " + result.getClass().getName() + ", which cannot be retried: its "
						+ "failure comes after the call has returned. Declare the return type as CompletableFuture or "
						+ "CompletionStage (or Mono or Flux), so that its attempts are retried as they complete.");
			}
			return result;
		}

		@Override
		public boolean isBlocking() {
			return true;
		}

	};

	/** Runs a blocking call, under the policy's overload controls when it has any. */
	private static @Nullable Object execute(BackoffExecutor executor, BackoffOperation.State state, BackoffPolicy policy,
			BackoffListener listener, BackoffTask<@Nullable Object> task) throws Throwable {
		OverloadControls controls = state.controls();
		if (controls == null) {
			return executor.execute(policy, state.budget(), listener, task);
		}
		return controls.execute(executor, policy, state.budget(), listener, task);
	}

	@Override
	public Invoker invoker(Returned returned, String where) {
		Class<?> type = returned.type();
		if (ReturnShape.isDeferred(type)) {
			throw ReturnShape.unsupported(type, where);
		}
		// Object may hold a future or a publisher, which a blocking retry would hand back unretried.
		return (type == Object.class) ? OBJECT : VALUE;
	}

}
