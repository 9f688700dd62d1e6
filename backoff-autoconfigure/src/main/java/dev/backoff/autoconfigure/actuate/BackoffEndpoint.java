package dev.backoff.autoconfigure.actuate;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.WeakHashMap;

import dev.backoff.BackoffDelays;
import dev.backoff.BackoffPolicy;
import dev.backoff.BackoffSchedule;
import dev.backoff.Jitter;
import dev.backoff.RetryBudget;
import dev.backoff.RetryRules;
import dev.backoff.spring.config.BackoffConfigurationException;
import dev.backoff.spring.config.BackoffPolicies;
import dev.backoff.spring.config.BackoffPolicies.SettingChange;
import dev.backoff.spring.config.DurationFormat;
import dev.backoff.spring.operation.BackoffCallCounts;
import dev.backoff.spring.operation.BackoffOperation;
import dev.backoff.spring.operation.BackoffOperationSource;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.OperationResponseBody;
import org.springframework.boot.actuate.endpoint.annotation.DeleteOperation;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;

/**
 * The {@code backoff} endpoint. {@code GET /actuator/backoff} lists every policy with its
 * settings in force, what of them differs from the configuration, its worst-case total wait,
 * and the methods that use it with their own effective settings (after the annotation's
 * overrides) and live counts by outcome. {@code GET /actuator/backoff/{policy}} previews that
 * policy's schedule, retry by retry.
 *
 * <p>Its write operations change a policy while the application runs, as the {@code loggers}
 * endpoint changes a level: {@code POST /actuator/backoff/{policy}} with the settings to
 * change, named as Java properties and valued as the YAML writes them, and
 * {@code DELETE /actuator/backoff/{policy}} to return to the configuration. Read-only unless
 * {@code management.endpoint.backoff.access=unrestricted}: changing retries is not for
 * whoever can read them.
 */
@Endpoint(id = BackoffEndpoint.ID, defaultAccess = Access.READ_ONLY)
public class BackoffEndpoint {

	/** The endpoint's id. */
	static final String ID = "backoff";

	/** Sampled sequences behind each preview's expected delays and percentiles. */
	static final int SAMPLES = 10_000;

	/** Retries shown in a preview at most; past them the delays repeat the cap. */
	static final int MAX_PREVIEW_RETRIES = 50;

	/** A fixed seed: the preview of a policy reads the same on every request. */
	private static final long SEED = 0x5DEECE66DL;

	/** The settings a change may name, as the write operation's parameters. */
	private static final List<String> SETTINGS = List.of("maxAttempts", "baseDelay", "maxDelay", "multiplier",
			"jitter", "maxElapsed", "attemptTimeout", "maxRetryAfter", "throttleBaseDelay", "throttleMaxDelay",
			"retryNonIdempotent", "budgetEnabled", "budgetMaxTokens", "budgetTokenRatio", "budgetThrottleCost");

	private final BackoffOperationSource operations;

	private final @Nullable BackoffCallCounts counts;

	/** Each schedule's sampled retries; a schedule that is no longer used is dropped. */
	private final Map<BackoffSchedule, List<RetryPreview>> previews = Collections.synchronizedMap(new WeakHashMap<>());

	/**
	 * @param operations the resolved {@code @Backoff} methods and their policies
	 * @param counts the live counts, or {@code null} without metrics
	 */
	public BackoffEndpoint(BackoffOperationSource operations, @Nullable BackoffCallCounts counts) {
		this.operations = operations;
		this.counts = counts;
	}

	/** @return every policy, with the methods that use it */
	@ReadOperation
	public PoliciesDescriptor policies() {
		BackoffPolicies policies = this.operations.getPolicies();
		Map<String, PolicyDescriptor> descriptors = new LinkedHashMap<>();
		descriptors.put(BackoffPolicies.DEFAULTS, describe(BackoffPolicies.DEFAULTS, policies.getDefaults()));
		for (String name : policies.getNames()) {
			descriptors.put(name, describe(name, policies.get(name)));
		}
		return new PoliciesDescriptor(this.operations.getExecutor().getNested().name().toLowerCase(Locale.ROOT),
				descriptors);
	}

	/**
	 * @param policy a policy name, or {@value BackoffPolicies#DEFAULTS}
	 * @return 200 with the policy's schedule preview; 404 with a message naming the configured
	 * policies when there is no such policy
	 */
	@ReadOperation
	public WebEndpointResponse<OperationResponseBody> preview(@Selector String policy) {
		BackoffPolicy found = this.operations.getPolicies().get(policy);
		return (found != null) ? new WebEndpointResponse<>(preview(policy, found)) : unknown(policy);
	}

