package dev.backoff;

import java.io.IOException;
import java.time.Duration;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * Every rule of {@link BackoffPolicy.Builder#build()}: the {@link InvalidPolicyException} names
 * the setting, the value and the rule, and its message joins the three. The limits themselves
 * are accepted.
 */
class BackoffPolicyValidationTests {

	private static final String MAX_DURATION_RULE = "must be at most PT2562047H47M16.854775807S (Long.MAX_VALUE nanoseconds)";

	@Test
	void maxAttemptsBelowOneIsRejected() {
		InvalidPolicyException ex = rejection(BackoffPolicy.builder().maxAttempts(0));
		assertRejected(ex, "maxAttempts", 0, "must be at least 1 (it counts every call, the first included)");
		assertThat(ex).hasMessage("maxAttempts was 0, but must be at least 1 (it counts every call, the first included)");
	}

	@Test
	void negativeMaxAttemptsIsRejected() {
		InvalidPolicyException ex = rejection(BackoffPolicy.builder().maxAttempts(-3));
		assertThat(ex).hasMessage("maxAttempts was -3, but must be at least 1 (it counts every call, the first included)");
	}

	@Test
	void negativeBaseDelayIsRejected() {
		InvalidPolicyException ex = rejection(BackoffPolicy.builder().baseDelay(Duration.ofMillis(-1)));
		assertRejected(ex, "baseDelay", Duration.ofMillis(-1), "must be zero or positive");
		assertThat(ex).hasMessage("baseDelay was PT-0.001S, but must be zero or positive");
	}

	@Test
	void negativeMaxDelayIsRejected() {
		InvalidPolicyException ex = rejection(BackoffPolicy.builder().maxDelay(Duration.ofSeconds(-1)));
		assertRejected(ex, "maxDelay", Duration.ofSeconds(-1), "must be zero or positive");
		assertThat(ex).hasMessage("maxDelay was PT-1S, but must be zero or positive");
	}

	@Test
	void nullBaseDelayIsRejected() {
		InvalidPolicyException ex = rejection(BackoffPolicy.builder().baseDelay(nullValue()));
		assertRejected(ex, "baseDelay", null, "must be zero or positive");
		assertThat(ex).hasMessage("baseDelay was null, but must be zero or positive");
	}

	@Test
	void nullMaxDelayIsRejected() {
		InvalidPolicyException ex = rejection(BackoffPolicy.builder().maxDelay(nullValue()));
		assertRejected(ex, "maxDelay", null, "must be zero or positive");
		assertThat(ex).hasMessage("maxDelay was null, but must be zero or positive");
	}

	@Test
	void maxDelayBelowBaseDelayIsRejected() {
		InvalidPolicyException ex = rejection(
				BackoffPolicy.builder().baseDelay(Duration.ofSeconds(1)).maxDelay(Duration.ofMillis(500)));
		assertRejected(ex, "maxDelay", Duration.ofMillis(500), "must be at least baseDelay (PT1S)");
		assertThat(ex).hasMessage("maxDelay was PT0.5S, but must be at least baseDelay (PT1S)");
	}

	@Test
	void nanMultiplierIsRejected() {
		InvalidPolicyException ex = rejection(BackoffPolicy.builder().multiplier(Double.NaN));
		assertRejected(ex, "multiplier", Double.NaN, "must be a finite number of at least 1 (1 gives a fixed delay)");
		assertThat(ex).hasMessage("multiplier was NaN, but must be a finite number of at least 1 (1 gives a fixed delay)");
	}

	@Test
	void infiniteMultiplierIsRejected() {
		InvalidPolicyException ex = rejection(BackoffPolicy.builder().multiplier(Double.POSITIVE_INFINITY));
		assertThat(ex).hasMessage(
				"multiplier was Infinity, but must be a finite number of at least 1 (1 gives a fixed delay)");
		assertThat(ex.getValue()).isEqualTo(Double.POSITIVE_INFINITY);
	}

	@Test
	void multiplierBelowOneIsRejected() {
		InvalidPolicyException ex = rejection(BackoffPolicy.builder().multiplier(0.5));
		assertRejected(ex, "multiplier", 0.5, "must be a finite number of at least 1 (1 gives a fixed delay)");
		assertThat(ex).hasMessage("multiplier was 0.5, but must be a finite number of at least 1 (1 gives a fixed delay)");
	}

	@Test
	void nullJitterIsRejected() {
		InvalidPolicyException ex = rejection(BackoffPolicy.builder().jitter(nullValue()));
		assertRejected(ex, "jitter", null, "must be one of [NONE, FULL, EQUAL, DECORRELATED]");
		assertThat(ex).hasMessage("jitter was null, but must be one of [NONE, FULL, EQUAL, DECORRELATED]");
	}

	@Test
	void zeroMaxElapsedIsRejected() {
		InvalidPolicyException ex = rejection(BackoffPolicy.builder().maxElapsed(Duration.ZERO));
		assertRejected(ex, "maxElapsed", Duration.ZERO, "must be positive (or unset for no limit)");
		assertThat(ex).hasMessage("maxElapsed was PT0S, but must be positive (or unset for no limit)");
	}

	@Test
	void negativeMaxElapsedIsRejectedWithTheSameRuleAsZero() {
		InvalidPolicyException ex = rejection(BackoffPolicy.builder().maxElapsed(Duration.ofSeconds(-5)));
		assertRejected(ex, "maxElapsed", Duration.ofSeconds(-5), "must be positive (or unset for no limit)");
		assertThat(ex).hasMessage("maxElapsed was PT-5S, but must be positive (or unset for no limit)");
	}

	@Test
	void zeroAttemptTimeoutIsRejected() {
		InvalidPolicyException ex = rejection(BackoffPolicy.builder().attemptTimeout(Duration.ZERO));
		assertRejected(ex, "attemptTimeout", Duration.ZERO, "must be positive (or unset for no limit)");
		assertThat(ex).hasMessage("attemptTimeout was PT0S, but must be positive (or unset for no limit)");
	}

	@Test
	void negativeAttemptTimeoutIsRejectedWithTheSameRuleAsZero() {
		InvalidPolicyException ex = rejection(BackoffPolicy.builder().attemptTimeout(Duration.ofMillis(-1)));
		assertRejected(ex, "attemptTimeout", Duration.ofMillis(-1), "must be positive (or unset for no limit)");
	}

	@Test
	void attemptTimeoutAboveTheLongestDurationIsRejected() {
		Duration tooLong = Duration.ofSeconds(Long.MAX_VALUE);
		InvalidPolicyException ex = rejection(BackoffPolicy.builder().attemptTimeout(tooLong));
		assertRejected(ex, "attemptTimeout", tooLong, MAX_DURATION_RULE);
	}

	@Test
	void attemptTimeoutLongerThanMaxElapsedIsRejected() {
		InvalidPolicyException ex = rejection(BackoffPolicy.builder()
			.maxElapsed(Duration.ofSeconds(5))
			.attemptTimeout(Duration.ofSeconds(6)));
		assertRejected(ex, "attemptTimeout", Duration.ofSeconds(6),
				"must be at most maxElapsed (PT5S): no retry could follow an attempt that ran longer than the whole call may take");
		assertThat(ex.getRelatedSetting()).isEqualTo("maxElapsed");
		assertThat(ex).hasMessage("attemptTimeout was PT6S, but must be at most maxElapsed (PT5S): no retry could "
				+ "follow an attempt that ran longer than the whole call may take");
	}

	@Test
	void attemptTimeoutEqualToMaxElapsedIsAccepted() {
		BackoffPolicy policy = BackoffPolicy.builder()
			.maxElapsed(Duration.ofSeconds(5))
			.attemptTimeout(Duration.ofSeconds(5))
			.build();
		assertThat(policy.getAttemptTimeout()).isEqualTo(Duration.ofSeconds(5));
	}

	@Test
	void attemptTimeoutWithoutMaxElapsedHasNoUpperBoundButTheLongestDuration() {
		BackoffPolicy policy = BackoffPolicy.builder().attemptTimeout(BackoffPolicy.MAX_DURATION).build();
		assertThat(policy.getAttemptTimeout()).isEqualTo(BackoffPolicy.MAX_DURATION);
	}

	@Test
	void attemptTimeoutCanBeUnsetAgain() {
		BackoffPolicy policy = BackoffPolicy.builder().attemptTimeout(Duration.ofSeconds(1)).attemptTimeout(null).build();
		assertThat(policy.getAttemptTimeout()).isNull();
	}

	@Test
	void baseDelayAboveTheLongestDurationIsRejected() {
		Duration tooLong = BackoffPolicy.MAX_DURATION.plusNanos(1);
		InvalidPolicyException ex = rejection(BackoffPolicy.builder().baseDelay(tooLong).maxDelay(tooLong));
		assertRejected(ex, "baseDelay", tooLong, MAX_DURATION_RULE);
		assertThat(ex).hasMessage("baseDelay was PT2562047H47M16.854775808S, but " + MAX_DURATION_RULE);
	}

	@Test
	void maxDelayAboveTheLongestDurationIsRejected() {
		Duration tooLong = Duration.ofDays(365 * 1000);
		InvalidPolicyException ex = rejection(BackoffPolicy.builder().maxDelay(tooLong));
		assertRejected(ex, "maxDelay", tooLong, MAX_DURATION_RULE);
	}

	@Test
	void maxElapsedAboveTheLongestDurationIsRejected() {
		Duration tooLong = Duration.ofSeconds(Long.MAX_VALUE);
		InvalidPolicyException ex = rejection(BackoffPolicy.builder().maxElapsed(tooLong));
		assertRejected(ex, "maxElapsed", tooLong, MAX_DURATION_RULE);
	}

	@Test
	void aTypeInBothRetryOnAndAbortOnIsRejected() {
		InvalidPolicyException ex = rejection(BackoffPolicy.builder()
			.retryOn(IllegalStateException.class, IOException.class)
			.abortOn(IOException.class));
		assertRejected(ex, "abortOn", "java.io.IOException", "must not name a type that retryOn names too");
		assertThat(ex).hasMessage("abortOn was java.io.IOException, but must not name a type that retryOn names too");
	}

	@Test
	void aRetryOnTypeThatAnAbortOnSupertypeCoversIsRejected() {
		InvalidPolicyException ex = rejection(BackoffPolicy.builder()
			.retryOn(java.io.FileNotFoundException.class)
			.abortOn(IOException.class));
		assertThat(ex).hasMessage("retryOn was java.io.FileNotFoundException, but must not name a subtype of "
				+ "java.io.IOException, which abortOn names: it could never be retried");
		assertThat(ex.getRelatedSetting()).isEqualTo("abortOn");
	}

	@Test
	void aRetryOnSupertypeOfAnAbortOnTypeIsAccepted() {
		BackoffPolicy policy = BackoffPolicy.builder()
			.retryOn(IOException.class)
			.abortOn(java.io.FileNotFoundException.class)
			.build();
		assertThat(policy.getRules().isRetryable(new IOException())).isTrue();
	}

	@Test
	void aRawNonThrowableClassInRetryOnIsRejected() {
		InvalidPolicyException ex = rejection(BackoffPolicy.builder().retryOn(throwableType(String.class)));
		assertRejected(ex, "retryOn", "java.lang.String", "must name only Throwable types");
		assertThat(ex).hasMessage("retryOn was java.lang.String, but must name only Throwable types");
	}

	@Test
	void aRawNonThrowableClassInAbortOnIsRejected() {
		InvalidPolicyException ex = rejection(BackoffPolicy.builder().abortOn(throwableType(Integer.class)));
		assertRejected(ex, "abortOn", "java.lang.Integer", "must name only Throwable types");
	}

	@Test
	void aNullTypeInRetryOnIsRejected() {
		InvalidPolicyException ex = rejection(BackoffPolicy.builder().retryOn(IOException.class, nullValue()));
		assertRejected(ex, "retryOn", null, "must name only Throwable types");
	}

	@Test
	void anInvalidPolicyExceptionIsAnIllegalArgumentException() {
		assertThat(rejection(BackoffPolicy.builder().maxAttempts(0))).isInstanceOf(IllegalArgumentException.class);
	}

	@Test
	void theLimitsThemselvesAreAccepted() {
		BackoffPolicy policy = BackoffPolicy.builder()
			.maxAttempts(1)
			.baseDelay(Duration.ZERO)
			.maxDelay(BackoffPolicy.MAX_DURATION)
			.multiplier(1.0)
			.maxElapsed(Duration.ofNanos(1))
			.build();
		assertThat(policy.getSchedule().getMaxAttempts()).isEqualTo(1);
		assertThat(policy.getSchedule().getBaseDelay()).isZero();
		assertThat(policy.getSchedule().getMaxDelay()).isEqualTo(BackoffPolicy.MAX_DURATION);
		assertThat(policy.getSchedule().getMultiplier()).isEqualTo(1.0);
		assertThat(policy.getRules().getMaxElapsed()).isEqualTo(Duration.ofNanos(1));
	}

	@Test
	void baseDelayEqualToMaxDelayIsAccepted() {
		BackoffPolicy policy = BackoffPolicy.builder().baseDelay(Duration.ofSeconds(1)).maxDelay(Duration.ofSeconds(1)).build();
		assertThat(policy.getSchedule().ceiling(5)).isEqualTo(Duration.ofSeconds(1));
	}

	@Test
	void maxElapsedCanBeUnsetAgain() {
		BackoffPolicy policy = BackoffPolicy.builder().maxElapsed(Duration.ofSeconds(1)).maxElapsed(null).build();
		assertThat(policy.getRules().getMaxElapsed()).isNull();
	}

	private static InvalidPolicyException rejection(BackoffPolicy.Builder builder) {
		InvalidPolicyException ex = catchThrowableOfType(InvalidPolicyException.class, builder::build);
		assertThat(ex).as("the exception thrown by build()").isNotNull();
		return ex;
	}

	private static void assertRejected(InvalidPolicyException ex, String setting, @Nullable Object value, String rule) {
		assertThat(ex.getSetting()).isEqualTo(setting);
		assertThat(ex.getValue()).isEqualTo(value);
		assertThat(ex.getRule()).isEqualTo(rule);
	}

	/** Passes null where the signature says it must not be, as a misbehaving caller would. */
	private static <T> T nullValue() {
		return null;
	}

	/** Slips a non-Throwable class past the generic signature, as raw or reflective callers can. */
	@SuppressWarnings({ "unchecked", "rawtypes" })
	private static Class<? extends Throwable> throwableType(Class<?> type) {
		return (Class) type;
	}

}
