package dev.backoff.autoconfigure.actuate;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.WeakHashMap;
import java.util.stream.Collectors;

import dev.backoff.BackoffDelays;
import dev.backoff.BackoffPolicy;
import dev.backoff.BackoffSchedule;
import dev.backoff.Jitter;
import dev.backoff.RetryBudget;
import dev.backoff.spring.config.BackoffConfigurationException;
import dev.backoff.spring.config.BackoffPolicies.SettingChange;
import dev.backoff.spring.config.BackoffPolicies;
import dev.backoff.spring.config.DurationFormat;
import dev.backoff.spring.config.PolicySetting;
import dev.backoff.spring.config.Suggestions;
import dev.backoff.spring.events.BackoffEvents;
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
 * overrides) and live counts by outcome, then the message listeners wired under a policy with
 * their outage ({@link ListenerStates}). {@code GET /actuator/backoff/{policy}} previews that
 * policy's schedule, retry by retry, and {@code GET /actuator/backoff/{policy}/events} shows
 * its recent events ({@link BackoffEvents}), by method and kind with {@code ?method=} and
 * {@code ?kind=}.
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

	/** The keys of a change's body: the settings that may change while the application runs. */
	private static final List<String> SETTINGS = PolicySetting.all()
		.stream()
		.filter(PolicySetting::isLive)
		.map(PolicySetting::key)
		.toList();

	private final BackoffOperationSource operations;

	private final @Nullable BackoffCallCounts counts;

	private final @Nullable BackoffEvents events;

	private final @Nullable ListenerStates listeners;

	private final SchedulePreviews previews = new SchedulePreviews();

	/**
	 * @param operations the resolved {@code @Backoff} methods and their policies
	 * @param counts the live counts, or {@code null} without metrics
	 */
	public BackoffEndpoint(BackoffOperationSource operations, @Nullable BackoffCallCounts counts) {
		this(operations, counts, null, null);
	}

	/**
	 * @param operations the resolved {@code @Backoff} methods and their policies
	 * @param counts the live counts, or {@code null} without metrics
	 * @param events the recent events, or {@code null} when none are recorded
	 * @param listeners the message listeners wired under a policy, or {@code null} when there are none
	 */
	public BackoffEndpoint(BackoffOperationSource operations, @Nullable BackoffCallCounts counts,
			@Nullable BackoffEvents events, @Nullable ListenerStates listeners) {
		this.operations = operations;
		this.counts = counts;
		this.events = events;
		this.listeners = listeners;
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
		Map<String, ListenerStates.ListenerDescriptor> listeners = (this.listeners != null)
				? this.listeners.listeners() : Map.of();
		return new PoliciesDescriptor(this.operations.getExecutor().getNested().name().toLowerCase(Locale.ROOT),
				descriptors, listeners.isEmpty() ? null : listeners);
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
	 * @param policy a policy name, or {@value BackoffPolicies#DEFAULTS}
	 * @param events {@value RecentEvents#SEGMENT}
	 * @param method only this method's events ({@code SimpleClassName.methodName}), or {@code null} for all
	 * @param kind only events of this kind ({@code retry-scheduled}…), or {@code null} for all
	 * @return 200 with the policy's recent events, newest first; 400 for an unknown kind; 404
	 * when there is no such policy
	 */
	@ReadOperation
	public WebEndpointResponse<OperationResponseBody> events(@Selector String policy, @Selector String events,
			@Nullable String method, @Nullable String kind) {
		if (this.operations.getPolicies().get(policy) == null) {
			return unknown(policy);
		}
		if (!RecentEvents.SEGMENT.equals(events)) {
			return RecentEvents.noSuchPath(policy, events);
		}
		return RecentEvents.answer(policy, this.events, method, kind);
	}

	/**
	 * Changes a policy: calls that start afterwards use the new settings, calls in flight
	 * finish as they started, and a method's annotation attributes still win over the policy.
	 * Validated by the rules of start-up, all settings or none. Settings not given keep their
	 * value, earlier changes included.
	 * @param policy a policy name, or {@value BackoffPolicies#DEFAULTS} (whose settings the
	 * policies that leave them unset inherit)
	 * @param settings the request body: the settings to change, named as Java properties, a
	 * budget's flat ({@code budgetMaxTokens}), valued as the YAML writes them
	 * ({@code {"maxAttempts": "5", "baseDelay": "250ms"}}); docs/endpoint.md lists them
	 * @return 200 with what changed and the settings in force; 400 naming the property, the
	 * value and the rule, or the keys that are no setting, when nothing changed; 404 when there
	 * is no such policy
	 */
	@WriteOperation
	public WebEndpointResponse<OperationResponseBody> change(@Selector String policy,
			@Nullable Map<String, Object> settings) {
		if (this.operations.getPolicies().get(policy) == null) {
			return unknown(policy);
		}
		Map<String, Object> changes = new LinkedHashMap<>();
		Set<String> unknown = new TreeSet<>();
		((settings != null) ? settings : Map.<String, Object>of()).forEach((key, value) -> {
			PolicySetting<?> setting = PolicySetting.all()
				.stream()
				.filter((candidate) -> candidate.isLive() && candidate.key().equals(key))
				.findFirst()
				.orElse(null);
			if (setting == null) {
				unknown.add(key);
			}
			else if (value != null) {
				changes.put(setting.name(), String.valueOf(value));
			}
		});
		if (!unknown.isEmpty()) {
			return unknownSettings(policy, unknown);
		}
		if (changes.isEmpty()) {
			return invalid(policy, "the body names no setting to change; give one or more of "
					+ String.join(", ", SETTINGS) + ", as JSON such as {\"maxAttempts\": 1}");
		}
		try {
			return changed(policy, this.operations.change(policy, changes));
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
		List<String> all = new ArrayList<>(names);
		all.add(BackoffPolicies.DEFAULTS);
		return new WebEndpointResponse<>(new InvalidChangeDescriptor(policy, null, null, null,
				"No Backoff policy is named '" + policy + "'; configured: " + BackoffPolicies.DEFAULTS
						+ (names.isEmpty() ? "" : ", " + String.join(", ", names))
						+ Suggestions.nearest(policy, all).map((name) -> ". Did you mean '" + name + "'?").orElse("")),
				WebEndpointResponse.STATUS_NOT_FOUND);
	}

	/** The answer to a change whose body names keys that are no setting: 400, naming them. */
	private static WebEndpointResponse<OperationResponseBody> unknownSettings(String policy, Set<String> keys) {
		String named = String.join(", ", keys);
		// The nearest setting of each key that has a close one, and with several keys which key it is for.
		String nearest = keys.stream()
			.flatMap((key) -> Suggestions.nearest(key, SETTINGS)
				.map((setting) -> (keys.size() == 1) ? setting : setting + " for " + key)
				.stream())
			.collect(Collectors.joining(", "));
		String rule = "the body names " + named + ", which " + ((keys.size() == 1) ? "is no setting" : "are no settings")
				+ (nearest.isEmpty() ? "" : " (did you mean " + nearest + "?)") + "; the settings are "
				+ String.join(", ", SETTINGS) + ". Nothing was changed";
		return new WebEndpointResponse<>(new InvalidChangeDescriptor(policy, named, null, rule, rule),
				WebEndpointResponse.STATUS_BAD_REQUEST);
	}

	private static WebEndpointResponse<OperationResponseBody> invalid(String policy, String rule) {
		return new WebEndpointResponse<>(new InvalidChangeDescriptor(policy, null, null, rule, rule),
				WebEndpointResponse.STATUS_BAD_REQUEST);
	}

	/** A policy's settings in force, with the named policy's budget and HTTP settings. */
	private Map<String, Object> settings(String name, BackoffPolicy policy) {
		return SettingsListing.of(this.operations.getPolicies(), name, policy);
	}

	private PolicyDescriptor describe(String name, BackoffPolicy policy) {
		Map<String, MethodDescriptor> methods = new TreeMap<>();
		for (BackoffOperation operation : this.operations.getAll()) {
			if (operation.getPolicyName().equals(name)) {
				BackoffPolicy own = operation.getPolicy();
				methods.put(operation.getMethodTag(),
						new MethodDescriptor(settings(name, own), rounded(WorstCaseDelays.total(own)),
								rounded(WorstCaseDelays.schedule(own)), operation.getFallbackName(),
								(this.counts != null) ? this.counts.get(operation) : null));
			}
		}
		Map<String, SettingChange> changes = this.operations.getPolicies().getChanges(name);
		return new PolicyDescriptor(settings(name, policy), changes.isEmpty() ? null : changes,
				rounded(WorstCaseDelays.total(policy)), rounded(WorstCaseDelays.schedule(policy)), methods);
	}

	private PreviewDescriptor preview(String name, BackoffPolicy policy) {
		BackoffSchedule schedule = policy.getSchedule();
		String growth = (schedule.getJitter() == Jitter.DECORRELATED)
				? "decorrelated: each wait is drawn from [base-delay, 3 x the previous wait], capped at max-delay"
				: String.format(Locale.ROOT,
						"after a total wait T the next ceiling is base-delay + %.2f x T: each wait is about %.0f%% of the time already waited",
						schedule.getMultiplier() - 1, (schedule.getMultiplier() - 1) * 100);
		Duration maxElapsed = policy.getRules().getMaxElapsed();
		List<RetryPreview> retries = this.previews.retries(schedule, maxElapsed);
		BackoffSchedule throttling = schedule.getThrottling();
		int total = schedule.getMaxRetries();
		String listed = (total > retries.size())
				? "the first " + retries.size() + " of " + total + " retries; the worst case counts them all" : null;
		return new PreviewDescriptor(name, settings(name, policy), rounded(WorstCaseDelays.total(policy)),
				rounded(WorstCaseDelays.schedule(policy)), growth,
				SchedulePreviews.SAMPLES, total, listed, retries, (throttling != null) ? this.previews.retries(throttling, maxElapsed) : null);
	}

	static String rounded(Duration duration) {
		return DurationFormat.formatRounded(duration);
	}

	/**
	 * Every policy by name, what nested calls do ({@code backoff.nested}), and the message
	 * listeners wired under a policy with their outage, by id ({@code null} when there are none).
	 */
	public record PoliciesDescriptor(String nested, Map<String, PolicyDescriptor> policies,
			@Nullable Map<String, ListenerStates.ListenerDescriptor> listeners) implements OperationResponseBody {
	}

	/**
	 * One policy: its settings in force, what of them differs from the configuration
	 * ({@code null} when nothing does), its worst-case total wait ({@code worstCaseTotalDelay}:
	 * before each retry the longest of its schedule, its throttling schedule and a server's
	 * {@code Retry-After} hint up to {@code max-retry-after}) and its schedule's alone
	 * ({@code worstCaseScheduleDelay}), both never past {@code max-elapsed}, and the methods that use it.
	 */
	public record PolicyDescriptor(Map<String, Object> settings, @Nullable Map<String, SettingChange> changes,
			String worstCaseTotalDelay, String worstCaseScheduleDelay, Map<String, MethodDescriptor> methods) {
	}

	/**
	 * The answer to a change: by policy, the settings that have another value now (a change to
	 * {@value BackoffPolicies#DEFAULTS} changes the policies that inherit it), and the changed
	 * policy's settings in force.
	 */
	public record ChangeDescriptor(String policy, Map<String, Map<String, SettingChange>> changes,
			Map<String, Object> settings) implements OperationResponseBody {
	}

	/**
	 * The answer to a change that was refused, so that nothing changed: the property at fault,
	 * the value given and the rule it breaks, as start-up reports them, or why there is no such policy.
	 */
	public record InvalidChangeDescriptor(String policy, @Nullable String property, @Nullable String value,
			@Nullable String rule, String message) implements OperationResponseBody {
	}

	/** One {@code @Backoff} method: its effective settings, its worst cases and its calls by outcome. */
	public record MethodDescriptor(Map<String, Object> settings, String worstCaseTotalDelay,
			String worstCaseScheduleDelay, @Nullable String fallback, @Nullable Map<String, Long> calls) {
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
	 * lists at most {@value SchedulePreviews#MAX_PREVIEW_RETRIES} ({@code listed} says so when it stops short);
	 * and {@code throttling}, the waits if every failure were throttling, when the policy has a
	 * throttling schedule ({@code null} otherwise). A call's waits mix the two, retry by retry.
	 * Its worst cases are those of {@link PolicyDescriptor}.
	 */
	public record PreviewDescriptor(String policy, Map<String, Object> settings, String worstCaseTotalDelay,
			String worstCaseScheduleDelay, String growth, int samples, int retries, @Nullable String listed,
			List<RetryPreview> schedule,
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