	/**
	 * Changes a policy: calls that start afterwards use the new settings, calls in flight
	 * finish as they started, and a method's annotation attributes still win over the policy.
	 * Validated by the rules of start-up, all settings or none. Settings not given keep their
	 * value, earlier changes included.
	 * @param policy a policy name, or {@value BackoffPolicies#DEFAULTS} (whose settings the
	 * policies that leave them unset inherit)
	 * @param maxAttempts calls allowed, the first included, such as {@code 3}
	 * @param baseDelay the first retry's ceiling, such as {@code 250ms}
	 * @param maxDelay the cap of every delay, such as {@code 5s}
	 * @param multiplier the factor between ceilings, such as {@code 2.0}
	 * @param jitter {@code none}, {@code full}, {@code equal} or {@code decorrelated}
	 * @param maxElapsed the budget for attempts plus waits, such as {@code 30s}
	 * @param attemptTimeout how long one attempt of a non-blocking call may take, such as
	 * {@code 2s}; refused when it would bound a blocking method of the policy
	 * @param maxRetryAfter the longest {@code Retry-After} to honour, such as {@code 10s}
	 * @param throttleBaseDelay the first ceiling after throttling, such as {@code 1s}
	 * @param throttleMaxDelay the cap of every wait after throttling, such as {@code 20s}
	 * @param retryNonIdempotent whether HTTP clients retry POST and PATCH without an
	 * {@code Idempotency-Key}
	 * @param budgetEnabled whether the policy has a retry budget ({@code budget.enabled})
	 * @param budgetMaxTokens the budget's size ({@code budget.maxTokens}); a new size keeps the
	 * fraction of tokens left
	 * @param budgetTokenRatio the tokens a success gives back ({@code budget.tokenRatio})
	 * @param budgetThrottleCost the share of a token a throttled failure takes ({@code budget.throttleCost})
	 * @return 200 with what changed and the settings in force; 400 naming the property, the
	 * value and the rule, when nothing changed; 404 when there is no such policy
	 */
	@WriteOperation
	public WebEndpointResponse<OperationResponseBody> change(@Selector String policy, @Nullable String maxAttempts,
			@Nullable String baseDelay, @Nullable String maxDelay, @Nullable String multiplier,
			@Nullable String jitter, @Nullable String maxElapsed, @Nullable String attemptTimeout,
			@Nullable String maxRetryAfter, @Nullable String throttleBaseDelay, @Nullable String throttleMaxDelay,
			@Nullable String retryNonIdempotent,
			@Nullable String budgetEnabled, @Nullable String budgetMaxTokens, @Nullable String budgetTokenRatio,
			@Nullable String budgetThrottleCost) {
		if (this.operations.getPolicies().get(policy) == null) {
			return unknown(policy);
		}
		Map<String, Object> settings = new LinkedHashMap<>();
		put(settings, "maxAttempts", maxAttempts);
		put(settings, "baseDelay", baseDelay);
		put(settings, "maxDelay", maxDelay);
		put(settings, "multiplier", multiplier);
		put(settings, "jitter", jitter);
		put(settings, "maxElapsed", maxElapsed);
		put(settings, "attemptTimeout", attemptTimeout);
		put(settings, "maxRetryAfter", maxRetryAfter);
		put(settings, "throttleBaseDelay", throttleBaseDelay);
		put(settings, "throttleMaxDelay", throttleMaxDelay);
		put(settings, "retryNonIdempotent", retryNonIdempotent);
		// Flat keys: Actuator reads a request body as one JSON object of strings, so no nested "budget".
		put(settings, "budget.enabled", budgetEnabled);
		put(settings, "budget.maxTokens", budgetMaxTokens);
		put(settings, "budget.tokenRatio", budgetTokenRatio);
		put(settings, "budget.throttleCost", budgetThrottleCost);
		if (settings.isEmpty()) {
			return invalid(policy, "the body names no setting to change; give one or more of "
					+ String.join(", ", SETTINGS) + ", as JSON such as {\"maxAttempts\": 1}");
		}
		try {
			return changed(policy, this.operations.change(policy, settings));
		}
		catch (BackoffConfigurationException ex) {
			return new WebEndpointResponse<>(new InvalidChangeDescriptor(policy, ex.getProperty(),
					String.valueOf(ex.getValue()), ex.getRule(), ex.getMessage()), WebEndpointResponse.STATUS_BAD_REQUEST);
		}
	}

