package dev.backoff.spring.operation;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReferenceFieldUpdater;

import org.jspecify.annotations.Nullable;
import org.reactivestreams.Subscription;
import reactor.core.CoreSubscriber;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Operators;

/**
 * One copy of a hedged {@code Mono} call, subscribed as the future that the core races. However
 * the future ends from outside, cancelled as a loser or the call's end, or failed by its attempt
 * timeout, the copy's subscription is cancelled, so the work behind it (a {@code WebClient}
 * exchange, a coroutine) stops, as an unhedged attempt's does under Reactor's {@code timeout}.
 * {@code Mono.toFuture()} cancels its subscription on {@code cancel} only: a timed-out copy,
 * completed with its {@code TimeoutException} so that its dependents learn why, ran on.
 */
final class SubscribedCopy<T extends @Nullable Object> extends CompletableFuture<T> implements CoreSubscriber<T> {

	@SuppressWarnings("rawtypes")
	private static final AtomicReferenceFieldUpdater<SubscribedCopy, Subscription> SUBSCRIPTION =
			AtomicReferenceFieldUpdater.newUpdater(SubscribedCopy.class, Subscription.class, "subscription");

	/** The copy's subscription until it ends; {@code null} after its last signal, cancelled once cut off. */
	private volatile @Nullable Subscription subscription;

	/**
	 * @param copy the copy, its context already written
	 * @param <T> its value type
	 * @return the future of its one value, subscribed
	 */
	static <T extends @Nullable Object> CompletableFuture<T> subscribe(Mono<T> copy) {
		SubscribedCopy<T> future = new SubscribedCopy<>();
		copy.subscribe(future);
		return future;
	}

	@Override
	public void onSubscribe(Subscription subscription) {
		// Cancels it at once when the future was cut off first.
		if (Operators.setOnce(SUBSCRIPTION, this, subscription)) {
			subscription.request(Long.MAX_VALUE);
		}
	}

	@Override
	public void onNext(T value) {
		if (ended()) {
			complete(value);
		}
	}

	@Override
	public void onError(Throwable failure) {
		if (ended()) {
			super.completeExceptionally(failure);
		}
	}

	@Override
	public void onComplete() {
		if (ended()) {
			complete(null);
		}
	}

	/** @return whether the copy's last signal came before it was cut off */
	private boolean ended() {
		Subscription current = this.subscription;
		return current != null && current != Operators.cancelledSubscription()
				&& SUBSCRIPTION.compareAndSet(this, current, null);
	}

	@Override
	public boolean completeExceptionally(Throwable failure) {
		boolean completed = super.completeExceptionally(failure);
		cutOff();
		return completed;
	}

	@Override
	public boolean cancel(boolean mayInterruptIfRunning) {
		boolean cancelled = super.cancel(mayInterruptIfRunning);
		cutOff();
		return cancelled;
	}

	/** Cancels the subscription, unless the copy has already given its last signal. */
	private void cutOff() {
		Operators.terminate(SUBSCRIPTION, this);
	}

}
