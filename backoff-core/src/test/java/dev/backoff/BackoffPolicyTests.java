package dev.backoff;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.time.Duration;
import java.util.function.Predicate;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.within;

/**
 * {@link BackoffPolicy}: defaults, the builder round trip, ceilings and the worst-case total
 * delay, computed by hand.
 */
class BackoffPolicyTests {

	@Test
	void builderStartsFromTheDefaultConstants() {
		BackoffPolicy policy = BackoffPolicy.builder().build();
		assertThat(policy.getSchedule().getMaxAttempts()).isEqualTo(BackoffPolicy.DEFAULT_MAX_ATTEMPTS).isEqualTo(3);
		assertThat(policy.getSchedule().getBaseDelay()).isEqualTo(BackoffPolicy.DEFAULT_BASE_DELAY).isEqualTo(Duration.ofMillis(100));
		assertThat(policy.getSchedule().getMultiplier()).isEqualTo(BackoffPolicy.DEFAULT_MULTIPLIER).isEqualTo(2.0);
		assertThat(policy.getSchedule().getMaxDelay()).isEqualTo(BackoffPolicy.DEFAULT_MAX_DELAY).isEqualTo(Duration.ofSeconds(20));
		assertThat(policy.getSchedule().getJitter()).isEqualTo(BackoffPolicy.DEFAULT_JITTER).isEqualTo(Jitter.FULL);
		assertThat(policy.getRules().getMaxElapsed()).isNull();
		assertThat(policy.getAttemptTimeout()).isNull();
		assertThat(policy.getRules().getRetryOn()).isEmpty();
		assertThat(policy.getRules().getAbortOn()).isEmpty();
		assertThat(policy.getRules().getRetryIfResult()).isNull();
	}

	@Test
	void defaultsHasTheDefaultSettings() {
		assertThat(BackoffPolicy.defaults()).hasToString(BackoffPolicy.builder().build().toString())
			.hasToString("BackoffPolicy[maxAttempts=3, baseDelay=PT0.1S, maxDelay=PT20S, multiplier=2.0, jitter=FULL]");
	}

	@Test
	void toStringNamesEverySettingThatIsSet() {
		BackoffPolicy policy = everySetting();
		assertThat(policy).hasToString("BackoffPolicy[maxAttempts=7, baseDelay=PT0.25S, maxDelay=PT5S, "
				+ "multiplier=1.5, jitter=EQUAL, maxElapsed=PT30S, attemptTimeout=PT2S, retryOn=[class java.io.IOException], "
				+ "abortOn=[class java.io.FileNotFoundException], retryIfResult]");
	}

	@Test
	void toBuilderRoundTripsEverySetting() {
		BackoffPolicy policy = everySetting();
		BackoffPolicy copy = policy.toBuilder().build();
		assertThat(copy.getSchedule().getMaxAttempts()).isEqualTo(7);
		assertThat(copy.getSchedule().getBaseDelay()).isEqualTo(Duration.ofMillis(250));
		assertThat(copy.getSchedule().getMaxDelay()).isEqualTo(Duration.ofSeconds(5));
		assertThat(copy.getSchedule().getMultiplier()).isEqualTo(1.5);
		assertThat(copy.getSchedule().getJitter()).isEqualTo(Jitter.EQUAL);
		assertThat(copy.getRules().getMaxElapsed()).isEqualTo(Duration.ofSeconds(30));
		assertThat(copy.getAttemptTimeout()).isEqualTo(copy.getRules().getAttemptTimeout())
			.isEqualTo(Duration.ofSeconds(2));
		assertThat(copy.getRules().getRetryOn()).containsExactly(IOException.class);
		assertThat(copy.getRules().getAbortOn()).containsExactly(FileNotFoundException.class);
		assertThat(copy.getRules().getRetryIfResult()).isSameAs(policy.getRules().getRetryIfResult());
		assertThat(copy).hasToString(policy.toString());
	}

	@Test
	void toBuilderLeavesTheOriginalUnchanged() {
		BackoffPolicy policy = everySetting();
		policy.toBuilder().maxAttempts(2).retryOn(IllegalStateException.class).abortOn().retryIfResult(null).build();
		assertThat(policy.getSchedule().getMaxAttempts()).isEqualTo(7);
		assertThat(policy.getRules().getRetryOn()).containsExactly(IOException.class);
		assertThat(policy.getRules().getAbortOn()).containsExactly(FileNotFoundException.class);
		assertThat(policy.getRules().getRetryIfResult()).isNotNull();
	}

	@Test
	void retryOnReplacesTheTypesGivenBefore() {
		BackoffPolicy policy = BackoffPolicy.builder().retryOn(IOException.class).retryOn(IllegalStateException.class).build();
		assertThat(policy.getRules().getRetryOn()).containsExactly(IllegalStateException.class);
	}