	/**
	 * Returns a policy to its configuration, undoing every change made with {@link #change}.
	 * @param policy a policy name, or {@value BackoffPolicies#DEFAULTS}
	 * @return 200 with what changed and the settings in force; 404 when there is no such policy
	 */
	@DeleteOperation
	public WebEndpointResponse<OperationResponseBody> reset(@Selector String policy) {
		if (this.operations.getPolicies().get(policy) == null) {
			return unknown(policy);
		}
		return changed(policy, this.operations.reset(policy));
	}

	private WebEndpointResponse<OperationResponseBody> changed(String policy,
			Map<String, Map<String, SettingChange>> changes) {
		BackoffPolicies policies = this.operations.getPolicies();
		BackoffPolicy found = policies.get(policy);
		return new WebEndpointResponse<>(new ChangeDescriptor(policy, changes, settings(policy, found)));
	}

	private WebEndpointResponse<OperationResponseBody> unknown(String policy) {
		Set<String> names = this.operations.getPolicies().getNames();
		return new WebEndpointResponse<>(new InvalidChangeDescriptor(policy, null, null, null,
				"No Backoff policy is named '" + policy + "'; configured: " + BackoffPolicies.DEFAULTS
						+ (names.isEmpty() ? "" : ", " + String.join(", ", names))),
				WebEndpointResponse.STATUS_NOT_FOUND);
	}

	/** The answer to a change whose body names keys that are no setting: 400, naming them. */
	static WebEndpointResponse<OperationResponseBody> unknownSettings(String policy, Set<String> keys) {
		String named = String.join(", ", keys);
		String rule = "the body names " + named + ", which " + ((keys.size() == 1) ? "is no setting" : "are no settings")
				+ "; the settings are " + String.join(", ", SETTINGS) + ". Nothing was changed";
		return new WebEndpointResponse<>(new InvalidChangeDescriptor(policy, named, null, rule, rule),
				WebEndpointResponse.STATUS_BAD_REQUEST);
	}

	private static WebEndpointResponse<OperationResponseBody> invalid(String policy, String rule) {
		return new WebEndpointResponse<>(new InvalidChangeDescriptor(policy, null, null, rule, rule),
				WebEndpointResponse.STATUS_BAD_REQUEST);
	}

	private static void put(Map<String, Object> settings, String setting, @Nullable String value) {
		if (value != null) {
			settings.put(setting, value);
		}
	}

	/** A policy's settings in force, with the named policy's budget and HTTP settings. */
	private SettingsDescriptor settings(String name, BackoffPolicy policy) {
		BackoffPolicies policies = this.operations.getPolicies();
		return SettingsDescriptor.of(policy, policies.getBudget(name), policies.isRetryNonIdempotent(name));
	}

	private PolicyDescriptor describe(String name, BackoffPolicy policy) {
		Map<String, MethodDescriptor> methods = new TreeMap<>();
		for (BackoffOperation operation : this.operations.getAll()) {
			if (operation.getPolicyName().equals(name)) {
				BackoffPolicy own = operation.getPolicy();
				methods.put(operation.getMethodTag(),
						new MethodDescriptor(settings(name, own),
								rounded(worstCaseTotalDelay(own)), operation.getFallbackName(),
								(this.counts != null) ? this.counts.get(operation) : null));
			}
		}
		Map<String, SettingChange> changes = this.operations.getPolicies().getChanges(name);
		return new PolicyDescriptor(settings(name, policy), changes.isEmpty() ? null : changes,
				rounded(worstCaseTotalDelay(policy)), methods);
	}

	private PreviewDescriptor preview(String name, BackoffPolicy policy) {
		BackoffSchedule schedule = policy.getSchedule();
		String growth = (schedule.getJitter() == Jitter.DECORRELATED)
				? "decorrelated: each wait is drawn from [base-delay, 3 x the previous wait], capped at max-delay"
				: String.format(Locale.ROOT,
						"after a total wait T the next ceiling is base-delay + %.2f x T: each wait is about %.0f%% of the time already waited",
						schedule.getMultiplier() - 1, (schedule.getMultiplier() - 1) * 100);
		Duration maxElapsed = policy.getRules().getMaxElapsed();
		List<RetryPreview> retries = schedule(schedule, maxElapsed);
		BackoffSchedule throttling = schedule.getThrottling();
		int total = schedule.getMaxRetries();
		String listed = (total > retries.size())
				? "the first " + retries.size() + " of " + total + " retries; the worst case counts them all" : null;
		return new PreviewDescriptor(name, settings(name, policy), rounded(worstCaseTotalDelay(policy)), growth,
				SAMPLES, total, listed, retries, (throttling != null) ? schedule(throttling, maxElapsed) : null);
	}

