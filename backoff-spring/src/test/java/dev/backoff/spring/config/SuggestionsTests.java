package dev.backoff.spring.config;

import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class SuggestionsTests {

	@Test
	void namesAClosePolicy() {
		assertThat(Suggestions.nearest("quots", List.of("orders", "quotes"))).hasValue("quotes");
	}

	@Test
	void namesNothingWhenNothingIsClose() {
		assertThat(Suggestions.nearest("payments", List.of("orders", "quotes"))).isEmpty();
		assertThat(Suggestions.nearest("anything", List.of())).isEmpty();
	}

	@Test
	void allowsOneEditPerThreeCharacters() {
		// 9 characters allow 3 edits; 8 allow 2.
		assertThat(Suggestions.nearest("max-atempz", List.of("max-attempts"))).hasValue("max-attempts");
		assertThat(Suggestions.distance("mxatemps", "maxattempts")).isEqualTo(3);
		assertThat(Suggestions.nearest("mx-atemps", List.of("max-attempts"))).isEmpty();
		// A short name still allows one edit.
		assertThat(Suggestions.nearest("on", List.of("one"))).hasValue("one");
		assertThat(Suggestions.nearest("o", List.of("one"))).isEmpty();
	}

	@Test
	void countsASwapOfNeighboursAsOneEdit() {
		assertThat(Suggestions.distance("jtiter", "jitter")).isEqualTo(1);
		assertThat(Suggestions.nearest("nestde", List.of("nested", "mode"))).hasValue("nested");
	}

	@Test
	void comparesKeysWithoutCaseDashesOrUnderscores() {
		assertThat(Suggestions.nearest("maxAttemps", List.of("max-attempts"))).hasValue("max-attempts");
		assertThat(Suggestions.nearest("MAX_ATTEMPS", List.of("max-attempts"))).hasValue("max-attempts");
		assertThat(Suggestions.nearest("max-attemps", List.of("maxAttempts", "baseDelay"))).hasValue("maxAttempts");
		assertThat(Suggestions.nearest("Quotes", List.of("quotes"))).hasValue("quotes");
	}

	@Test
	void ofEquallyNearNamesNamesTheFirstAlphabetically() {
		assertThat(Suggestions.nearest("quotx", List.of("quoty", "quota", "quotz"))).hasValue("quota");
		assertThat(Suggestions.nearest("quotx", List.of("quotz", "quoty"))).hasValue("quoty");
		// A nearer name wins whatever its place.
		assertThat(Suggestions.nearest("quotes2", List.of("quotes", "quotes22"))).hasValue("quotes");
	}

	@Test
	void correctsTheElementOfAKeyThatNamesNothing() {
		assertThat(Suggestions.nearestKey(BackoffSettings.class, "backoff.policies.quotes.max-attemps"))
			.hasValue("backoff.policies.quotes.max-attempts");
		assertThat(Suggestions.nearestKey(BackoffSettings.class, "backoff.polices.quotes.max-attempts"))
			.hasValue("backoff.policies.quotes.max-attempts");
		assertThat(Suggestions.nearestKey(BackoffSettings.class, "backoff.defaults.budget.max-token"))
			.hasValue("backoff.defaults.budget.max-tokens");
		assertThat(Suggestions.nearestKey(BackoffSettings.class, "backoff.policies.quotes.retryOnn[0]"))
			.hasValue("backoff.policies.quotes.retry-on[0]");
		assertThat(Suggestions.nearestKey(BackoffSettings.class, "backoff.policies[Quotes_V2].max-attemps"))
			.hasValue("backoff.policies[Quotes_V2].max-attempts");
		assertThat(Suggestions.nearestKey(BackoffSettings.class, "backoff.policies[a.b].max-attemps"))
			.hasValue("backoff.policies[a.b].max-attempts");
		assertThat(Suggestions.nearestKey(BackoffSettings.class, "backoff.policies.Quotes.maxAttempts.x")).isEmpty();
		assertThat(Suggestions.nearestKey(BackoffSettings.class, "backoff.policies.quotes.colour")).isEmpty();
	}

}