	@Test
	void typeSetsCannotBeModified() {
		BackoffPolicy policy = everySetting();
		assertThatExceptionOfType(UnsupportedOperationException.class)
			.isThrownBy(() -> policy.getRules().getRetryOn().add(RuntimeException.class));
		assertThatExceptionOfType(UnsupportedOperationException.class)
			.isThrownBy(() -> policy.getRules().getAbortOn().clear());
	}

	@Test
	void maxRetriesIsOneLessThanMaxAttempts() {
		assertThat(BackoffPolicy.builder().maxAttempts(1).build().getSchedule().getMaxRetries()).isZero();
		assertThat(BackoffPolicy.builder().maxAttempts(5).build().getSchedule().getMaxRetries()).isEqualTo(4);
	}

	@Test
	void ceilingsGrowByTheMultiplierUntilMaxDelay() {
		BackoffPolicy policy = BackoffPolicy.defaults();
		assertThat(policy.getSchedule().ceiling(1)).isEqualTo(Duration.ofMillis(100));
		assertThat(policy.getSchedule().ceiling(2)).isEqualTo(Duration.ofMillis(200));
		assertThat(policy.getSchedule().ceiling(8)).isEqualTo(Duration.ofMillis(12_800));
		assertThat(policy.getSchedule().ceiling(9)).isEqualTo(Duration.ofSeconds(20));
	}

	@Test
	void ceilingRejectsRetryZero() {
		assertThatIllegalArgumentException().isThrownBy(() -> BackoffPolicy.defaults().getSchedule().ceiling(0))
			.withMessage("retry must be at least 1, but was 0");
	}

	@Test
	void delaysRejectsANullGenerator() {
		assertThatExceptionOfType(NullPointerException.class).isThrownBy(() -> BackoffPolicy.defaults().getSchedule().delays(null))
			.withMessage("random must not be null");
	}

	@Test
	void longestDelayIsTheCeilingForStatelessJitter() {
		BackoffPolicy policy = BackoffPolicy.builder().jitter(Jitter.EQUAL).build();
		assertThat(policy.getSchedule().longestDelay(1)).isEqualTo(Duration.ofMillis(100));
		assertThat(policy.getSchedule().longestDelay(3)).isEqualTo(Duration.ofMillis(400));
		assertThat(policy.getSchedule().longestDelay(Integer.MAX_VALUE)).isEqualTo(Duration.ofSeconds(20));
	}

	@Test
	void longestDelayOfDecorrelatedIsBaseDelayTimesThreeToTheRetryCapped() {
		BackoffPolicy policy = BackoffPolicy.builder()
			.baseDelay(Duration.ofMillis(100))
			.maxDelay(Duration.ofSeconds(1))
			.jitter(Jitter.DECORRELATED)
			.build();
		assertThat(policy.getSchedule().longestDelay(1)).isEqualTo(Duration.ofMillis(300));
		assertThat(policy.getSchedule().longestDelay(2)).isEqualTo(Duration.ofMillis(900));
		assertThat(policy.getSchedule().longestDelay(3)).isEqualTo(Duration.ofSeconds(1));
		assertThat(policy.getSchedule().longestDelay(Integer.MAX_VALUE)).isEqualTo(Duration.ofSeconds(1));
	}

	@Test
	void longestDelayOfDecorrelatedWithZeroBaseDelayIsZero() {
		BackoffPolicy policy = BackoffPolicy.builder().baseDelay(Duration.ZERO).jitter(Jitter.DECORRELATED).build();
		assertThat(policy.getSchedule().longestDelay(Integer.MAX_VALUE)).isZero();
	}

	@Test
	void longestDelayRejectsRetryZero() {
		for (Jitter jitter : Jitter.values()) {
			BackoffPolicy policy = BackoffPolicy.builder().jitter(jitter).build();
			assertThatIllegalArgumentException().as("%s", jitter)
				.isThrownBy(() -> policy.getSchedule().longestDelay(0))
				.withMessage("retry must be at least 1, but was 0");
		}
	}

	@Test
	void worstCaseIsTheSumOfTheLongestDelays() {
		for (Jitter jitter : Jitter.values()) {
			BackoffPolicy policy = BackoffPolicy.builder()
				.baseDelay(Duration.ofMillis(30))
				.maxDelay(Duration.ofSeconds(7))
				.multiplier(1.5)
				.jitter(jitter)
				.maxAttempts(25)
				.build();
			long sum = 0;
			for (int retry = 1; retry <= policy.getSchedule().getMaxRetries(); retry++) {
				sum += policy.getSchedule().longestDelay(retry).toNanos();
			}
			// Within a nanosecond per retry: the worst case is summed before rounding.
			assertThat(policy.getSchedule().worstCaseTotalDelay().toNanos()).as("%s", jitter)
				.isCloseTo(sum, within((long) policy.getSchedule().getMaxRetries()));
		}
	}