	/** A schedule's sampled retries, its worst case never past max-elapsed. */
	private List<RetryPreview> schedule(BackoffSchedule schedule, @Nullable Duration maxElapsed) {
		List<RetryPreview> retries = this.previews.computeIfAbsent(schedule, BackoffEndpoint::retries);
		if (maxElapsed == null) {
			return retries;
		}
		// No call waits past max-elapsed: a worst case beyond it cannot happen.
		return retries.stream()
			.map((retry) -> (schedule.worstCaseTotalDelay(retry.retry()).compareTo(maxElapsed) <= 0) ? retry
					: retry.withWorstCaseElapsed(rounded(maxElapsed)))
			.toList();
	}

	/** The largest total wait of a call: every retry's longest wait, but never past max-elapsed. */
	private static Duration worstCaseTotalDelay(BackoffPolicy policy) {
		Duration worstCase = policy.getSchedule().worstCaseTotalDelay();
		Duration maxElapsed = policy.getRules().getMaxElapsed();
		return (maxElapsed != null && maxElapsed.compareTo(worstCase) < 0) ? maxElapsed : worstCase;
	}

	/** Samples a schedule's retries: tens of milliseconds of CPU, so done once per schedule. */
	private static List<RetryPreview> retries(BackoffSchedule schedule) {
		int rows = Math.min(schedule.getMaxRetries(), MAX_PREVIEW_RETRIES);
		long[][] samples = new long[rows][SAMPLES];
		SplittableRandom random = new SplittableRandom(SEED);
		for (int sample = 0; sample < SAMPLES; sample++) {
			// Each sequence is independent, as each call's is: the same engine the executor uses.
			BackoffDelays delays = schedule.delays(random.split());
			for (int row = 0; row < rows; row++) {
				samples[row][sample] = delays.nextNanos();
			}
		}
		List<RetryPreview> retries = new ArrayList<>(rows);
		double expectedElapsed = 0;
		for (int row = 0; row < rows; row++) {
			long[] draws = samples[row];
			double mean = Arrays.stream(draws).average().orElse(0);
			Arrays.sort(draws);
			expectedElapsed += mean;
			retries.add(new RetryPreview(row + 1, rounded(schedule.longestDelay(row + 1)), rounded(nanos(mean)),
					rounded(Duration.ofNanos(draws[SAMPLES / 2])), rounded(Duration.ofNanos(draws[(int) (SAMPLES * 0.99)])),
					rounded(nanos(expectedElapsed)), rounded(schedule.worstCaseTotalDelay(row + 1))));
		}
		return List.copyOf(retries);
	}

	private static Duration nanos(double nanos) {
		return Duration.ofNanos(Math.round(nanos));
	}

	private static String format(Duration duration) {
		return DurationFormat.format(duration);
	}

	private static String rounded(Duration duration) {
		return DurationFormat.formatRounded(duration);
	}

	/** Every policy by name, and what nested calls do ({@code backoff.nested}). */
	public record PoliciesDescriptor(String nested, Map<String, PolicyDescriptor> policies)
			implements OperationResponseBody {
	}

	/**
	 * One policy: its settings in force, what of them differs from the configuration
	 * ({@code null} when nothing does), its worst-case total wait and the methods that use it.
	 */
	public record PolicyDescriptor(SettingsDescriptor settings, @Nullable Map<String, SettingChange> changes,
			String worstCaseTotalDelay, Map<String, MethodDescriptor> methods) {
	}

	/**
	 * The answer to a change: by policy, the settings that have another value now (a change to
	 * {@value BackoffPolicies#DEFAULTS} changes the policies that inherit it), and the changed
	 * policy's settings in force.
	 */
	public record ChangeDescriptor(String policy, Map<String, Map<String, SettingChange>> changes,
			SettingsDescriptor settings) implements OperationResponseBody {
	}

