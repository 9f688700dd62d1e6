package dev.backoff.autoconfigure;

import java.lang.reflect.Method;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ScheduledExecutorService;

import dev.backoff.BackoffExecutor;
import dev.backoff.BackoffListener;
import dev.backoff.BackoffPolicy;
import dev.backoff.BackoffTask;
import org.jspecify.annotations.Nullable;

/**
 * The resolved {@code @Backoff} of one method on one target class: its policy name, its
 * effective policy (after inheritance and the annotation's overrides), and how its calls are
 * retried. Resolved once, at start-up, and used on every call.
 */
public final class BackoffOperation {

	/** How a return type is retried. */
	enum Kind {

		/** A plain value (or void): attempts block the calling thread between waits. */
		BLOCKING,

		/** A {@link CompletionStage}: waits are scheduled, no thread blocks. */
		COMPLETION_STAGE,

		/** A Reactor {@code Mono}: resubscribed through {@code retryWhen}. */
		MONO,

		/** A Reactor {@code Flux}: resubscribed through {@code retryWhen}. */
		FLUX

	}

	private final String policyName;

	private final Method method;

	private final Class<?> targetClass;

	private final BackoffPolicy policy;

	private final String methodTag;

	private final Kind kind;

	private final @Nullable Fallback fallback;

	private final BackoffExecutor executor;

	private final ScheduledExecutorService scheduler;

	/** Set once, right after construction, before the operation is published. */
	private BackoffListener listener = BackoffListener.NONE;

	BackoffOperation(String policyName, Method method, Class<?> targetClass, BackoffPolicy policy, Kind kind,
			@Nullable Fallback fallback, BackoffExecutor executor, ScheduledExecutorService scheduler) {
		this.policyName = policyName;
		this.method = method;
		this.targetClass = targetClass;
		this.policy = policy;
		this.methodTag = targetClass.getSimpleName() + "." + method.getName();
		this.kind = kind;
		this.fallback = fallback;
		this.executor = executor;
		this.scheduler = scheduler;
	}

	/** @return the policy's name under {@code backoff.policies}, or {@value BackoffPolicies#DEFAULTS} */
	public String getPolicyName() {
		return this.policyName;
	}

	/** @return the annotated method */
	public Method getMethod() {
		return this.method;
	}

	/** @return the class of the bean whose method it is */
	public Class<?> getTargetClass() {
		return this.targetClass;
	}

	/** @return the effective policy, after inheritance and the annotation's overrides */
	public BackoffPolicy getPolicy() {
		return this.policy;
	}

	/**
	 * @return {@code SimpleClassName.methodName}: the {@code method} tag of the metrics,
	 * bounded by the number of annotated methods
	 */
	public String getMethodTag() {
		return this.methodTag;
	}

	/** @return the name of the fallback method, or {@code null} for none */
	public @Nullable String getFallbackName() {
		return (this.fallback != null) ? this.fallback.getName() : null;
	}

	BackoffListener getListener() {
		return this.listener;
	}

	void setListener(BackoffListener listener) {
		this.listener = listener;
	}

	/**
	 * Runs one call of the method.
	 * @param attempt makes one attempt: re-invokes the rest of the call chain
	 * @param target the target bean, for the fallback
	 * @param arguments the call's arguments, for the fallback
	 * @return what the method returns
	 * @throws Throwable the original failure of the last attempt (or of the fallback)
	 */
	@Nullable Object invoke(BackoffTask<@Nullable Object> attempt, @Nullable Object target, @Nullable Object[] arguments)
			throws Throwable {
		if (this.kind == Kind.BLOCKING && this.fallback == null) {
			// The common case first, ahead of the switch.
			return this.executor.execute(this.policy, this.listener, attempt);
		}
		switch (this.kind) {
			case COMPLETION_STAGE:
				return invokeAsync(attempt, target, arguments);
			case MONO:
			case FLUX:
				return ReactorRetry.retry(this, attempt, target, arguments);
			default:
				if (this.fallback == null) {
					return this.executor.execute(this.policy, this.listener, attempt);
				}
				try {
					return this.executor.execute(this.policy, this.listener, attempt);
				}
				catch (Throwable ex) {
					return this.fallback.invoke(target, arguments, ex);
				}
		}
	}

	private CompletableFuture<@Nullable Object> invokeAsync(BackoffTask<@Nullable Object> attempt,
			@Nullable Object target, @Nullable Object[] arguments) {
		CompletableFuture<@Nullable Object> call = this.executor.executeAsync(this.policy, this.listener,
				() -> (CompletionStage<@Nullable Object>) Fallback.sneaky(attempt), this.scheduler);
		Fallback fallback = this.fallback;
		return (fallback != null) ? fallback.afterAsync(call, target, arguments) : call;
	}

	BackoffExecutor getExecutor() {
		return this.executor;
	}

	ScheduledExecutorService getScheduler() {
		return this.scheduler;
	}

	@Nullable Fallback getFallback() {
		return this.fallback;
	}

	Kind getKind() {
		return this.kind;
	}

	@Override
	public String toString() {
		return "@Backoff(" + this.policyName + ") on " + this.methodTag + ": " + this.policy;
	}

}
