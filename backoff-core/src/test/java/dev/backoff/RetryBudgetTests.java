package dev.backoff;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * {@link RetryBudget}: the token bucket's arithmetic (gRPC's retry throttling), its validation,
 * and that concurrent callers lose no update.
 */
class RetryBudgetTests {

	@Test
	void startsFullAndAllowsRetries() {
		RetryBudget budget = RetryBudget.of(10, 0.1);
		assertThat(budget.getTokens()).isEqualTo(10.0);
		assertThat(budget.getMaxTokens()).isEqualTo(10.0);
		assertThat(budget.getTokenRatio()).isEqualTo(0.1);
		assertThat(budget.allowsRetries()).isTrue();
	}

	@Test
	void eachFailureTakesOneTokenAndRetriesStopAtHalfTheBucket() {
		RetryBudget budget = RetryBudget.of(10, 0.1);
		List<Boolean> allowed = new ArrayList<>();
		for (int i = 0; i < 6; i++) {
			allowed.add(budget.onFailure());
		}
		// 9, 8, 7, 6 are more than 5; 5 and 4 are not.
		assertThat(allowed).containsExactly(true, true, true, true, false, false);
		assertThat(budget.getTokens()).isEqualTo(4.0);
		assertThat(budget.allowsRetries()).isFalse();
		budget.onSuccess();
		assertThat(budget.getTokens()).isEqualTo(4.1);
	}

	@Test
	void resizeKeepsTheFractionOfTheBucketThatIsLeft() {
		RetryBudget budget = RetryBudget.of(20, 0.5);
		for (int i = 0; i < 11; i++) {
			budget.onFailure();
		}
		assertThat(budget.allowsRetries()).isFalse();
		RetryBudget larger = budget.resize(100, 1, RetryBudget.DEFAULT_THROTTLE_COST);
		// 9 of 20 left is 45 %: 45 of 100, still below half, so retries stay stopped.
		assertThat(larger.getTokens()).isEqualTo(45.0);
		assertThat(larger.getMaxTokens()).isEqualTo(100.0);
		assertThat(larger.getTokenRatio()).isEqualTo(1.0);
		assertThat(larger.allowsRetries()).isFalse();
		assertThat(budget.getTokens()).isEqualTo(9.0);
		assertThat(RetryBudget.of(20, 0.5).resize(8, 0.5, 0.5).getTokens()).isEqualTo(8.0);
	}

	@Test
	void resizeValidatesTheNewSettings() {
		assertThatExceptionOfType(InvalidPolicyException.class).isThrownBy(() -> RetryBudget.defaults().resize(0.5, 0.1, 0.5))
			.satisfies((ex) -> assertThat(ex.getSetting()).isEqualTo("budget.maxTokens"));
	}

	@Test
	void tokensNeverGoBelowZero() {
		RetryBudget budget = RetryBudget.of(3, 1);
		for (int i = 0; i < 10; i++) {
			budget.onFailure();
		}
		assertThat(budget.getTokens()).isZero();
	}

	@Test
	void successesGiveBackTheRatioUpToTheBucketSize() {
		RetryBudget budget = RetryBudget.of(10, 0.1);
		for (int i = 0; i < 10; i++) {
			budget.onFailure();
		}
		assertThat(budget.getTokens()).isZero();
		int successes = 0;
		while (!budget.allowsRetries()) {
			budget.onSuccess();
			successes++;
		}
		// A failure must leave more than 5: kept in thousandths, 61 × 0.1 is exactly 6.1.
		assertThat(successes).isEqualTo(61);
		assertThat(budget.getTokens()).isEqualTo(6.1);
		assertThat(budget.onFailure()).isTrue();
		for (int i = 0; i < 1000; i++) {
			budget.onSuccess();
		}
		assertThat(budget.getTokens()).isEqualTo(10.0);
	}

	@Test
	void copyIsFullAndIndependent() {
		RetryBudget budget = RetryBudget.of(4, 0.5);
		budget.onFailure();
		RetryBudget copy = budget.copy();
		assertThat(copy.getTokens()).isEqualTo(4.0);
		assertThat(copy.getTokenRatio()).isEqualTo(0.5);
		assertThat(budget.getTokens()).isEqualTo(3.0);
	}

	@Test
	void defaultsAreTenTokensAndATenthPerSuccess() {
		RetryBudget budget = RetryBudget.defaults();
		assertThat(budget.getMaxTokens()).isEqualTo(RetryBudget.DEFAULT_MAX_TOKENS).isEqualTo(10.0);
		assertThat(budget.getTokenRatio()).isEqualTo(RetryBudget.DEFAULT_TOKEN_RATIO).isEqualTo(0.1);
	}

	@Test
	void rejectsABucketSmallerThanOneToken() {
		assertThatExceptionOfType(InvalidPolicyException.class).isThrownBy(() -> RetryBudget.of(0.5, 0.1))
			.satisfies((ex) -> assertThat(ex.getSetting()).isEqualTo("budget.maxTokens"))
			.withMessage("budget.maxTokens was 0.5, but must be at least 1 and at most 1000000");
	}

	@Test
	void rejectsNaNAndInfiniteSizes() {
		assertThatExceptionOfType(InvalidPolicyException.class).isThrownBy(() -> RetryBudget.of(Double.NaN, 0.1));
		assertThatExceptionOfType(InvalidPolicyException.class)
			.isThrownBy(() -> RetryBudget.of(Double.POSITIVE_INFINITY, 0.1));
	}

	@Test
	void rejectsARatioBelowOneThousandthOrAboveTheBucket() {
		assertThatExceptionOfType(InvalidPolicyException.class).isThrownBy(() -> RetryBudget.of(10, 0))
			.satisfies((ex) -> assertThat(ex.getSetting()).isEqualTo("budget.tokenRatio"))
			.withMessageContaining("must be at least 0.001");
		assertThatExceptionOfType(InvalidPolicyException.class).isThrownBy(() -> RetryBudget.of(10, 11))
			.withMessageContaining("at most budget.maxTokens (10.0)");
		assertThatExceptionOfType(InvalidPolicyException.class).isThrownBy(() -> RetryBudget.of(10, Double.NaN));
	}

	@Test
	void concurrentFailuresAndSuccessesLoseNoUpdate() throws InterruptedException {
		RetryBudget budget = RetryBudget.of(1_000_000, 1);
		for (int i = 0; i < 200_000; i++) {
			budget.onFailure();
		}
		int threads = 8;
		int perThread = 50_000;
		CountDownLatch start = new CountDownLatch(1);
		AtomicInteger allowed = new AtomicInteger();
		List<Thread> workers = new ArrayList<>();
		for (int t = 0; t < threads; t++) {
			boolean fails = (t % 2 == 0);
			Thread worker = new Thread(() -> {
				try {
					start.await();
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
					return;
				}
				for (int i = 0; i < perThread; i++) {
					if (fails) {
						if (budget.onFailure()) {
							allowed.incrementAndGet();
						}
					}
					else {
						budget.onSuccess();
					}
				}
			});
			workers.add(worker);
			worker.start();
		}
		start.countDown();
		for (Thread worker : workers) {
			worker.join();
		}
		// From 800,000 tokens, 200,000 failures and 200,000 successes of one token each stay within
		// [600,000, 1,000,000], so none is clipped: back to 800,000 exactly. Had an update been
		// lost, the bucket would be off by at least one token.
		assertThat(budget.getTokens()).isEqualTo(800_000.0);
		// Never down to half the bucket, so every failure still allowed its retry.
		assertThat(allowed.get()).isEqualTo(threads / 2 * perThread);
	}

}
