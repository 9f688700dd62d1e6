package dev.backoff.spring.operation;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import dev.backoff.BackoffExecutor;
import dev.backoff.BackoffListener;
import dev.backoff.BackoffPolicy;
import dev.backoff.BackoffTask;
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
				executor.start(state.policy(), state.budget(), listener, null), operation.latencies(state.policy()),
				state.hedgeTokens(), () -> (CompletionStage<@Nullable Object>) BackoffOperation.run(task),
				operation.getScheduler());
		return (fallback != null) ? fallback.afterAsync(call, receiver, arguments,
				(failure) -> operation.fallsBack(failure, state.policy(), enclosing)) : call;
	}

}
