package dev.backoff;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link CurrentAttempt}: each attempt reads its own number, 1 for the first, on the thread
 * that runs it; outside any attempt, and after a call, 0. Nothing sleeps.
 */
class CurrentAttemptTests {

	private final ManualNanoClock clock = new ManualNanoClock();

	private final BackoffExecutor executor = BackoffExecutor.builder()
		.sleeper(new RecordingSleeper(this.clock))
		.clock(this.clock)
		.build();

	@Test
	void eachBlockingAttemptReadsItsNumberAndNoneIsReadOutside() throws Exception {
		List<Integer> seen = new ArrayList<>();
		assertThat(CurrentAttempt.number()).isZero();
		String result = this.executor.call(TestPolicies.doublingFrom100ms(4), () -> {
			seen.add(CurrentAttempt.number());
			if (seen.size() < 3) {
				throw new IOException("attempt " + seen.size());
			}
			return "ok";
		});
		assertThat(result).isEqualTo("ok");
		assertThat(seen).containsExactly(1, 2, 3);
		assertThat(CurrentAttempt.number()).isZero();
	}

	@Test
	void aCallInsideAnAttemptReadsItsOwnNumberThenTheEnclosingOneAgain() throws Exception {
		BackoffExecutor independent = BackoffExecutor.builder()
			.sleeper(new RecordingSleeper(this.clock))
			.clock(this.clock)
			.nested(Nested.INDEPENDENT)
			.build();
		List<String> seen = new ArrayList<>();
		independent.call(TestPolicies.doublingFrom100ms(3), () -> {
			int outer = CurrentAttempt.number();
			List<Integer> inner = new ArrayList<>();
			independent.call(TestPolicies.doublingFrom100ms(3), () -> {
				inner.add(CurrentAttempt.number());
				if (inner.size() < 2) {
					throw new IOException("inner");
				}
				return "inner ok";
			});
			seen.add(outer + ":" + inner + ":" + CurrentAttempt.number());
			if (outer < 2) {
				throw new IOException("outer");
			}
			return "ok";
		});
		assertThat(seen).containsExactly("1:[1, 2]:1", "2:[1, 2]:2");
	}

	@Test
	void aSingleAttemptPolicyAndANestedCallLeftToTheEnclosingOneReadOne() throws Exception {
		List<Integer> seen = new ArrayList<>();
		this.executor.call(TestPolicies.doublingFrom100ms(1), () -> seen.add(CurrentAttempt.number()));
		this.executor.call(TestPolicies.doublingFrom100ms(3), () -> {
			// Nested.OUTERMOST: the inner call runs once, its failures left to this one.
			return this.executor.call(TestPolicies.doublingFrom100ms(3), () -> seen.add(CurrentAttempt.number()));
		});
		assertThat(seen).containsExactly(1, 1);
	}

	@Test
	void theSynchronousPartOfEachAsyncAttemptReadsItsNumber() {
		ManualScheduler scheduler = new ManualScheduler(this.clock);
		List<Integer> seen = new ArrayList<>();
		CompletableFuture<String> future = this.executor.executeAsync(TestPolicies.doublingFrom100ms(3), () -> {
			seen.add(CurrentAttempt.number());
			return (seen.size() < 3) ? CompletableFuture.failedFuture(new IOException("attempt " + seen.size()))
					: CompletableFuture.completedFuture("ok");
		}, scheduler);
		scheduler.runAll();
		assertThat(future).isCompletedWithValue("ok");
		assertThat(seen).containsExactly(1, 2, 3);
		assertThat(CurrentAttempt.number()).isZero();
	}

}