	/**
	 * The answer to a change that was refused, so that nothing changed: the property at fault,
	 * the value given and the rule it breaks, as start-up reports them, or why there is no such policy.
	 */
	public record InvalidChangeDescriptor(String policy, @Nullable String property, @Nullable String value,
			@Nullable String rule, String message) implements OperationResponseBody {
	}

	/** One {@code @Backoff} method: its effective settings and its calls by outcome. */
	public record MethodDescriptor(SettingsDescriptor settings, String worstCaseTotalDelay, @Nullable String fallback,
			@Nullable Map<String, Long> calls) {
	}

	/** A policy's settings, named and written as in {@code application.yml}. */
	public record SettingsDescriptor(int maxAttempts, String baseDelay, String maxDelay, double multiplier,
			String jitter, @Nullable String maxElapsed, @Nullable String attemptTimeout, List<String> retryOn,
			List<String> abortOn,
			@Nullable String retryOnException, boolean retryIf,
			String maxRetryAfter, @Nullable String throttleBaseDelay, @Nullable String throttleMaxDelay,
			List<String> throttleOn, boolean retryNonIdempotent, @Nullable BudgetDescriptor budget) {

		static SettingsDescriptor of(BackoffPolicy policy, @Nullable RetryBudget budget, boolean retryNonIdempotent) {
			BackoffSchedule schedule = policy.getSchedule();
			BackoffSchedule throttling = schedule.getThrottling();
			RetryRules rules = policy.getRules();
			Duration maxElapsed = rules.getMaxElapsed();
			Duration attemptTimeout = rules.getAttemptTimeout();
			return new SettingsDescriptor(schedule.getMaxAttempts(), format(schedule.getBaseDelay()),
					format(schedule.getMaxDelay()), schedule.getMultiplier(),
					schedule.getJitter().name().toLowerCase(Locale.ROOT),
					(maxElapsed != null) ? format(maxElapsed) : null,
					(attemptTimeout != null) ? format(attemptTimeout) : null,
					rules.getRetryOn().stream().map(Class::getName).toList(),
					rules.getAbortOn().stream().map(Class::getName).toList(),
					(rules.getRetryOnException() != null) ? String.valueOf(rules.getRetryOnException()) : null,
					rules.getRetryIfResult() != null,
					format(policy.getMaxRetryAfter()), (throttling != null) ? format(throttling.getBaseDelay()) : null,
					(throttling != null) ? format(throttling.getMaxDelay()) : null,
					rules.getThrottleOn().stream().map(Class::getName).toList(), retryNonIdempotent,
					(budget != null) ? BudgetDescriptor.of(budget) : null);
		}

	}

	/**
	 * A policy's retry budget: its settings, the tokens left now, and whether a failure now
	 * would still be retried.
	 */
	public record BudgetDescriptor(double maxTokens, double tokenRatio, double throttleCost, double tokens,
			boolean retriesAllowed) {

		static BudgetDescriptor of(RetryBudget budget) {
			return new BudgetDescriptor(budget.getMaxTokens(), budget.getTokenRatio(), budget.getThrottleCost(),
					budget.getTokens(), budget.allowsRetries());
		}

	}

	/**
	 * A policy's schedule, retry by retry: {@code retries} in all, of which {@code schedule}
	 * lists at most {@value #MAX_PREVIEW_RETRIES} ({@code listed} says so when it stops short);
	 * and {@code throttling}, the waits if every failure were throttling, when the policy has a
	 * throttling schedule ({@code null} otherwise). A call's waits mix the two, retry by retry.
	 */
	public record PreviewDescriptor(String policy, SettingsDescriptor settings, String worstCaseTotalDelay,
			String growth, int samples, int retries, @Nullable String listed, List<RetryPreview> schedule,
			@Nullable List<RetryPreview> throttling)
			implements OperationResponseBody {
	}

	/**
	 * One retry of a preview: its ceiling, the largest wait it can draw ({@code v(n)}, or for
	 * decorrelated jitter {@code min(max-delay, base-delay × 3^n)}); the mean, median and 99th
	 * percentile of its sampled delays; and the cumulative expected and worst-case wait up to
	 * it, the worst case never past max-elapsed.
	 */
	public record RetryPreview(int retry, String ceiling, String expected, String p50, String p99,
			String expectedElapsed, String worstCaseElapsed) {

		RetryPreview withWorstCaseElapsed(String worstCaseElapsed) {
			return new RetryPreview(this.retry, this.ceiling, this.expected, this.p50, this.p99, this.expectedElapsed,
					worstCaseElapsed);
		}

	}

}
