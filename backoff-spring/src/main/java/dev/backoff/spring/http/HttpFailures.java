package dev.backoff.spring.http;

import java.time.Clock;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeFormatterBuilder;
import java.time.temporal.ChronoField;
import java.util.Locale;

import dev.backoff.BackoffPolicy;
import dev.backoff.RetryAfter;
import dev.backoff.internal.CauseChain;
import org.jspecify.annotations.Nullable;

import org.springframework.http.HttpHeaders;
import org.springframework.util.ClassUtils;
import org.springframework.web.client.RestClientResponseException;
import org.springframework.web.reactive.function.client.WebClientResponseException;

/**
 * How a failure of Spring's HTTP clients reads for retry: the status of its response decides
 * whether another attempt may succeed, and its {@code Retry-After} header is the server's
 * hint of when. Reads {@link RestClientResponseException} (RestClient, RestTemplate, HTTP
 * interface clients) and, when spring-webflux is present, {@code WebClientResponseException}:
 * the first of them along the cause chain. Needs spring-web. For a policy:
 * <pre class="code">
 * builder.retryableByDefault(HttpFailures::isRetryable)
 * 	.retryAfter((failure) -&gt; HttpFailures.retryAfter(failure, clock));
 * </pre>
 */
public final class HttpFailures {

	private static final boolean WEBFLUX_PRESENT = ClassUtils.isPresent(
			"org.springframework.web.reactive.function.client.WebClientResponseException",
			HttpFailures.class.getClassLoader());

	// Any longer delta saturates at BackoffPolicy.MAX_DURATION, as every duration in Backoff does.
	private static final long MAX_SECONDS = BackoffPolicy.MAX_DURATION.getSeconds();

	private static final DateTimeFormatter ASCTIME = new DateTimeFormatterBuilder().parseCaseInsensitive()
		.appendPattern("EEE MMM d HH:mm:ss yyyy")
		.toFormatter(Locale.US)
		.withZone(ZoneOffset.UTC);

	private HttpFailures() {
	}

	/**
	 * {@link BackoffPolicy#defaults()} that reads HTTP failures: classified by
	 * {@link #isRetryable} and {@link #isThrottled}, with hints from {@link #retryAfter}. What
	 * {@code backoff.defaults} starts from when spring-web is present.
	 * @param clock the clock that an HTTP-date is measured against
	 * @return the policy
	 */
	public static BackoffPolicy defaults(Clock clock) {
		return BackoffPolicy.defaults()
			.toBuilder()
			.retryableByDefault(HttpFailures::isRetryable)
			.throttledByDefault(HttpFailures::isThrottled)
			.retryAfter((failure) -> retryAfter(failure, clock))
			.build();
	}

	/**
	 * Whether a failure is the server asking for less load, for a policy's
	 * {@link BackoffPolicy.Builder#throttledByDefault throttledByDefault}: the first HTTP
	 * response along the cause chain is 429 (Too Many Requests), or 503 (Service Unavailable)
	 * with a {@code Retry-After} header. A 503 without one is an outage, not throttling.
	 * @param failure an attempt's failure
	 * @return {@code true} when its retry is to wait by the throttling schedule
	 */
	public static boolean isThrottled(Throwable failure) {
		Response response = response(failure);
		if (response == null) {
			return false;
		}
		HttpHeaders headers = response.headers();
		return response.status() == 429
				|| (response.status() == 503 && headers != null && headers.containsHeader(HttpHeaders.RETRY_AFTER));
	}

	/**
	 * Whether another attempt may succeed, for a policy's
	 * {@link BackoffPolicy.Builder#retryableByDefault retryableByDefault}. The first HTTP
	 * response along the cause chain decides by its status: 5xx, 408 (Request Timeout) and
	 * 429 (Too Many Requests) are retryable, every other status is not. Without an HTTP
	 * response (an I/O error, a refused connection, a timeout) the core's default holds: every
	 * {@link Exception} is retryable. An {@link Error} never is, nor a request whose body
	 * {@link ReactiveBackoffHttp#filter could not be written again}.
	 * @param failure an attempt's failure
	 * @return {@code true} to retry it
	 */
	public static boolean isRetryable(Throwable failure) {
		if (!(failure instanceof Exception) || CauseChain.first(failure,
				(current) -> (current instanceof RequestBodyNotRepeatableException) ? Boolean.TRUE : null) != null) {
			return false;
		}
		Response response = response(failure);
		return response == null || isRetryableStatus(response.status());
	}

