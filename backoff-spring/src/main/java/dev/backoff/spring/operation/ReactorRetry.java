package dev.backoff.spring.operation;

import java.time.Duration;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

import dev.backoff.BackoffCall;
import dev.backoff.BackoffPolicy;
import dev.backoff.BackoffTask;
import dev.backoff.HedgeTokens;
import dev.backoff.Latencies;
import dev.backoff.OverloadControls;
import dev.backoff.Sleeper;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import reactor.util.context.Context;
import reactor.util.context.ContextView;
import reactor.util.retry.Retry;

/**
 * Retries methods that return a Reactor {@code Mono} or {@code Flux} by resubscription, with
 * {@code retryWhen} driven by the same {@link BackoffCall} decisions as every other path.
 * Each subscription is one call: every attempt invokes the method anew, and each wait is a
 * {@code Mono.delay} on Reactor's parallel scheduler, so no thread blocks and virtual time
 * works in tests. When the context closes, a waiting call ends at once with its last failure
 * (outcome {@code interrupted}), and no attempt starts after that. The return shape of such methods; kept apart so that Reactor stays optional: loaded only
 * when it is on the class path.
 *
 * <p>Nesting: an attempt's subscription carries the call's policy in the Reactor context, so a
 * {@code @Backoff} publisher subscribed inside it, on whatever thread, knows it is nested; a
 * subscription made inside a blocking attempt is told by the thread instead.
 */
final class ReactorRetry implements ReturnShape {

	/** Completes a wait early: the context closed. */
	private static final Object CLOSED = new Object();

	/** The states of a {@code Flux} attempt under a deadline (see {@link #deadline}). */
	private static final int RUNNING = 0;

	private static final int COMPLETED = 1;

	private static final int TIMED_OUT = 2;

	/** The context key of the enclosing call's {@link BackoffPolicy}. */
	static final String ENCLOSING = "dev.backoff.enclosing";

	static final Invoker MONO = ReactorRetry::mono;

	static final Invoker FLUX = new Invoker() {

		@Override
		public Object invoke(BackoffOperation operation, BackoffTask<@Nullable Object> attempt,
				@Nullable Object receiver, @Nullable Object[] arguments) {
			return flux(operation, attempt, receiver, arguments);
		}

		@Override
		public boolean returnsOneValue() {
			return false;
		}

	};

	@Override
	public @Nullable Invoker invoker(Returned returned, String where) {
		if (returned.suspending()) {
			return null;
		}
		return (returned.type() == Mono.class) ? MONO : (returned.type() == Flux.class) ? FLUX : null;
	}

	/** Retries a method that returns a {@code Mono}: an {@link Invoker}. */
	static Mono<@Nullable Object> mono(BackoffOperation operation, BackoffTask<@Nullable Object> attempt,
			@Nullable Object receiver, @Nullable Object[] arguments) {
		Fallback fallback = operation.getFallback();
		if (fallback == null) {
			return Mono.deferContextual((context) -> retryMono(operation, operation.getState(), attempt, context));
		}
		return Mono.deferContextual((context) -> {
			BackoffPolicy enclosing = enclosing(operation, context);
			BackoffOperation.State state = operation.getState();
			return retryMono(operation, state, attempt, context).onErrorResume(
					(failure) -> operation.fallsBack(failure, state.policy(), enclosing),
					(failure) -> Mono.defer(() -> Mono.from(publisher(fallback, receiver, arguments, failure))));
		});
	}

	/** Retries a method that returns a {@code Flux}: an {@link Invoker}. */
	static Flux<@Nullable Object> flux(BackoffOperation operation, BackoffTask<@Nullable Object> attempt,
			@Nullable Object receiver, @Nullable Object[] arguments) {
		Fallback fallback = operation.getFallback();
		if (fallback == null) {
			return Flux.deferContextual((context) -> retryFlux(operation, operation.getState(), attempt, context));
		}
		return Flux.deferContextual((context) -> {
			BackoffPolicy enclosing = enclosing(operation, context);
			BackoffOperation.State state = operation.getState();
			return retryFlux(operation, state, attempt, context).onErrorResume(
					(failure) -> operation.fallsBack(failure, state.policy(), enclosing),
					(failure) -> Flux.defer(() -> publisher(fallback, receiver, arguments, failure)));
		});
	}

