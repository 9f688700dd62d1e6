package dev.backoff.spring.config;

import java.time.Duration;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * {@link DurationFormat#parse} reads what Spring Boot reads, and refuses what Boot refuses that
 * Framework's parser would read as zero.
 */
class DurationFormatTests {

	@ParameterizedTest
	@CsvSource({ "250ms, PT0.25S", "2s, PT2S", "PT0.5S, PT0.5S", "250, PT0.25S", " 1m , PT1M", "0, PT0S" })
	void readsTheYamlsDurations(String text, Duration expected) {
		assertThat(DurationFormat.parse(text)).isEqualTo(expected);
	}

	@ParameterizedTest
	@ValueSource(strings = { "-", "+", "ms", " - ", "()", "" })
	void refusesTextWithNoNumberRatherThanReadItAsZero(String text) {
		assertThatIllegalArgumentException().isThrownBy(() -> DurationFormat.parse(text))
			.withMessage("'" + text + "' has no number, so it is no duration");
	}

}
