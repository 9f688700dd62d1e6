package dev.backoff.spring.http;

import java.io.IOException;
import java.lang.reflect.Method;
import java.net.URI;
import java.net.URL;
import java.net.URLClassLoader;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

import dev.backoff.BackoffPolicy;
import dev.backoff.RetryAfter;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;
import org.springframework.http.HttpStatusCode;
import org.springframework.web.client.HttpClientErrorException;
import org.springframework.web.client.HttpServerErrorException;
import org.springframework.web.client.ResourceAccessException;
import org.springframework.web.client.RestClientResponseException;
import org.springframework.web.reactive.function.client.WebClientRequestException;
import org.springframework.web.reactive.function.client.WebClientResponseException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The HTTP classification of failures and the {@code Retry-After} hint, against a fixed clock.
 */
class HttpFailuresTests {

	/** A Sunday. */
	private static final Instant NOW = Instant.parse("2026-03-01T12:00:00Z");

	private final Clock clock = Clock.fixed(NOW, ZoneOffset.UTC);

	@ParameterizedTest
	@ValueSource(ints = { 500, 502, 503, 504, 599 })
	void retriesServerErrors(int status) {
		assertThat(HttpFailures.isRetryable(restClientFailure(status))).isTrue();
	}

	@ParameterizedTest
	@ValueSource(ints = { 408, 429 })
	void retriesRequestTimeoutAndTooManyRequests(int status) {
		assertThat(HttpFailures.isRetryable(restClientFailure(status))).isTrue();
	}

	@ParameterizedTest
	@ValueSource(ints = { 400, 401, 403, 404, 405, 409, 410, 422 })
	void doesNotRetryOtherClientErrors(int status) {
		assertThat(HttpFailures.isRetryable(restClientFailure(status))).isFalse();
	}

	@ParameterizedTest
	@ValueSource(ints = { 100, 200, 204, 301, 302, 304, 600, 999 })
	void doesNotRetryInformationalSuccessRedirectOrNonStandardStatuses(int status) {
		assertThat(HttpFailures.isRetryable(restClientFailure(status))).isFalse();
	}

	@ParameterizedTest
	@ValueSource(ints = { 500, 502, 503, 504, 599, 408, 429 })
	void retriesWebClientServerErrorsTimeoutsAndTooManyRequests(int status) {
		assertThat(HttpFailures.isRetryable(webClientFailure(status, null))).isTrue();
	}

	@ParameterizedTest
	@ValueSource(ints = { 400, 401, 403, 404, 409, 422, 302 })
	void doesNotRetryWebClientClientErrorsOrRedirects(int status) {
		assertThat(HttpFailures.isRetryable(webClientFailure(status, null))).isFalse();
	}

	@Test
	void retriesAnIoFailureWithoutResponse() {
		ResourceAccessException failure = new ResourceAccessException("I/O error", new IOException("reset"));
		assertThat(HttpFailures.isRetryable(failure)).isTrue();
	}

	@Test
	void retriesAWebClientRequestFailureWithoutResponse() {
		WebClientRequestException failure = new WebClientRequestException(new IOException("refused"), HttpMethod.GET,
				URI.create("http://localhost/"), new HttpHeaders());
		assertThat(HttpFailures.isRetryable(failure)).isTrue();
	}

	@Test
	void retriesAnExceptionWithoutHttpResponse() {
		assertThat(HttpFailures.isRetryable(new IllegalStateException("not HTTP"))).isTrue();
	}

	@Test
	void classifiesAWrappedHttpFailureByItsStatus() {
		Exception failure = new IllegalStateException("wrapped", new RuntimeException(restClientFailure(404)));
		assertThat(HttpFailures.isRetryable(failure)).isFalse();
	}

	@Test
	void classifiesByTheFirstHttpResponseAlongTheCauseChain() {
		Exception failure = new IllegalStateException("outer", webClientFailure(503, null));
		failure.getCause().initCause(restClientFailure(404));
		assertThat(HttpFailures.isRetryable(failure)).isTrue();
	}

	@Test
	void doesNotRetryAnError() {
		assertThat(HttpFailures.isRetryable(new StackOverflowError())).isFalse();
	}

	@Test
	void doesNotRetryAnErrorCausedByARetryableStatus() {
		assertThat(HttpFailures.isRetryable(new AssertionError("failed", restClientFailure(503)))).isFalse();
	}

	@Test
	void survivesACauseCycle() {
		IllegalStateException first = new IllegalStateException("first");
		IllegalStateException second = new IllegalStateException("second", first);
		first.initCause(second);
		assertThat(HttpFailures.isRetryable(first)).isTrue();
		assertThat(HttpFailures.retryAfter(first, this.clock)).isNull();
	}