	private static Mono<@Nullable Object> retryMono(BackoffOperation operation, BackoffOperation.State state,
			BackoffTask<@Nullable Object> attempt, ContextView context) {
		ObservedCall observed = observe(operation, context);
		BackoffCall call = start(operation, state, context, observed);
		if (state.policy().getHedging().isEnabled()) {
			return hedged(operation, call, state.hedgeTokens(), observed, attempt, context);
		}
		Duration timeout = call.getAttemptTimeout();
		return pace(call, operation).then(Mono.defer(() -> {
			Object observation = (observed != null) ? observed.startAttempt() : null;
			Mono<@Nullable Object> publisher = Mono.from(publisher(call, observed, observation, attempt));
			if (timeout != null) {
				// Cancels the attempt's subscription and fails it like any failure, to be retried.
				publisher = publisher.timeout(timeout, Mono.error(call::attemptTimedOut), Schedulers.parallel());
			}
			return (observation != null) ? publisher.contextWrite(observing(operation, observation)) : publisher;
		})).contextWrite(enclosing(call)).handle((value, sink) -> {
			boolean retryResult;
			try {
				retryResult = call.isRetryableResult(value);
			}
			catch (RuntimeException ex) {
				// The call has ended (see retry(call, operation)).
				sink.error(ex);
				return;
			}
			if (retryResult) {
				sink.error(new RetryableResult(value));
			}
			else {
				sink.next(value);
			}
		})
			.retryWhen(retry(call, operation))
			.onErrorResume(RetryableResult.class, (result) -> Mono.justOrEmpty(result.value))
			.doOnSuccess((value) -> call.succeed())
			.doOnCancel(() -> call.interrupt(new CancellationException("Cancelled by the subscriber")));
	}

	/**
	 * A call whose copies may overlap: each copy is a subscription of its own, as a future, which
	 * the core sends, races, times out and cancels (see {@link #subscribed}), and cancelling this
	 * {@code Mono} cancels the call.
	 */
	private static Mono<@Nullable Object> hedged(BackoffOperation operation, BackoffCall call,
			@Nullable HedgeTokens hedgeTokens, @Nullable ObservedCall observed, BackoffTask<@Nullable Object> attempt,
			ContextView context) {
		Context copies = Context.of(context).putAll(enclosing(call).apply(Context.empty()).readOnly());
		Latencies latencies = operation.latencies(call.getPolicy());
		return Mono.fromFuture(() -> operation.getExecutor().executeAsync(call, latencies, hedgeTokens, () -> {
			Object observation = (observed != null) ? observed.startAttempt() : null;
			BackoffTask<@Nullable Object> task = (observed != null) ? () -> observed.run(observation, attempt) : attempt;
			Mono<@Nullable Object> copy = Mono.from(publisher(task));
			Context inCopy = (observation != null) ? observing(operation, observation).apply(copies) : copies;
			return subscribed(copy.contextWrite(inCopy));
		}, operation.getScheduler()), false);
	}

	/**
	 * Subscribes a hedged copy as the future that the core races. However the future ends from
	 * outside, cancelled as a loser or failed by its attempt timeout (so that its dependents learn
	 * why), the subscription is cancelled, and the work behind it (a {@code WebClient} exchange, a
	 * coroutine) stops, as an unhedged attempt's does under Reactor's {@code timeout}:
	 * {@code Mono.toFuture()} cancels its subscription on {@code cancel} only.
	 */
	private static CompletableFuture<@Nullable Object> subscribed(Mono<@Nullable Object> copy) {
		CompletableFuture<@Nullable Object> future = new CompletableFuture<>();
		Disposable subscription = copy.subscribe(future::complete, future::completeExceptionally,
				() -> future.complete(null));
		// After the copy's own end, a no-op.
		future.whenComplete((value, failure) -> subscription.dispose());
		return future;
	}

	private static Flux<@Nullable Object> retryFlux(BackoffOperation operation, BackoffOperation.State state,
			BackoffTask<@Nullable Object> attempt, ContextView context) {
		ObservedCall observed = observe(operation, context);
		BackoffCall call = start(operation, state, context, observed);
		// Whether the attempt under way has emitted: a subscriber that cancels after taking what
		// it needs (take(1), say) ends a call that worked, not an interrupted one.
		AtomicBoolean emitted = new AtomicBoolean();
		Duration timeout = call.getAttemptTimeout();
		return pace(call, operation).thenMany(Flux.defer(() -> {
			emitted.set(false);
			Object observation = (observed != null) ? observed.startAttempt() : null;
			Flux<@Nullable Object> publisher = Flux.from(publisher(call, observed, observation, attempt));
			if (timeout != null) {
				publisher = deadline(publisher, timeout, call);
			}
			return ((observation != null) ? publisher.contextWrite(observing(operation, observation)) : publisher)
				.doOnNext((value) -> emitted.set(true));
		}))
			.contextWrite(enclosing(call))
			.retryWhen(retry(call, operation))
			.doOnComplete(call::succeed)
			.doOnCancel(() -> {
				if (emitted.get()) {
					call.succeed();
				}
				else {
					call.interrupt(new CancellationException("Cancelled by the subscriber"));
				}
			});
	}

