package dev.backoff;

import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link Outcome}: the metric tag values and which outcomes are successes.
 */
class OutcomeTests {

	@Test
	void tagValuesAreTheLowerCaseNames() {
		assertThat(Stream.of(Outcome.values()).map(Outcome::tagValue)).containsExactly("success",
				"success_after_retry", "exhausted", "not_retryable", "interrupted", "timed_out", "budget_exhausted", "nested",
				"admission_rejected");
	}

	@Test
	void onlyTheTwoSuccessesAreSuccesses() {
		assertThat(Stream.of(Outcome.values()).filter(Outcome::isSuccess)).containsExactly(Outcome.SUCCESS,
				Outcome.SUCCESS_AFTER_RETRY);
	}

}