	/**
	 * The server's hint of how long to wait, for a policy's
	 * {@link BackoffPolicy.Builder#retryAfter retryAfter}: the hint of a {@link RetryAfter}
	 * along the cause chain if one gives it, else the {@code Retry-After} header of the first
	 * HTTP response along it, read by {@link #parseRetryAfter}. Never throws.
	 * @param failure an attempt's failure
	 * @param clock the clock that an HTTP-date is measured against
	 * @return the hint, or {@code null} for none
	 */
	public static @Nullable Duration retryAfter(Throwable failure, Clock clock) {
		try {
			Duration hint = RetryAfter.of(failure);
			if (hint != null) {
				return hint;
			}
			Response response = response(failure);
			HttpHeaders headers = (response != null) ? response.headers() : null;
			return (headers != null) ? parseRetryAfter(headers.getFirst(HttpHeaders.RETRY_AFTER), clock) : null;
		}
		catch (RuntimeException ex) {
			// A hint that cannot be read is no hint.
			return null;
		}
	}

	/**
	 * Reads a {@code Retry-After} value (RFC 9110 §10.2.3): delta-seconds such as {@code 120},
	 * or an HTTP-date, which gives the time from {@code clock} until then and zero when it has
	 * passed. An HTTP-date is an IMF-fixdate ({@code Sun, 06 Nov 1994 08:49:37 GMT}) or one of
	 * the obsolete forms: RFC 850 ({@code Sunday, 06-Nov-94 08:49:37 GMT}, its two-digit year
	 * taken within 50 years ahead of {@code clock}) or asctime ({@code Sun Nov  6 08:49:37 1994}).
	 * Delta-seconds beyond {@link BackoffPolicy#MAX_DURATION} saturate at it. Never throws.
	 * @param value the header's value, surrounding whitespace allowed
	 * @param clock the clock that an HTTP-date is measured against
	 * @return the hint, or {@code null} when the value is missing or malformed
	 */
	public static @Nullable Duration parseRetryAfter(@Nullable String value, Clock clock) {
		if (value == null) {
			return null;
		}
		String trimmed = value.trim();
		if (trimmed.isEmpty()) {
			return null;
		}
		try {
			if (isDigit(trimmed.charAt(0))) {
				return deltaSeconds(trimmed);
			}
			Instant now = clock.instant();
			Duration wait = Duration.between(now, httpDate(trimmed, now));
			if (wait.isNegative()) {
				return Duration.ZERO;
			}
			return (wait.compareTo(BackoffPolicy.MAX_DURATION) > 0) ? BackoffPolicy.MAX_DURATION : wait;
		}
		catch (RuntimeException ex) {
			return null;
		}
	}

	private static boolean isRetryableStatus(int status) {
		return (status >= 500 && status <= 599) || status == 408 || status == 429;
	}

	private static @Nullable Duration deltaSeconds(String value) {
		long seconds = 0;
		for (int i = 0; i < value.length(); i++) {
			char c = value.charAt(i);
			if (!isDigit(c)) {
				return null;
			}
			// Saturates rather than overflows: once past MAX_SECONDS the count stays just past it.
			seconds = Math.min(seconds * 10 + (c - '0'), MAX_SECONDS + 1);
		}
		return (seconds > MAX_SECONDS) ? BackoffPolicy.MAX_DURATION : Duration.ofSeconds(seconds);
	}

	private static boolean isDigit(char c) {
		return c >= '0' && c <= '9';
	}

	/** @throws DateTimeException when the value is no HTTP-date */
	private static Instant httpDate(String value, Instant now) {
		int comma = value.indexOf(',');
		if (comma < 0) {
			// asctime pads a one-digit day with a space: "Nov  6".
			return ASCTIME.parse(value.replaceAll(" +", " "), Instant::from);
		}
		if (comma == 3) {
			return DateTimeFormatter.RFC_1123_DATE_TIME.parse(value, Instant::from);
		}
		// RFC 9110 §5.6.7: a two-digit year more than 50 years ahead is of the past century.
		int year = now.atOffset(ZoneOffset.UTC).getYear();
		DateTimeFormatter rfc850 = new DateTimeFormatterBuilder().parseCaseInsensitive()
			.appendPattern("EEEE, dd-MMM-")
			.appendValueReduced(ChronoField.YEAR, 2, 2, year - 49)
			.appendPattern(" HH:mm:ss 'GMT'")
			.toFormatter(Locale.US)
			.withZone(ZoneOffset.UTC);
		return rfc850.parse(value, Instant::from);
	}

	/** The first HTTP response along the cause chain, or {@code null}. */
	private static @Nullable Response response(Throwable failure) {
		return CauseChain.first(failure, HttpFailures::responseOf);
	}

	private static @Nullable Response responseOf(Throwable failure) {
		if (failure instanceof RestClientResponseException ex) {
			return new Response(ex.getStatusCode().value(), ex.getResponseHeaders());
		}
		return WEBFLUX_PRESENT ? WebClientResponses.response(failure) : null;
	}

	private record Response(int status, @Nullable HttpHeaders headers) {
	}

	/** Kept apart so that WebClient's types load only when spring-webflux is present. */
	private static final class WebClientResponses {

		private WebClientResponses() {
		}

		static @Nullable Response response(Throwable failure) {
			return (failure instanceof WebClientResponseException ex)
					? new Response(ex.getStatusCode().value(), ex.getHeaders()) : null;
		}

	}

}
