package dev.backoff.spring.operation;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import dev.backoff.BackoffCall;
import dev.backoff.BackoffExecutor;
import dev.backoff.BackoffListener;
import dev.backoff.BackoffPolicy;
import dev.backoff.BackoffTask;
import dev.backoff.OverloadControls;
import org.jspecify.annotations.Nullable;

/**
 * A method that returns a {@code CompletionStage} or {@code CompletableFuture}: each attempt's
 * stage is awaited without a thread, and the waits are scheduled.
 */
final class CompletionStageShape implements ReturnShape {

	static final Invoker INVOKER = CompletionStageShape::invokeAsync;

	@Override
	public @Nullable Invoker invoker(Returned returned, String where) {
		Class<?> type = returned.type();
		if (returned.suspending() || !CompletionStage.class.isAssignableFrom(type)) {
			return null;
		}
		if (type != CompletionStage.class && type != CompletableFuture.class) {
			throw ReturnShape.unsupported(type, where);
		}
		return INVOKER;
	}

	@SuppressWarnings("unchecked")
	private static CompletableFuture<@Nullable Object> invokeAsync(BackoffOperation operation,
			BackoffTask<@Nullable Object> attempt, @Nullable Object receiver, @Nullable Object[] arguments) {
		Fallback fallback = operation.getFallback();
		// Read before the call starts: its failure arrives on another thread.
		BackoffPolicy enclosing = (fallback != null) ? operation.getExecutor().getEnclosingPolicy() : null;
		BackoffOperation.State state = operation.getState();
		ObservedCall observed = operation.observe(null);
		BackoffListener listener = (observed != null) ? observed.listener() : operation.getListener();
		BackoffTask<@Nullable Object> task = (observed != null) ? observed.wrap(attempt) : attempt;
		BackoffExecutor executor = operation.getExecutor();
		CompletableFuture<@Nullable Object> call = executor.executeAsync(
				start(executor, state, listener, null), operation.latencies(state.policy()),
				state.hedgeTokens(), () -> (CompletionStage<@Nullable Object>) BackoffOperation.run(task),
				operation.getScheduler());
		return (fallback != null) ? fallback.afterAsync(call, receiver, arguments,
				(failure) -> operation.fallsBack(failure, state.policy(), enclosing)) : call;
	}

	/** Starts a call under the state's policy and budget, and its overload controls if it has any. */
	static BackoffCall start(BackoffExecutor executor, BackoffOperation.State state, BackoffListener listener,
			@Nullable BackoffPolicy enclosing) {
		OverloadControls controls = state.controls();
		return (controls != null) ? controls.start(executor, state.policy(), state.budget(), listener, enclosing)
				: executor.start(state.policy(), state.budget(), listener, enclosing);
	}

}
