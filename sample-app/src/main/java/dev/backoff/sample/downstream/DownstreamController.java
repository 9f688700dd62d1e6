package dev.backoff.sample.downstream;

import java.io.IOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

import jakarta.servlet.ServletOutputStream;
import jakarta.servlet.http.HttpServletResponse;
import org.jspecify.annotations.Nullable;

import dev.backoff.sample.downstream.DownstreamFaults.FaultsView;
import dev.backoff.sample.downstream.DownstreamFaults.StatsView;
import dev.backoff.sample.downstream.DownstreamRateLimit.RateLimitView;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.boot.convert.DurationStyle;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * Stands in for a remote quote service, inside this application so that the sample needs
 * nothing else; the quote client still reaches it over real loopback HTTP. Its faults are set
 * with {@code POST /downstream/faults} and what it received is read at
 * {@code GET /downstream/stats}.
 *
 * <ul>
 * <li>{@code GET /downstream/quotes/{symbol}}: 200 with a quote; 400 for a symbol that is not
 * 1 to 8 capital letters; 404 for an unknown one; or the injected fault: 503, 429 with
 * {@code Retry-After}, or a body cut off mid-way.</li>
 * <li>{@code POST /downstream/faults?failNext=&throttleNext=&disconnectNext=&failureRate=&retryAfter=}:
 * changes the faults, each parameter optional: the next N requests answered 503, 429 or cut
 * off, a share of the others answered 503 (seeded), the Retry-After of a 429 in seconds.</li>
 * <li>{@code POST /downstream/faults?slowNext=&slowRate=&slowDelay=}: the next N requests
 * otherwise answered normally, then a share of the others (seeded), answered only after that
 * delay ({@code 50ms}, {@code 1s}), without holding a servlet thread meanwhile.</li>
 * <li>{@code POST /downstream/rate-limit?perSecond=}, {@code GET /downstream/rate-limit}: a rate
 * limit (0 for none), over which requests are answered 429 before any fault, and what it counted
 * ({@link DownstreamRateLimit}).</li>
 * <li>{@code GET /downstream/stats}, {@code DELETE /downstream/stats}: the requests received,
 * by answer; the delete clears faults, the rate limit and counts.</li>
 * </ul>
 */
@RestController
@RequestMapping("/downstream")
public class DownstreamController implements DisposableBean {

	private static final Pattern SYMBOL = Pattern.compile("[A-Z]{1,8}");

	private static final Map<String, BigDecimal> PRICES = Map.of("ACME", new BigDecimal("123.45"), "GLOBEX",
			new BigDecimal("67.89"), "INITECH", new BigDecimal("4.20"));

	private final DownstreamFaults faults;

	/**
	 * Sends the late answers: one thread that only completes futures, so that a hundred slow
	 * answers in flight hold no servlet thread (Tomcat's pool is 200).
	 */
	private final ScheduledExecutorService lateAnswers = Executors.newSingleThreadScheduledExecutor((task) -> {
		Thread thread = new Thread(task, "downstream-late-answers");
		thread.setDaemon(true);
		return thread;
	});

	private final DownstreamRateLimit rateLimit;

	public DownstreamController(DownstreamFaults faults, DownstreamRateLimit rateLimit) {
		this.faults = faults;
		this.rateLimit = rateLimit;
	}

	/**
	 * The quote, or the injected fault.
	 * @return a {@code ResponseEntity}; for a slow answer a {@code CompletableFuture} of it,
	 * completed after the delay (Spring MVC answers it asynchronously); {@code null} for a body
	 * cut off, whose response is already written
	 */
	@GetMapping("/quotes/{symbol}")
	public @Nullable Object quote(@PathVariable String symbol, HttpServletResponse response) throws IOException {
		if (!SYMBOL.matcher(symbol).matches()) {
			this.faults.answeredBadRequest();
			return problem(HttpStatus.BAD_REQUEST, "A symbol is 1 to 8 capital letters, not '" + symbol + "'");
		}
		if (!this.rateLimit.tryAcquire()) {
			return problem(HttpStatus.TOO_MANY_REQUESTS, "Rate limited: at most " + this.rateLimit.view().perSecond()
					+ " requests a second");
		}
		switch (this.faults.next()) {
			case UNAVAILABLE:
				return problem(HttpStatus.SERVICE_UNAVAILABLE, "Injected fault: try again later");
			case THROTTLED:
				return ResponseEntity.status(HttpStatus.TOO_MANY_REQUESTS)
					.header(HttpHeaders.RETRY_AFTER, Long.toString(this.faults.retryAfter().toSeconds()))
					.body(ProblemDetail.forStatusAndDetail(HttpStatus.TOO_MANY_REQUESTS, "Injected fault: slow down"));
			case DISCONNECT:
				cutOff(response);
				return null;
			case SLOW:
				// Decided and counted now; only its sending waits.
				return later(answer(symbol), this.faults.slowDelay());
			default:
				break;
		}
		return answer(symbol);
	}

