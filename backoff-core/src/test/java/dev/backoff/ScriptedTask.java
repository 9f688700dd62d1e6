package dev.backoff;

import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

/**
 * An attempt that follows a script: each call returns the next value, or throws it when it is
 * a {@link Throwable}; the last entry repeats once the script runs out. Counts its calls.
 */
final class ScriptedTask<T extends @Nullable Object> implements BackoffTask<T> {

	private final List<@Nullable Object> script;

	private int calls;

	private ScriptedTask(List<@Nullable Object> script) {
		this.script = script;
	}

	static <T extends @Nullable Object> ScriptedTask<T> of(@Nullable Object... outcomes) {
		return new ScriptedTask<>(Arrays.asList(outcomes));
	}

	@Override
	@SuppressWarnings("unchecked")
	public T run() throws Throwable {
		@Nullable Object outcome = this.script.get(Math.min(this.calls, this.script.size() - 1));
		this.calls++;
		if (outcome instanceof Throwable failure) {
			throw failure;
		}
		return (T) outcome;
	}

	/** @return this task as a {@link Callable}, throwing checked failures as they are */
	Callable<T> callable() {
		return () -> {
			try {
				return run();
			}
			catch (Throwable ex) {
				throw ScriptedTask.<Exception>sneaky(ex);
			}
		};
	}

	/** @return this task as a {@link Supplier}, throwing checked failures as they are */
	Supplier<T> supplier() {
		return () -> {
			try {
				return run();
			}
			catch (Throwable ex) {
				throw ScriptedTask.<RuntimeException>sneaky(ex);
			}
		};
	}

	int calls() {
		return this.calls;
	}

	@SuppressWarnings("unchecked")
	private static <E extends Throwable> E sneaky(Throwable failure) throws E {
		throw (E) failure;
	}

}