	@Test
	void readsDeltaSeconds() {
		assertThat(hint("120")).isEqualTo(Duration.ofSeconds(120));
	}

	@Test
	void trimsWhitespaceAroundDeltaSeconds() {
		assertThat(hint(" 7 ")).isEqualTo(Duration.ofSeconds(7));
	}

	@Test
	void readsZeroSeconds() {
		assertThat(hint("0")).isEqualTo(Duration.ZERO);
	}

	@ParameterizedTest
	@ValueSource(strings = { "-1", "abc", "1.5", "+5", "12abc", "1 2", "", "   ", "Sun, 01 Mar 2026", "PT5S" })
	void ignoresAMalformedValue(String value) {
		assertThat(hint(value)).isNull();
	}

	@Test
	void saturatesAHugeDeltaAtTheLongestDuration() {
		assertThat(hint("99999999999999999999")).isEqualTo(BackoffPolicy.MAX_DURATION);
	}

	@Test
	void saturatesJustPastTheLongestDuration() {
		long longest = BackoffPolicy.MAX_DURATION.getSeconds();
		assertThat(hint(Long.toString(longest))).isEqualTo(Duration.ofSeconds(longest));
		assertThat(hint(Long.toString(longest + 1))).isEqualTo(BackoffPolicy.MAX_DURATION);
	}

	@Test
	void readsAnHttpDateAsTheTimeUntilThen() {
		assertThat(hint("Sun, 01 Mar 2026 12:00:30 GMT")).isEqualTo(Duration.ofSeconds(30));
	}

	@Test
	void readsAnHttpDateInThePastAsZero() {
		assertThat(hint("Sun, 01 Mar 2026 11:59:00 GMT")).isEqualTo(Duration.ZERO);
	}

	@Test
	void saturatesAFarHttpDateAtTheLongestDuration() {
		assertThat(hint("Fri, 31 Dec 9999 23:59:59 GMT")).isEqualTo(BackoffPolicy.MAX_DURATION);
	}

	@Test
	void readsAnObsoleteRfc850Date() {
		assertThat(hint("Sunday, 01-Mar-26 12:00:30 GMT")).isEqualTo(Duration.ofSeconds(30));
	}

	@Test
	void readsAnRfc850YearMoreThanFiftyYearsAheadAsThePastCentury() {
		// 1994-11-06 was a Sunday; 2094-11-06 is a Saturday and would not parse.
		assertThat(hint("Sunday, 06-Nov-94 08:49:37 GMT")).isEqualTo(Duration.ZERO);
	}

	@Test
	void readsAnObsoleteAsctimeDate() {
		assertThat(hint("Sun Mar  1 12:00:30 2026")).isEqualTo(Duration.ofSeconds(30));
	}

	@Test
	void givesNoHintWithoutTheHeader() {
		assertThat(HttpFailures.retryAfter(restClientFailure(503), this.clock)).isNull();
	}

	@Test
	void givesNoHintWithoutResponseHeaders() {
		RestClientResponseException failure = new RestClientResponseException("503 Service Unavailable",
				HttpStatusCode.valueOf(503), "Service Unavailable", null, null, null);
		assertThat(HttpFailures.retryAfter(failure, this.clock)).isNull();
	}

	@Test
	void givesNoHintForAFailureWithoutHttpResponse() {
		assertThat(HttpFailures.retryAfter(new IOException("reset"), this.clock)).isNull();
	}

	@Test
	void readsTheHeaderOfARestClientFailure() {
		assertThat(HttpFailures.retryAfter(restClientFailure(429, "120"), this.clock)).isEqualTo(Duration.ofSeconds(120));
	}

	@Test
	void readsTheHeaderOfAWrappedHttpFailure() {
		Exception failure = new IllegalStateException("wrapped", restClientFailure(503, "120"));
		assertThat(HttpFailures.retryAfter(failure, this.clock)).isEqualTo(Duration.ofSeconds(120));
	}

	@Test
	void readsTheHeaderOfAWebClientFailure() {
		assertThat(HttpFailures.retryAfter(webClientFailure(429, "120"), this.clock)).isEqualTo(Duration.ofSeconds(120));
	}

	@Test
	void prefersTheHintOfARetryAfterFailure() {
		Exception failure = new HintedException(Duration.ofSeconds(5), restClientFailure(503, "120"));
		assertThat(HttpFailures.retryAfter(failure, this.clock)).isEqualTo(Duration.ofSeconds(5));
	}

	@Test
	void readsTheHeaderWhenARetryAfterFailureGivesNoHint() {
		Exception failure = new HintedException(null, restClientFailure(503, "120"));
		assertThat(HttpFailures.retryAfter(failure, this.clock)).isEqualTo(Duration.ofSeconds(120));
	}

