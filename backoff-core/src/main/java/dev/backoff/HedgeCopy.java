package dev.backoff;

import java.util.concurrent.CompletionStage;
import java.util.concurrent.Future;
import java.util.function.BiConsumer;

import org.jspecify.annotations.Nullable;

/**
 * A copy of a {@link HedgedCall} in flight: its stage, to cancel it, its attempt number, and
 * whether it is a hedge; it hands its answer to the call.
 */
final class HedgeCopy<T extends @Nullable Object> implements BiConsumer<T, @Nullable Throwable> {

	private final HedgedCall<T> call;

	final CompletionStage<T> stage;

	final int attempt;

	final boolean hedge;

	volatile @Nullable Future<?> timer;

	HedgeCopy(HedgedCall<T> call, CompletionStage<T> stage, int attempt, boolean hedge) {
		this.call = call;
		this.stage = stage;
		this.attempt = attempt;
		this.hedge = hedge;
	}

	@Override
	public void accept(@Nullable T result, @Nullable Throwable failure) {
		this.call.completed(this, result, failure);
	}

	void cancelTimer() {
		Future<?> timer = this.timer;
		if (timer != null) {
			timer.cancel(false);
		}
	}

}