	private ResponseEntity<?> answer(String symbol) {
		BigDecimal price = PRICES.get(symbol);
		if (price == null) {
			this.faults.answeredNotFound();
			return problem(HttpStatus.NOT_FOUND, "No quote for " + symbol);
		}
		this.faults.answeredOk();
		return ResponseEntity.ok(new QuoteBody(symbol, price));
	}

	@PostMapping("/faults")
	public FaultsView setFaults(@RequestParam(required = false) @Nullable Integer failNext,
			@RequestParam(required = false) @Nullable Integer throttleNext,
			@RequestParam(required = false) @Nullable Integer disconnectNext,
			@RequestParam(required = false) @Nullable Double failureRate,
			@RequestParam(required = false) @Nullable Integer retryAfter,
			@RequestParam(required = false) @Nullable Integer slowNext,
			@RequestParam(required = false) @Nullable Double slowRate,
			@RequestParam(required = false) @Nullable String slowDelay) {
		return this.faults.update(failNext, throttleNext, disconnectNext, failureRate,
				(retryAfter != null) ? Duration.ofSeconds(retryAfter) : null, slowNext, slowRate,
				(slowDelay != null) ? duration("slowDelay", slowDelay) : null);
	}

	@GetMapping("/faults")
	public FaultsView faults() {
		return this.faults.faults();
	}

	@PostMapping("/rate-limit")
	public RateLimitView setRateLimit(@RequestParam double perSecond) {
		return this.rateLimit.set(perSecond);
	}

	@GetMapping("/rate-limit")
	public RateLimitView rateLimit() {
		return this.rateLimit.view();
	}

	@GetMapping("/stats")
	public StatsView stats() {
		return this.faults.stats();
	}

	@DeleteMapping("/stats")
	public ResponseEntity<Void> reset() {
		this.faults.reset();
		this.rateLimit.reset();
		return ResponseEntity.noContent().build();
	}

	@Override
	public void destroy() {
		this.lateAnswers.shutdownNow();
	}

	@ExceptionHandler(IllegalArgumentException.class)
	ResponseEntity<ProblemDetail> badSetting(IllegalArgumentException ex) {
		return problem(HttpStatus.BAD_REQUEST, ex.getMessage());
	}

	/**
	 * Promises a body, sends its first bytes and ends the exchange with the connection closed:
	 * the client's read fails with an {@link IOException}, as on a dropped connection.
	 */
	private static void cutOff(HttpServletResponse response) throws IOException {
		byte[] start = "{\"symbol\":\"".getBytes(StandardCharsets.UTF_8);
		response.setStatus(HttpStatus.OK.value());
		response.setContentType(MediaType.APPLICATION_JSON_VALUE);
		response.setHeader(HttpHeaders.CONNECTION, "close");
		response.setContentLength(1024);
		ServletOutputStream body = response.getOutputStream();
		body.write(start);
		body.flush();
	}

	private CompletableFuture<ResponseEntity<?>> later(ResponseEntity<?> answer, Duration delay) {
		CompletableFuture<ResponseEntity<?>> late = new CompletableFuture<>();
		this.lateAnswers.schedule(() -> late.complete(answer), delay.toNanos(), TimeUnit.NANOSECONDS);
		return late;
	}

	private static Duration duration(String name, String value) {
		try {
			return DurationStyle.detectAndParse(value);
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalArgumentException(
					name + " must be a duration such as 50ms, 1s or PT1S, but was '" + value + "'", ex);
		}
	}

	private static ResponseEntity<ProblemDetail> problem(HttpStatus status, @Nullable String detail) {
		return ResponseEntity.status(status).body(ProblemDetail.forStatusAndDetail(status, detail));
	}

	/** The downstream's answer. */
	public record QuoteBody(String symbol, BigDecimal price) {
	}

}