	/**
	 * Bounds a whole attempt of a {@code Flux} from its subscription, however many elements it
	 * emits ({@code Flux.timeout} would time each element): when the deadline passes, the
	 * attempt's subscription is cancelled and it fails with {@link BackoffCall#attemptTimedOut()};
	 * when the attempt ends first, the deadline's timer is cancelled. The deadline completes the
	 * attempt and the error follows, since {@code takeUntilOther} does not cancel its source
	 * when the other publisher fails. Whichever of the attempt's completion and the deadline
	 * comes first decides, once: an attempt that completed is never reported as timed out.
	 */
	private static Flux<@Nullable Object> deadline(Flux<@Nullable Object> attempt, Duration timeout,
			BackoffCall call) {
		AtomicInteger state = new AtomicInteger(RUNNING);
		return attempt.doOnComplete(() -> state.compareAndSet(RUNNING, COMPLETED))
			.takeUntilOther(Mono.delay(timeout, Schedulers.parallel())
				.filter((tick) -> state.compareAndSet(RUNNING, TIMED_OUT)))
			.concatWith(Mono.defer(() -> (state.get() == TIMED_OUT) ? Mono.error(call.attemptTimedOut())
					: Mono.empty()));
	}

	/**
	 * Before the first attempt, resubscribed with each: the policy's overload controls
	 * ({@link BackoffCall#beforeAttempt()}), whose rejection of a first attempt fails it (the call
	 * has ended, so it is not retried). A retry passes them in {@link #retry}, after its backoff
	 * wait, where the failure its subscriber gets if it is not sent is at hand.
	 */
	private static Mono<?> pace(BackoffCall call, BackoffOperation operation) {
		return Mono.defer(() -> (call.getAttempts() > 0) ? Mono.empty() : waitFor(call.beforeAttempt(), operation));
	}

	/** The wait for the pace: a {@code Mono.delay}, as a retry's is, skipped with {@code Sleeper.INSTANT} (tests). */
	private static Mono<?> waitFor(long pace, BackoffOperation operation) {
		return (pace > 0 && operation.getExecutor().getSleeper() != Sleeper.INSTANT)
				? Mono.delay(Duration.ofNanos(pace)) : Mono.empty();
	}

	/** Starts a call under the state read once when it was subscribed. */
	private static BackoffCall start(BackoffOperation operation, BackoffOperation.State state, ContextView context,
			@Nullable ObservedCall observed) {
		BackoffPolicy enclosing = context.getOrDefault(ENCLOSING, null);
		return CompletionStageShape.start(operation.getExecutor(), state,
				(observed != null) ? observed.listener() : operation.getListener(), enclosing);
	}

	/** Starts observing a call under the observation its subscriber's context holds, if any. */
	private static @Nullable ObservedCall observe(BackoffOperation operation, ContextView context) {
		CallObserver observer = operation.getObserver();
		return (observer != null) ? operation.observe(context.getOrDefault(observer.contextKey(), null)) : null;
	}

	/**
	 * Puts an attempt's observation into the context of its subscription, where Micrometer's
	 * Reactor support looks for the parent of what the attempt observes.
	 */
	private static Function<Context, Context> observing(BackoffOperation operation, Object attempt) {
		Object key = operation.getObserver().contextKey();
		return (context) -> context.put(key, attempt);
	}

	/** The enclosing call's policy, from the subscription's context or else the subscribing thread. */
	private static @Nullable BackoffPolicy enclosing(BackoffOperation operation, ContextView context) {
		BackoffPolicy enclosing = context.getOrDefault(ENCLOSING, null);
		return (enclosing != null) ? enclosing : operation.getExecutor().getEnclosingPolicy();
	}

	/** Puts the call's policy into the context of its attempts, for the calls made inside them. */
	private static Function<Context, Context> enclosing(BackoffCall call) {
		return call.isEnclosing() ? (context) -> context.put(ENCLOSING, call.getPolicy()) : Function.identity();
	}