	@Test
	void givesNoHintRatherThanThrowWhenAHintCannotBeRead() {
		Exception failure = new BrokenHintException(restClientFailure(503, "120"));
		assertThat(HttpFailures.retryAfter(failure, this.clock)).isNull();
	}

	@Test
	void givesNoHintRatherThanThrowWhenTheClockFails() {
		Clock broken = new Clock() {

			@Override
			public ZoneOffset getZone() {
				return ZoneOffset.UTC;
			}

			@Override
			public Clock withZone(ZoneId zone) {
				return this;
			}

			@Override
			public Instant instant() {
				throw new IllegalStateException("no time");
			}

		};
		assertThat(HttpFailures.retryAfter(restClientFailure(503, "Sun, 01 Mar 2026 12:00:30 GMT"), broken)).isNull();
	}

	@Test
	void classifiesAndReadsRestClientFailuresWithoutSpringWebflux() throws Exception {
		try (FilteredClassLoader withoutWebflux = new FilteredClassLoader("org.springframework.web.reactive.");
				WebPackageClassLoader loader = new WebPackageClassLoader(withoutWebflux)) {
			assertThatExceptionOfType(ClassNotFoundException.class)
				.isThrownBy(() -> loader.loadClass(WebClientResponseException.class.getName()));
			Class<?> loaded = loader.loadClass(HttpFailures.class.getName());
			assertThat(loaded).isNotSameAs(HttpFailures.class);
			Method isRetryable = loaded.getMethod("isRetryable", Throwable.class);
			Method retryAfter = loaded.getMethod("retryAfter", Throwable.class, Clock.class);
			assertThat(isRetryable.invoke(null, restClientFailure(503))).isEqualTo(true);
			assertThat(isRetryable.invoke(null, new IllegalStateException(restClientFailure(404)))).isEqualTo(false);
			assertThat(isRetryable.invoke(null, new IOException("reset"))).isEqualTo(true);
			assertThat(retryAfter.invoke(null, restClientFailure(429, "120"), this.clock))
				.isEqualTo(Duration.ofSeconds(120));
		}
	}

	private @Nullable Duration hint(String value) {
		return HttpFailures.retryAfter(restClientFailure(503, value), this.clock);
	}

	private static RestClientResponseException restClientFailure(int status) {
		return restClientFailure(status, null);
	}

	private static RestClientResponseException restClientFailure(int status, @Nullable String retryAfter) {
		HttpStatusCode code = HttpStatusCode.valueOf(status);
		HttpHeaders headers = headers(retryAfter);
		if (code.is5xxServerError()) {
			return HttpServerErrorException.create(code, "Server Error", headers, new byte[0], null);
		}
		if (code.is4xxClientError()) {
			return HttpClientErrorException.create(code, "Client Error", headers, new byte[0], null);
		}
		return new RestClientResponseException(status + " Other", code, "Other", headers, null, null);
	}

	private static WebClientResponseException webClientFailure(int status, @Nullable String retryAfter) {
		return WebClientResponseException.create(HttpStatusCode.valueOf(status), "Status", headers(retryAfter),
				new byte[0], null, null);
	}

	private static HttpHeaders headers(@Nullable String retryAfter) {
		HttpHeaders headers = new HttpHeaders();
		if (retryAfter != null) {
			headers.set(HttpHeaders.RETRY_AFTER, retryAfter);
		}
		return headers;
	}

	static class HintedException extends RuntimeException implements RetryAfter {

		private final @Nullable Duration hint;

		HintedException(@Nullable Duration hint, Throwable cause) {
			super("hinted", cause);
			this.hint = hint;
		}

		@Override
		public @Nullable Duration getRetryAfter() {
			return this.hint;
		}

	}

	static class BrokenHintException extends RuntimeException implements RetryAfter {

		BrokenHintException(Throwable cause) {
			super("broken", cause);
		}

		@Override
		public @Nullable Duration getRetryAfter() {
			throw new IllegalStateException("cannot read the hint");
		}

	}

	/**
	 * Defines this package's main classes itself, from the main output, and asks its parent
	 * for every other class: with a parent that hides spring-webflux, {@link HttpFailures}
	 * runs as in an application without it.
	 */
	static final class WebPackageClassLoader extends URLClassLoader {

		WebPackageClassLoader(ClassLoader parent) {
			super(new URL[] { HttpFailures.class.getProtectionDomain().getCodeSource().getLocation() }, parent);
		}

		@Override
		protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
			if (!name.startsWith(HttpFailures.class.getPackageName() + ".")) {
				return super.loadClass(name, resolve);
			}
			synchronized (getClassLoadingLock(name)) {
				Class<?> loaded = findLoadedClass(name);
				if (loaded == null) {
					loaded = findClass(name);
				}
				if (resolve) {
					resolveClass(loaded);
				}
				return loaded;
			}
		}

	}

}