	@Test
	void worstCaseOfTheDefaultsIsTheSumOfTheTwoCeilings() {
		// 100ms + 200ms.
		assertThat(BackoffPolicy.defaults().getSchedule().worstCaseTotalDelay()).isEqualTo(Duration.ofMillis(300));
	}

	@Test
	void worstCaseWithMultiplierOneIsRetriesTimesBaseDelay() {
		BackoffPolicy policy = BackoffPolicy.builder()
			.baseDelay(Duration.ofSeconds(1))
			.multiplier(1.0)
			.maxAttempts(5)
			.build();
		assertThat(policy.getSchedule().worstCaseTotalDelay()).isEqualTo(Duration.ofSeconds(4));
	}

	@Test
	void worstCaseCountsTheCappedRetriesAtMaxDelay() {
		BackoffPolicy policy = BackoffPolicy.builder()
			.baseDelay(Duration.ofSeconds(1))
			.maxDelay(Duration.ofSeconds(5))
			.maxAttempts(6)
			.build();
		// 1 + 2 + 4 + 5 + 5.
		assertThat(policy.getSchedule().worstCaseTotalDelay()).isEqualTo(Duration.ofSeconds(17));
	}

	@Test
	void worstCaseIsTheSameForEveryStatelessJitter() {
		BackoffPolicy.Builder builder = BackoffPolicy.builder().maxAttempts(6);
		assertThat(builder.jitter(Jitter.NONE).build().getSchedule().worstCaseTotalDelay())
			.isEqualTo(builder.jitter(Jitter.EQUAL).build().getSchedule().worstCaseTotalDelay())
			.isEqualTo(builder.jitter(Jitter.FULL).build().getSchedule().worstCaseTotalDelay())
			.isEqualTo(Duration.ofMillis(3_100));
	}

	@Test
	void worstCaseOfDecorrelatedGrowsByThreeFromThreeTimesBaseDelay() {
		BackoffPolicy policy = BackoffPolicy.builder()
			.baseDelay(Duration.ofMillis(100))
			.maxDelay(Duration.ofSeconds(1))
			.multiplier(1.0)
			.jitter(Jitter.DECORRELATED)
			.maxAttempts(5)
			.build();
		// min(1s, 300ms) + min(1s, 900ms) + min(1s, 2.7s) + 1s.
		assertThat(policy.getSchedule().worstCaseTotalDelay()).isEqualTo(Duration.ofMillis(3_200));
	}

	@Test
	void worstCaseOfASingleAttemptIsZero() {
		assertThat(BackoffPolicy.builder().maxAttempts(1).build().getSchedule().worstCaseTotalDelay()).isZero();
	}

	@Test
	void worstCaseOfZeroBaseDelayIsZeroEvenWithUnlimitedAttempts() {
		BackoffPolicy policy = BackoffPolicy.builder().baseDelay(Duration.ZERO).maxAttempts(Integer.MAX_VALUE).build();
		assertThat(policy.getSchedule().worstCaseTotalDelay()).isZero();
	}

	@Test
	void aResultIsNotRetryableWithoutAPredicate() {
		assertThat(BackoffPolicy.defaults().getRules().isRetryableResult(null)).isFalse();
		assertThat(BackoffPolicy.defaults().getRules().isRetryableResult("NOT_READY")).isFalse();
	}

	@Test
	void aResultIsRetryableWhenThePredicateMatches() {
		BackoffPolicy policy = BackoffPolicy.builder().retryIfResult("NOT_READY"::equals).build();
		assertThat(policy.getRules().isRetryableResult("NOT_READY")).isTrue();
		assertThat(policy.getRules().isRetryableResult("READY")).isFalse();
		assertThat(policy.getRules().isRetryableResult(null)).isFalse();
	}

	private static BackoffPolicy everySetting() {
		Predicate<String> notReady = "NOT_READY"::equals;
		return BackoffPolicy.builder()
			.maxAttempts(7)
			.baseDelay(Duration.ofMillis(250))
			.maxDelay(Duration.ofSeconds(5))
			.multiplier(1.5)
			.jitter(Jitter.EQUAL)
			.maxElapsed(Duration.ofSeconds(30))
			.attemptTimeout(Duration.ofSeconds(2))
			.retryOn(IOException.class)
			.abortOn(FileNotFoundException.class)
			.retryIfResult(notReady)
			.build();
	}

}
