package dev.backoff;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Spliterator;
import java.util.SplittableRandom;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * {@link BackoffDelays}: the length of a sequence, its iterator and stream views, and its
 * agreement with {@link BackoffPolicy#ceiling(int)}.
 */
class BackoffDelaysTests {

	@Test
	void yieldsExactlyMaxAttemptsMinusOneDelays() {
		BackoffDelays delays = policy(4).getSchedule().delays(new SplittableRandom(1));
		List<Duration> taken = new ArrayList<>();
		while (delays.hasNext()) {
			taken.add(delays.next());
		}
		assertThat(taken).hasSize(3);
		assertThat(delays.hasNext()).isFalse();
	}

	@Test
	void throwsNoSuchElementExceptionAfterTheLastDelay() {
		BackoffDelays delays = policy(3).getSchedule().delays(new SplittableRandom(1));
		delays.next();
		delays.next();
		assertThatExceptionOfType(NoSuchElementException.class).isThrownBy(delays::next)
			.withMessageStartingWith("All 2 retries of BackoffSchedule[maxAttempts=3");
	}

	@Test
	void nextNanosAlsoThrowsAfterTheLastDelay() {
		BackoffDelays delays = policy(2).getSchedule().delays(new SplittableRandom(1));
		delays.nextNanos();
		assertThatExceptionOfType(NoSuchElementException.class).isThrownBy(delays::nextNanos);
	}

	@Test
	void aSingleAttemptHasNoDelays() {
		BackoffDelays delays = policy(1).getSchedule().delays(new SplittableRandom(1));
		assertThat(delays.hasNext()).isFalse();
		assertThat(delays.stream()).isEmpty();
	}

	@Test
	void retryCountsTheDelaysTaken() {
		BackoffDelays delays = policy(5).getSchedule().delays(new SplittableRandom(1));
		assertThat(delays.retry()).isZero();
		delays.next();
		delays.nextNanos();
		assertThat(delays.retry()).isEqualTo(2);
	}

	@Test
	void nextAndNextNanosAgree() {
		BackoffPolicy policy = policy(4);
		BackoffDelays asDurations = policy.getSchedule().delays(new SplittableRandom(7));
		BackoffDelays asNanos = policy.getSchedule().delays(new SplittableRandom(7));
		for (int i = 0; i < 3; i++) {
			assertThat(asDurations.next()).isEqualTo(Duration.ofNanos(asNanos.nextNanos()));
		}
	}

	@Test
	void streamYieldsTheSameDelaysAsTheIterator() {
		BackoffPolicy policy = policy(6);
		List<Duration> iterated = new ArrayList<>();
		policy.getSchedule().delays(new SplittableRandom(3)).forEachRemaining(iterated::add);
		assertThat(policy.getSchedule().delays(new SplittableRandom(3)).stream()).hasSize(5).containsExactlyElementsOf(iterated);
	}

	@Test
	void streamIsLazy() {
		ScriptedRandom random = new ScriptedRandom(0.5, 0.5);
		BackoffDelays delays = policy(10).getSchedule().delays(random);
		Stream<Duration> stream = delays.stream().map((delay) -> delay.multipliedBy(2));
		assertThat(random.draws()).isZero();
		assertThat(stream.limit(2)).hasSize(2);
		assertThat(random.draws()).isEqualTo(2);
		assertThat(delays.retry()).isEqualTo(2);
	}

	@Test
	void streamContinuesFromWhereTheSequenceIs() {
		BackoffDelays delays = policy(6).getSchedule().delays(new SplittableRandom(1));
		delays.next();
		delays.next();
		Spliterator<Duration> spliterator = delays.stream().spliterator();
		assertThat(spliterator.getExactSizeIfKnown()).isEqualTo(3);
		assertThat(delays.stream()).hasSize(3);
		assertThat(delays.hasNext()).isFalse();
	}

	@Test
	void unlimitedAttemptsDrawThousandsOfDelays() {
		BackoffPolicy policy = BackoffPolicy.builder().maxAttempts(Integer.MAX_VALUE).build();
		BackoffDelays delays = policy.getSchedule().delays(new SplittableRandom(1));
		assertThat(delays.stream().limit(5_000)).hasSize(5_000)
			.allSatisfy((delay) -> assertThat(delay).isBetween(Duration.ZERO, policy.getSchedule().getMaxDelay()));
		assertThat(delays.retry()).isEqualTo(5_000);
		assertThat(delays.hasNext()).isTrue();
	}

	@Test
	void unlimitedAttemptsGiveAStreamOfUnknownSize() {
		BackoffDelays delays = BackoffPolicy.builder().maxAttempts(Integer.MAX_VALUE).build().getSchedule().delays();
		assertThat(delays.stream().spliterator().getExactSizeIfKnown()).isEqualTo(-1);
	}

	@ParameterizedTest
	@ValueSource(doubles = { 1.0, 1.05, 1.1, 1.2, 1.5, 1.7, 2.0, 3.0, 7.3 })
	void noneDelaysMatchTheCeilingsToTheNanosecond(double multiplier) {
		BackoffPolicy policy = BackoffPolicy.builder()
			.baseDelay(Duration.ofMillis(100))
			.maxDelay(Duration.ofDays(1))
			.multiplier(multiplier)
			.jitter(Jitter.NONE)
			.maxAttempts(1_000)
			.build();
		BackoffDelays delays = policy.getSchedule().delays(new ScriptedRandom());
		List<String> mismatches = new ArrayList<>();
		while (delays.hasNext()) {
			Duration delay = delays.next();
			Duration ceiling = policy.getSchedule().ceiling(delays.retry());
			if (!delay.equals(ceiling)) {
				mismatches.add("retry " + delays.retry() + ": " + delay + " but ceiling " + ceiling);
			}
		}
		assertThat(mismatches).isEmpty();
	}

	@Test
	void eachCallToDelaysStartsAFreshSequence() {
		BackoffPolicy policy = BackoffPolicy.builder().jitter(Jitter.DECORRELATED).maxAttempts(10).build();
		BackoffDelays first = policy.getSchedule().delays(new ScriptedRandom(0.5, 0.5, 0.5));
		first.next();
		first.next();
		BackoffDelays second = policy.getSchedule().delays(new ScriptedRandom(0.5));
		assertThat(second.retry()).isZero();
		// uniform(100ms, 300ms) from the base delay, not from the first sequence's state.
		assertThat(second.next()).isEqualTo(Duration.ofMillis(200));
		// The first continues from its own 350ms: uniform(100ms, 1050ms).
		assertThat(first.next()).isEqualTo(Duration.ofMillis(575));
	}

	private static BackoffPolicy policy(int maxAttempts) {
		return BackoffPolicy.builder().maxAttempts(maxAttempts).build();
	}

}