	private static Retry retry(BackoffCall call, BackoffOperation operation) {
		boolean instant = (operation.getExecutor().getSleeper() == Sleeper.INSTANT);
		ScheduledExecutorService scheduler = operation.getScheduler();
		return Retry.from((signals) -> signals.concatMap((signal) -> {
			Throwable failure = signal.failure();
			if (call.isEnded()) {
				return Mono.error(failure);
			}
			boolean resultRetry = (failure instanceof RetryableResult);
			Duration delay = call.nextDelay(resultRetry ? null : failure);
			if (delay == null) {
				return Mono.error(end(call, failure));
			}
			// With Sleeper.INSTANT (tests) the wait is computed, reported and skipped, as for a blocking call.
			Mono<Long> wait = instant ? Mono.just(0L) : Mono.delay(delay).takeUntilOther(closing(scheduler));
			return wait.then(Mono.defer(() -> {
				if (scheduler.isShutdown()) {
					// No attempt after the context closed: the bean may be gone.
					return Mono.error(endAtClose(call, failure));
				}
				// The pace's wait adds to the backoff's; a retry whose slot is past max-elapsed is not sent.
				long pace = call.beforeAttempt();
				return (pace == OverloadControls.NOT_SENT) ? Mono.error(end(call, failure))
						: waitFor(pace, operation).then(Mono.just(0L));
			}));
		}));
	}

	/** Ends the call as decided: with the last value when a result asked for the retry (see onErrorResume). */
	private static Throwable end(BackoffCall call, Throwable failure) {
		if (failure instanceof RetryableResult) {
			// No failure is reported: the subscriber gets the value.
			call.end(null);
			return failure;
		}
		return call.end(failure);
	}

	/**
	 * The context's close, which ends a wait at once, as it ends the waits of future-returning
	 * methods. Made only for a wait, so that a call that succeeds at once pays nothing for it,
	 * and registered only while the wait runs: a call must leave nothing behind.
	 */
	private static Mono<Object> closing(ScheduledExecutorService scheduler) {
		if (!(scheduler instanceof BackoffScheduler owned)) {
			return Mono.never();
		}
		return Mono.create((sink) -> {
			Runnable remove = owned.onClose(() -> sink.success(CLOSED));
			sink.onDispose(remove::run);
		});
	}

	/** Ends a call whose next attempt would come after the context closed, as {@code AsyncCall} does. */
	private static Throwable endAtClose(BackoffCall call, Throwable failure) {
		RejectedExecutionException reason = new RejectedExecutionException(
				"The application context closed before the next attempt");
		if (failure instanceof RetryableResult) {
			// A result that asked for a retry is returned (see onErrorResume): nothing failed.
			call.interrupt(null);
			return failure;
		}
		failure.addSuppressed(reason);
		call.interrupt(failure);
		return failure;
	}

	/**
	 * Runs one attempt: the method's invocation, with the thread marked as inside it and the
	 * attempt's observation, if any, current on it.
	 */
	private static Publisher<@Nullable Object> publisher(BackoffCall call, @Nullable ObservedCall observed,
			@Nullable Object observation, BackoffTask<@Nullable Object> attempt) {
		if (observed == null) {
			return publisher(() -> call.attempt(attempt));
		}
		return publisher(() -> call.attempt(() -> observed.run(observation, attempt)));
	}

	@SuppressWarnings("unchecked")
	private static Publisher<@Nullable Object> publisher(BackoffTask<@Nullable Object> attempt) {
		Publisher<@Nullable Object> publisher = (Publisher<@Nullable Object>) BackoffOperation.run(attempt);
		if (publisher == null) {
			// As for a CompletionStage method (see AsyncCall): a failed attempt, not a silent empty success.
			throw new IllegalStateException("The method returned null instead of a Mono or Flux; return Mono.empty() "
					+ "or Flux.empty() for no value");
		}
		return publisher;
	}

	@SuppressWarnings("unchecked")
	private static Publisher<@Nullable Object> publisher(Fallback fallback, @Nullable Object receiver,
			@Nullable Object[] arguments, Throwable failure) {
		return publisher(() -> fallback.invoke(receiver, arguments, failure));
	}

	/** Carries a result that asked for a retry through {@code retryWhen}; never reaches the caller. */
	private static final class RetryableResult extends RuntimeException {

		private final @Nullable Object value;

		RetryableResult(@Nullable Object value) {
			super(null, null, false, false);
			this.value = value;
		}

	}

}
